// hoist_loads: a load after a reduce it does not depend on moves before it, with the ops
// computing its operands (results on the simulator: test_seed_kernels.py's LayerNorm
// 4x3000 over 8 warps in test_simt_lang.py; PTX: test_ptx_seed.py).
#include <gtest/gtest.h>

#include "PassTestUtil.h"
#include "transforms/HoistLoads.h"

namespace {

// x is loaded and summed; then w (not depending on the sum) is loaded; BEFORE_W goes just
// before w's pointer, W_MASK is w's mask operand list
const char *kKernel = R"(tt.func @k(%x: ptr<fp32>, %w: ptr<fp32>, %y: ptr<fp32>) {
  %0 = arange {end = 1024, start = 0} : tile<1024xi32>
  %1 = splat %x : ptr<fp32> -> tile<1024xptr<fp32>>
  %2 = addptr %1, %0 : tile<1024xptr<fp32>>, tile<1024xi32> -> tile<1024xptr<fp32>>
  %3 = load %2 : tile<1024xptr<fp32>> -> tile<1024xfp32>
  %4 = reduce %3 {axis = 0} : tile<1024xfp32> -> fp32 {
  ^bb(%5: fp32, %6: fp32):
    %7 = add %5, %6 : fp32
    yield %7
  }
  BEFORE_W
  %8 = splat %w : ptr<fp32> -> tile<1024xptr<fp32>>
  %9 = addptr %8, %0 : tile<1024xptr<fp32>>, tile<1024xi32> -> tile<1024xptr<fp32>>
  %10 = load %9 VOLATILE: tile<1024xptr<fp32>> -> tile<1024xfp32>
  %11 = splat %4 : fp32 -> tile<1024xfp32>
  %12 = mul %10, %11 : tile<1024xfp32>
  %13 = splat %y : ptr<fp32> -> tile<1024xptr<fp32>>
  %14 = addptr %13, %0 : tile<1024xptr<fp32>>, tile<1024xi32> -> tile<1024xptr<fp32>>
  store %14, %12
  return
}
)";

std::string kernel(const std::string &before_w = "", bool is_volatile = false) {
  std::string s = kKernel;
  s.replace(s.find("BEFORE_W"), 8, before_w);
  s.replace(s.find("VOLATILE"), 8, is_volatile ? "{volatile = 1} " : "");
  return s;
}

std::string run(const std::string &text, int64_t warps) {
  auto m = tilec::ir::parse_module(text);
  tilec::ir::verify(*m);
  m->attrs.push_back({"num_warps", warps});
  tilec::transforms::hoist_loads(*m);
  tilec::ir::verify(*m);
  return tilec::ir::print(*m);
}

size_t second_load(const std::string &s) { return s.find(" = load ", s.find(" = load ") + 1); }

} // namespace

TEST(HoistLoads, LoadAfterAReduceMovesBeforeItWithItsPointer) {
  std::string out = run(kernel(), 8);
  SCOPED_TRACE(out);
  size_t reduce = out.find(" = reduce ");
  ASSERT_NE(second_load(out), std::string::npos);
  EXPECT_LT(second_load(out), reduce);
  EXPECT_LT(out.find("splat %w"), reduce); // its pointer's ops came along, in order
  EXPECT_LT(out.find("splat %w"), second_load(out));
  EXPECT_GT(out.find(" = mul "), reduce);                // what uses the sum stays after it
  EXPECT_LT(out.find("splat %x"), out.find(" = load ")); // x's load is still the first
  EXPECT_LT(out.find(" = load "), out.find("splat %w"));
}

TEST(HoistLoads, FewWarpsStayAsWritten) {
  std::string out = run(kernel(), 4);
  EXPECT_GT(second_load(out), out.find(" = reduce ")) << out;
}

TEST(HoistLoads, NothingMovesAfterAStore) {
  // a store before the load: other threads' reads of it may rely on the reduction's barrier
  std::string out = run(kernel("  store %2, %3\n"), 8);
  EXPECT_GT(second_load(out), out.find(" = reduce ")) << out;
}

TEST(HoistLoads, NothingMovesAfterADebugBarrierPrintOrAssert) {
  for (const char *op : {"  barrier\n", "  print %4 {hex = 0, prefix = \"\"}\n",
                         "  %30 = constant {value = 1} : i1\n  assert %30 {message = \"m\"}\n"}) {
    std::string out = run(kernel(op), 8);
    EXPECT_GT(second_load(out), out.find(" = reduce ")) << op << out;
  }
}

TEST(HoistLoads, VolatileLoadsStay) {
  std::string out = run(kernel("", true), 8);
  EXPECT_GT(second_load(out), out.find(" = reduce ")) << out;
}

TEST(HoistLoads, ALoadThatNeedsTheReductionStays) {
  // w's pointer offset by the sum (as an index): it cannot go before the reduce
  std::string text = kernel();
  text.replace(text.find("%9 = addptr %8, %0"), 18, "%9 = addptr %8, %20");
  text.replace(text.find("  %8 = splat %w"), 0,
               "  %19 = cast %4 : fp32 -> i32\n  %20 = splat %19 : i32 -> tile<1024xi32>\n");
  std::string out = run(text, 8);
  EXPECT_GT(second_load(out), out.find(" = reduce ")) << out;
}

TEST(HoistLoads, TilesLargerThanTheBudgetStay) {
  // 1024 fp32 over 8 warps is 16 bytes a thread; 65536 is 1 KiB
  std::string text = kernel();
  for (size_t at = text.find("1024"); at != std::string::npos; at = text.find("1024", at + 5))
    text.replace(at, 4, "65536");
  std::string out = run(text, 8);
  EXPECT_GT(second_load(out), out.find(" = reduce ")) << out;
}
