# tl.math.exp2 on f32 is ex2.approx.ftz, as Triton's libdevice under enable_reflect_ftz (its
# default): one MUFU.EX2, subnormal results flush to 0. tl.exp keeps ex2.approx (Triton's
# exp lowering), after the multiply by log2(e) (rounded: it is the compiler's, not the
# user's, so ptxas must not contract it).
# CMD: tilec ptx %s:exps --signature "*fp32:16,*fp32:16,*fp32:16"
# CHECK: ex2.approx.ftz.f32
# CHECK: mul.rn.f32
# CHECK-NEXT: ex2.approx.f32
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def exps(X, Y, Z):
    offs = tl.arange(0, 128)
    x = tl.load(X + offs)
    tl.store(Y + offs, tl.math.exp2(x))
    tl.store(Z + offs, tl.exp(x))
