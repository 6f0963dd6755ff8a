# CMD: tilec ptx %s:k --signature "*fp32" --arch sm_80a
# EXIT: 2
# CHECK-ERROR: tilec: --arch expects a target such as sm_90a, sm_90, sm_80 or cuda:90, got 'sm_80a'
import tilec as triton
import tilec.language as tl


@triton.jit
def k(x_ptr):
    tl.store(x_ptr, 1.0)
