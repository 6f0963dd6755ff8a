#include <gtest/gtest.h>

#include "PassTestUtil.h"

using tilec::testing::kernel;
using tilec::testing::run_passes;

namespace {

// The constant a binary op of dtype `ty` folds to, or "not folded".
std::string fold2(const std::string &op, const std::string &ty, const std::string &a,
                  const std::string &b, const std::string &attrs = "",
                  const std::string &rty = "") {
  std::string rt = rty.empty() ? ty : rty;
  std::string sig = rty.empty() ? ty : ty + " -> " + rty;
  std::string text =
      kernel("%p: ptr<" + rt + ">", "  %0 = constant {value = " + a + "} : " + ty + "\n" +
                                        "  %1 = constant {value = " + b + "} : " + ty + "\n" +
                                        "  %2 = " + op + " %0, %1" + attrs + " : " + sig +
                                        "\n  store %p, %2\n");
  std::string out = run_passes(text, {tilec::transforms::canonicalize});
  auto pos = out.find("constant {value = ");
  if (out.find(op + " %") != std::string::npos || pos == std::string::npos)
    return "not folded";
  auto end = out.find('}', pos);
  return out.substr(pos + 18, end - pos - 18);
}

std::string fold1(const std::string &op, const std::string &ty, const std::string &a,
                  const std::string &rty, const std::string &attrs = "") {
  std::string text = kernel("%p: ptr<" + rty + ">",
                            "  %0 = constant {value = " + a + "} : " + ty + "\n" + "  %1 = " + op +
                                " %0" + attrs + " : " + ty + " -> " + rty + "\n  store %p, %1\n");
  if (ty == rty)
    text.replace(text.find(" -> " + rty), 4 + rty.size(), "");
  std::string out = run_passes(text, {tilec::transforms::canonicalize});
  auto pos = out.find("constant {value = ");
  if (out.find(op + " %") != std::string::npos || pos == std::string::npos)
    return "not folded";
  auto end = out.find('}', pos);
  return out.substr(pos + 18, end - pos - 18);
}

} // namespace

TEST(Canonicalize, IntegerArithmeticWrapsAndTruncates) {
  EXPECT_EQ(fold2("add", "i8", "127", "1"), "-128");
  EXPECT_EQ(fold2("add", "u8", "200", "100"), "44");
  EXPECT_EQ(fold2("sub", "u32", "0", "1"), "4294967295");
  EXPECT_EQ(fold2("mul", "i32", "65536", "65536"), "0");
  EXPECT_EQ(fold2("mul", "i64", "4294967296", "4294967297"), "4294967296");
  EXPECT_EQ(fold2("div", "i32", "-7", "2"), "-3");
  EXPECT_EQ(fold2("rem", "i32", "-7", "2"), "-1");
  EXPECT_EQ(fold2("rem", "i32", "7", "-2"), "1");
  EXPECT_EQ(fold2("div", "u32", "4294967295", "2"), "2147483647");
  EXPECT_EQ(fold2("div", "i32", "1", "0"), "not folded");
  EXPECT_EQ(fold2("rem", "i32", "1", "0"), "not folded");
  EXPECT_EQ(fold2("div", "i32", "-2147483648", "-1"), "not folded");
  EXPECT_EQ(fold2("shr", "i32", "-8", "1"), "-4");
  EXPECT_EQ(fold2("shr", "u32", "4294967288", "1"), "2147483644");
  EXPECT_EQ(fold2("shl", "i8", "1", "7"), "-128");
  EXPECT_EQ(fold2("shl", "i32", "1", "32"), "not folded");
  EXPECT_EQ(fold2("shl", "i32", "1", "-1"), "not folded");
  EXPECT_EQ(fold2("and", "i32", "12", "10"), "8");
  EXPECT_EQ(fold2("or", "i1", "1", "0"), "1");
  EXPECT_EQ(fold2("xor", "i32", "12", "10"), "6");
  EXPECT_EQ(fold2("min", "i32", "-1", "1"), "-1");
  EXPECT_EQ(fold2("min", "u32", "4294967295", "1"), "1");
  EXPECT_EQ(fold2("max", "u8", "255", "1"), "255");
  EXPECT_EQ(fold2("umulhi", "i32", "-1", "2"), "1");
  EXPECT_EQ(fold2("umulhi", "i64", "-1", "-1"), "-2");
  EXPECT_EQ(fold1("neg", "i8", "-128", "i8"), "-128");
  EXPECT_EQ(fold1("not", "i32", "0", "i32"), "-1");
  EXPECT_EQ(fold1("abs", "i32", "-5", "i32"), "5");
}

