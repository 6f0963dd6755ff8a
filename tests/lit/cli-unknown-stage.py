# CMD: tilec ir %s:k --signature "*fp32" --stage optimize
# EXIT: 2
# CHECK-ERROR: tilec: unknown --stage 'optimize' (stages: frontend, canonicalize, licm, cse, dce, cleanup)
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out):
    tl.store(out, 1.0)
