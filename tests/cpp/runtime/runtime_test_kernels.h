// Hand-written PTX for the runtime tests (the code generator is tested elsewhere): they
// exercise ptxas, module loading, parameter packing, the shared-memory opt-in and faults.
#pragma once

namespace test_kernels {

// out[i] = x[i] + y[i] for i < n; one element per thread.
inline const char *kVectorAddPtx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry add_kernel(
    .param .u64 x_ptr,
    .param .u64 y_ptr,
    .param .u64 output_ptr,
    .param .u32 n_elements)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x_ptr];
    ld.param.u64 %rd2, [y_ptr];
    ld.param.u64 %rd3, [output_ptr];
    ld.param.u32 %r1, [n_elements];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.s32 %rd4, %r5, 4;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    add.s64 %rd7, %rd3, %rd4;
    ld.global.f32 %f1, [%rd5];
    ld.global.f32 %f2, [%rd6];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd7], %f3;
DONE:
    ret;
}
)";

// Writes each scalar parameter, widened to 64 bits, to out[0..8]: a (s8), b (s16), c (s32),
// d (s64), h (fp16 bits, zero-extended), f (fp32 -> fp64 bits), g (fp64 bits), flag (u8),
// u (u32, zero-extended).
inline const char *kParamsPtx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry params_kernel(
    .param .u64 out,
    .param .s8 a,
    .param .s16 b,
    .param .s32 c,
    .param .s64 d,
    .param .b16 h,
    .param .f32 f,
    .param .f64 g,
    .param .u8 flag,
    .param .u32 u)
{
    .reg .b16 %rs<4>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<12>;
    .reg .f32 %f<2>;
    .reg .f64 %fd<3>;
    ld.param.u64 %rd1, [out];
    ld.param.s8 %rs1, [a];
    cvt.s64.s16 %rd2, %rs1;
    st.global.u64 [%rd1], %rd2;
    ld.param.s16 %rs2, [b];
    cvt.s64.s16 %rd3, %rs2;
    st.global.u64 [%rd1+8], %rd3;
    ld.param.s32 %r1, [c];
    cvt.s64.s32 %rd4, %r1;
    st.global.u64 [%rd1+16], %rd4;
    ld.param.s64 %rd5, [d];
    st.global.u64 [%rd1+24], %rd5;
    ld.param.b16 %rs3, [h];
    cvt.u64.u16 %rd6, %rs3;
    st.global.u64 [%rd1+32], %rd6;
    ld.param.f32 %f1, [f];
    cvt.f64.f32 %fd1, %f1;
    st.global.f64 [%rd1+40], %fd1;
    ld.param.f64 %fd2, [g];
    st.global.f64 [%rd1+48], %fd2;
    ld.param.u8 %r2, [flag];
    cvt.u64.u32 %rd7, %r2;
    st.global.u64 [%rd1+56], %rd7;
    ld.param.u32 %r3, [u];
    cvt.u64.u32 %rd8, %r3;
    st.global.u64 [%rd1+64], %rd8;
    ret;
}
)";

// Stores to address 16: an illegal address.
inline const char *kFaultPtx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry fault_kernel(
    .param .u64 unused)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    mov.u64 %rd1, 16;
    mov.u32 %r1, 1;
    st.global.u32 [%rd1], %r1;
    ret;
}
)";

// 256 threads; thread t writes t to dynamic shared memory at byte (nbytes - 1024 + 4t),
// then out[t] = the value thread (t + 1) % 256 wrote. Needs `nbytes` of dynamic shared
// memory (more than 48 KB exercises the opt-in).
inline const char *kSharedPtx = R"(.version 8.0
.target sm_80
.address_size 64

.extern .shared .align 16 .b8 smem[];

.visible .entry smem_kernel(
    .param .u64 out,
    .param .u32 nbytes)
{
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [nbytes];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, smem;
    add.u32 %r4, %r3, %r1;
    sub.u32 %r4, %r4, 1024;
    shl.b32 %r5, %r2, 2;
    add.u32 %r6, %r4, %r5;
    st.shared.u32 [%r6], %r2;
    bar.sync 0;
    add.u32 %r7, %r2, 1;
    and.b32 %r7, %r7, 255;
    shl.b32 %r8, %r7, 2;
    add.u32 %r9, %r4, %r8;
    ld.shared.u32 %r9, [%r9];
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r9;
    ret;
}
)";

} // namespace test_kernels
