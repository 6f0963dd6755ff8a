#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

const char *kAddKernel =
    R"(tt.func @add_kernel(%x_ptr: ptr<fp32>, %out_ptr: ptr<fp32>, %n_elements: i32) {
  %0 = program_id {axis = 0} : i32
  %1 = constant {value = 1024} : i32
  %2 = mul %0, %1 : i32
  %3 = arange {end = 1024, start = 0} : tile<1024xi32>
  %4 = splat %2 : i32 -> tile<1024xi32>
  %5 = add %4, %3 : tile<1024xi32>
  %6 = splat %n_elements : i32 -> tile<1024xi32>
  %7 = cmp %5, %6 {pred = "lt"} : tile<1024xi32> -> tile<1024xi1>
  %8 = splat %x_ptr : ptr<fp32> -> tile<1024xptr<fp32>>
  %9 = addptr %8, %5 : tile<1024xptr<fp32>>, tile<1024xi32> -> tile<1024xptr<fp32>>
  %10 = load %9, %7 : tile<1024xptr<fp32>>, tile<1024xi1> -> tile<1024xfp32>
  %11 = splat %out_ptr : ptr<fp32> -> tile<1024xptr<fp32>>
  %12 = addptr %11, %5 : tile<1024xptr<fp32>>, tile<1024xi32> -> tile<1024xptr<fp32>>
  store %12, %10, %7
  return
}
)";

const char *kControlFlow = R"(module {num_warps = 4, "odd name" = "x\"y", tt.divisibility = [16, 1]}

tt.func @k(%n: i32, %x: tile<4x2xfp32>) {
  %0:2 = split %x : tile<4x2xfp32> -> tile<4xfp32>, tile<4xfp32>
  %1 = constant {value = 0.0} : fp32
  %2 = constant {value = 1} : i32
  %3 = for %2, %n, %2, %1 : i32, i32, i32, fp32 -> fp32 {
  ^bb(%4: i32, %5: fp32):
    %6 = constant {value = 0.1} : fp32
    %7 = add %5, %6 : fp32
    yield %7
  }
  %8 = cmp %n, %2 {pred = "gt"} : i32 -> i1
  %9:2 = if %8 : i1 -> fp32, i32 {
    yield %3, %n
  } {
    yield %1, %2
  }
  %10:2 = while %2, %1 : i32, fp32 -> i32, fp32 {
  ^bb(%11: i32, %12: fp32):
    %13 = cmp %11, %n {pred = "lt"} : i32 -> i1
    condition %13, %11, %12
  } {
  ^bb(%14: i32, %15: fp32):
    %16 = add %14, %2 : i32
    yield %16, %15
  }
  %17 = reduce %0#0 {axis = 0} : tile<4xfp32> -> fp32 {
  ^bb(%18: fp32, %19: fp32):
    %20 = max %18, %19 {propagate_nan = 1} : fp32
    yield %20
  }
  %21 = join %0#0, %0#1 : tile<4xfp32> -> tile<4x2xfp32>
  print %17, %9#0 {hex = 0, prefix = "v: "}
  barrier
  return
}
)";

} // namespace

TEST(IRParser, RoundTripAddKernel) {
  auto m = parse_module(kAddKernel);
  EXPECT_EQ(print(*m), kAddKernel);
  EXPECT_NO_THROW(verify(*m));
  EXPECT_EQ(m->functions[0]->arg_names,
            (std::vector<std::string>{"x_ptr", "out_ptr", "n_elements"}));
}

TEST(IRParser, RoundTripRegionsAttrsAndMultipleResults) {
  auto m = parse_module(kControlFlow);
  std::string expected = kControlFlow;
  EXPECT_EQ(print(*m), expected);
  EXPECT_NO_THROW(verify(*m));
  // and a second trip is a fixed point
  EXPECT_EQ(print(*parse_module(print(*m))), expected);
}

TEST(IRParser, NamedValuesAndComments) {
  auto m = parse_module(R"(
// a comment
tt.func @f(%a: i32, %t: tile<4x2xi32>) {   // trailing comment
  %sum = add %a, %a : i32
  %p, %q = split %t : tile<4x2xi32> -> tile<4xi32>, tile<4xi32>
  %j = join %q, %p : tile<4xi32> -> tile<4x2xi32>
  return
}
)");
  EXPECT_EQ(print(*m), R"(tt.func @f(%a: i32, %t: tile<4x2xi32>) {
  %0 = add %a, %a : i32
  %1:2 = split %t : tile<4x2xi32> -> tile<4xi32>, tile<4xi32>
  %2 = join %1#1, %1#0 : tile<4xi32> -> tile<4x2xi32>
  return
}
)");
}