TEST(Canonicalize, Comparisons) {
  EXPECT_EQ(fold2("cmp", "i32", "-1", "1", " {pred = \"lt\"}", "i1"), "1");
  EXPECT_EQ(fold2("cmp", "u32", "4294967295", "1", " {pred = \"lt\"}", "i1"), "0");
  EXPECT_EQ(fold2("cmp", "fp32", "nan", "1.0", " {pred = \"ne\"}", "i1"), "1");
  EXPECT_EQ(fold2("cmp", "fp32", "nan", "nan", " {pred = \"eq\"}", "i1"), "0");
  EXPECT_EQ(fold2("cmp", "fp32", "nan", "1.0", " {pred = \"lt\"}", "i1"), "0");
  EXPECT_EQ(fold2("cmp", "fp32", "-0.0", "0.0", " {pred = \"eq\"}", "i1"), "1");
  EXPECT_EQ(fold2("cmp", "fp16", "2.0", "1.5", " {pred = \"ge\"}", "i1"), "1");
}

TEST(Canonicalize, FloatsRoundToTheirDtype) {
  EXPECT_EQ(fold2("add", "fp32", "0.1", "0.2"), "0.30000001192092896");
  EXPECT_EQ(fold2("add", "fp64", "0.1", "0.2"), "0.30000000000000004");
  EXPECT_EQ(fold2("add", "fp16", "0.0999755859375", "0.199951171875"), "0.2998046875");
  EXPECT_EQ(fold2("add", "fp16", "65504.0", "65504.0"), "inf");
  EXPECT_EQ(fold2("mul", "bf16", "3.0", "3.0"), "9.0");
  EXPECT_EQ(fold2("div", "bf16", "1.0", "3.0"), "0.333984375");
  EXPECT_EQ(fold2("div", "fp32", "1.0", "0.0"), "inf");
  EXPECT_EQ(fold2("rem", "fp32", "-7.5", "2.0"), "-1.5");
  EXPECT_EQ(fold2("min", "fp32", "nan", "1.0"), "1.0");
  EXPECT_EQ(fold2("min", "fp32", "nan", "1.0", " {propagate_nan = 1}"), "nan");
  EXPECT_EQ(fold2("max", "fp32", "-0.0", "0.0"), "not folded");
  // fp8: only results fp8 holds exactly (rounding and saturation are the cast's business)
  EXPECT_EQ(fold2("add", "fp8e5", "1.0", "1.0"), "2.0");
  EXPECT_EQ(fold2("add", "fp8e5", "1.0", "0.125"), "not folded");
  EXPECT_EQ(fold1("neg", "fp32", "0.0", "fp32"), "-0.0");
  EXPECT_EQ(fold1("abs", "fp16", "-2.5", "fp16"), "2.5");
  EXPECT_EQ(fold1("floor", "fp32", "-2.5", "fp32"), "-3.0");
  EXPECT_EQ(fold1("exp", "fp32", "1.0", "fp32"), "not folded");
}

