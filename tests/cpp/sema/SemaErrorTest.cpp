// Invalid kernels: each error's message and exact line:col (lines are absolute: the
// kernel's source starts at line 10 of its file).
#include "SemaTestUtil.h"

namespace tilec::sema::test {
namespace {

struct ErrorCase {
  const char *name;
  const char *body; // statements of `def k(X, n, B: tl.constexpr)`, 4-space indented
  const char *message;
  int line, col; // line relative to the def line (def = 0)
};

const ErrorCase kCases[] = {
    {"undefined_name", "    x = foo + 1\n", "name 'foo' is not defined", 1, 9},
    {"break", "    for i in range(n):\n        break\n", "break is not supported", 2, 9},
    {"continue", "    while n > 0:\n        continue\n", "continue is not supported", 2, 9},
    {"lambda", "    f = lambda: 1\n", "lambda is not supported", 1, 9},
    {"chained_comparison", "    c = 0 < n < 10\n",
     "simultaneous multiple comparison is not supported", 1, 9},
    {"return_in_for", "    for i in range(n):\n        if i > 2:\n            return\n",
     "Cannot have `return` statements inside `while` or `for` statements", 3, 13},
    {"return_in_while", "    while n > 0:\n        return\n",
     "Cannot have `return` statements inside `while` or `for` statements", 2, 9},
    {"kernel_returns_value", "    return 1\n", "a kernel cannot return a value", 1, 12},
    {"if_type_mismatch",
     "    x = tl.load(X)\n    if n > 0:\n        x = tl.arange(0, B)\n    tl.store(X, x)\n",
     "Mismatched type for x: variable 'x' has type int32[constexpr[16]] after the then branch but fp32 when the branch "
     "is not taken; both paths of an `if` must leave it with the same type",
     2, 5},
    {"if_else_type_mismatch",
     "    if n > 0:\n        y = 1.0\n    else:\n        y = 1\n    tl.store(X, y)\n",
     "Mismatched type for y: variable 'y' has type fp32 after the then branch but int32 after the else branch; both "
     "paths of an `if` must leave it with the same type",
     1, 5},
    {"loop_carried_mismatch",
     "    acc = 0\n    for i in range(n):\n        acc += tl.load(X + tl.arange(0, B))\n",
     "Loop-carried variable acc has initial type int32 but is re-assigned to "
     "fp32[constexpr[16]] in loop! Please make sure that the type stays consistent.",
     2, 5},
    {"while_carried_mismatch", "    x = 0\n    while x < n:\n        x = x + 0.5\n",
     "Loop-carried variable x has initial type int32 but is re-assigned to fp32 in loop! "
     "Please make sure that the type stays consistent.",
     2, 5},
    {"call_int", "    y = B(3)\n", "'B' is not callable (it is a constexpr int)", 1, 9},
    {"call_tensor", "    y = n(3)\n", "'n' is not callable (it is a tensor)", 1, 9},
    {"range_outside_for", "    r = range(10)\n",
     "range() can only be used as the iterator of a for loop", 1, 9},
    {"with_statement", "    with foo:\n        pass\n", "with statement is not supported", 1, 5},
    {"for_else", "    for i in range(n):\n        pass\n    else:\n        pass\n",
     "else clause on a for loop is not supported", 4, 9},
    {"store_subscript", "    x = tl.load(X + tl.arange(0, B))\n    x[0] = 1\n",
     "assignment to a subscript is not supported (tensors are immutable: build a new one, e.g. "
     "with tl.where)",
     2, 5},
    {"store_attribute", "    X.foo = 1\n", "assignment to an attribute is not supported", 1, 5},
    {"fstring_tensor", "    tl.device_print(f\"{n}\")\n",
     "an f-string can only format compile-time values, but 'n' is a tensor of type int32 (pass "
     "it to tl.static_print as an argument to see its type, or use tl.device_print to print its "
     "values at run time)",
     1, 24},
    {"unpack_count", "    a, b = 1, 2, 3\n", "too many values to unpack (expected 2)", 1, 5},
    {"unpack_non_tuple", "    a, b = n\n", "cannot unpack non-tuple value of type tensor", 1, 5},
    {"static_range_runtime", "    for i in tl.static_range(n):\n        pass\n",
     "static_range arguments must be constexpr ints, not int32", 1, 14},
    {"float_range", "    for i in range(0, 2.5):\n        pass\n",
     "For loop bounds and step must all be ints, are (constexpr int, constexpr float, constexpr "
     "int)",
     1, 14},
    {"zero_step", "    for i in range(0, n, 0):\n        pass\n", "range() arg 3 must not be zero",
     1, 14},
    {"iterate_tuple", "    for i in (1, 2):\n        pass\n",
     "only range(), tl.range() and tl.static_range() can be iterated over in a kernel", 1, 14},
    {"import", "    import math\n", "import is not supported inside a kernel", 1, 5},
    {"nested_def", "    def inner():\n        pass\n",
     "nested function definition is not supported", 1, 5},
    {"if_on_float", "    if 1.5:\n        pass\n",
     "`if` conditionals can only accept values of type {bool, int, NoneType}, not objects of "
     "type float",
     1, 8},
    {"ternary_mismatch", "    y = 1.0 if n > 0 else 1\n",
     "Ternary expression with dynamic condition has inconsistent types fp32 and int32", 1, 9},
    {"module_attribute", "    y = tl.foo\n", "module 'tilec.language' has no attribute 'foo'", 1,
     9},
    {"tensor_attribute", "    y = n.foo\n", "'tensor' object has no attribute 'foo'", 1, 9},
    {"int_too_large", "    y = 99999999999999999999\n",
     "integer literal is too large (at most 2**64 - 1)", 1, 9},
    {"constexpr_annotated_tensor", "    Z: tl.constexpr = n + 1\n",
     "'Z' is annotated tl.constexpr but its value is a tensor, not a compile-time constant", 1, 23},
    {"kwargs_call", "    tl.store(X, 1.0, **n)\n", "**kwargs in calls is not supported", 1, 22},
    {"starred_non_tuple", "    tl.store(*n)\n", "only a tuple can be unpacked with *, not tensor",
     1, 14},
    {"dtype_no_element_ty", "    y = tl.float32.element_ty\n",
     "dtype fp32 has no attribute 'element_ty' (only pointer types have one)", 1, 9},
    {"loop_carries_none", "    m = None\n    for i in range(n):\n        m = i\n",
     "Loop-carried variable m has initial type None but is re-assigned to int32 in loop! Please "
     "make sure that the type stays consistent.",
     2, 5},
};

class SemaError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(SemaError, MessageAndLocation) {
  const ErrorCase &c = GetParam();
  std::string src = "@triton.jit\ndef k(X, n, B: tl.constexpr):\n" + std::string(c.body);
  // The def is on line 11 of kernels.py (decorator on line 10).
  Diag d = lower_error(make_fn("k", src, std_globals(), 10), {ptr(), int_arg(), cint(16)});
  ASSERT_TRUE(d.raised) << c.name;
  EXPECT_EQ(d.message, c.message) << c.name;
  EXPECT_EQ(d.line, 11 + c.line) << c.name;
  EXPECT_EQ(d.col, c.col) << c.name;
  std::string prefix =
      "kernels.py:" + std::to_string(11 + c.line) + ":" + std::to_string(c.col) + ": error: ";
  EXPECT_EQ(d.rendered.rfind(prefix, 0), 0u) << d.rendered;
}

INSTANTIATE_TEST_SUITE_P(Kernels, SemaError, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase> &i) {
                           return std::string(i.param.name);
                         });

TEST(SemaErrorSpec, ConstexprParameterWithoutConstexprSpec) {
  Diag d = lower_error("k", "def k(X, B: tl.constexpr):\n    pass\n", {ptr(), int_arg()});
  EXPECT_EQ(d.message,
            "parameter 'B' is annotated tl.constexpr but was not given a compile-time value");
  EXPECT_EQ(d.line, 1);
  EXPECT_EQ(d.col, 10);
}

TEST(SemaErrorSpec, StaticAssertFailurePointsAtCall) {
  Diag d =
      lower_error("k", "def k(X, B: tl.constexpr):\n    tl.static_assert(B > 32, f\"B={B}\")\n",
                  {ptr(), cint(16)});
  ASSERT_TRUE(d.raised);
  EXPECT_NE(d.message.find("B=16"), std::string::npos) << d.message;
  EXPECT_EQ(d.line, 2);
}

} // namespace
} // namespace tilec::sema::test

