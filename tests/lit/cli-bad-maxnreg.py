# A launch option out of range is a bad command line (exit 2), not an internal error.
# CMD: tilec ptx %s:k --signature "*fp32" --constexpr BLOCK=64 --maxnreg 100000 --arch sm_90a
# EXIT: 2
# CHECK-ERROR: tilec: maxnreg must be from 16 to 255 registers per thread, got 100000
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out, BLOCK: tl.constexpr):
    tl.store(out + tl.arange(0, BLOCK), 1.0)
