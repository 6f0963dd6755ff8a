# The signature must list every non-constexpr parameter.
# CMD: tilec ir %s:k --signature "*fp32" --constexpr BLOCK=64
# EXIT: 2
# CHECK-ERROR: tilec: --signature has 1 entries, but 'k' has 2 non-constexpr parameters (out, n)
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out, n, BLOCK: tl.constexpr):
    tl.store(out + tl.arange(0, BLOCK), 1.0, mask=tl.arange(0, BLOCK) < n)
