# tl.dot needs M, N and K of at least 16 (as Triton): a clear error at the call.
# CMD: tilec ptx %s:k --signature "*fp16:16,*fp32:16"
# EXIT: 1
# CHECK-ERROR: ptx-dot-small-k.py:13:9: error:
import tilec as triton
import tilec.language as tl


@triton.jit
def k(a_ptr, c_ptr):
    offs = tl.arange(0, 8)
    a = tl.load(a_ptr + offs[:, None] * 8 + offs[None, :])
    c = tl.dot(a, a)
    tl.store(c_ptr + offs[:, None] * 8 + offs[None, :], c)
