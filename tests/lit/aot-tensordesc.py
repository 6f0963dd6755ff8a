# `tilec compile` with tensor descriptor parameters: the header defines one struct per rank
# ({base, int32 shape[R], int64 strides[R]}) and the launchers take it whole; the launch
# checks Triton's rules (16-byte aligned base, shapes >= 1, last stride 1, the others whole
# 16 bytes: 4 fp32, 8 fp16), then the hint of `:16` (shapes and strides multiples of 16, as
# for integers: a mismatch is no specialisation), and packs the parts in the order of the
# kernel's .params (base, shapes, strides but the last), the grid reading the shapes.
# CMD: tilec compile %s:desc_copy -s "tensordesc<fp32[32, 64]>:16, tensordesc<fp16[4, 16, 32], nan>, fp32, 32" -g "cdiv(src.shape[0], 32), cdiv(src.shape[1], 64)" --no-cubin -o -
# CHECK: // ---- desc_copy.h
# CHECK: // tilec-aot-args: src=tensordesc<fp32[32,64]>:16 dst=tensordesc<fp16[4,16,32],nan> alpha=fp32
# CHECK: #define TILEC_AOT_ERROR_DESC_BASE (-2)
# CHECK-NEXT: #define TILEC_AOT_ERROR_DESC_SHAPE (-3)
# CHECK-NEXT: #define TILEC_AOT_ERROR_DESC_STRIDES (-4)
# CHECK: #ifndef TILEC_AOT_TENSORDESC_2D
# CHECK: typedef struct tilec_tensordesc_2d {
# CHECK-NEXT: unsigned long long base;
# CHECK-NEXT: int32_t shape[2];
# CHECK-NEXT: int64_t strides[2];
# CHECK-NEXT: } tilec_tensordesc_2d;
# CHECK: typedef struct tilec_tensordesc_3d {
# CHECK-NEXT: unsigned long long base;
# CHECK-NEXT: int32_t shape[3];
# CHECK-NEXT: int64_t strides[3];
# CHECK: TILEC_AOT_ERROR_DESC_* (tensor descriptors, checked first) or a CUresult. */
# CHECK-NEXT: int desc_copy_grid(struct CUstream_st *stream, int64_t grid_x, int64_t grid_y, int64_t grid_z, tilec_tensordesc_2d src, tilec_tensordesc_3d dst, float alpha);
# CHECK: int desc_copy(struct CUstream_st *stream, tilec_tensordesc_2d src, tilec_tensordesc_3d dst, float alpha);
# CHECK: // ---- desc_copy.cpp
# CHECK: extern "C" int desc_copy_grid(
# CHECK-NEXT: if (src.base % 16 != 0)
# CHECK-NEXT: return TILEC_AOT_ERROR_DESC_BASE;
# CHECK-NEXT: if (src.shape[0] < 1 || src.shape[1] < 1)
# CHECK-NEXT: return TILEC_AOT_ERROR_DESC_SHAPE;
# CHECK-NEXT: if (src.strides[1] != 1 || src.strides[0] % 4 != 0)
# CHECK-NEXT: return TILEC_AOT_ERROR_DESC_STRIDES;
# CHECK-NEXT: if (dst.base % 16 != 0)
# CHECK: if (dst.strides[2] != 1 || dst.strides[0] % 8 != 0 || dst.strides[1] % 8 != 0)
# CHECK-NEXT: return TILEC_AOT_ERROR_DESC_STRIDES;
# CHECK-NEXT: if (!(src.shape[0] % 16 == 0 && src.shape[1] % 16 == 0 && src.strides[0] % 16 == 0))
# CHECK-NEXT: return TILEC_AOT_ERROR_NO_SPECIALISATION;
# CHECK: uint64_t slots[11] = {0};
# CHECK: unsigned long long v0 = (unsigned long long)src.base;
# CHECK: int32_t v1 = (int32_t)src.shape[0];
# CHECK: int32_t v2 = (int32_t)src.shape[1];
# CHECK: int64_t v3 = (int64_t)src.strides[0];
# CHECK: unsigned long long v4 = (unsigned long long)dst.base;
# CHECK: int32_t v7 = (int32_t)dst.shape[2];
# CHECK: int64_t v8 = (int64_t)dst.strides[0];
# CHECK: float v10 = (float)alpha;
# CHECK: return desc_copy_grid(stream, tilec_aot_cdiv(((int64_t)src.shape[0]), INT64_C(32)), tilec_aot_cdiv(((int64_t)src.shape[1]), INT64_C(64)), INT64_C(1), src, dst, alpha);
# CHECK: if (code == TILEC_AOT_ERROR_DESC_BASE)
# CHECK-NEXT: return "desc_copy: tensor descriptor src or dst: the base is not 16-byte aligned";
import tilec as triton
import tilec.language as tl


@triton.jit
def desc_copy(src, dst, alpha, BM: tl.constexpr):
    pm = tl.program_id(0) * BM
    x = src.load([pm, 0])
    dst.store([0, 0, 0], tl.reshape(x * alpha, (4, 16, 32)).to(tl.float16))
