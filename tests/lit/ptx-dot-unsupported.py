# tl.dot has no GPU lowering yet: a clear error at the call.
# CMD: tilec ptx %s:k --signature "*fp16:16,*fp32:16"
# EXIT: 1
# CHECK-ERROR: ptx-dot-unsupported.py:13:9: error: tl.dot is not supported on the GPU yet
import tilec as triton
import tilec.language as tl


@triton.jit
def k(a_ptr, c_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs[:, None] * 16 + offs[None, :])
    c = tl.dot(a, a)
    tl.store(c_ptr + offs[:, None] * 16 + offs[None, :], c)
