// pipeline_loads: the loads of a dot loop move one iteration ahead (structure and
// verifier here; results against the tile interpreter on the simulator:
// tests/cpp/lower/PipelineLoadsTest.cpp).
#include <gtest/gtest.h>

#include "../TextCount.h"
#include "PassTestUtil.h"
#include "transforms/PipelineLoads.h"

namespace {

const char *kLoop = R"(tt.func @k(%a: ptr<fp32>, %c: ptr<fp32>, %n: i32) {
  %0 = constant {value = 0} : i32
  %1 = constant {value = 16} : i32
  %2 = arange {end = 256, start = 0} : tile<256xi32>
  %3 = reshape %2 : tile<256xi32> -> tile<16x16xi32>
  %4 = splat %a : ptr<fp32> -> tile<16x16xptr<fp32>>
  %5 = splat %c : ptr<fp32> -> tile<16x16xptr<fp32>>
  %6 = addptr %5, %3 : tile<16x16xptr<fp32>>, tile<16x16xi32> -> tile<16x16xptr<fp32>>
  %7 = load %6 : tile<16x16xptr<fp32>> -> tile<16x16xfp32>
  %8 = splat %n : i32 -> tile<16x16xi32>
  %9 = for %0, %n, %1, %7 : i32, i32, i32, tile<16x16xfp32> -> tile<16x16xfp32> {
  ^bb(%i: i32, %acc: tile<16x16xfp32>):
    %10 = splat %i : i32 -> tile<16x16xi32>
    %11 = add %3, %10 : tile<16x16xi32>
    %12 = addptr %4, %11 : tile<16x16xptr<fp32>>, tile<16x16xi32> -> tile<16x16xptr<fp32>>
    %13 = cmp %11, %8 {pred = "lt"} : tile<16x16xi32> -> tile<16x16xi1>
    %14 = load %12, %13 : tile<16x16xptr<fp32>>, tile<16x16xi1> -> tile<16x16xfp32>
    %15 = dot %14, %14, %acc : tile<16x16xfp32>
    STORE
    yield %15
  }
  store %6, %9
  return
}
)";

std::string loop(bool with_store) {
  std::string s = kLoop;
  s.replace(s.find("STORE"), 5, with_store ? "store %6, %acc" : "");
  return s;
}

std::string run(const std::string &text, int64_t stages, bool pipeline = true, int64_t warps = 4) {
  auto m = tilec::ir::parse_module(text);
  tilec::ir::verify(*m);
  m->attrs.push_back({"num_stages", stages});
  m->attrs.push_back({"num_warps", warps});
  if (pipeline)
    tilec::transforms::pipeline_loads(*m);
  tilec::ir::verify(*m);
  return tilec::ir::print(*m);
}

} // namespace

TEST(PipelineLoads, DotLoopLoadsMoveOneIterationAhead) {
  std::string out = run(loop(false), 3);
  SCOPED_TRACE(out);
  // the first iteration's load before the loop, the next iteration's at the top of the
  // body, ahead of the dot; the tile is carried
  size_t for_at = out.find(" = for "), dot_at = out.find(" = dot ");
  ASSERT_NE(for_at, std::string::npos) << out;
  EXPECT_EQ(count(out, " = load "), 3u) << out;
  size_t first = out.find(" = load ", out.find(" = load ") + 1);
  EXPECT_LT(first, for_at) << out;
  size_t next = out.find(" = load ", for_at);
  EXPECT_LT(next, dot_at) << out;
  // both bound tests: lb < n before the loop, i + 16 < n inside
  EXPECT_EQ(count(out, "{pred = \"lt\"} : i32 -> i1"), 2u) << out;
  EXPECT_NE(out.find("^bb(%"), std::string::npos);
  EXPECT_EQ(count(out.substr(for_at, out.find('\n', for_at) - for_at), "tile<16x16xfp32>"), 4u)
      << "the loop carries the prefetched tile:\n"
      << out;
}

