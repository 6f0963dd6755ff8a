// The ring ops in the tile interpreter: local_alloc zeroes, async_copy copies at issue
// (masked-off elements: zero, their pointers never read), local_load reads the stage.
#include <gtest/gtest.h>

#include <vector>

#include "interp/tile/Interpreter.h"
#include "ir/IRParser.h"
#include "ir/Verifier.h"

using namespace tilec;

namespace {

// Stage 1 <- src (rows < %n only; the other rows point past the end of `src`), then
// out[0] = stage 1, out[1] = stage 0 (never written: zeros).
const char *kText = R"(tt.func @k(%src: ptr<fp32>, %out: ptr<fp32>, %n: i32) {
  %0 = local_alloc : tile<2x4x4xfp32, #linear<rank=3, offset=[[0,0,1],[0,0,2],[0,1,0],[0,2,0],[1,0,0]]>>
  %1 = arange {end = 16, start = 0} : tile<16xi32>
  %2 = reshape %1 : tile<16xi32> -> tile<4x4xi32>
  %3 = splat %src : ptr<fp32> -> tile<4x4xptr<fp32>>
  %4 = constant {value = 4} : tile<4x4xi32>
  %5 = mul %2, %4 : tile<4x4xi32>
  %6 = addptr %3, %5 : tile<4x4xptr<fp32>>, tile<4x4xi32> -> tile<4x4xptr<fp32>>
  %7 = splat %n : i32 -> tile<4x4xi32>
  %8 = constant {value = 4} : tile<4x4xi32>
  %9 = div %2, %8 : tile<4x4xi32>
  %10 = cmp %9, %7 {pred = "lt"} : tile<4x4xi32> -> tile<4x4xi1>
  %11 = constant {value = 1} : i32
  %12 = constant {value = 0} : i32
  async_copy %0, %11, %6, %10
  async_commit
  async_wait {pending = 0}
  %13 = local_load %0, %11 : tile<2x4x4xfp32, #linear<rank=3, offset=[[0,0,1],[0,0,2],[0,1,0],[0,2,0],[1,0,0]]>>, i32 -> tile<4x4xfp32>
  %14 = local_load %0, %12 : tile<2x4x4xfp32, #linear<rank=3, offset=[[0,0,1],[0,0,2],[0,1,0],[0,2,0],[1,0,0]]>>, i32 -> tile<4x4xfp32>
  %15 = splat %out : ptr<fp32> -> tile<4x4xptr<fp32>>
  %16 = addptr %15, %2 : tile<4x4xptr<fp32>>, tile<4x4xi32> -> tile<4x4xptr<fp32>>
  store %16, %13
  %17 = constant {value = 16} : tile<4x4xi32>
  %18 = addptr %16, %17 : tile<4x4xptr<fp32>>, tile<4x4xi32> -> tile<4x4xptr<fp32>>
  store %18, %14
  return
}
)";

} // namespace

TEST(Ring, CopyMaskLoad) {
  auto m = ir::parse_module(kText);
  ir::verify(*m);
  // src holds rows 0..1 only (strided by 4: elements 0..4*(2*4-1)); rows 2, 3 lie past it
  std::vector<float> src(4 * 8), out(32, -1.f);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = float(i) + 0.5f;
  std::vector<interp::Buffer> bufs = {
      {reinterpret_cast<uint64_t>(src.data()), src.size() * 4, "src", false},
      {reinterpret_cast<uint64_t>(out.data()), out.size() * 4, "out", true}};
  SourceManager sm;
  interp::run(*m->functions[0],
              {interp::KernelArg::pointer(src.data()), interp::KernelArg::pointer(out.data()),
               interp::KernelArg::integer(2)},
              bufs, {}, sm);
  for (int i = 0; i < 16; ++i) {
    float want = i / 4 < 2 ? src[size_t(i) * 4] : 0.f;
    EXPECT_EQ(out[size_t(i)], want) << i;
    EXPECT_EQ(out[size_t(16 + i)], 0.f) << i;
  }
  // unmasked, the rows past the end are an out-of-bounds error naming the copy
  try {
    interp::run(*m->functions[0],
                {interp::KernelArg::pointer(src.data()), interp::KernelArg::pointer(out.data()),
                 interp::KernelArg::integer(4)},
                bufs, {}, sm);
    ADD_FAILURE() << "expected an out-of-bounds error";
  } catch (const RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find("async copy from"), std::string::npos) << e.what();
  }
}
