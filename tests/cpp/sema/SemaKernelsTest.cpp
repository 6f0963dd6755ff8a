// The seed kernels (shared/seeds/kernels.py) lower to verified Tile IR.
#include "../SeedKernels.h"
#include "SemaTestUtil.h"

namespace tilec::sema::test {
namespace {

const std::string kAdd = tilec::test::seed_kernel("add_kernel");

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
  const std::string src = tilec::test::seed_kernel("triton_gelu_kernel");
  Lowered l = lower("triton_gelu_kernel", src, {ptr(), ptr(), int_arg(), cint(1024)});
  EXPECT_NE(l.ir.find("exp "), std::string::npos);
  EXPECT_NE(l.ir.find("div "), std::string::npos);
}

TEST(SemaKernels, Softmax) {
  const std::string src = tilec::test::seed_kernel("softmax_kernel");
  Lowered l =
      lower("softmax_kernel", src, {ptr(), ptr(), int_arg(), int_arg(), int_arg(), cint(256)});
  EXPECT_EQ(count(l.ir, " = reduce "), 2u) << l.ir;
}

const std::string kMatmul = tilec::test::seed_kernel("matmul_kernel");

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
  const std::string src = tilec::test::seed_kernel("layernorm_kernel");
  Lowered l = lower(
      "layernorm_kernel", src,
      {ptr(), ptr(), ptr(), ptr(), ptr(), ptr(), int_arg(), int_arg(), float_arg(), cint(512)});
  EXPECT_EQ(count(l.ir, "store "), 3u);
  EXPECT_NE(l.ir.find("%eps: fp32"), std::string::npos) << l.ir;
}

TEST(SemaKernels, FusedAttention) {
  const std::string src = tilec::test::seed_kernel("fused_attention_kernel");
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
  const std::string src = tilec::test::seed_kernel("simple_kernel");
  Lowered l = lower("simple_kernel", src, {ptr(), cint(128)});
  EXPECT_NE(l.ir.find("mul "), std::string::npos);
}

TEST(SemaKernels, DebugKernel) {
  const std::string src = tilec::test::seed_kernel("debug_kernel");
  Lowered l = lower("debug_kernel", src, {ptr(), cint(64)});
  EXPECT_EQ(count(l.ir, " if "), 2u) << l.ir;
  EXPECT_EQ(count(l.ir, "print "), 2u);
}

TEST(SemaKernels, AddKernelDebugStaticPrint) {
  const std::string src = tilec::test::seed_kernel("add_kernel_debug");
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
