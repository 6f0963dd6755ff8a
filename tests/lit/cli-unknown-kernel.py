# Naming a kernel the file does not define lists the @jit functions it does define.
# CMD: tilec ir %s:mul_kernel --signature "*fp32"
# CHECK-ERROR: error: no function 'mul_kernel' in '{{.*}}cli-unknown-kernel.py'; its @jit functions are: 'add_one'
import tilec as triton
import tilec.language as tl


@triton.jit
def add_one(out):
    tl.store(out, tl.load(out) + 1)
