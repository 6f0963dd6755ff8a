#include <gtest/gtest.h>

#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

// Wraps `body` in a kernel with a few arguments and returns the verifier's message.
std::string verify_error(const std::string &body) {
  std::string text = "tt.func @k(%p: ptr<fp32>, %n: i32, %f: fp32, %t: tile<16xfp32>, "
                     "%i: tile<16xi32>, %m: tile<16xi1>, %c: i1) {\n" +
                     body + "\n}\n";
  auto mod = parse_module(text);
  try {
    verify(*mod);
  } catch (const InternalError &e) {
    return e.what();
  }
  return "ok";
}

void expect_error(const std::string &body, const std::string &fragment) {
  std::string msg = verify_error(body);
  EXPECT_NE(msg.find(fragment), std::string::npos)
      << "body:\n"
      << body << "\nmessage: " << msg << "\nexpected: " << fragment;
}

void expect_ok(const std::string &body) { EXPECT_EQ(verify_error(body), "ok") << body; }

} // namespace

TEST(Verifier, AcceptsWellFormedOps) {
  expect_ok(
      "  %0 = add %t, %t : tile<16xfp32>\n"
      "  %1 = cmp %t, %t {pred = \"le\"} : tile<16xfp32> -> tile<16xi1>\n"
      "  %2 = select %1, %t, %t : tile<16xi1>, tile<16xfp32>, tile<16xfp32> -> tile<16xfp32>\n"
      "  %3 = cast %i : tile<16xi32> -> tile<16xfp16>\n"
      "  %4 = bitcast %i : tile<16xi32> -> tile<16xfp32>\n"
      "  %5 = splat %p : ptr<fp32> -> tile<16xptr<fp32>>\n"
      "  %6 = addptr %5, %i : tile<16xptr<fp32>>, tile<16xi32> -> tile<16xptr<fp32>>\n"
      "  %7 = load %6, %m, %t : tile<16xptr<fp32>>, tile<16xi1>, tile<16xfp32> -> tile<16xfp32>\n"
      "  store %6, %7, %m\n"
      "  %8 = atomic_rmw %6, %t, %m {op = \"add\"} : tile<16xptr<fp32>>, tile<16xfp32>, "
      "tile<16xi1> -> tile<16xfp32>\n"
      "  %9 = expand_dims %t {axis = 1} : tile<16xfp32> -> tile<16x1xfp32>\n"
      "  %10 = broadcast %9 : tile<16x1xfp32> -> tile<16x16xfp32>\n"
      "  %11 = permute %10 {order = [1, 0]} : tile<16x16xfp32> -> tile<16x16xfp32>\n"
      "  %12 = dot %10, %11, %10 : tile<16x16xfp32>\n"
      "  %13 = reshape %12 : tile<16x16xfp32> -> tile<256xfp32>\n"
      "  %14 = scan %i {axis = 0, reverse = 0} : tile<16xi32> {\n"
      "  ^bb(%a: i32, %b: i32):\n"
      "    %s = add %a, %b : i32\n"
      "    yield %s\n"
      "  }\n"
      "  %15 = arange {end = 16, start = 0} : tile<16xi32>\n"
      "  %16 = cat %t, %t : tile<16xfp32> -> tile<32xfp32>\n"
      "  %17 = exp %f : fp32\n"
      "  %18 = fma %t, %t, %t : tile<16xfp32>\n"
      "  %19 = program_id {axis = 2} : i32\n"
      "  assert %m {message = \"x\"}\n"
      "  return");
}

