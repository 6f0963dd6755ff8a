# fp32 atomic_add over 4 consecutive, 16-byte aligned elements per thread: on sm_90 one
# atom.v4.f32 (PTX ISA 8.1, so the module says .version 8.1), as Triton emits it; the
# old values come back as a vector too. (sm_80 keeps one atom per element: ptx-atomic-
# add-scalar.py.)
# CMD: tilec ptx %s:scatter_add --signature "*fp32:16,*i32:16,*fp32:16" --constexpr ROW=512 --num-warps 4 --arch sm_90a
# CHECK: .version 8.1
# CHECK-NOT: atom.global.gpu.relaxed.add.f32
# CHECK: atom.global.gpu.relaxed.add.v4.f32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
import tilec as triton
import tilec.language as tl


@triton.jit
def scatter_add(out_ptr, idx_ptr, src_ptr, ROW: tl.constexpr):
    row = tl.load(idx_ptr + tl.program_id(0))
    cols = tl.arange(0, ROW)
    v = tl.load(src_ptr + tl.program_id(0) * ROW + cols)
    tl.atomic_add(out_ptr + row * ROW + cols, v, sem="relaxed")
