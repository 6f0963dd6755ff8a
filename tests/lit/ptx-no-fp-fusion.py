# enable_fp_fusion=False from the CLI: the kernel's f32 mul/add/sub keep .rn (no contraction
# into fma by ptxas); --maxnreg prints the .maxnreg directive after .reqntid.
# CMD: tilec ptx %s:axpb --signature "*fp32:16,*fp32:16,*fp32:16,i32" --constexpr BLOCK=256 --no-fp-fusion --maxnreg 64
# CHECK: .reqntid 128, 1, 1
# CHECK-NEXT: .maxnreg 64
# CHECK: mul.rn.f32
# CHECK: add.rn.f32
# CHECK: sub.rn.f32
# CHECK-NOT: mul.f32
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def axpb(X, Y, Z, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    y = tl.load(Y + offs, mask=m)
    tl.store(Z + offs, x * y + x - y, mask=m)
