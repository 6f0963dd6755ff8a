#include <gtest/gtest.h>

#include "PassTestUtil.h"

using tilec::testing::kernel;
using tilec::testing::run_passes;

TEST(CSE, ReusesIdenticalPureOps) {
  std::string in = kernel("%p: ptr<i32>, %x: i32, %y: i32",
                          "  %0 = program_id {axis = 0} : i32\n"
                          "  %1 = program_id {axis = 0} : i32\n"
                          "  %2 = program_id {axis = 1} : i32\n"
                          "  %3 = add %0, %x : i32\n"
                          "  %4 = add %x, %1 : i32\n" // commuted: same value
                          "  %5 = sub %0, %x : i32\n"
                          "  %6 = sub %x, %1 : i32\n" // not commutative: kept
                          "  %7 = mul %3, %4 : i32\n"
                          "  %8 = mul %5, %6 : i32\n"
                          "  %9 = add %7, %8 : i32\n"
                          "  %10 = add %9, %2 : i32\n"
                          "  store %p, %10\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::cse}),
            kernel("%p: ptr<i32>, %x: i32, %y: i32", "  %0 = program_id {axis = 0} : i32\n"
                                                     "  %1 = program_id {axis = 1} : i32\n"
                                                     "  %2 = add %0, %x : i32\n"
                                                     "  %3 = sub %0, %x : i32\n"
                                                     "  %4 = sub %x, %0 : i32\n"
                                                     "  %5 = mul %2, %2 : i32\n"
                                                     "  %6 = mul %3, %4 : i32\n"
                                                     "  %7 = add %5, %6 : i32\n"
                                                     "  %8 = add %7, %1 : i32\n"
                                                     "  store %p, %8\n"));
}

TEST(CSE, AttributesAndTypesMatter) {
  std::string in = kernel("%p: ptr<i1>, %q: ptr<fp32>, %x: i32",
                          "  %0 = cmp %x, %x {pred = \"lt\"} : i32 -> i1\n"
                          "  %1 = cmp %x, %x {pred = \"le\"} : i32 -> i1\n"
                          "  %2 = and %0, %1 : i1\n"
                          "  store %p, %2\n"
                          "  %3 = constant {value = 1} : fp32\n"
                          "  %4 = constant {value = 1.0} : fp32\n"
                          "  %5 = constant {value = 1.0} : fp16\n"
                          "  %6 = cast %5 : fp16 -> fp32\n"
                          "  %7 = add %3, %4 : fp32\n"
                          "  %8 = add %7, %6 : fp32\n"
                          "  store %q, %8\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::cse}), in);
}

TEST(CSE, SideEffectsAreNeverMerged) {
  std::string in = kernel("%p: ptr<i32>", "  %0 = load %p : ptr<i32> -> i32\n"
                                          "  %1 = load %p : ptr<i32> -> i32\n"
                                          "  %2 = add %0, %1 : i32\n"
                                          "  store %p, %2\n"
                                          "  store %p, %2\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::cse}), in);
}

TEST(CSE, RegionsSeeDominatingValuesButNotSiblings) {
  std::string in = kernel("%p: ptr<i32>, %x: i32, %c: i1",
                          "  %0 = mul %x, %x : i32\n"
                          "  %1 = if %c : i1 -> i32 {\n"
                          "    %2 = mul %x, %x : i32\n" // reuses %0
                          "    %3 = add %2, %x : i32\n"
                          "    yield %3\n"
                          "  } {\n"
                          "    %4 = add %0, %x : i32\n" // the then-branch's add is not visible
                          "    yield %4\n"
                          "  }\n"
                          "  %5 = add %0, %x : i32\n" // neither branch's add dominates
                          "  %6 = add %5, %1 : i32\n"
                          "  store %p, %6\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::cse}),
            kernel("%p: ptr<i32>, %x: i32, %c: i1", "  %0 = mul %x, %x : i32\n"
                                                    "  %1 = if %c : i1 -> i32 {\n"
                                                    "    %2 = add %0, %x : i32\n"
                                                    "    yield %2\n"
                                                    "  } {\n"
                                                    "    %3 = add %0, %x : i32\n"
                                                    "    yield %3\n"
                                                    "  }\n"
                                                    "  %4 = add %0, %x : i32\n"
                                                    "  %5 = add %4, %1 : i32\n"
                                                    "  store %p, %5\n"));
}

TEST(CSE, ReduceRegionsAreLeftAlone) {
  std::string in = kernel("%p: ptr<fp32>, %t: tile<8xfp32>",
                          "  %0 = reduce %t {axis = 0} : tile<8xfp32> -> fp32 {\n"
                          "  ^bb(%1: fp32, %2: fp32):\n"
                          "    %3 = add %1, %2 : fp32\n"
                          "    yield %3\n"
                          "  }\n"
                          "  %4 = reduce %t {axis = 0} : tile<8xfp32> -> fp32 {\n"
                          "  ^bb(%5: fp32, %6: fp32):\n"
                          "    %7 = add %5, %6 : fp32\n"
                          "    yield %7\n"
                          "  }\n"
                          "  %8 = add %0, %4 : fp32\n"
                          "  store %p, %8\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::cse}), in);
}