TEST(Verifier, StructureAndDominance) {
  expect_error("  %0 = add %n, %n : i32", "the kernel body must end with `return`");
  expect_error("  return\n  %0 = add %n, %n : i32\n  return", "a terminator must be the last op");
  expect_error("  for %n, %n, %n {\n  ^bb(%iv: i32):\n    %x = add %iv, %iv : i32\n  }\n"
               "  return",
               "loop body must end with `yield`");
  expect_error("  if %c {\n    return\n  } {\n    yield\n  }\n  return",
               "`return` may only end the kernel body");
  expect_error("  yield\n  return", "a terminator must be the last op");
  expect_error("  if %c {\n    condition %c\n  } {\n    yield\n  }\n  return",
               "`condition` outside a while's before region");
  // %x is used in the else branch but defined in the then branch
  {
    auto m = parse_module("tt.func @k(%c: i1, %n: i32) {\n  %0 = if %c : i1 -> i32 {\n"
                          "    %1 = add %n, %n : i32\n    yield %1\n  } {\n    yield %n\n  }\n"
                          "  return\n}\n");
    Op *iff = m->functions[0]->entry()->ops().front().get();
    Value *inner = iff->region(0)->block()->ops().front()->result();
    iff->region(1)->block()->terminator()->set_operand(0, inner);
    try {
      verify(*m);
      FAIL();
    } catch (const InternalError &e) {
      EXPECT_NE(std::string(e.what()).find("yield: operand 0 does not dominate its use"),
                std::string::npos)
          << e.what();
    }
    // valid again, so the module can be destroyed
    iff->region(1)->block()->terminator()->set_operand(0, m->functions[0]->entry()->arg(1));
  }
  // a use before the definition in the same block
  {
    auto m = parse_module("tt.func @k(%n: i32) {\n  %0 = add %n, %n : i32\n"
                          "  %1 = add %0, %0 : i32\n  return\n}\n");
    Block *b = m->functions[0]->entry();
    Op *first = b->ops().front().get();
    Op *second = std::next(b->ops().begin())->get();
    first->set_operand(0, second->result());
    try {
      verify(*m);
      FAIL();
    } catch (const InternalError &e) {
      EXPECT_EQ(std::string(e.what()),
                "IR verification failed in @k: add: operand 0 does not dominate its use (defined "
                "later, in a sibling or inner region, or elsewhere)\n  %0 = add %1, %n : i32");
    }
    first->set_operand(0, b->arg(0)); // valid again, so the module can be destroyed
  }
}

TEST(Verifier, ArgumentNamesMatchArguments) {
  auto m = parse_module("tt.func @k(%a: i32, %b: tile<3xi32>) {\n  return\n}\n");
  try {
    verify(*m);
    FAIL();
  } catch (const InternalError &e) {
    EXPECT_EQ(
        std::string(e.what()),
        "IR verification failed in @k: tile dimensions must be powers of two, got tile<3xi32>");
  }
  m = parse_module("tt.func @k(%a: i32) {\n  return\n}\n");
  m->functions[0]->arg_names.push_back("extra");
  try {
    verify(*m);
    FAIL();
  } catch (const InternalError &e) {
    EXPECT_EQ(std::string(e.what()),
              "IR verification failed in @k: 2 argument names for 1 arguments");
  }
}

TEST(Verifier, ElementwiseAndCasts) {
  expect_error("  %0 = add %n, %f : i32, fp32 -> i32\n  return",
               "operands and result must have one type");
  expect_error("  %0 = add %t, %t : tile<16xfp32> -> tile<32xfp32>\n  return", "one shape");
  expect_error("  %0 = and %t, %t : tile<16xfp32>\n  return", "needs integer operands");
  expect_error("  %0 = exp %n : i32\n  return", "needs a float operand");
  expect_error("  %0 = cmp %n, %n {pred = \"lt\"} : i32\n  return", "result must be i1");
  expect_error("  %0 = cmp %n, %n {pred = \"less\"} : i32 -> i1\n  return",
               "unknown value \"less\"");
  expect_error("  %0 = cmp %n, %n : i32 -> i1\n  return", "missing attribute `pred`");
  expect_error("  %0 = select %n, %f, %f : i32, fp32, fp32 -> fp32\n  return",
               "condition must be i1");
  expect_error("  %0 = select %c, %f, %n : i1, fp32, i32 -> fp32\n  return", "one type");
  expect_error("  %0 = bitcast %n : i32 -> fp16\n  return", "different bit widths");
  expect_error("  %0 = cast %p : ptr<fp32> -> i64\n  return", "pointer and non-pointer");
  expect_error("  %0 = addptr %n, %n : i32\n  return", "first operand must be a pointer");
  expect_error("  %0 = addptr %p, %f : ptr<fp32>, fp32 -> ptr<fp32>\n  return",
               "offsets must be integers");
  expect_error("  %0 = add %n : i32\n  return", "expected 2 operands, got 1");
  expect_error("  %0 = constant : i32\n  return", "missing attribute `value`");
  expect_error("  %0 = constant {value = 1.5} : i32\n  return", "must be an integer");
}

