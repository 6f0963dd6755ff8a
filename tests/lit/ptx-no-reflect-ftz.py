# enable_reflect_ftz=False from the CLI: f32 exp2 keeps its subnormal results (ex2.approx
# without .ftz).
# CMD: tilec ptx %s:exp2_kernel --signature "*fp32:16,*fp32:16" --no-reflect-ftz
# CHECK: ex2.approx.f32
# CHECK-NOT: ex2.approx.ftz
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def exp2_kernel(X, Y):
    offs = tl.arange(0, 128)
    tl.store(Y + offs, tl.math.exp2(tl.load(X + offs)))
