// The seed kernels (shared/seeds/kernels.py) lower to verified Tile IR.
#include "SemaTestUtil.h"

namespace tilec::sema::test {
namespace {

const char *kAdd = R"(@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)
)";

TEST(SemaKernels, VectorAdd) {
  Lowered l = lower("add_kernel", kAdd, {ptr(), ptr(), ptr(), int_arg(), cint(1024)});
  EXPECT_NE(l.ir.find("tt.func @add_kernel(%x_ptr: ptr<fp32>, %y_ptr: ptr<fp32>, "
                      "%output_ptr: ptr<fp32>, %n_elements: i32)"),
            std::string::npos)
      << l.ir;
  EXPECT_NE(l.ir.find("arange {end = 1024, start = 0} : tile<1024xi32>"), std::string::npos);
  EXPECT_EQ(count(l.ir, " = load "), 2u);
  EXPECT_EQ(count(l.ir, "store "), 1u);
  EXPECT_NE(l.ir.find("tt.divisibility = [16, 16, 16, 1]"), std::string::npos);
  const ir::Function &f = *l.result.module->functions.at(0);
  EXPECT_EQ(f.arg_names, (std::vector<std::string>{"x_ptr", "y_ptr", "output_ptr", "n_elements"}));
  EXPECT_EQ(f.entry()->ops().back()->kind(), ir::OpKind::Return);
}

TEST(SemaKernels, VectorAddEqualTo1AndI64) {
  ArgSpec one = int_arg();
  one.equal_to_1 = true; // specialised away: not an argument, folded as 1
  Lowered l = lower("add_kernel", kAdd, {ptr(), ptr(), ptr(), one, cint(128)});
  EXPECT_EQ(l.result.module->functions[0]->entry()->num_args(), 3u);
  Lowered l64 =
      lower("add_kernel", kAdd, {ptr(), ptr(), ptr(), int_arg(ir::DType::I64), cint(128)});
  EXPECT_NE(l64.ir.find("%n_elements: i64"), std::string::npos) << l64.ir;
}

TEST(SemaKernels, Gelu) {
  const char *src = R"(@triton.jit
def triton_gelu_kernel(x_ptr, y_ptr, num_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < num_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    a = 0.79788456 * (x + 0.044715 * x * x * x)
    exp = tl.exp(2 * a)
    tanh = (exp - 1) / (exp + 1)
    y = 0.5 * x * (1 + tanh)
    tl.store(y_ptr + offsets, y, mask=mask)
)";
  Lowered l = lower("triton_gelu_kernel", src, {ptr(), ptr(), int_arg(), cint(1024)});
  EXPECT_NE(l.ir.find("exp "), std::string::npos);
  EXPECT_NE(l.ir.find("div "), std::string::npos);
}

TEST(SemaKernels, Softmax) {
  const char *src = R"(@triton.jit
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
)";
  Lowered l =
      lower("softmax_kernel", src, {ptr(), ptr(), int_arg(), int_arg(), int_arg(), cint(256)});
  EXPECT_EQ(count(l.ir, " = reduce "), 2u) << l.ir;
}

const char *kMatmul = R"(@triton.autotune(
    configs=[
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 64}, num_stages=3, num_warps=8),
    ],
    key=['M', 'N', 'K'],
)
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_SIZE_K):
        a_mask = (offs_am[:, None] < M) & ((k + offs_k[None, :]) < K)
        b_mask = ((k + offs_k[:, None]) < K) & (offs_bn[None, :] < N)
        a = tl.load(a_ptrs, mask=a_mask, other=0.0)
        b = tl.load(b_ptrs, mask=b_mask, other=0.0)
        accumulator += tl.dot(a, b)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)
)";

TEST(SemaKernels, MatmulRuntimeKLoop) {
  std::vector<ArgSpec> args{ptr(ir::DType::F16), ptr(ir::DType::F16), ptr(ir::DType::F16)};
  for (int i = 0; i < 9; ++i)
    args.push_back(int_arg());
  for (int v : {64, 32, 32, 8})
    args.push_back(cint(v));
  Lowered l = lower("matmul_kernel", kMatmul, args);
  // One run-time loop carrying the accumulator and both pointer tiles.
  EXPECT_EQ(count(l.ir, " = for "), 1u) << l.ir;
  EXPECT_NE(l.ir.find("%K, "), std::string::npos);
  EXPECT_NE(l.ir.find("-> tile<64x32xptr<fp16>>, tile<64x32xfp32>, tile<32x32xptr<fp16>> {"),
            std::string::npos)
      << l.ir;
  EXPECT_NE(l.ir.find(" = dot "), std::string::npos);
}