TEST(Canonicalize, Casts) {
  EXPECT_EQ(fold1("cast", "fp32", "3.7", "i32"), "3");
  EXPECT_EQ(fold1("cast", "fp32", "-3.7", "i32"), "-3");
  EXPECT_EQ(fold1("cast", "fp32", "1e10", "i32"), "not folded");
  EXPECT_EQ(fold1("cast", "fp32", "nan", "i32"), "not folded");
  EXPECT_EQ(fold1("cast", "fp32", "-1.0", "u8"), "not folded");
  EXPECT_EQ(fold1("cast", "fp32", "0.5", "i1"), "1");
  EXPECT_EQ(fold1("cast", "i32", "70000", "fp16"), "inf");
  EXPECT_EQ(fold1("cast", "i32", "16777217", "fp32"), "16777216.0");
  EXPECT_EQ(fold1("cast", "i64", "9007199254740993", "fp64"), "9007199254740992.0");
  EXPECT_EQ(fold1("cast", "u64", "-1", "fp32"), "18446744073709551616.0");
  EXPECT_EQ(fold1("cast", "i1", "1", "i32"), "1");
  EXPECT_EQ(fold1("cast", "i32", "-1", "i64"), "-1");
  EXPECT_EQ(fold1("cast", "u32", "4294967295", "i64"), "4294967295");
  EXPECT_EQ(fold1("cast", "i32", "300", "i8"), "44");
  EXPECT_EQ(fold1("cast", "i32", "2", "i1"), "1");
  EXPECT_EQ(fold1("cast", "fp32", "0.1", "fp16"), "0.0999755859375");
  EXPECT_EQ(fold1("cast", "fp32", "0.1", "fp16", " {rounding = \"rtz\"}"), "not folded");
  EXPECT_EQ(fold1("cast", "fp32", "0.5", "fp16", " {rounding = \"rtz\"}"), "0.5");
  EXPECT_EQ(fold1("bitcast", "fp32", "1.0", "i32"), "1065353216");
  EXPECT_EQ(fold1("bitcast", "i32", "-1082130432", "fp32"), "-1.0");
  EXPECT_EQ(fold1("bitcast", "i32", "-1", "u32"), "4294967295");
}

TEST(Canonicalize, SplatConstantsFoldAsTiles) {
  std::string in = kernel("%p: tile<4xptr<i32>>",
                          "  %0 = constant {value = 3} : i32\n"
                          "  %1 = splat %0 : i32 -> tile<4xi32>\n"
                          "  %2 = constant {value = 4} : tile<4xi32>\n"
                          "  %3 = mul %1, %2 : tile<4xi32>\n"
                          "  %4 = expand_dims %3 {axis = 0} : tile<4xi32> -> tile<1x4xi32>\n"
                          "  %5 = broadcast %4 : tile<1x4xi32> -> tile<2x4xi32>\n"
                          "  %6 = reshape %5 : tile<2x4xi32> -> tile<4x2xi32>\n"
                          "  %7:2 = split %6 : tile<4x2xi32> -> tile<4xi32>, tile<4xi32>\n"
                          "  store %p, %7#0\n");
  // the split too: each half of a constant tile is that constant
  EXPECT_EQ(run_passes(in, {tilec::transforms::canonicalize}),
            kernel("%p: tile<4xptr<i32>>", "  %0 = constant {value = 12} : tile<4xi32>\n"
                                           "  store %p, %0\n"));
}

TEST(Canonicalize, Identities) {
  std::string in = kernel("%p: ptr<i32>, %q: ptr<fp32>, %x: i32, %f: fp32, %c: i1",
                          "  %0 = constant {value = 0} : i32\n"
                          "  %1 = constant {value = 1} : i32\n"
                          "  %2 = constant {value = -1} : i32\n"
                          "  %3 = add %0, %x : i32\n"  // x
                          "  %4 = mul %3, %1 : i32\n"  // x
                          "  %5 = and %2, %4 : i32\n"  // x
                          "  %6 = sub %5, %0 : i32\n"  // x
                          "  %7 = div %6, %1 : i32\n"  // x
                          "  %8 = shl %7, %0 : i32\n"  // x
                          "  %9 = or %8, %0 : i32\n"   // x
                          "  %10 = xor %9, %0 : i32\n" // x
                          "  store %p, %10\n"
                          "  %11 = mul %x, %0 : i32\n" // 0
                          "  store %p, %11\n"
                          "  %12 = sub %x, %x : i32\n" // 0
                          "  store %p, %12\n"
                          "  %13 = select %c, %x, %x : i1, i32, i32 -> i32\n"
                          "  store %p, %13\n"
                          "  %14 = constant {value = 0.0} : fp32\n"
                          "  %15 = constant {value = 1.0} : fp32\n"
                          "  %16 = constant {value = -0.0} : fp32\n"
                          "  %17 = add %f, %14 : fp32\n"  // kept: -0.0 + 0.0 is +0.0
                          "  %18 = mul %f, %14 : fp32\n"  // kept: NaN, inf, sign
                          "  %19 = mul %f, %15 : fp32\n"  // f
                          "  %20 = add %19, %16 : fp32\n" // f
                          "  %21 = sub %20, %14 : fp32\n" // f
                          "  store %q, %17\n"
                          "  store %q, %18\n"
                          "  store %q, %21\n"
                          "  %22 = cast %x : i32\n"
                          "  %23 = cmp %22, %x {pred = \"le\"} : i32 -> i1\n"
                          "  %24 = select %23, %x, %0 : i1, i32, i32 -> i32\n"
                          "  store %p, %24\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::canonicalize}),
            kernel("%p: ptr<i32>, %q: ptr<fp32>, %x: i32, %f: fp32, %c: i1",
                   "  store %p, %x\n"
                   "  %0 = constant {value = 0} : i32\n"
                   "  store %p, %0\n"
                   "  %1 = constant {value = 0} : i32\n"
                   "  store %p, %1\n"
                   "  store %p, %x\n"
                   "  %2 = constant {value = 0.0} : fp32\n"
                   "  %3 = add %f, %2 : fp32\n"
                   "  %4 = mul %f, %2 : fp32\n"
                   "  store %q, %3\n"
                   "  store %q, %4\n"
                   "  store %q, %f\n"
                   "  store %p, %x\n"));
}

