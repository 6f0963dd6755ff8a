#include <gtest/gtest.h>

#include "PassTestUtil.h"

using tilec::testing::kernel;
using tilec::testing::run_passes;

TEST(LICM, HoistsInvariantPureOps) {
  std::string in = kernel("%p: ptr<i32>, %n: i32, %x: i32",
                          "  %0 = constant {value = 0} : i32\n"
                          "  %1 = constant {value = 1} : i32\n"
                          "  %2 = for %0, %n, %1, %0 : i32 {\n"
                          "  ^bb(%i: i32, %acc: i32):\n"
                          "    %3 = mul %x, %x : i32\n"           // invariant
                          "    %4 = constant {value = 7} : i32\n" // invariant
                          "    %5 = add %3, %4 : i32\n"           // invariant once %3, %4 are out
                          "    %6 = add %acc, %5 : i32\n"         // uses the carried value
                          "    %7 = load %p : ptr<i32> -> i32\n"  // not pure
                          "    %8 = div %x, %n : i32\n"           // may fault: stays
                          "    %9 = div %x, %4 : i32\n"           // constant divisor: hoisted
                          "    %10 = add %6, %7 : i32\n"
                          "    %11 = add %10, %8 : i32\n"
                          "    %12 = add %11, %9 : i32\n"
                          "    %13 = mul %i, %x : i32\n" // uses the induction variable
                          "    %14 = add %12, %13 : i32\n"
                          "    yield %14\n"
                          "  }\n"
                          "  store %p, %2\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::licm}),
            kernel("%p: ptr<i32>, %n: i32, %x: i32", "  %0 = constant {value = 0} : i32\n"
                                                     "  %1 = constant {value = 1} : i32\n"
                                                     "  %2 = mul %x, %x : i32\n"
                                                     "  %3 = constant {value = 7} : i32\n"
                                                     "  %4 = add %2, %3 : i32\n"
                                                     "  %5 = div %x, %3 : i32\n"
                                                     "  %6 = for %0, %n, %1, %0 : i32 {\n"
                                                     "  ^bb(%7: i32, %8: i32):\n"
                                                     "    %9 = add %8, %4 : i32\n"
                                                     "    %10 = load %p : ptr<i32> -> i32\n"
                                                     "    %11 = div %x, %n : i32\n"
                                                     "    %12 = add %9, %10 : i32\n"
                                                     "    %13 = add %12, %11 : i32\n"
                                                     "    %14 = add %13, %5 : i32\n"
                                                     "    %15 = mul %7, %x : i32\n"
                                                     "    %16 = add %14, %15 : i32\n"
                                                     "    yield %16\n"
                                                     "  }\n"
                                                     "  store %p, %6\n"));
}

TEST(LICM, NestedLoopsHoistThroughBothLevels) {
  std::string in = kernel("%p: ptr<fp32>, %n: i32, %f: fp32",
                          "  for %n, %n, %n {\n"
                          "  ^bb(%i: i32):\n"
                          "    for %n, %n, %n {\n"
                          "    ^bb(%j: i32):\n"
                          "      %0 = exp %f : fp32\n"         // invariant in both loops
                          "      %1 = cast %i : i32 -> fp32\n" // invariant in the inner loop only
                          "      %2 = mul %0, %1 : fp32\n"
                          "      store %p, %2\n"
                          "      yield\n"
                          "    }\n"
                          "    yield\n"
                          "  }\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::licm}),
            kernel("%p: ptr<fp32>, %n: i32, %f: fp32", "  %0 = exp %f : fp32\n"
                                                       "  for %n, %n, %n {\n"
                                                       "  ^bb(%1: i32):\n"
                                                       "    %2 = cast %1 : i32 -> fp32\n"
                                                       "    %3 = mul %0, %2 : fp32\n"
                                                       "    for %n, %n, %n {\n"
                                                       "    ^bb(%4: i32):\n"
                                                       "      store %p, %3\n"
                                                       "      yield\n"
                                                       "    }\n"
                                                       "    yield\n"
                                                       "  }\n"));
}

TEST(LICM, OpsInsideIfBranchesStay) {
  std::string in = kernel("%p: ptr<i32>, %n: i32, %c: i1", "  for %n, %n, %n {\n"
                                                           "  ^bb(%0: i32):\n"
                                                           "    if %c {\n"
                                                           "      %1 = mul %n, %n : i32\n"
                                                           "      store %p, %1\n"
                                                           "      yield\n"
                                                           "    } {\n"
                                                           "      yield\n"
                                                           "    }\n"
                                                           "    yield\n"
                                                           "  }\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::licm}), in);
}

// addptr(p, splat(inv + var)) with p invariant: addptr(p, splat(inv)) leaves the loop and
// the loop adds splat(var) to it (a tensor descriptor's load at [row, k]).
TEST(LICM, SplitsAnInvariantPartOffAPointerOffset) {
  std::string in = kernel("%p: ptr<fp32>, %n: i32, %row: i64",
                          "  %0 = constant {value = 0} : i32\n"
                          "  %1 = constant {value = 1} : i32\n"
                          "  %2 = arange {start = 0, end = 4} : tile<4xi32>\n"
                          "  %3 = splat %p : ptr<fp32> -> tile<4xptr<fp32>>\n"
                          "  %4 = addptr %3, %2 : tile<4xptr<fp32>>, tile<4xi32> -> tile<4xptr<fp32>>\n"
                          "  for %0, %n, %1 {\n"
                          "  ^bb(%i: i32):\n"
                          "    %5 = cast %i : i32 -> i64\n"
                          "    %6 = add %row, %5 : i64\n"
                          "    %7 = splat %6 : i64 -> tile<4xi64>\n"
                          "    %8 = addptr %4, %7 : tile<4xptr<fp32>>, tile<4xi64> -> tile<4xptr<fp32>>\n"
                          "    %9 = load %8 : tile<4xptr<fp32>> -> tile<4xfp32>\n"
                          "    store %8, %9\n"
                          "    yield\n"
                          "  }\n");
  std::string out = run_passes(in, {tilec::transforms::licm, tilec::transforms::dce});
  // before the loop: the row's part; inside: only the induction variable's
  size_t loop = out.find("for ");
  ASSERT_NE(loop, std::string::npos) << out;
  std::string before = out.substr(0, loop), body = out.substr(loop);
  EXPECT_NE(before.find("splat %row"), std::string::npos) << out;
  EXPECT_EQ(body.find("%row"), std::string::npos) << out;
  EXPECT_EQ(body.find(" add "), std::string::npos) << out; // row + i is gone
  EXPECT_NE(body.find("addptr"), std::string::npos) << out;
}
