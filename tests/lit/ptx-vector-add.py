# The seed vector add down the GPU path: 16-byte vector loads and stores under the mask.
# CMD: tilec ptx %s:add_kernel --signature "*fp32:16,*fp32:16,*fp32:16,i32:16" --constexpr BLOCK_SIZE=1024 --num-warps 4 --arch sm_90a
# CHECK: .version 8.0
# CHECK-NEXT: .target sm_90a
# CHECK: .visible .entry add_kernel(
# CHECK-NEXT: .param .u64 add_kernel_param_0,
# CHECK: .param .s32 add_kernel_param_3
# CHECK: .reqntid 128, 1, 1
# CHECK: mov.u32 %r{{[0-9]+}}, %ctaid.x;
# CHECK: @%p{{[0-9]+}} ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
# CHECK: add.f32
# CHECK: @%p{{[0-9]+}} st.global.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)
