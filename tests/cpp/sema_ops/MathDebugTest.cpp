// Elementwise math builtins, Python's builtins in kernels, debugging builtins and hints.
#include "TestEmitter.h"

#include <cmath>

namespace tilec::sema::test {
namespace {

using ir::OpKind;

Val I(int64_t v) { return Val::integer(v); }
Val F(double v) { return Val::floating(v); }
Val B(bool v) { return Val::boolean(v); }
Val S(const std::string &s) { return Val::string(s); }
Val T(std::vector<Val> v) { return Val::tuple(std::move(v)); }

TEST(Math, WhereMinimumMaximumClamp) {
  TestEmitter e;
  Val m = e.arg("tile<16xi1>");
  Val x = e.arg("tile<16xfp16>");
  Val w = e.call("where", {m, x, F(0.0)});
  EXPECT_EQ(type_of(w), "tile<16xfp16>");
  EXPECT_EQ(w.tensor->def->kind(), OpKind::Select);
  Val ws = e.call("where", {e.arg("i1"), e.arg("tile<4x8xi32>"), I(1)});
  EXPECT_EQ(type_of(ws), "tile<4x8xi32>");
  Val wc = e.call("where", {e.arg("tile<4x1xi32>"), F(1.0), F(2.0)});
  EXPECT_EQ(type_of(wc), "tile<4x1xfp32>");
  Val mx = e.call("maximum", {e.arg("tile<16xfp32>"), F(0.0)});
  EXPECT_EQ(mx.tensor->def->kind(), OpKind::Max);
  EXPECT_EQ(mx.tensor->def->int_attr("propagate_nan"), 0);
  Val mn = e.call("minimum", {e.arg("tile<16xfp32>"), e.arg("tile<16xfp32>")},
                  {{"propagate_nan", I(0xFFFF)}});
  EXPECT_EQ(mn.tensor->def->int_attr("propagate_nan"), 1);
  EXPECT_EQ(type_of(e.call("maximum", {e.arg("tile<16xbf16>"), e.arg("tile<16xbf16>")})),
            "tile<16xfp32>");
  // minimum converts both operands to tensors first: no Python-scalar rule (int32 wins).
  EXPECT_EQ(type_of(e.call("minimum", {e.arg("tile<16xi8>"), I(3)})), "tile<16xi32>");
  Val c = e.call("clamp", {e.arg("tile<16xfp32>"), F(-1.0), F(1.0)});
  EXPECT_EQ(type_of(c), "tile<16xfp32>");
  EXPECT_EQ(error_of([&] {
              e.call("clamp", {e.arg("tile<16xi32>"), I(0), I(5)});
            }),
            "Unexpected dtype int32. Only floating point clamp is supported");
  e.verify();
}

TEST(Math, UnaryFunctionsCheckDtypes) {
  TestEmitter e;
  Val x = e.arg("tile<8xfp32>");
  for (const char *fn :
       {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "erf", "floor", "ceil"}) {
    Val r = e.call(fn, {x});
    EXPECT_EQ(type_of(r), "tile<8xfp32>") << fn;
    EXPECT_EQ(r.tensor->def->name(), fn);
    EXPECT_EQ(type_of(e.call(std::string("math.") + fn, {e.arg("fp64")})), "fp64") << fn;
  }
  EXPECT_EQ(error_of([&] { e.call("exp", {e.arg("tile<8xfp16>")}); }),
            "Expected dtype ['fp32', 'fp64'] but got fp16 (in tl.exp)");
  EXPECT_EQ(error_of([&] { e.call("sqrt_rn", {e.arg("fp64")}); }),
            "Expected dtype ['fp32'] but got fp64 (in tl.sqrt_rn)");
  EXPECT_EQ(type_of(e.call("exp", {F(2.0)})), "fp32");
  EXPECT_EQ(e.method("exp", x, {}).tensor->def->kind(), OpKind::Exp);
  EXPECT_EQ(e.call("abs", {e.arg("tile<8xi32>")}).tensor->def->kind(), OpKind::Abs);
  Val u = e.arg("tile<8xu8>");
  EXPECT_EQ(e.call("abs", {u}).tensor, u.tensor);
  Val fma = e.call("fma", {x, F(2.0), e.arg("tile<8xfp32>")});
  EXPECT_EQ(fma.tensor->def->kind(), OpKind::Fma);
  EXPECT_EQ(e.call("umulhi", {e.arg("tile<8xu32>"), e.arg("tile<8xu32>")}).tensor->def->kind(),
            OpKind::Umulhi);
  EXPECT_EQ(error_of([&] {
              e.call("umulhi", {x, x});
            }),
            "Expected dtype ['int32', 'int64', 'uint32', 'uint64'] but got fp32 (in tl.umulhi)");
  Val d = e.call("fdiv", {x, e.arg("tile<8xfp32>")}, {{"ieee_rounding", B(true)}});
  EXPECT_EQ(d.tensor->def->kind(), OpKind::Div);
  EXPECT_EQ(d.tensor->def->str_attr("rounding"), "rn");
  EXPECT_EQ(error_of([&] {
              e.call("fdiv", {e.arg("tile<8xi32>"), x});
            }),
            "both operands of fdiv must have floating scalar type, got int32 and fp32");
  EXPECT_EQ(e.call("div_rn", {x, x}).tensor->def->str_attr("rounding"), "rn");
  // tanh is only in tl.math (libdevice), built from exp.
  EXPECT_FALSE(is_builtin("tanh"));
  EXPECT_TRUE(is_builtin("math.tanh"));
  Val th = e.call("math.tanh", {x});
  EXPECT_EQ(type_of(th), "tile<8xfp32>");
  EXPECT_EQ(th.tensor->def->kind(), OpKind::Select);
  EXPECT_EQ(type_of(e.call("tanh", {e.arg("fp64")})), "fp64");
  e.verify();
}

TEST(Math, CdivAndSigmoid) {
  TestEmitter e;
  EXPECT_EQ(e.call("cdiv", {I(10), I(3)}).repr(), "4");
  EXPECT_EQ(e.call("cdiv", {I(-10), I(3)}).repr(), "-3");
  EXPECT_EQ(e.op_names().size(), 0u);
  Val n = e.arg("i32");
  Val r = e.call("cdiv", {n, I(128)});
  EXPECT_EQ(type_of(r), "i32");
  EXPECT_EQ(r.tensor->def->kind(), OpKind::Div);
  Val s = e.call("sigmoid", {e.arg("tile<8xfp32>")});
  EXPECT_EQ(type_of(s), "tile<8xfp32>");
  EXPECT_EQ(e.count(OpKind::Exp), 1u);
  EXPECT_EQ(error_of([&] { e.call("sigmoid", {e.arg("tile<8xfp16>")}); }),
            "Expected dtype ['fp32', 'fp64'] but got fp16 (in tl.exp)");
  e.verify();
}

TEST(Math, Swizzle2dInterleaveAssume) {
  TestEmitter e;
  Val ij = e.call("swizzle2d", {I(1), I(1), I(4), I(4), I(2)});
  // Triton's docstring example (4x4, groups of 2 rows): element 5 at (1, 1) moves to (1, 2).
  EXPECT_EQ(ij.repr(), "(1, 2)");
  Val t = e.call("swizzle2d", {e.arg("i32"), e.arg("i32"), I(64), I(64), I(8)});
  EXPECT_EQ(type_of(t.elems[0]), "i32");
  EXPECT_EQ(e.count(OpKind::Min), 1u);
  Val il = e.call("interleave", {e.arg("tile<4x8xfp32>"), e.arg("tile<4x8xfp32>")});
  EXPECT_EQ(type_of(il), "tile<4x16xfp32>");
  EXPECT_EQ(type_of(e.call("interleave", {e.arg("fp32"), e.arg("fp32")})), "tile<2xfp32>");
  EXPECT_EQ(e.call("assume", {e.arg("i1")}).kind, Val::Kind::None);
  e.verify();
}

TEST(PythonBuiltins, MinMaxAbsFloatIntLen) {
  TestEmitter e;
  EXPECT_EQ(e.py("min", {I(3), I(5)}).repr(), "3");
  EXPECT_EQ(e.py("max", {I(2), F(7.5), I(1)}).repr(), "7.5");
  EXPECT_EQ(e.py("builtins.max", {T({I(2), I(9)})}).repr(), "9");
  EXPECT_EQ(e.op_names().size(), 0u);
  Val t = e.arg("i32");
  Val m = e.py("min", {t, I(8)});
  EXPECT_EQ(type_of(m), "i32");
  EXPECT_EQ(m.tensor->def->kind(), OpKind::Min);
  Val m3 = e.py("max", {e.arg("tile<4xfp32>"), e.arg("tile<4xfp32>"), F(0.0)});
  EXPECT_EQ(e.count(OpKind::Max), 2u);
  EXPECT_EQ(type_of(m3), "tile<4xfp32>");
  EXPECT_EQ(error_of([&] { e.py("min", {}); }), "min() arg is an empty sequence");
  EXPECT_EQ(e.py("abs", {I(-3)}).repr(), "3");
  EXPECT_EQ(e.py("abs", {F(-2.5)}).repr(), "2.5");
  EXPECT_EQ(e.py("abs", {e.arg("tile<4xfp32>")}).tensor->def->kind(), OpKind::Abs);
  Val inf = e.py("float", {S("inf")});
  EXPECT_TRUE(std::isinf(inf.f) && inf.f > 0);
  EXPECT_TRUE(std::isinf(e.py("float", {S("-inf")}).f));
  EXPECT_EQ(e.py("float", {S("1.5")}).repr(), "1.5");
  EXPECT_EQ(e.py("float", {I(2)}).repr(), "2.0");
  EXPECT_EQ(error_of([&] { e.py("float", {S("abc")}); }),
            "could not convert string to float: 'abc'");
  EXPECT_EQ(error_of([&] { e.py("float", {t}); }),
            "float() of a tensor is not supported (use x.to(tl.float32))");
  EXPECT_EQ(e.py("int", {F(3.9)}).repr(), "3");
  EXPECT_EQ(e.py("int", {F(-3.9)}).repr(), "-3");
  EXPECT_EQ(e.py("int", {S(" 42 ")}).repr(), "42");
  EXPECT_EQ(error_of([&] { e.py("int", {F(INFINITY)}); }),
            "cannot convert float infinity to integer");
  EXPECT_EQ(e.py("bool", {I(0)}).repr(), "False");
  EXPECT_EQ(e.py("len", {T({I(1), I(2)})}).repr(), "2");
  EXPECT_EQ(error_of([&] { e.py("len", {t}); }), "object of type 'tensor' has no len()");
  EXPECT_EQ(error_of([&] { e.py("range", {I(4)}); }),
            "range() can only be used as the iterator of a for loop");
  e.verify();
}

TEST(Debug, StaticPrintAndAssert) {
  TestEmitter e;
  e.call("static_print", {I(1), S("a"), e.arg("tile<8xfp32>"), F(1e-5)});
  e.call("static_print", {S("BLOCK_SIZE:1024")});
  e.call("static_print", {I(1), I(2)}, {{"sep", S(", ")}});
  EXPECT_EQ(e.printed, "1 a fp32[constexpr[8]] 1e-05\nBLOCK_SIZE:1024\n1, 2\n");
  EXPECT_EQ(e.call("static_assert", {B(true)}).kind, Val::Kind::None);
  EXPECT_EQ(error_of([&] {
              e.call("static_assert", {B(false), S("BLOCK must be 64")});
            }),
            "static_assert failed: BLOCK must be 64");
  EXPECT_EQ(error_of([&] { e.call("static_assert", {B(false)}); }), "static_assert failed");
  EXPECT_EQ(error_of([&] { e.call("static_assert", {e.arg("i1")}); }),
            "static_assert: the condition could not be determined at compile time (got a "
            "tensor); make sure it depends only on constexpr values");
  EXPECT_EQ(error_of([&] { e.call("static_assert", {I(1)}); }),
            "static_assert: the condition could not be determined at compile time (got a value "
            "of type int); make sure it depends only on constexpr values");
  EXPECT_EQ(e.op_names().size(), 0u);
}

TEST(Debug, DevicePrintAndAssert) {
  TestEmitter e;
  Val pid = e.call("program_id", {I(0)});
  e.call("device_print", {S("Program ID:"), pid});
  ir::Op *p = e.last_op(OpKind::Print);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->str_attr("prefix"), " Program ID: ");
  EXPECT_EQ(p->num_operands(), 1u);
  EXPECT_EQ(p->int_attr("hex"), 0);
  e.call("device_print", {S("pid"), pid, I(3)}, {{"hex", B(true)}});
  p = e.last_op(OpKind::Print);
  EXPECT_EQ(p->str_attr("prefix"), " pid: ");
  EXPECT_EQ(p->operand(1)->type.str(), "i32");
  EXPECT_EQ(p->int_attr("hex"), 1);
  e.py("print", {S("x"), e.arg("tile<4xfp32>")});
  EXPECT_EQ(e.last_op(OpKind::Print)->str_attr("prefix"), " x: ");
  e.call("device_print", {S("hello")});
  EXPECT_EQ(e.last_op(OpKind::Print)->str_attr("prefix"), " hello");
  EXPECT_EQ(error_of([&] {
              e.call("device_print", {I(1), pid});
            }),
            "device_print(): the prefix must be a constexpr string, got 1");
  // device_assert only emits in debug mode.
  e.call("device_assert", {e.arg("tile<4xi1>"), S("bad")});
  EXPECT_EQ(e.count(OpKind::Assert), 0u);
  e.opts.debug = true;
  e.call("device_assert", {e.arg("tile<4xi1>"), S("bad")});
  ir::Op *a = e.last_op(OpKind::Assert);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->str_attr("message"), "bad");
  EXPECT_EQ(a->str_attr("file"), "kernel.py");
  EXPECT_EQ(a->int_attr("line"), 7);
  EXPECT_EQ(a->str_attr("func"), "kernel");
  e.call("device_assert", {e.arg("tile<4xi1>")}, {{"mask", e.arg("tile<4xi1>")}});
  EXPECT_EQ(e.last_op(OpKind::Assert)->operand(0)->def->kind(), OpKind::Or);
  e.call("debug_barrier", {});
  EXPECT_EQ(e.count(OpKind::Barrier), 1u);
  e.verify();
}