TEST(SemaKernels, LayerNorm) {
  const char *src = R"(@triton.jit
def layernorm_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xmean = x - mean
    xmean = tl.where(mask, xmean, 0.0)
    var = tl.sum(xmean * xmean, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    x_hat = xmean * rstd
    w = tl.load(W + cols, mask=mask, other=1.0)
    b = tl.load(B + cols, mask=mask, other=0.0)
    y = x_hat * w + b
    tl.store(Y + cols, y, mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
)";
  Lowered l = lower(
      "layernorm_kernel", src,
      {ptr(), ptr(), ptr(), ptr(), ptr(), ptr(), int_arg(), int_arg(), float_arg(), cint(512)});
  EXPECT_EQ(count(l.ir, "store "), 3u);
  EXPECT_NE(l.ir.find("%eps: fp32"), std::string::npos) << l.ir;
}

TEST(SemaKernels, FusedAttention) {
  const char *src = R"(@triton.jit
def fused_attention_kernel(Q, K, V, Out,
                           stride_qz, stride_qh, stride_qm, stride_qk,
                           stride_kz, stride_kh, stride_kn, stride_kk,
                           stride_vz, stride_vh, stride_vn, stride_vk,
                           stride_oz, stride_oh, stride_om, stride_ok,
                           Z, H, N_CTX,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    q_offset = off_hz * stride_qh
    k_offset = off_hz * stride_kh
    v_offset = off_hz * stride_vh
    o_offset = off_hz * stride_oh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    q_ptrs = Q + q_offset + offs_m[:, None] * stride_qm + offs_k[None, :] * stride_qk
    q = tl.load(q_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        k_ptrs = K + k_offset + (start_n + offs_n)[:, None] * stride_kn + offs_k[None, :] * stride_kk
        v_ptrs = V + v_offset + (start_n + offs_n)[:, None] * stride_vn + offs_k[None, :] * stride_vk
        k = tl.load(k_ptrs, mask=(start_n + offs_n)[:, None] < N_CTX, other=0.0)
        v = tl.load(v_ptrs, mask=(start_n + offs_n)[:, None] < N_CTX, other=0.0)
        s = tl.dot(q, tl.trans(k))
        m_ij = tl.max(s, axis=1)
        m_i_new = tl.maximum(m_i, m_ij)
        alpha = tl.exp(m_i - m_i_new)
        p = tl.exp(s - m_i_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_i_new
    acc = acc / l_i[:, None]
    o_ptrs = Out + o_offset + offs_m[:, None] * stride_om + offs_k[None, :] * stride_ok
    tl.store(o_ptrs, acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < N_CTX)
)";
  std::vector<ArgSpec> args{ptr(ir::DType::F16), ptr(ir::DType::F16), ptr(ir::DType::F16),
                            ptr(ir::DType::F16)};
  for (int i = 0; i < 19; ++i)
    args.push_back(int_arg());
  for (int v : {32, 16, 16})
    args.push_back(cint(v));
  Lowered l = lower("fused_attention_kernel", src, args);
  EXPECT_EQ(count(l.ir, " = for "), 1u);
  // m_i, l_i and acc are carried; the loop-local k, v, s, p are not.
  EXPECT_NE(l.ir.find("-> tile<32x16xfp32>, tile<32xfp32>, tile<32xfp32> {"), std::string::npos)
      << l.ir;
  EXPECT_EQ(count(l.ir, " = dot "), 2u);
}

TEST(SemaKernels, SimpleKernel) {
  const char *src = R"(@triton.jit
def simple_kernel(x_ptr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, x * 2)
)";
  Lowered l = lower("simple_kernel", src, {ptr(), cint(128)});
  EXPECT_NE(l.ir.find("mul "), std::string::npos);
}

TEST(SemaKernels, DebugKernel) {
  const char *src = R"(@triton.jit
def debug_kernel(x_ptr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    if pid == 0:
        tl.device_print("Program ID:", pid)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs)
    if pid == 0:
        tl.device_print("First element:", tl.load(x_ptr))
)";
  Lowered l = lower("debug_kernel", src, {ptr(), cint(64)});
  EXPECT_EQ(count(l.ir, " if "), 2u) << l.ir;
  EXPECT_EQ(count(l.ir, "print "), 2u);
}

TEST(SemaKernels, AddKernelDebugStaticPrint) {
  const char *src = R"(@triton.jit
def add_kernel_debug(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    tl.static_print(f"BLOCK_SIZE:{BLOCK_SIZE}")
    if pid == 1:
        tl.device_print("pid", pid)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)
)";
  Lowered l = lower("add_kernel_debug", src, {ptr(), ptr(), ptr(), int_arg(), cint(1024)});
  EXPECT_EQ(l.result.static_output, "BLOCK_SIZE:1024\n");
}

TEST(SemaKernels, HeuristicAdd) {
  std::string src = kAdd;
  src.replace(src.find("def add_kernel"), 14, "def add_kernel_heuristic");
  src = "@triton.heuristics(values={'BLOCK_SIZE': heuristic_add_block_size})\n" + src;
  Lowered l = lower(make_fn("add_kernel_heuristic", src, std_globals(), 40),
                    {ptr(), ptr(), ptr(), int_arg(), cint(256)});
  EXPECT_NE(l.ir.find("tt.func @add_kernel_heuristic"), std::string::npos);
  EXPECT_NE(l.ir.find("tile<256xfp32>"), std::string::npos);
}

} // namespace
} // namespace tilec::sema::test