TEST(Verifier, ShapesAndTiles) {
  expect_error("  %0 = arange {end = 12, start = 0} : tile<12xi32>\n  return", "powers of two");
  expect_error("  %0 = arange {end = 17, start = 0} : tile<16xi32>\n  return", "end - start");
  expect_error("  %0 = splat %t : tile<16xfp32> -> tile<16xfp32>\n  return", "splats a scalar");
  expect_error("  %0 = splat %n : i32 -> tile<16xfp32>\n  return", "element types differ");
  expect_error("  %0 = broadcast %t : tile<16xfp32> -> tile<32xfp32>\n  return",
               "cannot broadcast");
  expect_error("  %0 = expand_dims %t {axis = 2} : tile<16xfp32> -> tile<16x1xfp32>\n  return",
               "out of range");
  expect_error("  %0 = expand_dims %t {axis = 0} : tile<16xfp32> -> tile<16x1xfp32>\n  return",
               "inserted at `axis`");
  expect_error("  %0 = reshape %t : tile<16xfp32> -> tile<4x8xfp32>\n  return",
               "number of elements");
  expect_error("  %0 = permute %t {order = [1]} : tile<16xfp32>\n  return", "permutation");
  expect_error("  %0:2 = split %t : tile<16xfp32> -> tile<8xfp32>, tile<8xfp32>\n  return",
               "last dim must be 2");
  expect_error("  %0 = join %t, %i : tile<16xfp32>, tile<16xi32> -> tile<16x2xfp32>\n  return",
               "one type");
  expect_error("  %0 = expand_dims %t {axis = 1} : tile<16xfp32> -> tile<16x1xfp32>\n"
               "  %1 = dot %0, %0, %0 : tile<16x1xfp32>\n  return",
               "shapes do not match");
  expect_error("  %0 = program_id {axis = 3} : i32\n  return", "out of range [0, 3)");
  expect_error("  %0 = program_id : i64\n  return", "result must be i32");
}

TEST(Verifier, Memory) {
  expect_error("  %0 = load %p : ptr<fp32> -> fp16\n  return", "pointee type fp32");
  expect_error("  %0 = splat %p : ptr<fp32> -> tile<16xptr<fp32>>\n"
               "  %1 = load %0, %i : tile<16xptr<fp32>>, tile<16xi32> -> tile<16xfp32>\n  return",
               "mask must be i1");
  expect_error("  %0 = load %p, %c, %n : ptr<fp32>, i1, i32 -> fp32\n  return",
               "`other` must have");
  expect_error("  store %p, %n\n  return", "stored value must have type fp32");
  expect_error("  %0 = atomic_rmw %p, %f {op = \"nand\"} : ptr<fp32>, fp32 -> fp32\n  return",
               "unknown value \"nand\"");
  expect_error("  %0 = atomic_cas %p, %f, %n : ptr<fp32>, fp32, i32 -> fp32\n  return",
               "compare value, new value and result");
}

