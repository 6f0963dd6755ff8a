# Row softmax lowered to Thread IR: in-thread maxima, butterfly shuffles across the warp,
# partials through shared memory across warps, then the same for the sum.
# CMD: tilec ptx %s:softmax_kernel --signature "*fp32:16,*fp32:16,i32:16,i32:16,i32:16" --constexpr BLOCK_SIZE=1024 --thread-ir --arch sm_80
# CHECK: func softmax_kernel(softmax_kernel_param_0: u64,
# CHECK: ld.global.v4.b32
# CHECK: max.f32
# CHECK: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 31, 4294967295;
# CHECK: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1, 31, 4294967295;
# CHECK: st.shared.b32
# CHECK-NEXT: bar.sync 0;
# CHECK: ex2.approx.f32
# CHECK: shfl.sync.bfly.b32
# CHECK: div.full.f32
# CHECK: st.global.v4.b32
import tilec as triton
import tilec.language as tl


@triton.jit
def softmax_kernel(input_ptr, output_ptr, input_row_stride, output_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    mask = col_offsets < n_cols
    row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
    row_max = tl.max(row, axis=0)
    row_minus_max = row - row_max
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    output_ptrs = output_row_start_ptr + col_offsets
    tl.store(output_ptrs, softmax_output, mask=mask)
