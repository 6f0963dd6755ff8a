# --constexpr must name a parameter.
# CMD: tilec ir %s:k --signature "*fp32,i32" --constexpr BLOCK=64 --constexpr BLOCK_N=2
# EXIT: 2
# CHECK-ERROR: tilec: --constexpr BLOCK_N: kernel 'k' has no parameter 'BLOCK_N' (parameters: out, n, BLOCK)
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out, n, BLOCK: tl.constexpr):
    tl.store(out + tl.arange(0, BLOCK), 1.0, mask=tl.arange(0, BLOCK) < n)
