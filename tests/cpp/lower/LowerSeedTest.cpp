// The seed kernels lowered to Thread IR / PTX: text features and agreement of the SIMT
// simulator with the tile interpreter.
#include <random>

#include "LowerTestUtil.h"

namespace tilec::lower::test {
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

} // namespace
} // namespace tilec::lower::test
