// The seed kernels lowered to Thread IR / PTX: text features and agreement of the SIMT
// simulator with the tile interpreter.
#include <random>

#include "../SeedKernels.h"
#include "LowerTestUtil.h"

namespace tilec::lower::test {
namespace {

const std::string kAdd = tilec::test::seed_kernel("add_kernel");

std::vector<float> random_floats(size_t n, unsigned seed, float lo = -4, float hi = 4) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(g);
  return v;
}

Inputs add_inputs(int64_t n, int64_t block) {
  Inputs in;
  int x = in.buffer(random_floats(static_cast<size_t>(n), 1), "x_ptr");
  int y = in.buffer(random_floats(static_cast<size_t>(n), 2), "y_ptr");
  int o = in.buffer(std::vector<float>(static_cast<size_t>(n), 0.0f), "output_ptr");
  in.args = {Arg::buffer(x), Arg::buffer(y), Arg::buffer(o), Arg::integer(n)};
  in.grid = {(n + block - 1) / block, 1, 1};
  return in;
}

TEST(LowerSeed, VectorAddPtxHasVectorAccesses) {
  GpuKernelUnderTest k(kAdd, "add_kernel", {"*fp32:16", "*fp32:16", "*fp32:16", "i32:16", "=1024"});
  EXPECT_NE(k.ptx().find("ld.global.v4.b32"), std::string::npos) << k.ptx();
  EXPECT_NE(k.ptx().find("st.global.v4.b32"), std::string::npos) << k.ptx();
  EXPECT_NE(k.ptx().find(".entry add_kernel"), std::string::npos);
  EXPECT_EQ(k.gpu().params.size(), 4u);
  EXPECT_EQ(k.gpu().params[0].kind, "ptr");
  EXPECT_EQ(k.gpu().params[3].kind, "i32");
  EXPECT_EQ(k.gpu().params[3].name, "n_elements");
}

TEST(LowerSeed, GpuStagesAreDumpedAndTimed) {
  pipeline::GpuCompileOptions o;
  o.pipeline.dump_stage = "layouts,lower,ptx";
  o.sm = 80;
  pipeline::CompiledGpuKernel k = pipeline::compile_to_ptx(
      kernel_source("add_kernel", kAdd),
      specs({"*fp32:16", "*fp32:16", "*fp32:16", "i32:16", "=1024"}), o, nullptr);
  ASSERT_EQ(k.tile.dumps.size(), 3u);
  EXPECT_EQ(k.tile.dumps[0].first, "layouts");
  EXPECT_NE(k.tile.dumps[0].second.find("#blocked<spt=[4]"), std::string::npos);
  EXPECT_EQ(k.tile.dumps[1].first, "lower");
  EXPECT_EQ(k.tile.dumps[1].second, k.thread_ir_text);
  EXPECT_NE(k.thread_ir_text.find("func add_kernel("), std::string::npos);
  EXPECT_EQ(k.tile.dumps[2].first, "ptx");
  EXPECT_EQ(k.tile.dumps[2].second, k.ptx);
  EXPECT_EQ(k.arch, "sm_80");
  EXPECT_NE(k.ptx.find(".target sm_80"), std::string::npos);
  // stopping after a GPU stage leaves the later products empty
  o.pipeline.dump_stage.clear();
  o.pipeline.stop_after = "layouts";
  k = pipeline::compile_to_ptx(kernel_source("add_kernel", kAdd),
                               specs({"*fp32:16", "*fp32:16", "*fp32:16", "i32:16", "=1024"}), o,
                               nullptr);
  EXPECT_TRUE(k.ptx.empty());
  EXPECT_FALSE(k.thread_ir);
  // clang-format off
  EXPECT_EQ(pipeline::gpu_stage_names(),
            (std::vector<std::string>{
                "flatten-loops", "fold-flattened", "strength-reduce", "plan-rings", "pipeline-loads", "prefetch-loads", "layouts",
                "remove-conversions", "pipeline-loops", "sink-past-loops", "warp-specialize",
                "allocate-shared",
                "lower", "sink-fragment-loads", "fuse-cvt-packs", "fold-xor-pairs",
                "fold-byte-packs", "contract-fma", "coalesce-copies", "exp-vote-tail",
                "overlap-wgmma", "defer-wgmma-wait", "ptx"}));
  // clang-format on
}

TEST(LowerSeed, VectorAddAgrees) {
  GpuKernelUnderTest k(kAdd, "add_kernel", {"*fp32:16", "*fp32:16", "*fp32:16", "i32:16", "=1024"});
  k.expect_agree(add_inputs(4096, 1024));
}

TEST(LowerSeed, VectorAddUnalignedLengthAgrees) {
  // n not divisible by 16: masks vary inside a vector, so accesses are scalar.
  GpuKernelUnderTest k(kAdd, "add_kernel", {"*fp32:16", "*fp32:16", "*fp32:16", "i32", "=256"});
  EXPECT_EQ(k.ptx().find("ld.global.v4"), std::string::npos);
  k.expect_agree(add_inputs(1000, 256));
}

const std::string kGelu = tilec::test::seed_kernel("triton_gelu_kernel");

TEST(LowerSeed, GeluAgrees) {
  GpuKernelUnderTest k(kGelu, "triton_gelu_kernel", {"*fp32:16", "*fp32:16", "i32", "=1024"});
  EXPECT_NE(k.ptx().find("ex2.approx.f32"), std::string::npos);
  EXPECT_NE(k.ptx().find("div.full.f32"), std::string::npos);
  Inputs in;
  int n = 3000;
  int x = in.buffer(random_floats(static_cast<size_t>(n), 3), "x_ptr");
  int y = in.buffer(std::vector<float>(static_cast<size_t>(n), 0.0f), "y_ptr");
  in.args = {Arg::buffer(x), Arg::buffer(y), Arg::integer(n)};
  in.grid = {3, 1, 1};
  k.expect_agree(in, {Compare::exact(), Compare::f32(1e-5, 1e-6)});
}

const std::string kSoftmax = tilec::test::seed_kernel("softmax_kernel");

void softmax_case(int rows, int cols, int block, int warps, const char *stride_sig) {
  GpuKernelUnderTest k(
      kSoftmax, "softmax_kernel",
      {"*fp32:16", "*fp32:16", stride_sig, stride_sig, "i32", "=" + std::to_string(block)}, warps);
  EXPECT_NE(k.ptx().find("shfl.sync.bfly.b32"), std::string::npos);
  Inputs in;
  size_t n = static_cast<size_t>(rows) * static_cast<size_t>(cols);
  int x = in.buffer(random_floats(n, 4), "input_ptr");
  int y = in.buffer(std::vector<float>(n, 0.0f), "output_ptr");
  in.args = {Arg::buffer(x), Arg::buffer(y), Arg::integer(cols), Arg::integer(cols),
             Arg::integer(cols)};
  in.grid = {rows, 1, 1};
  k.expect_agree(in, {Compare::exact(), Compare::f32(2e-5, 1e-7)});
}

TEST(LowerSeed, SoftmaxAgrees) { softmax_case(4, 1000, 1024, 4, "i32"); }
TEST(LowerSeed, SoftmaxSmallRowAgrees) { softmax_case(3, 20, 32, 4, "i32"); }
TEST(LowerSeed, SoftmaxWideRowEightWarpsAgrees) { softmax_case(2, 4096, 4096, 8, "i32:16"); }

const std::string kLayerNorm = tilec::test::seed_kernel("layernorm_kernel");

std::vector<uint16_t> random_halves(size_t n, unsigned seed) {
  std::vector<uint16_t> v;
  for (float f : random_floats(n, seed, -2, 2)) { // exact small values: k/64
    int k = static_cast<int>(f * 64);
    float g = static_cast<float>(k) / 64.0f;
    uint32_t bits;
    std::memcpy(&bits, &g, 4);
    // fp32 -> fp16 for values with few mantissa bits (exact)
    uint32_t sign = (bits >> 16) & 0x8000;
    int e = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
    uint16_t h = g == 0 ? 0 : static_cast<uint16_t>(sign | (e << 10) | ((bits >> 13) & 0x3ff));
    v.push_back(h);
  }
  return v;
}

TEST(LowerSeed, LayerNormFp16Agrees) {
  GpuKernelUnderTest k(kLayerNorm, "layernorm_kernel",
                       {"*fp16:16", "*fp16:16", "*fp16:16", "*fp16:16", "*fp32:16", "*fp32:16",
                        "i32:16", "i32", "fp32", "=1024"});
  int rows = 3, n = 1000;
  size_t total = static_cast<size_t>(rows) * 1024;
  Inputs in;
  int x = in.buffer(random_halves(total, 5), "X");
  int y = in.buffer(std::vector<uint16_t>(total, 0), "Y");
  int w = in.buffer(random_halves(1024, 6), "W");
  int b = in.buffer(random_halves(1024, 7), "B");
  int mean = in.buffer(std::vector<float>(static_cast<size_t>(rows), 0.0f), "Mean");
  int rstd = in.buffer(std::vector<float>(static_cast<size_t>(rows), 0.0f), "Rstd");
  in.args = {Arg::buffer(x),     Arg::buffer(y),    Arg::buffer(w),
             Arg::buffer(b),     Arg::buffer(mean), Arg::buffer(rstd),
             Arg::integer(1024), Arg::integer(n),   Arg::floating(1e-5)};
  in.grid = {rows, 1, 1};
  k.expect_agree(in, {Compare::exact(), Compare::f16(2e-3, 2e-3), Compare::exact(),
                      Compare::exact(), Compare::f32(1e-5, 1e-6), Compare::f32(1e-4, 1e-6)});
}

const std::string kSimple = tilec::test::seed_kernel("simple_kernel");

TEST(LowerSeed, InPlaceScaleAgrees) {
  GpuKernelUnderTest k(kSimple, "simple_kernel", {"*fp32:16", "=128"});
  Inputs in;
  int x = in.buffer(random_floats(512, 8), "x_ptr");
  in.args = {Arg::buffer(x)};
  in.grid = {4, 1, 1};
  k.expect_agree(in);
}

const std::string kDebug = tilec::test::seed_kernel("debug_kernel");

TEST(LowerSeed, DebugPrintAgrees) {
  GpuKernelUnderTest k(kDebug, "debug_kernel", {"*fp32:16", "=64"});
  EXPECT_NE(k.ptx().find("vprintf"), std::string::npos);
  Inputs in;
  int x = in.buffer(random_floats(128, 9), "x_ptr");
  in.args = {Arg::buffer(x)};
  in.grid = {2, 1, 1};
  Outcome o = k.run_sim(in);
  EXPECT_NE(o.output.find("pid (0, 0, 0) idx () Program ID: 0"), std::string::npos) << o.output;
  k.expect_agree(in);
}

const std::string kAddDebug = tilec::test::seed_kernel("add_kernel_debug");

TEST(LowerSeed, AddDebugAgrees) {
  GpuKernelUnderTest k(kAddDebug, "add_kernel_debug",
                       {"*fp32:16", "*fp32:16", "*fp32:16", "i32", "=128"});
  k.expect_agree(add_inputs(300, 128));
}

TEST(LowerSeed, DotOfATileWithItselfRunsOnMma) {
  const char *src = R"(@triton.jit
def k(a_ptr, c_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs[:, None] * 16 + offs[None, :])
    c = tl.dot(a, a)
    tl.store(c_ptr + offs[:, None] * 16 + offs[None, :], c)
)";
  GpuKernelUnderTest k(src, "k", {"*fp16:16", "*fp32:16"});
  EXPECT_NE(k.ptx().find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), std::string::npos);
  Inputs in;
  std::vector<uint16_t> a(256);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<uint16_t>(0x3c00 + (i % 7) * 0x100); // 1, 2, 4, ... (exact sums)
  int pa = in.buffer(a, "a_ptr");
  int pc = in.buffer(std::vector<float>(256, 0.0f), "c_ptr");
  in.args = {Arg::buffer(pa), Arg::buffer(pc)};
  k.expect_agree(in);
}

} // namespace
} // namespace tilec::lower::test