TEST(PipelineLoads, LeavesLoopsWithStoresAndOneStageAlone) {
  std::string with_store = loop(true);
  EXPECT_EQ(run(with_store, 3), run(with_store, 3, false));
  std::string plain = loop(false);
  EXPECT_EQ(run(plain, 1), run(plain, 1, false));
}

// 64x64 fp32 tiles: 16 KiB, 512 bytes a thread with one warp — too many registers to
// carry across the dot; 16 bytes a thread with 32 warps.
TEST(PipelineLoads, LargePrefetchesPerThreadAreLeftAlone) {
  std::string big = loop(false);
  for (auto [from, to] : {std::pair<std::string, std::string>{"16x16", "64x64"},
                          {"end = 256", "end = 4096"},
                          {"tile<256xi32>", "tile<4096xi32>"}})
    for (size_t at = big.find(from); at != std::string::npos; at = big.find(from, at + to.size()))
      big.replace(at, from.size(), to);
  EXPECT_EQ(run(big, 3, true, 1), run(big, 3, false, 1));
  EXPECT_EQ(count(run(big, 3, true, 32), " = load "), 3u);
}

// The loads "plan-rings" gave to the shared-memory ring (layout/PipelineLoops) are left to
// it: a load marked `ring = 1` stays where it is.
TEST(PipelineLoads, LeavesTheLoadsMarkedForARing) {
  std::string marked = loop(false);
  std::string load = "%14 = load %12, %13 : ";
  marked.replace(marked.find(load), load.size(), "%14 = load %12, %13 {ring = 1} : ");
  std::string out = run(marked, 3);
  EXPECT_EQ(out, run(marked, 3, false));
  EXPECT_NE(out.find("{ring = 1}"), std::string::npos);
}

TEST(PipelineLoads, BodyStartingWithTheLoadsItMoves) {
  // The body's first op is a chosen load: the insertion point at the top of the body must
  // stay valid while the next one is emitted (tutorial 06's backward loop crashed here).
  const char *text = R"(tt.func @k(%a: ptr<fp32>, %b: ptr<fp32>, %c: ptr<fp32>, %n: i32) {
  %0 = constant {value = 0} : i32
  %1 = constant {value = 16} : i32
  %2 = arange {end = 256, start = 0} : tile<256xi32>
  %3 = reshape %2 : tile<256xi32> -> tile<16x16xi32>
  %4 = splat %a : ptr<fp32> -> tile<16x16xptr<fp32>>
  %5 = splat %b : ptr<fp32> -> tile<16x16xptr<fp32>>
  %6 = splat %c : ptr<fp32> -> tile<16x16xptr<fp32>>
  %7 = addptr %6, %3 : tile<16x16xptr<fp32>>, tile<16x16xi32> -> tile<16x16xptr<fp32>>
  %8 = load %7 : tile<16x16xptr<fp32>> -> tile<16x16xfp32>
  %9:3 = for %0, %n, %1, %4, %5, %8 : i32, i32, i32, tile<16x16xptr<fp32>>, tile<16x16xptr<fp32>>, tile<16x16xfp32> -> tile<16x16xptr<fp32>>, tile<16x16xptr<fp32>>, tile<16x16xfp32> {
  ^bb(%i: i32, %pa: tile<16x16xptr<fp32>>, %pb: tile<16x16xptr<fp32>>, %acc: tile<16x16xfp32>):
    %10 = load %pa : tile<16x16xptr<fp32>> -> tile<16x16xfp32>
    %11 = load %pb : tile<16x16xptr<fp32>> -> tile<16x16xfp32>
    %12 = dot %10, %11, %acc : tile<16x16xfp32>
    %13 = addptr %pa, %3 : tile<16x16xptr<fp32>>, tile<16x16xi32> -> tile<16x16xptr<fp32>>
    %14 = addptr %pb, %3 : tile<16x16xptr<fp32>>, tile<16x16xi32> -> tile<16x16xptr<fp32>>
    yield %13, %14, %12
  }
  store %7, %9#2
  return
}
)";
  std::string out = run(text, 3);
  SCOPED_TRACE(out);
  EXPECT_EQ(count(out, " = load "), 5u) << out; // 2 before the loop, 2 in it, the acc's
}
