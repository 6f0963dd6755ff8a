# tl.inline_asm_elementwise prints the user's PTX in its own { } scope, with $0 the result
# register and $1, $2 the operands'; fp16 with pack=2 travels as pairs in one b32 register
# (mov.b32 {lo, hi}), so one add.rn.f16x2 serves two elements.
# CMD: tilec ptx %s:add_pairs --signature "*fp16:16,*fp16:16,*fp16:16" --constexpr N=256 --num-warps 4 --arch sm_90a
# CHECK: .visible .entry add_pairs(
# CHECK: mov.b32 %r{{[0-9]+}}, {%rs{{[0-9]+}}, %rs{{[0-9]+}}};
# CHECK: { // inline asm
# CHECK-NEXT: add.rn.f16x2 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
# CHECK-NEXT: }
# CHECK: mov.b32 {%rs{{[0-9]+}}, %rs{{[0-9]+}}}, %r{{[0-9]+}};
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def add_pairs(X, Y, Z, N: tl.constexpr):
    off = tl.arange(0, N)
    z = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $2;", "=r,r,r",
                                  [tl.load(X + off), tl.load(Y + off)], dtype=tl.float16,
                                  is_pure=True, pack=2)
    tl.store(Z + off, z)
