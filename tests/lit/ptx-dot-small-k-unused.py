# A dot below Triton's minimum K is an error on the GPU path even when its result is
# unused (Triton checks it where the dot is written, before dead code goes: its
# test_min_dot_size); the interpreter runs any K.
# CMD: tilec ptx %s:k --signature "*fp16:16"
# EXIT: 1
# CHECK-ERROR: ptx-dot-small-k-unused.py:14:5: error: Input shapes should have M >= 1, N >= 1 and K >= 16; got input shapes [8, 8] and [8, 8]
import tilec as triton
import tilec.language as tl


@triton.jit
def k(a_ptr):
    a = tl.full((8, 8), 0.0, tl.float16)
    tl.dot(a, a)
