// Operators: constexpr folding with Python semantics, tensor arithmetic with Triton's
// semantics (division, modulo, bitwise, comparisons), broadcasting, pointer arithmetic,
// subscripts, logical operators, conditions and repr.
#include "TestEmitter.h"

#include <cmath>
#include <limits>

namespace tilec::sema::test {
namespace {

using ast::BinOp;
using ast::CmpOp;
using ast::UnaryOp;
using ir::OpKind;

Val I(int64_t v) { return Val::integer(v); }
Val F(double v) { return Val::floating(v); }
Val B(bool v) { return Val::boolean(v); }
Val S(const std::string &s) { return Val::string(s); }
Val T(std::vector<Val> v) { return Val::tuple(std::move(v)); }
Val None() { return Val::none(); }
Val slice(Val lo, Val hi, Val step) {
  Val s;
  s.kind = Val::Kind::Slice;
  s.elems = {lo, hi, step};
  return s;
}
Val colon() { return slice(None(), None(), None()); }

std::string fold(BinOp op, const Val &a, const Val &b) {
  TestEmitter e;
  Val r;
  std::string err = error_of([&] { r = e.bin(op, a, b); });
  if (!err.empty())
    return "error: " + err;
  EXPECT_TRUE(r.is_constexpr());
  EXPECT_EQ(e.op_names().size(), 0u) << "folding must not emit IR";
  return std::string(r.kind == Val::Kind::Float  ? "float "
                     : r.kind == Val::Kind::Bool ? "bool "
                                                 : "") +
         r.repr();
}

TEST(ConstFold, PythonIntegerArithmetic) {
  EXPECT_EQ(fold(BinOp::Add, I(2), I(3)), "5");
  EXPECT_EQ(fold(BinOp::FloorDiv, I(-7), I(2)), "-4");
  EXPECT_EQ(fold(BinOp::FloorDiv, I(7), I(-2)), "-4");
  EXPECT_EQ(fold(BinOp::FloorDiv, I(-8), I(2)), "-4");
  EXPECT_EQ(fold(BinOp::Mod, I(-7), I(2)), "1");
  EXPECT_EQ(fold(BinOp::Mod, I(7), I(-2)), "-1");
  EXPECT_EQ(fold(BinOp::Mod, I(-7), I(-2)), "-1");
  EXPECT_EQ(fold(BinOp::Div, I(7), I(2)), "float 3.5");
  EXPECT_EQ(fold(BinOp::Div, I(4), I(2)), "float 2.0");
  EXPECT_EQ(fold(BinOp::Pow, I(2), I(10)), "1024");
  EXPECT_EQ(fold(BinOp::Pow, I(2), I(-1)), "float 0.5");
  EXPECT_EQ(fold(BinOp::LShift, I(1), I(40)), "1099511627776");
  EXPECT_EQ(fold(BinOp::RShift, I(-8), I(1)), "-4");
  EXPECT_EQ(fold(BinOp::BitAnd, I(6), I(3)), "2");
  EXPECT_EQ(fold(BinOp::BitXor, I(6), I(3)), "5");
  EXPECT_EQ(fold(BinOp::BitOr, B(true), B(false)), "bool True");
  EXPECT_EQ(fold(BinOp::Add, B(true), B(true)), "2");
  EXPECT_EQ(fold(BinOp::Mul, I(3), B(true)), "3");
}

TEST(ConstFold, PythonFloatArithmetic) {
  EXPECT_EQ(fold(BinOp::FloorDiv, F(7.5), I(2)), "float 3.0");
  EXPECT_EQ(fold(BinOp::FloorDiv, F(-7.5), I(2)), "float -4.0");
  EXPECT_EQ(fold(BinOp::Mod, F(-7.5), I(2)), "float 0.5");
  EXPECT_EQ(fold(BinOp::Mod, F(7.5), F(-2)), "float -0.5");
  EXPECT_EQ(fold(BinOp::Add, I(1), F(0.5)), "float 1.5");
  EXPECT_EQ(fold(BinOp::Pow, F(2.0), F(0.5)), "float 1.4142135623730951");
  EXPECT_EQ(fold(BinOp::Mul, F(0.1), I(3)), "float 0.30000000000000004");
}

TEST(ConstFold, Errors) {
  EXPECT_EQ(fold(BinOp::FloorDiv, I(1), I(0)), "error: integer division or modulo by zero");
  EXPECT_EQ(fold(BinOp::Div, I(1), I(0)), "error: division by zero");
  EXPECT_EQ(fold(BinOp::Mod, F(1), F(0)), "error: float division by zero");
  EXPECT_EQ(fold(BinOp::Mul, I(int64_t(1) << 62), I(4)).substr(0, 23), "error: integer overflow");
  // Past int64 a result is a uint64 (Val::u64), as Triton types it; past uint64, an error.
  EXPECT_EQ(fold(BinOp::Add, I(std::numeric_limits<int64_t>::max()), I(1)), "9223372036854775808");
  EXPECT_EQ(fold(BinOp::Add, Val::uint64(~uint64_t{0}), I(1)).substr(0, 23),
            "error: integer overflow");
  EXPECT_EQ(fold(BinOp::LShift, I(1), I(64)).substr(0, 23), "error: integer overflow");
  EXPECT_EQ(fold(BinOp::Pow, I(10), I(30)).substr(0, 23), "error: integer overflow");
  EXPECT_EQ(fold(BinOp::LShift, I(1), I(-1)), "error: negative shift count");
  EXPECT_EQ(fold(BinOp::BitAnd, F(1.0), I(1)),
            "error: unsupported operand type(s) for &: 'float' and 'int'");
  EXPECT_EQ(fold(BinOp::Add, S("a"), I(1)),
            "error: unsupported operand type(s) for +: 'str' and 'int'");
  EXPECT_EQ(fold(BinOp::Add, None(), I(1)),
            "error: unsupported operand type(s) for +: 'NoneType' and 'int'");
}

TEST(ConstFold, SequencesAndComparisons) {
  EXPECT_EQ(fold(BinOp::Add, S("ab"), S("cd")), "abcd");
  EXPECT_EQ(fold(BinOp::Add, T({I(1)}), T({I(2), I(3)})), "(1, 2, 3)");
  EXPECT_EQ(fold(BinOp::Mul, T({I(2)}), I(3)), "(2, 2, 2)");
  TestEmitter e;
  auto cmp = [&](CmpOp op, Val a, Val b) {
    Val r = compare_op(e, op, a, b, e.loc);
    EXPECT_EQ(r.kind, Val::Kind::Bool);
    return r.b;
  };
  EXPECT_TRUE(cmp(CmpOp::Lt, I(1), F(2.5)));
  EXPECT_TRUE(cmp(CmpOp::Eq, I(1), F(1.0)));
  EXPECT_TRUE(cmp(CmpOp::Eq, B(true), I(1)));
  EXPECT_TRUE(cmp(CmpOp::Eq, S("a"), S("a")));
  EXPECT_TRUE(cmp(CmpOp::Lt, S("ab"), S("b")));
  EXPECT_FALSE(cmp(CmpOp::Eq, S("1"), I(1)));
  EXPECT_TRUE(cmp(CmpOp::NotEq, S("1"), I(1)));
  EXPECT_TRUE(cmp(CmpOp::Eq, None(), None()));
  EXPECT_TRUE(cmp(CmpOp::Is, None(), None()));
  EXPECT_TRUE(cmp(CmpOp::IsNot, I(0), None()));
  EXPECT_TRUE(cmp(CmpOp::Eq, T({I(1), I(2)}), T({I(1), I(2)})));
  EXPECT_TRUE(cmp(CmpOp::Lt, T({I(1), I(2)}), T({I(1), I(3)})));
  EXPECT_TRUE(cmp(CmpOp::In, I(2), T({I(1), I(2)})));
  EXPECT_TRUE(
      cmp(CmpOp::Eq, Val::dtype(ir::Type(ir::DType::F16)), Val::dtype(ir::Type(ir::DType::F16))));
  EXPECT_FALSE(cmp(CmpOp::Eq, F(std::nan("")), F(std::nan(""))));
  EXPECT_EQ(error_of([&] { cmp(CmpOp::Lt, S("a"), I(1)); }),
            "'<' not supported between instances of 'str' and 'int'");
  // `x is None` on a tensor is a constexpr False.
  Val x = e.arg("tile<4xfp32>");
  EXPECT_FALSE(cmp(CmpOp::Is, x, None()));
}

TEST(ConstFold, Unary) {
  TestEmitter e;
  EXPECT_EQ(unary_op(e, UnaryOp::Neg, I(5), e.loc).repr(), "-5");
  EXPECT_EQ(unary_op(e, UnaryOp::Invert, I(5), e.loc).repr(), "-6");
  EXPECT_EQ(unary_op(e, UnaryOp::Not, I(0), e.loc).repr(), "True");
  EXPECT_EQ(unary_op(e, UnaryOp::Neg, B(true), e.loc).repr(), "-1");
  EXPECT_EQ(unary_op(e, UnaryOp::Neg, F(0.0), e.loc).repr(), "-0.0");
  EXPECT_EQ(error_of([&] { unary_op(e, UnaryOp::Invert, F(1.0), e.loc); }),
            "bad operand type for unary ~: 'float'");
}

TEST(Repr, PythonSpellings) {
  EXPECT_EQ(I(-42).repr(), "-42");
  EXPECT_EQ(F(1.0).repr(), "1.0");
  EXPECT_EQ(F(1e-5).repr(), "1e-05");
  EXPECT_EQ(F(0.0001).repr(), "0.0001");
  EXPECT_EQ(F(0.1).repr(), "0.1");
  EXPECT_EQ(F(3.14).repr(), "3.14");
  EXPECT_EQ(F(1234567.0).repr(), "1234567.0");
  EXPECT_EQ(F(1e16).repr(), "1e+16");
  EXPECT_EQ(F(1e15).repr(), "1000000000000000.0");
  EXPECT_EQ(F(1.5e300).repr(), "1.5e+300");
  EXPECT_EQ(F(-2.5e-7).repr(), "-2.5e-07");
  EXPECT_EQ(F(std::numeric_limits<double>::infinity()).repr(), "inf");
  EXPECT_EQ(F(-std::numeric_limits<double>::infinity()).repr(), "-inf");
  EXPECT_EQ(F(std::nan("")).repr(), "nan");
  EXPECT_EQ(F(-0.0).repr(), "-0.0");
  EXPECT_EQ(F(0.79788456).repr(), "0.79788456");
  EXPECT_EQ(B(true).repr(), "True");
  EXPECT_EQ(None().repr(), "None");
  EXPECT_EQ(S("hi").repr(), "hi");
  EXPECT_EQ(S("hi").py_repr(), "'hi'");
  EXPECT_EQ(S("it's").py_repr(), "\"it's\"");
  EXPECT_EQ(T({I(1), I(2)}).repr(), "(1, 2)");
  EXPECT_EQ(T({I(1)}).repr(), "(1,)");
  EXPECT_EQ(T({}).repr(), "()");
  EXPECT_EQ(T({S("a"), F(2.0)}).repr(), "('a', 2.0)");
  EXPECT_EQ(Val::dtype(ir::Type(ir::DType::F32)).repr(), "fp32");
  EXPECT_EQ(Val::dtype(ir::Type(ir::DType::I32)).repr(), "int32");
  EXPECT_EQ(Val::dtype(ir::Type(ir::DType::F16, true)).repr(), "pointer<fp16>");
  TestEmitter e;
  EXPECT_EQ(e.arg("tile<1024xfp32>").repr(), "fp32[constexpr[1024]]");
  EXPECT_EQ(e.arg("tile<16x32xptr<bf16>>").repr(), "pointer<bf16>[constexpr[16], constexpr[32]]");
  EXPECT_EQ(e.arg("i32").repr(), "int32[]");
}

TEST(Repr, IsConstexpr) {
  TestEmitter e;
  EXPECT_TRUE(I(1).is_constexpr());
  EXPECT_TRUE(None().is_constexpr());
  EXPECT_TRUE(T({I(1), S("a")}).is_constexpr());
  EXPECT_FALSE(T({I(1), e.arg("i32")}).is_constexpr());
  EXPECT_FALSE(e.arg("i32").is_constexpr());
  EXPECT_FALSE(Val::module("tilec.language").is_constexpr());
}

TEST(TensorOps, TrueDivisionOfIntsIsFp32) {
  TestEmitter e;
  Val r = e.bin(BinOp::Div, e.arg("tile<8xi32>"), e.arg("tile<8xi32>"));
  EXPECT_EQ(type_of(r), "tile<8xfp32>");
  EXPECT_EQ(r.tensor->def->kind(), OpKind::Div);
  EXPECT_EQ(e.count(OpKind::Cast), 2u);
  // int tensor / Python int: the int is typed int32 then both go to fp32.
  TestEmitter e2;
  EXPECT_EQ(type_of(e2.bin(BinOp::Div, e2.arg("tile<8xi8>"), I(2))), "tile<8xfp32>");
}

TEST(TensorOps, FloorDivAndMod) {
  TestEmitter e;
  Val r = e.bin(BinOp::FloorDiv, e.arg("tile<8xi32>"), I(4));
  EXPECT_EQ(type_of(r), "tile<8xi32>");
  EXPECT_EQ(r.tensor->def->kind(), OpKind::Div);
  Val m = e.bin(BinOp::Mod, e.arg("tile<8xi64>"), I(4));
  EXPECT_EQ(type_of(m), "tile<8xi64>");
  EXPECT_EQ(m.tensor->def->kind(), OpKind::Rem);
  Val fm = e.bin(BinOp::Mod, e.arg("tile<8xfp32>"), F(1.5));
  EXPECT_EQ(fm.tensor->def->kind(), OpKind::Rem);
  EXPECT_EQ(type_of(fm), "tile<8xfp32>");
  EXPECT_EQ(error_of([&] { e.bin(BinOp::FloorDiv, e.arg("tile<8xfp32>"), I(2)); }),
            "unexpected type fp32: floor division (//) needs integer operands");
  EXPECT_EQ(error_of([&] {
              e.bin(BinOp::Div, e.arg("tile<8xi32>"), e.arg("tile<8xu32>"));
            }).substr(0, 44),
            "Cannot use /, // or % with int32 and uint32 ");
}

TEST(TensorOps, Comparisons) {
  TestEmitter e;
  Val r = compare_op(e, CmpOp::Lt, e.arg("tile<8xi32>"), I(5), e.loc);
  EXPECT_EQ(type_of(r), "tile<8xi1>");
  EXPECT_EQ(r.tensor->def->kind(), OpKind::Cmp);
  EXPECT_EQ(r.tensor->def->str_attr("pred"), "lt");
  // Comparisons convert the number to a tensor first: u32 vs int32 literal -> u32 compare.
  Val u = compare_op(e, CmpOp::GtE, I(3), e.arg("tile<8xu32>"), e.loc);
  EXPECT_EQ(u.tensor->def->operand(0)->type.str(), "tile<8xu32>");
  EXPECT_EQ(u.tensor->def->str_attr("pred"), "ge");
  // ...and fp16 vs a float literal compares in fp32 (no scalar rule for comparisons).
  Val h = compare_op(e, CmpOp::NotEq, e.arg("tile<8xfp16>"), F(0.5), e.loc);
  EXPECT_EQ(h.tensor->def->operand(0)->type.str(), "tile<8xfp32>");
  EXPECT_EQ(error_of([&] { compare_op(e, CmpOp::In, e.arg("i32"), T({I(1)}), e.loc); }),
            "operator 'in' is not supported on tensors");
}

TEST(TensorOps, BitwiseAndShifts) {
  TestEmitter e;
  Val r = e.bin(BinOp::BitAnd, e.arg("tile<8xi1>"), e.arg("tile<8xi1>"));
  EXPECT_EQ(type_of(r), "tile<8xi1>");
  EXPECT_EQ(r.tensor->def->kind(), OpKind::And);
  EXPECT_EQ(e.bin(BinOp::LShift, e.arg("tile<8xu32>"), I(3)).tensor->def->kind(), OpKind::Shl);
  EXPECT_EQ(e.bin(BinOp::RShift, e.arg("tile<8xi32>"), I(3)).tensor->def->kind(), OpKind::Shr);
  EXPECT_EQ(error_of([&] { e.bin(BinOp::BitAnd, e.arg("tile<8xfp32>"), e.arg("tile<8xi32>")); }),
            "invalid operands of type fp32 and int32 for & (bitwise operations take integers)");
  EXPECT_EQ(error_of([&] { e.bin(BinOp::BitXor, e.arg("tile<8xi32>"), F(1.0)); }),
            "invalid operands of type int32 and fp32 for ^ (bitwise operations take integers)");
  EXPECT_EQ(error_of([&] { e.bin(BinOp::Pow, e.arg("tile<8xfp32>"), I(2)); }),
            "operator ** is not supported on tensors");
}

TEST(TensorOps, Unary) {
  TestEmitter e;
  Val x = e.arg("tile<8xfp32>");
  EXPECT_EQ(unary_op(e, UnaryOp::Neg, x, e.loc).tensor->def->kind(), OpKind::Neg);
  EXPECT_EQ(unary_op(e, UnaryOp::Pos, x, e.loc).tensor, x.tensor);
  EXPECT_EQ(error_of([&] { unary_op(e, UnaryOp::Invert, x, e.loc); }),
            "wrong type argument to unary invert (fp32)");
  EXPECT_EQ(unary_op(e, UnaryOp::Invert, e.arg("tile<8xi32>"), e.loc).tensor->def->kind(),
            OpKind::Not);
  Val n = unary_op(e, UnaryOp::Not, e.arg("tile<8xi32>"), e.loc);
  EXPECT_EQ(type_of(n), "tile<8xi1>");
  EXPECT_EQ(n.tensor->def->str_attr("pred"), "eq");
  EXPECT_EQ(error_of([&] { unary_op(e, UnaryOp::Neg, e.arg("ptr<fp32>"), e.loc); }),
            "wrong type argument to unary minus (pointer<fp32>)");
}

TEST(Broadcasting, Shapes) {
  TestEmitter e;
  Val r = e.bin(BinOp::Add, e.arg("tile<16x1xfp32>"), e.arg("tile<1x32xfp32>"));
  EXPECT_EQ(type_of(r), "tile<16x32xfp32>");
  EXPECT_EQ(e.count(OpKind::Broadcast), 2u);
  TestEmitter e2;
  Val r2 = e2.bin(BinOp::Mul, e2.arg("tile<32xfp32>"), e2.arg("tile<4x16x32xfp32>"));
  EXPECT_EQ(type_of(r2), "tile<4x16x32xfp32>");
  EXPECT_EQ(e2.count(OpKind::ExpandDims), 2u);
  EXPECT_EQ(e2.count(OpKind::Broadcast), 1u);
  TestEmitter e3;
  Val r3 = e3.bin(BinOp::Add, e3.arg("i32"), e3.arg("tile<64xi32>"));
  EXPECT_EQ(type_of(r3), "tile<64xi32>");
  EXPECT_EQ(e3.count(OpKind::Splat), 1u);
  EXPECT_EQ(error_of([&] { e.bin(BinOp::Add, e.arg("tile<64xfp32>"), e.arg("tile<32xfp32>")); }),
            "incompatible shapes for broadcasting: [64] and [32]");
  EXPECT_EQ(
      error_of([&] { e.bin(BinOp::Add, e.arg("tile<8x64xfp32>"), e.arg("tile<4x64xfp32>")); }),
      "incompatible shapes for broadcasting: [8, 64] and [4, 64]");
}

TEST(PointerArithmetic, AddSub) {
  TestEmitter e;
  Val p = e.arg("ptr<fp32>");
  Val offs = e.arg("tile<128xi32>");
  Val r = e.bin(BinOp::Add, p, offs);
  EXPECT_EQ(type_of(r), "tile<128xptr<fp32>>");
  EXPECT_EQ(r.tensor->def->kind(), OpKind::AddPtr);
  EXPECT_EQ(r.tensor->def->operand(0)->def->kind(), OpKind::Splat);
  Val r2 = e.bin(BinOp::Add, offs, p); // int + ptr
  EXPECT_EQ(type_of(r2), "tile<128xptr<fp32>>");
  EXPECT_EQ(r2.tensor->def->operand(0)->type.is_ptr(), true);
  Val r3 = e.bin(BinOp::Sub, p, I(1));
  EXPECT_EQ(type_of(r3), "ptr<fp32>");
  EXPECT_EQ(r3.tensor->def->operand(1)->def->kind(), OpKind::Neg);
  // Unsigned offsets are widened to i64 (addptr treats offsets as signed).
  Val r4 = e.bin(BinOp::Add, p, e.arg("u32"));
  EXPECT_EQ(r4.tensor->def->operand(1)->type.str(), "i64");
  EXPECT_EQ(error_of([&] { e.bin(BinOp::Add, p, F(1.0)); }),
            "invalid operands of type pointer<fp32> and fp32");
  EXPECT_EQ(error_of([&] { e.bin(BinOp::Mul, p, I(2)); }),
            "invalid operands of type pointer<fp32> and int32");
  EXPECT_EQ(error_of([&] { e.bin(BinOp::Add, p, p); }), "cannot add pointers together");
  EXPECT_EQ(error_of([&] { e.bin(BinOp::Sub, I(1), p); }),
            "invalid operands of type pointer<fp32> and int32");
  EXPECT_EQ(error_of([&] { e.bin(BinOp::Add, p, e.arg("ptr<fp16>")); }),
            "invalid operands of type pointer<fp32> and pointer<fp16>");
}

TEST(Subscript, TensorsAndTuples) {
  TestEmitter e;
  Val x = e.arg("tile<16xi32>");
  Val col = subscript(e, x, T({colon(), None()}), e.loc);
  EXPECT_EQ(type_of(col), "tile<16x1xi32>");
  EXPECT_EQ(col.tensor->def->int_attr("axis"), 1);
  Val row = subscript(e, x, T({None(), colon()}), e.loc);
  EXPECT_EQ(type_of(row), "tile<1x16xi32>");
  EXPECT_EQ(row.tensor->def->int_attr("axis"), 0);
  EXPECT_EQ(type_of(subscript(e, x, None(), e.loc)), "tile<1x16xi32>");
  EXPECT_EQ(subscript(e, x, colon(), e.loc).tensor, x.tensor);
  EXPECT_EQ(type_of(subscript(e, e.arg("i32"), None(), e.loc)), "tile<1xi32>");
  EXPECT_EQ(error_of([&] { subscript(e, x, I(1), e.loc); }),
            "unsupported tensor index: 1 (only None and ':' are supported)");
  // ':' is skipped whatever the rank, as in Triton (a scalar pointer[None, None, :] is
  // [1, 1]); a None past the last axis is an error (tl.arange(0, 4)[:, :, None])
  EXPECT_EQ(subscript(e, x, T({colon(), colon()}), e.loc).tensor, x.tensor);
  EXPECT_EQ(type_of(subscript(e, e.arg("i32"), T({None(), None(), colon()}), e.loc)),
            "tile<1x1xi32>");
  EXPECT_EQ(error_of([&] {
              subscript(e, x, T({colon(), colon(), None()}), e.loc);
            }),
            "too many indices: None at position 2 of a tensor of rank 1 (a new axis goes at "
            "most after the last one)");
  EXPECT_EQ(error_of([&] {
              subscript(e, e.arg("i32"), T({colon(), None()}), e.loc);
            }),
            "too many indices: None at position 1 of a tensor of rank 0 (a new axis goes at "
            "most after the last one)");
  Val tup = T({I(10), I(20), I(30)});
  EXPECT_EQ(subscript(e, tup, I(1), e.loc).repr(), "20");
  EXPECT_EQ(subscript(e, tup, I(-1), e.loc).repr(), "30");
  EXPECT_EQ(subscript(e, tup, slice(I(1), None(), None()), e.loc).repr(), "(20, 30)");
  EXPECT_EQ(subscript(e, tup, slice(None(), I(-1), None()), e.loc).repr(), "(10, 20)");
  EXPECT_EQ(subscript(e, tup, slice(None(), None(), I(-1)), e.loc).repr(), "(30, 20, 10)");
  EXPECT_EQ(error_of([&] { subscript(e, tup, I(3), e.loc); }),
            "tuple index 3 out of range (size 3)");
  EXPECT_EQ(error_of([&] { subscript(e, tup, e.arg("i32"), e.loc); }),
            "tuple indices must be constexpr integers, not int32[]");
  EXPECT_EQ(error_of([&] { subscript(e, I(3), I(0), e.loc); }),
            "'int' object is not subscriptable");
}

TEST(Logical, ConstexprShortCircuitAndTensors) {
  TestEmitter e;
  Val x = e.arg("tile<8xi1>");
  EXPECT_EQ(logical_op(e, true, B(true), x, e.loc).tensor, x.tensor);
  EXPECT_EQ(logical_op(e, true, I(0), x, e.loc).repr(), "0");
  EXPECT_EQ(logical_op(e, false, I(3), x, e.loc).repr(), "3");
  EXPECT_EQ(logical_op(e, false, x, B(true), e.loc).repr(), "True");
  EXPECT_EQ(logical_op(e, true, x, B(true), e.loc).tensor, x.tensor);
  EXPECT_EQ(logical_op(e, true, I(2), I(5), e.loc).repr(), "5");
  EXPECT_EQ(logical_op(e, false, S(""), S("b"), e.loc).repr(), "b");
  EXPECT_EQ(e.op_names().size(), 0u);
  Val r = logical_op(e, true, e.arg("i32"), e.arg("tile<8xfp32>"), e.loc);
  EXPECT_EQ(type_of(r), "tile<8xi1>");
  EXPECT_EQ(r.tensor->def->kind(), OpKind::And);
  Val o = logical_op(e, false, x, e.arg("tile<8xi1>"), e.loc);
  EXPECT_EQ(o.tensor->def->kind(), OpKind::Or);
}

TEST(Conditions, ToConditionAndCastTo) {
  TestEmitter e;
  ir::Value *c = to_condition(e, e.arg("i32"), e.loc);
  EXPECT_EQ(c->type.str(), "i1");
  EXPECT_EQ(c->def->str_attr("pred"), "ne");
  Val b = e.arg("i1");
  EXPECT_EQ(to_condition(e, b, e.loc), b.tensor);
  EXPECT_EQ(to_condition(e, I(3), e.loc)->def->int_attr("value"), 1);
  EXPECT_EQ(to_condition(e, e.arg("tile<1xi1>"), e.loc)->type.str(), "i1");
  EXPECT_EQ(error_of([&] { to_condition(e, e.arg("tile<4xi1>"), e.loc); }),
            "a condition must be a scalar, got a tensor of type int1[constexpr[4]]");
  ir::Type f32(ir::DType::F32);
  ir::Value *z = cast_to(e, I(0), f32, e.loc);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->type.str(), "fp32");
  EXPECT_EQ(cast_to(e, F(1.5), ir::Type(ir::DType::I32), e.loc), nullptr);
  EXPECT_EQ(cast_to(e, I(300), ir::Type(ir::DType::I8), e.loc), nullptr);
  Val t = e.arg("tile<4xfp32>");
  EXPECT_EQ(cast_to(e, t, t.tensor->type, e.loc), t.tensor);
  EXPECT_EQ(cast_to(e, t, ir::Type(ir::DType::F16, false, {4}), e.loc), nullptr);
  EXPECT_EQ(cast_to(e, S("x"), f32, e.loc), nullptr);
}

} // namespace
} // namespace tilec::sema::test
