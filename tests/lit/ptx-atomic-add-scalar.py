# The kernel of ptx-atomic-add-vector.py for sm_80, which has no vector atomics: one
# atom.f32 per element, and the module stays at PTX ISA 8.0.
# CMD: tilec ptx %s:scatter_add --signature "*fp32:16,*i32:16,*fp32:16" --constexpr ROW=512 --num-warps 4 --arch sm_80
# CHECK: .version 8.0
# CHECK-NOT: .v4.f32
# CHECK: atom.global.gpu.relaxed.add.f32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
import tilec as triton
import tilec.language as tl


@triton.jit
def scatter_add(out_ptr, idx_ptr, src_ptr, ROW: tl.constexpr):
    row = tl.load(idx_ptr + tl.program_id(0))
    cols = tl.arange(0, ROW)
    v = tl.load(src_ptr + tl.program_id(0) * ROW + cols)
    tl.atomic_add(out_ptr + row * ROW + cols, v, sem="relaxed")