TEST(Verifier, Regions) {
  expect_error("  %0 = if %n : i32 -> i32 {\n    yield %n\n  } {\n    yield %n\n  }\n  return",
               "condition must be a scalar i1");
  expect_error("  %0 = if %c : i1 -> i32 {\n    yield %f\n  } {\n    yield %n\n  }\n  return",
               "then region yields (fp32), expected (i32)");
  expect_error("  %0 = if %c : i1 -> i32 {\n    yield %n\n  }\n  return",
               "expected 2 regions, got 1");
  expect_error(
      "  %0 = for %n, %n, %f, %f : i32, i32, fp32, fp32 -> fp32 {\n  ^bb(%iv: i32, %a: fp32):\n"
      "    yield %a\n  }\n  return",
      "lb, ub and step must be scalar integers");
  expect_error("  %0 = for %n, %n, %n, %f : i32, i32, i32, fp32 -> fp32 {\n  ^bb(%a: fp32):\n"
               "    yield %a\n  }\n  return",
               "loop body arguments are (fp32), expected (i32, fp32)");
  expect_error(
      "  %0 = for %n, %n, %n, %f : i32, i32, i32, fp32 -> fp32 {\n  ^bb(%iv: i32, %a: fp32):\n"
      "    yield %iv\n  }\n  return",
      "loop body yields (i32), expected (fp32)");
  expect_error("  %0 = while %n : i32 {\n  ^bb(%a: i32):\n    condition %a, %a\n  } {\n"
               "  ^bb(%b: i32):\n    yield %b\n  }\n  return",
               "`condition` needs a scalar i1 first operand");
  expect_error("  %0 = while %n : i32 {\n  ^bb(%a: i32):\n    condition %c, %a\n  } {\n"
               "  ^bb(%b: i32):\n    yield %f\n  }\n  return",
               "after region yields (fp32), expected (i32)");
  expect_error("  %0 = reduce %t {axis = 0} : tile<16xfp32> -> fp32 {\n  ^bb(%a: fp32, %b: fp32):\n"
               "    %s = add %a, %b : fp32\n    yield %s, %s\n  }\n  return",
               "combiner region yields (fp32, fp32), expected (fp32)");
  expect_error(
      "  %0 = reduce %t {axis = 0} : tile<16xfp32> -> tile<16xfp32> {\n  ^bb(%a: fp32, %b: fp32):\n"
      "    yield %a\n  }\n  return",
      "result 0 must be fp32");
  expect_error("  %0 = reduce %t {axis = 0} : tile<16xfp32> -> fp32 {\n  ^bb(%a: fp32):\n"
               "    yield %a\n  }\n  return",
               "combiner region arguments are (fp32), expected (fp32, fp32)");
  expect_error("  %0 = reduce %t {axis = 0} : tile<16xfp32> -> fp32 {\n  ^bb(%a: fp32, %b: fp32):\n"
               "    %s = add %a, %b : fp32\n  }\n  return",
               "combiner region must end with `yield`");
}

TEST(Verifier, GatherAndHistogram) {
  expect_ok("  %0 = reshape %t : tile<16xfp32> -> tile<4x4xfp32>\n"
            "  %1 = expand_dims %i {axis = 1} : tile<16xi32> -> tile<16x1xi32>\n"
            "  %2 = broadcast %1 : tile<16x1xi32> -> tile<16x4xi32>\n"
            "  %3 = gather %0, %2 {axis = 0} : tile<4x4xfp32>, tile<16x4xi32> -> tile<16x4xfp32>\n"
            "  %4 = gather %t, %i {axis = 0} : tile<16xfp32>, tile<16xi32> -> tile<16xfp32>\n"
            "  %5 = histogram %i, %m : tile<16xi32>, tile<16xi1> -> tile<64xi32>\n"
            "  %6 = histogram %i : tile<16xi32> -> tile<2xi32>\n"
            "  return");
  expect_error("  %0 = gather %t, %t {axis = 0} : tile<16xfp32>, tile<16xfp32> -> tile<16xfp32>\n"
               "  return",
               "index must be an integer tile");
  expect_error("  %0 = reshape %i : tile<16xi32> -> tile<8x2xi32>\n"
               "  %1 = reshape %t : tile<16xfp32> -> tile<4x4xfp32>\n"
               "  %2 = gather %1, %0 {axis = 0} : tile<4x4xfp32>, tile<8x2xi32> -> tile<8x2xfp32>\n"
               "  return",
               "index must have src's dims except along `axis`");
  expect_error("  %0 = gather %t, %i {axis = 1} : tile<16xfp32>, tile<16xi32> -> tile<16xfp32>\n"
               "  return",
               "out of range");
  expect_error("  %0 = gather %t, %i {axis = 0} : tile<16xfp32>, tile<16xi32> -> tile<16xi32>\n"
               "  return",
               "result must have src's element type and index's shape");
  expect_error("  %0 = histogram %t : tile<16xfp32> -> tile<8xi32>\n"
               "  return",
               "input must be a 1-D integer tile");
  expect_error("  %0 = histogram %i, %i : tile<16xi32>, tile<16xi32> -> tile<8xi32>\n"
               "  return",
               "mask must be i1");
  expect_error("  %0 = histogram %i : tile<16xi32> -> tile<8xi64>\n"
               "  return",
               "result must be tile<Bxi32>");
}