TEST(Debug, Hints) {
  TestEmitter e;
  Val x = e.arg("tile<64xi32>");
  Val h = e.call("multiple_of", {x, I(16)});
  EXPECT_EQ(h.tensor->def->kind(), OpKind::Hint);
  EXPECT_EQ(h.tensor->def->ints_attr("divisibility"), (std::vector<int64_t>{16}));
  Val c = e.call("max_contiguous", {x, T({I(64)})});
  EXPECT_EQ(c.tensor->def->ints_attr("contiguity"), (std::vector<int64_t>{64}));
  EXPECT_EQ(e.call("max_constancy", {x, I(4)}).tensor->def->ints_attr("constancy"),
            (std::vector<int64_t>{4}));
  EXPECT_EQ(type_of(e.call("multiple_of", {e.arg("i32"), I(8)})), "i32");
  EXPECT_EQ(error_of([&] {
              e.call("multiple_of", {x, T({I(16), I(16)})});
            }),
            "Shape of input to multiple_of does not match the length of values (2 values for a "
            "tensor of rank 1)");
  EXPECT_EQ(
      error_of([&] {
        e.call("multiple_of", {x, e.arg("i32")});
      }),
      "multiple_of(): values element 0 must be a constexpr int, got a tensor of type int32[]");
  e.verify();
}

} // namespace
} // namespace tilec::sema::test
