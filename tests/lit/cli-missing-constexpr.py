# A constexpr parameter without a default needs a value.
# CMD: tilec ir %s:k --signature "*fp32,i32"
# EXIT: 2
# CHECK-ERROR: tilec: constexpr parameter 'BLOCK' of 'k' needs a value: --constexpr BLOCK=VALUE
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out, n, BLOCK: tl.constexpr):
    tl.store(out + tl.arange(0, BLOCK), 1.0, mask=tl.arange(0, BLOCK) < n)