TEST(IRParser, FloatsRoundTripExactly) {
  for (double d : {0.1, 1.0 / 3.0, 1e-310, -0.0, 3.4028234663852886e38, 65504.0, 1e22,
                   std::ldexp(1.0, -1074)}) {
    std::string text =
        "tt.func @f() {\n  %0 = constant {value = " + format_double(d) + "} : fp64\n  return\n}\n";
    auto m = parse_module(text);
    const Op &c = *m->functions[0]->entry()->ops().front();
    double back = std::get<double>(*c.attr("value"));
    EXPECT_EQ(std::memcmp(&back, &d, sizeof d), 0) << format_double(d);
    EXPECT_EQ(print(*m), text);
  }
  auto m = parse_module("tt.func @f() {\n  %0 = constant {value = -inf} : fp32\n"
                        "  %1 = constant {value = nan} : fp32\n  return\n}\n");
  auto it = m->functions[0]->entry()->ops().begin();
  EXPECT_EQ((*it)->float_attr("value"), -INFINITY);
  EXPECT_TRUE(std::isnan((*++it)->float_attr("value")));
}

TEST(IRParser, Locations) {
  SourceManager sm;
  int file = sm.add("t.tir", "tt.func @f() {\n  return loc(\"k.py\":12:5)\n}\n");
  auto m = parse_module(sm, file);
  SourceLoc l = m->functions[0]->entry()->ops().front()->loc();
  ASSERT_TRUE(l.valid());
  EXPECT_EQ(sm.file(l.file).path, "k.py");
  EXPECT_EQ(l.line, 12);
  EXPECT_EQ(l.col, 5);
  PrintOptions o;
  o.locations = true;
  o.sources = &sm;
  EXPECT_EQ(print(*m, o), sm.file(file).text);
}

namespace {
std::string parse_error(const std::string &text) {
  try {
    parse_module(text);
  } catch (const CompileError &e) {
    return e.message();
  }
  return "no error";
}
} // namespace

TEST(IRParser, ErrorsCarryLineAndColumn) {
  EXPECT_EQ(parse_error("tt.func @f() {\n  %0 = frobnicate : i32\n}\n"),
            "2:8: unknown op 'frobnicate'");
  EXPECT_EQ(parse_error("tt.func @f() {\n  %0 = add %1, %1 : i32\n}\n"),
            "2:12: use of undefined value %1");
  EXPECT_EQ(parse_error("tt.func @f(%a: i33) {\n}\n"), "1:16: expected a type, got 'i33'");
  EXPECT_EQ(parse_error("tt.func @f(%a: i32) {\n  %0 = add %a, %a\n  return\n}\n"),
            "2:8: missing result types (': T')");
  EXPECT_EQ(parse_error("tt.func @f(%a: i32) {\n  %0 = add %a, %a : fp32 -> i32\n}\n"),
            "2:21: operand 0 has type i32, not fp32");
  EXPECT_EQ(parse_error("tt.func @f(%a: i32) {\n  %a = neg %a : i32\n}\n"),
            "2:3: value %a is defined twice");
  EXPECT_EQ(
      parse_error("tt.func @f(%a: tile<2xi32>) {\n  %0:2 = split %a : tile<2xi32> -> i32, i32\n"
                  "  %1 = neg %0 : i32\n}\n"),
      "3:12: %0 has 2 results: use %0#i");
  EXPECT_EQ(parse_error("tt.func @f() {\n  return\n"), "3:1: missing '}'");
  EXPECT_EQ(parse_error("tt.func @f() {\n  return junk\n}\n"),
            "2:10: unexpected text after the op");
  EXPECT_EQ(parse_error("tt.func @f() {\n  %0 = constant {value = 1x} : i32\n}\n"),
            "2:26: malformed number");
  EXPECT_EQ(parse_error("tt.func @f() {\n  %0 = constant {value = \"ab} : i32\n}\n"),
            "2:26: unterminated string");
  // a value defined in a region is not visible after it
  EXPECT_EQ(parse_error("tt.func @f(%c: i1) {\n  if %c {\n    %0 = constant {value = 1} : i32\n"
                        "    yield\n  } {\n    yield\n  }\n  %1 = neg %0 : i32\n}\n"),
            "8:12: use of undefined value %0");
}

TEST(IRParser, ErrorsRenderWithTheSourceManager) {
  SourceManager sm;
  int file = sm.add("bad.tir", "tt.func @f() {\n  %0 = nope : i32\n}\n");
  try {
    parse_module(sm, file);
    FAIL();
  } catch (const CompileError &e) {
    EXPECT_EQ(render_diagnostic(sm, e.loc(), "error", e.message()),
              "bad.tir:2:8: error: unknown op 'nope'\n  %0 = nope : i32\n       ^\n");
  }
}