namespace tilec::sema::test {
namespace {

TEST(SemaErrorSpec, PathologicalSizeFailsInsteadOfHanging) {
  // 2**40 copies if the code after each early return were copied without limit.
  std::string src = "def k(X, n):\n";
  for (int i = 0; i < 40; ++i)
    src += "    if n > " + std::to_string(i) + ":\n        if n > 100:\n            return\n";
  src += "    tl.store(X, 1.0)\n";
  Diag d = lower_error("k", src, {ptr(), int_arg()});
  ASSERT_TRUE(d.raised);
  EXPECT_EQ(d.message.rfind("kernel too large: more than 100000 statements", 0), 0u) << d.message;

  // Nested static_range unrolling: 4096 * 4096 bodies.
  d = lower_error("k",
                  "def k(X, n):\n    acc = 0.0\n    for i in tl.static_range(4096):\n"
                  "        for j in tl.static_range(4096):\n            acc += 1.0\n",
                  {ptr(), int_arg()});
  EXPECT_EQ(d.message.rfind("kernel too large", 0), 0u) << d.message;
}

// Triton prints static_print output as it compiles: it must not be lost to a later error.
TEST(SemaErrorSpec, StaticPrintOutputComesWithTheError) {
  auto k = make_fn("k", R"(def k(X, B: tl.constexpr):
    tl.static_print("B is", B)
    for i in tl.static_range(2):
        tl.static_print(f"i={i}")
    tl.static_assert(B < 8, "too big")
)");
  SourceManager sm;
  try {
    lower_kernel(k, {ptr(), cint(16)}, {}, sm);
    ADD_FAILURE() << "no error";
  } catch (const CompileError &e) {
    EXPECT_EQ(e.message(), "static_assert failed: too big");
    EXPECT_EQ(e.loc().line, 5);
    EXPECT_EQ(static_output_of(e), "B is 16\ni=0\ni=1\n");
    EXPECT_NE(dynamic_cast<const CompileErrorWithOutput *>(&e), nullptr);
  }
  // Nothing printed: a plain CompileError.
  try {
    lower_kernel(make_fn("k", "def k(X):\n    x = nope\n"), {ptr()}, {}, sm);
    ADD_FAILURE() << "no error";
  } catch (const CompileError &e) {
    EXPECT_EQ(static_output_of(e), "");
    EXPECT_EQ(dynamic_cast<const CompileErrorWithOutput *>(&e), nullptr);
  }
}

} // namespace
} // namespace tilec::sema::test
