# A host TensorDescriptor parameter, spelled as Triton's signatures spell it
# (tensordesc<fp16[64, 64]>), is its parts in the kernel: the base pointer, the shape as
# int32s and every stride but the last (1) as an int64, in that order.
# CMD: tilec ptx %s:scale --signature "tensordesc<fp16[64, 64]>, tensordesc<float16[64,64]>, fp32" --constexpr BM=64 --arch sm_90a
# CHECK: .visible .entry scale(
# CHECK-NEXT: .param .u64 scale_param_0,
# CHECK-NEXT: .param .s32 scale_param_1,
# CHECK-NEXT: .param .s32 scale_param_2,
# CHECK-NEXT: .param .s64 scale_param_3,
# CHECK-NEXT: .param .u64 scale_param_4,
# CHECK-NEXT: .param .s32 scale_param_5,
# CHECK-NEXT: .param .s32 scale_param_6,
# CHECK-NEXT: .param .s64 scale_param_7,
# CHECK-NEXT: .param .f32 scale_param_8
# CHECK: ld.global
# CHECK: st.global
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def scale(src, dst, alpha, BM: tl.constexpr):
    pm = tl.program_id(0) * BM
    dst.store([pm, 0], (src.load([pm, 0]) * alpha).to(tl.float16))
