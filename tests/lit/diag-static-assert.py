# A failing static_assert is a compile error at the kernel's absolute line.
# CMD: tilec ir %s:k --signature "*fp32" --constexpr BLOCK=48
# CHECK-ERROR: diag-static-assert.py:14:5: error: static_assert failed: BLOCK must be a power of two
# CHECK-ERROR: tl.static_assert(BLOCK % 16 == 0
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out, BLOCK: tl.constexpr):
    tl.static_print("BLOCK =", BLOCK)
    # BLOCK must be a power of two for arange

    tl.static_assert(BLOCK % 16 == 0 and (BLOCK & (BLOCK - 1)) == 0, "BLOCK must be a power of two")
    tl.store(out + tl.arange(0, BLOCK), 1.0)