TEST(Canonicalize, ShapeChains) {
  std::string text =
      kernel("%p: tile<8xptr<fp32>>, %t: tile<2x4xfp32>, %s: fp32, %u: tile<4x8xfp32>, %q: "
             "tile<8x4xptr<fp32>>",
             "  %0 = reshape %t : tile<2x4xfp32> -> tile<4x2xfp32>\n"
             "  %1 = reshape %0 : tile<4x2xfp32> -> tile<8xfp32>\n"
             "  store %p, %1\n"
             "  %2 = splat %s : fp32 -> tile<8xfp32>\n"
             "  %3 = expand_dims %2 {axis = 1} : tile<8xfp32> -> tile<8x1xfp32>\n"
             "  %4 = broadcast %3 : tile<8x1xfp32> -> tile<8x4xfp32>\n"
             "  %5 = permute %4 {order = [1, 0]} : tile<8x4xfp32> -> tile<4x8xfp32>\n"
             "  %6 = permute %u {order = [1, 0]} : tile<4x8xfp32> -> tile<8x4xfp32>\n"
             "  %7 = permute %6 {order = [1, 0]} : tile<8x4xfp32> -> tile<4x8xfp32>\n"
             "  %8 = add %5, %7 : tile<4x8xfp32>\n"
             "  %9 = reshape %8 : tile<4x8xfp32> -> tile<4x8xfp32>\n"
             "  %10 = broadcast %9 : tile<4x8xfp32> -> tile<4x8xfp32>\n"
             "  %11 = reshape %10 : tile<4x8xfp32> -> tile<32xfp32>\n"
             "  %12 = reshape %11 : tile<32xfp32> -> tile<8x4xfp32>\n"
             "  store %q, %12\n");
  EXPECT_EQ(run_passes(text, {tilec::transforms::canonicalize}),
            kernel("%p: tile<8xptr<fp32>>, %t: tile<2x4xfp32>, %s: fp32, %u: tile<4x8xfp32>, %q: "
                   "tile<8x4xptr<fp32>>",
                   "  %0 = reshape %t : tile<2x4xfp32> -> tile<8xfp32>\n"
                   "  store %p, %0\n"
                   "  %1 = splat %s : fp32 -> tile<4x8xfp32>\n"
                   "  %2 = add %1, %u : tile<4x8xfp32>\n"
                   "  %3 = reshape %2 : tile<4x8xfp32> -> tile<8x4xfp32>\n"
                   "  store %q, %3\n"));
}

