// convert_layout between hand-picked layouts, written as Tile IR (no layout assignment):
// each element's value is its row-major index, and it is stored at that index after the
// conversion, so the output is 0, 1, 2, ... exactly when every element arrived. The way
// each conversion moves data (registers, warp shuffles, shared memory) is checked too.
#include "LowerTestUtil.h"
#include "codegen/PtxPrinter.h"
#include "ir/IRParser.h"
#include "layout/AllocateShared.h"
#include "lower/Lower.h"
#include "simt/Format.h"

namespace tilec::lower::test {
namespace {

std::string blocked(std::vector<int> spt, std::vector<int> tpw, std::vector<int> wpc,
                    std::vector<int> order) {
  auto list = [](const std::vector<int> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  return "#blocked<spt=" + list(spt) + ", tpw=" + list(tpw) + ", wpc=" + list(wpc) +
         ", order=" + list(order) + ">";
}

// An M x N tile of row-major indices in layout A, converted to B, stored by value.
std::string convert_kernel(int m, int n, const std::string &a, const std::string &b, int warps) {
  std::string M = std::to_string(m), N = std::to_string(n);
  std::string ta = "tile<" + M + "x" + N + "xi32, " + a + ">";
  std::string tb = "tile<" + M + "x" + N + "xi32, " + b + ">";
  std::string pb = "tile<" + M + "x" + N + "xptr<i32>, " + b + ">";
  return "module {num_warps = " + std::to_string(warps) +
         "}\n"
         "tt.func @k(%z: ptr<i32>) {\n"
         "  %0 = arange {end = " +
         M + ", start = 0} : tile<" + M + "xi32, #slice<dim=1, " + a +
         ">>\n"
         "  %1 = arange {end = " +
         N + ", start = 0} : tile<" + N + "xi32, #slice<dim=0, " + a +
         ">>\n"
         "  %2 = expand_dims %0 {axis = 1} : tile<" +
         M + "xi32, #slice<dim=1, " + a + ">> -> tile<" + M + "x1xi32, " + a +
         ">\n"
         "  %3 = expand_dims %1 {axis = 0} : tile<" +
         N + "xi32, #slice<dim=0, " + a + ">> -> tile<1x" + N + "xi32, " + a +
         ">\n"
         "  %4 = broadcast %2 : tile<" +
         M + "x1xi32, " + a + "> -> " + ta +
         "\n"
         "  %5 = broadcast %3 : tile<1x" +
         N + "xi32, " + a + "> -> " + ta +
         "\n"
         "  %6 = constant {value = " +
         N + "} : " + ta +
         "\n"
         "  %7 = mul %4, %6 : " +
         ta +
         "\n"
         "  %8 = add %7, %5 : " +
         ta +
         "\n"
         "  %9 = convert_layout %8 : " +
         ta + " -> " + tb +
         "\n"
         "  %10 = splat %z : ptr<i32> -> " +
         pb +
         "\n"
         "  %11 = addptr %10, %9 : " +
         pb + ", " + tb + " -> " + pb +
         "\n"
         "  store %11, %9\n"
         "  return\n"
         "}\n";
}

// Lowers and runs it; returns the Thread IR text.
std::string run_convert(int m, int n, const std::string &a, const std::string &b, int warps) {
  std::string text = convert_kernel(m, n, a, b, warps);
  SCOPED_TRACE(text);
  std::unique_ptr<ir::Module> mod = ir::parse_module(text);
  layout::allocate_shared(*mod);
  simt::Function fn = lower_function(*mod, *mod->functions.front(), {});
  std::vector<int32_t> z(static_cast<size_t>(m * n), -1);
  simt::run(fn, {simt::SimArg::pointer(z.data())},
            {{reinterpret_cast<uint64_t>(z.data()), z.size() * 4, "z"}}, {});
  for (size_t i = 0; i < z.size(); ++i)
    if (z[i] != static_cast<int32_t>(i)) {
      ADD_FAILURE() << "element " << i << " is " << z[i] << "\n" << simt::dump(fn);
      break;
    }
  if (auto ptxas = runtime::find_ptxas())
    GpuKernelUnderTest::expect_ptxas(*ptxas, codegen::print_ptx(fn, {}), 90);
  return simt::dump(fn);
}

bool has(const std::string &s, const char *what) { return s.find(what) != std::string::npos; }

TEST(LowerConvert, RegisterPermutation) {
  // Same lanes and warps; the register order differs (order [1,0] vs [0,1] with spt only).
  std::string a = blocked({2, 2}, {8, 4}, {2, 2}, {1, 0});
  std::string b = blocked({2, 2}, {8, 4}, {2, 2}, {1, 0});
  std::string t = run_convert(32, 16, a, b, 4);
  EXPECT_FALSE(has(t, "shfl")) << t;
  EXPECT_FALSE(has(t, "bar.sync")) << t;
}

TEST(LowerConvert, LanePermutationUsesShuffles) {
  // The same elements per thread and warp; the lanes fill the dims in another order.
  for (auto [m, n] : {std::pair{16, 8}, {32, 16}}) {
    std::string a = blocked({1, 1}, {4, 8}, {4, 1}, {1, 0});
    std::string b = blocked({1, 1}, {4, 8}, {4, 1}, {0, 1});
    std::string t = run_convert(m, n, a, b, 4);
    EXPECT_TRUE(has(t, "shfl.sync.idx")) << t;
    EXPECT_FALSE(has(t, "bar.sync")) << t;
  }
}

TEST(LowerConvert, RegistersAndLanesTradeBitsByShuffles) {
  // Same warps; a lane bit of one is a register bit of the other.
  std::string a = blocked({1, 1}, {4, 8}, {4, 1}, {1, 0});
  std::string b = blocked({1, 2}, {4, 8}, {4, 1}, {1, 0});
  std::string t = run_convert(16, 16, a, b, 4);
  EXPECT_TRUE(has(t, "shfl.sync.idx")) << t;
  EXPECT_FALSE(has(t, "bar.sync")) << t;
  t = run_convert(16, 16, b, a, 4);
  EXPECT_TRUE(has(t, "shfl.sync.idx")) << t;
  EXPECT_FALSE(has(t, "bar.sync")) << t;
  run_convert(16, 32, blocked({1, 4}, {4, 8}, {4, 1}, {1, 0}),
              blocked({1, 1}, {4, 8}, {4, 1}, {1, 0}), 4);
}

TEST(LowerConvert, AcrossWarpsUsesSharedMemory) {
  std::string a = blocked({1, 4}, {4, 8}, {4, 1}, {1, 0});
  std::string b = blocked({4, 1}, {8, 4}, {1, 4}, {0, 1});
  std::string t = run_convert(64, 64, a, b, 4);
  EXPECT_TRUE(has(t, "st.shared.v4.b32")) << t; // 4 consecutive elements per thread
  EXPECT_TRUE(has(t, "bar.sync")) << t;
  // and back: the loads are the vector ones then
  t = run_convert(64, 64, b, a, 4);
  EXPECT_TRUE(has(t, "ld.shared.v4.b32")) << t;
}

TEST(LowerConvert, ReplicatedLayouts) {
  // Tiles smaller than the CTA: lanes and warps hold copies on one side or both.
  run_convert(4, 8, blocked({1, 1}, {4, 8}, {4, 1}, {1, 0}),
              blocked({1, 1}, {8, 4}, {1, 4}, {0, 1}), 4);
  run_convert(8, 8, blocked({2, 2}, {2, 16}, {1, 2}, {1, 0}),
              blocked({1, 1}, {32, 1}, {2, 1}, {0, 1}), 2);
  run_convert(2, 2, blocked({1, 1}, {1, 32}, {1, 1}, {1, 0}),
              blocked({2, 2}, {32, 1}, {1, 1}, {0, 1}), 1);
}

TEST(LowerConvert, ManyPairs) {
  std::vector<std::string> ls = {
      blocked({1, 1}, {1, 32}, {4, 1}, {1, 0}), blocked({1, 4}, {2, 16}, {2, 2}, {1, 0}),
      blocked({4, 1}, {16, 2}, {1, 4}, {0, 1}), blocked({2, 2}, {4, 8}, {1, 4}, {1, 0}),
      blocked({1, 8}, {8, 4}, {4, 1}, {0, 1}),  blocked({8, 1}, {32, 1}, {2, 2}, {1, 0})};
  for (const std::string &a : ls)
    for (const std::string &b : ls)
      run_convert(32, 32, a, b, 4);
}

} // namespace
} // namespace tilec::lower::test
