#include <gtest/gtest.h>

#include "PassTestUtil.h"

using tilec::testing::kernel;
using tilec::testing::run_passes;

TEST(DCE, ErasesUnusedPureChains) {
  std::string in = kernel("%p: ptr<i32>, %x: i32",
                          "  %0 = program_id {axis = 0} : i32\n"
                          "  %1 = add %0, %x : i32\n"
                          "  %2 = mul %1, %1 : i32\n"          // dead, and so are %1, %0
                          "  %3 = load %p : ptr<i32> -> i32\n" // unused but a load: stays
                          "  %4 = sub %x, %x : i32\n"
                          "  store %p, %4\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::dce}),
            kernel("%p: ptr<i32>, %x: i32", "  %0 = load %p : ptr<i32> -> i32\n"
                                            "  %1 = sub %x, %x : i32\n"
                                            "  store %p, %1\n"));
}

TEST(DCE, ControlFlowWithoutSideEffects) {
  std::string in = kernel("%p: ptr<i32>, %x: i32, %c: i1",
                          "  %0 = if %c : i1 -> i32 {\n" // unused, pure: erased
                          "    %1 = add %x, %x : i32\n"
                          "    yield %1\n"
                          "  } {\n"
                          "    yield %x\n"
                          "  }\n"
                          "  %2 = for %x, %x, %x, %x : i32 {\n" // unused, pure: erased
                          "  ^bb(%3: i32, %4: i32):\n"
                          "    %5 = mul %4, %3 : i32\n"
                          "    yield %5\n"
                          "  }\n"
                          "  %6 = for %x, %x, %x, %x : i32 {\n" // unused, stores: stays
                          "  ^bb(%7: i32, %8: i32):\n"
                          "    %9 = mul %8, %7 : i32\n"
                          "    %10 = add %9, %9 : i32\n" // dead inside: erased
                          "    if %c {\n"
                          "      store %p, %9\n"
                          "      yield\n"
                          "    } {\n"
                          "      yield\n"
                          "    }\n"
                          "    yield %9\n"
                          "  }\n"
                          "  %11 = while %x : i32 {\n" // unused, pure: erased
                          "  ^bb(%12: i32):\n"
                          "    %13 = cmp %12, %x {pred = \"lt\"} : i32 -> i1\n"
                          "    condition %13, %12\n"
                          "  } {\n"
                          "  ^bb(%14: i32):\n"
                          "    yield %14\n"
                          "  }\n"
                          "  if %c {\n" // no results, pure: erased
                          "    %15 = add %x, %x : i32\n"
                          "    yield\n"
                          "  } {\n"
                          "    yield\n"
                          "  }\n"
                          "  %16 = if %c : i1 -> i32 {\n" // used: stays
                          "    yield %x\n"
                          "  } {\n"
                          "    %17 = add %x, %x : i32\n"
                          "    yield %17\n"
                          "  }\n"
                          "  store %p, %16\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::dce}),
            kernel("%p: ptr<i32>, %x: i32, %c: i1", "  %0 = for %x, %x, %x, %x : i32 {\n"
                                                    "  ^bb(%1: i32, %2: i32):\n"
                                                    "    %3 = mul %2, %1 : i32\n"
                                                    "    if %c {\n"
                                                    "      store %p, %3\n"
                                                    "      yield\n"
                                                    "    } {\n"
                                                    "      yield\n"
                                                    "    }\n"
                                                    "    yield %3\n"
                                                    "  }\n"
                                                    "  %4 = if %c : i1 -> i32 {\n"
                                                    "    yield %x\n"
                                                    "  } {\n"
                                                    "    %5 = add %x, %x : i32\n"
                                                    "    yield %5\n"
                                                    "  }\n"
                                                    "  store %p, %4\n"));
}

TEST(DCE, PrintAssertAndBarrierStay) {
  std::string in = kernel("%x: i32, %c: i1", "  print %x {hex = 0, prefix = \"\"}\n"
                                             "  assert %c {message = \"m\"}\n"
                                             "  barrier\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::dce}), in);
}