TEST(Canonicalize, IfOnConstantConditionIsInlined) {
  std::string in = kernel("%p: ptr<i32>, %x: i32", "  %0 = constant {value = 1} : i1\n"
                                                   "  %1 = if %0 : i1 -> i32 {\n"
                                                   "    %2 = add %x, %x : i32\n"
                                                   "    store %p, %2\n"
                                                   "    yield %2\n"
                                                   "  } {\n"
                                                   "    yield %x\n"
                                                   "  }\n"
                                                   "  %3 = constant {value = 0} : i1\n"
                                                   "  %4 = if %3 : i1 -> i32 {\n"
                                                   "    yield %1\n"
                                                   "  } {\n"
                                                   "    %5 = mul %1, %1 : i32\n"
                                                   "    yield %5\n"
                                                   "  }\n"
                                                   "  store %p, %4\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::canonicalize}),
            kernel("%p: ptr<i32>, %x: i32", "  %0 = add %x, %x : i32\n"
                                            "  store %p, %0\n"
                                            "  %1 = mul %0, %0 : i32\n"
                                            "  store %p, %1\n"));
}

TEST(Canonicalize, ZeroTripForLoopIsRemoved) {
  std::string loop = "  %3 = for %0, %1, %2, %x : i32, i32, i32, fp32 -> fp32 {\n"
                     "  ^bb(%i: i32, %a: fp32):\n"
                     "    %s = add %a, %a : fp32\n"
                     "    yield %s\n"
                     "  }\n"
                     "  store %p, %3\n";
  auto with_bounds = [&](const char *lb, const char *ub, const char *st) {
    return kernel("%p: ptr<fp32>, %x: fp32", std::string("  %0 = constant {value = ") + lb +
                                                 "} : i32\n  %1 = constant {value = " + ub +
                                                 "} : i32\n  %2 = constant {value = " + st +
                                                 "} : i32\n" + loop);
  };
  EXPECT_EQ(run_passes(with_bounds("4", "4", "1"), {tilec::transforms::canonicalize}),
            kernel("%p: ptr<fp32>, %x: fp32", "  store %p, %x\n"));
  EXPECT_EQ(run_passes(with_bounds("0", "4", "-1"), {tilec::transforms::canonicalize}),
            kernel("%p: ptr<fp32>, %x: fp32", "  store %p, %x\n"));
  // loops that run, or whose step is 0, stay
  EXPECT_NE(run_passes(with_bounds("0", "4", "1"), {tilec::transforms::canonicalize}).find("for "),
            std::string::npos);
  EXPECT_NE(run_passes(with_bounds("4", "0", "-1"), {tilec::transforms::canonicalize}).find("for "),
            std::string::npos);
  EXPECT_NE(run_passes(with_bounds("0", "4", "0"), {tilec::transforms::canonicalize}).find("for "),
            std::string::npos);
}

TEST(Canonicalize, AddPtrOfZero) {
  std::string in =
      kernel("%p: ptr<fp32>, %t: tile<4xptr<fp32>>, %v: tile<4xfp32>",
             "  %0 = constant {value = 0} : i32\n"
             "  %1 = addptr %p, %0 : ptr<fp32>, i32 -> ptr<fp32>\n"
             "  %2 = load %1 : ptr<fp32> -> fp32\n"
             "  store %p, %2\n"
             "  %3 = constant {value = 0} : tile<4xi64>\n"
             "  %4 = addptr %t, %3 : tile<4xptr<fp32>>, tile<4xi64> -> tile<4xptr<fp32>>\n"
             "  store %4, %v\n"
             "  %5 = constant {value = 1} : i32\n"
             "  %6 = addptr %p, %5 : ptr<fp32>, i32 -> ptr<fp32>\n"
             "  store %6, %2\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::canonicalize}),
            kernel("%p: ptr<fp32>, %t: tile<4xptr<fp32>>, %v: tile<4xfp32>",
                   "  %0 = load %p : ptr<fp32> -> fp32\n"
                   "  store %p, %0\n"
                   "  store %t, %v\n"
                   "  %1 = constant {value = 1} : i32\n"
                   "  %2 = addptr %p, %1 : ptr<fp32>, i32 -> ptr<fp32>\n"
                   "  store %2, %0\n"));
}

TEST(Canonicalize, SideEffectsStay) {
  std::string in =
      kernel("%p: ptr<i32>", "  %0 = load %p : ptr<i32> -> i32\n"
                             "  %1 = constant {value = 2} : i32\n"
                             "  %2 = atomic_rmw %p, %1 {op = \"add\"} : ptr<i32>, i32 -> i32\n");
  EXPECT_EQ(run_passes(in, {tilec::transforms::canonicalize}), in);
}
