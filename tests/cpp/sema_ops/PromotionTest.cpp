// Triton's promotion rules, checked against tables written out by hand from
// triton/language/semantic.py (computation_type_impl) and the "Triton Semantics" doc.
#include "TestEmitter.h"

#include "frontend/sema/Promotion.h"

namespace tilec::sema::test {
namespace {

using ast::BinOp;
using ir::DType;

const std::vector<std::string> kNames = {"i1",    "i8",   "i16",  "i32",  "i64",
                                         "u8",    "u16",  "u32",  "u64",  "fp8e4nv",
                                         "fp8e5", "fp16", "bf16", "fp32", "fp64"};

// Expected computation type of a tensor of the row dtype and a tensor of the column dtype
// for + - * and comparisons ("E": a CompileError). Columns in kNames order.
// clang-format off
const char *kArith[15][15] = {
    // i1     i8     i16    i32    i64    u8     u16    u32    u64    e4nv   e5     fp16   bf16   fp32   fp64
    {"i1",  "i8",  "i16", "i32", "i64", "u8",  "u16", "u32", "u64", "E",   "E",   "fp16", "fp32", "fp32", "fp64"},
    {"i8",  "i8",  "i16", "i32", "i64", "u8",  "u16", "u32", "u64", "E",   "E",   "fp16", "fp32", "fp32", "fp64"},
    {"i16", "i16", "i16", "i32", "i64", "i16", "u16", "u32", "u64", "E",   "E",   "fp16", "fp32", "fp32", "fp64"},
    {"i32", "i32", "i32", "i32", "i64", "i32", "i32", "u32", "u64", "E",   "E",   "fp16", "fp32", "fp32", "fp64"},
    {"i64", "i64", "i64", "i64", "i64", "i64", "i64", "i64", "u64", "E",   "E",   "fp16", "fp32", "fp32", "fp64"},
    {"u8",  "u8",  "i16", "i32", "i64", "u8",  "u16", "u32", "u64", "E",   "E",   "fp16", "fp32", "fp32", "fp64"},
    {"u16", "u16", "u16", "i32", "i64", "u16", "u16", "u32", "u64", "E",   "E",   "fp16", "fp32", "fp32", "fp64"},
    {"u32", "u32", "u32", "u32", "i64", "u32", "u32", "u32", "u64", "E",   "E",   "fp16", "fp32", "fp32", "fp64"},
    {"u64", "u64", "u64", "u64", "u64", "u64", "u64", "u64", "u64", "E",   "E",   "fp16", "fp32", "fp32", "fp64"},
    {"E",   "E",   "E",   "E",   "E",   "E",   "E",   "E",   "E",   "fp8e4nv", "fp16", "fp16", "fp32", "fp32", "fp64"},
    {"E",   "E",   "E",   "E",   "E",   "E",   "E",   "E",   "E",   "fp16", "fp8e5", "fp16", "fp32", "fp32", "fp64"},
    {"fp16", "fp16", "fp16", "fp16", "fp16", "fp16", "fp16", "fp16", "fp16", "fp16", "fp16", "fp16", "fp16", "fp32", "fp64"},
    {"fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp16", "bf16", "fp32", "fp64"},
    {"fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp32", "fp64"},
    {"fp64", "fp64", "fp64", "fp64", "fp64", "fp64", "fp64", "fp64", "fp64", "fp64", "fp64", "fp64", "fp64", "fp64", "fp64"},
};
// clang-format on

DType dt(const std::string &n) { return *ir::dtype_from_ir_name(n); }

std::string promote(const std::string &a, const std::string &b, bool div) {
  try {
    return std::string(ir::ir_name(computation_type(dt(a), false, dt(b), false, div, {})));
  } catch (const CompileError &) {
    return "E";
  }
}

TEST(Promotion, TensorTensorTableMatchesTriton) {
  for (size_t i = 0; i < kNames.size(); ++i)
    for (size_t j = 0; j < kNames.size(); ++j)
      EXPECT_EQ(promote(kNames[i], kNames[j], false), kArith[i][j])
          << kNames[i] << " op " << kNames[j];
}

// / and %: fp16/bf16 results become fp32, and ints of different signedness (i1 counts as
// unsigned) are an error; everything else as for +.
TEST(Promotion, DivModTable) {
  for (size_t i = 0; i < kNames.size(); ++i)
    for (size_t j = 0; j < kNames.size(); ++j) {
      std::string want = kArith[i][j];
      DType a = dt(kNames[i]), b = dt(kNames[j]);
      bool ints = ir::is_int(a) && ir::is_int(b);
      auto unsig = [](DType d) { return !ir::is_signed_int(d); };
      if (want == "fp16" || want == "bf16")
        want = (kNames[i].rfind("fp8", 0) == 0 && kNames[j].rfind("fp8", 0) == 0) ? want : "fp32";
      if (ints && unsig(a) != unsig(b))
        want = "E";
      EXPECT_EQ(promote(kNames[i], kNames[j], true), want) << kNames[i] << " / " << kNames[j];
    }
}

TEST(Promotion, IntegerPromote) {
  EXPECT_EQ(integer_promote(DType::I8, DType::U8), DType::U8);
  EXPECT_EQ(integer_promote(DType::I16, DType::U8), DType::I16);
  EXPECT_EQ(integer_promote(DType::U32, DType::I32), DType::U32);
  EXPECT_EQ(integer_promote(DType::I1, DType::I8), DType::I8);
  EXPECT_EQ(integer_promote(DType::I64, DType::U32), DType::I64);
}

TEST(Promotion, LiteralTyping) {
  EXPECT_EQ(literal_int_type(0), DType::I32);
  EXPECT_EQ(literal_int_type(-(int64_t(1) << 31)), DType::I32);
  EXPECT_EQ(literal_int_type((int64_t(1) << 31) - 1), DType::I32);
  // Triton types [2**31, 2**32) as uint32, then int64.
  EXPECT_EQ(literal_int_type(int64_t(1) << 31), DType::U32);
  EXPECT_EQ(literal_int_type((int64_t(1) << 32) - 1), DType::U32);
  EXPECT_EQ(literal_int_type(int64_t(1) << 32), DType::I64);
  EXPECT_EQ(literal_int_type(-(int64_t(1) << 31) - 1), DType::I64);
  EXPECT_EQ(literal_float_type(1.0), DType::F32);
  EXPECT_EQ(literal_float_type(0.0), DType::F32);
  EXPECT_EQ(literal_float_type(1.0 / 0.0), DType::F32);
  EXPECT_EQ(literal_float_type(1e300), DType::F64);
  EXPECT_EQ(literal_float_type(1e-300), DType::F64);
}

TEST(Promotion, LiteralTensors) {
  TestEmitter e;
  EXPECT_EQ(to_tensor(e, Val::integer(5), e.loc)->type.str(), "i32");
  EXPECT_EQ(to_tensor(e, Val::integer(int64_t(1) << 31), e.loc)->type.str(), "u32");
  EXPECT_EQ(to_tensor(e, Val::integer(int64_t(1) << 40), e.loc)->type.str(), "i64");
  EXPECT_EQ(to_tensor(e, Val::boolean(true), e.loc)->type.str(), "i1");
  EXPECT_EQ(to_tensor(e, Val::floating(0.5), e.loc)->type.str(), "fp32");
  EXPECT_EQ(to_tensor(e, Val::floating(1e300), e.loc)->type.str(), "fp64");
  EXPECT_EQ(error_of([&] { to_tensor(e, Val::string("x"), e.loc); }),
            "cannot convert x of type str to tensor");
}

struct ScalarCase {
  const char *tensor;
  Val scalar;
  BinOp op;
  const char *result; // result type, or the error message's start
};

// The Python-scalar rule: a number of a kind no higher than the tensor's does not take part.
TEST(Promotion, WeakScalarTyping) {
  std::vector<ScalarCase> cases = {
      {"tile<16xfp16>", Val::floating(2.0), BinOp::Mul, "tile<16xfp16>"},
      {"tile<16xfp16>", Val::integer(2), BinOp::Add, "tile<16xfp16>"},
      {"tile<16xfp16>", Val::floating(2.0), BinOp::Div, "tile<16xfp32>"},
      {"tile<16xbf16>", Val::floating(2.0), BinOp::Mod, "tile<16xfp32>"},
      {"tile<16xbf16>", Val::floating(1.0), BinOp::Add, "tile<16xbf16>"},
      {"tile<16xi8>", Val::integer(1), BinOp::Add, "tile<16xi8>"},
      {"tile<16xu8>", Val::integer(1), BinOp::Add, "tile<16xu8>"},
      {"tile<16xi16>", Val::floating(4.0), BinOp::Mul, "tile<16xfp32>"},
      {"tile<16xi32>", Val::floating(1e300), BinOp::Add, "tile<16xfp64>"},
      {"tile<16xi1>", Val::integer(1), BinOp::Add, "tile<16xi32>"},
      {"tile<16xfp32>", Val::boolean(true), BinOp::Add, "tile<16xfp32>"},
      {"tile<16xi64>", Val::integer(3), BinOp::Mul, "tile<16xi64>"},
      {"i32", Val::integer(1024), BinOp::Mul, "i32"},
      {"tile<16xi32>", Val::integer(int64_t(1) << 31), BinOp::Add,
       "Scalar 2147483648 is out of range for type int32"},
      {"tile<16xi8>", Val::integer(300), BinOp::Add, "Scalar 300 is out of range for type int8"},
      {"tile<16xu32>", Val::integer(-1), BinOp::Add,
       "Cannot perform a binary operation between an unsigned tensor and a negative scalar"},
  };
  for (const ScalarCase &c : cases) {
    for (bool swap : {false, true}) {
      TestEmitter e;
      Val t = e.arg(c.tensor);
      std::string got;
      std::string err = error_of(
          [&] { got = type_of(swap ? e.bin(c.op, c.scalar, t) : e.bin(c.op, t, c.scalar)); });
      std::string want = c.result;
      if (want.rfind("tile<", 0) == 0 || want == "i32")
        EXPECT_EQ(got, want) << c.tensor << " " << ast::binop_symbol(c.op) << " " << c.scalar.repr()
                             << " swapped=" << swap << " err=" << err;
      else
        EXPECT_EQ(err.substr(0, want.size()), want) << c.tensor << " swapped=" << swap;
    }
  }
}

TEST(Promotion, ConstantGetsTheComputationType) {
  TestEmitter e;
  Val x = e.arg("tile<16xfp16>");
  Val r = e.bin(BinOp::Mul, x, Val::floating(2.0));
  ir::Op *mul = r.tensor->def;
  ASSERT_EQ(mul->kind(), ir::OpKind::Mul);
  // The scalar is a fp16 constant splatted to the tile (no cast of x).
  EXPECT_EQ(e.count(ir::OpKind::Cast), 0u);
  ir::Value *c = mul->operand(1);
  EXPECT_EQ(c->type.str(), "tile<16xfp16>");
  EXPECT_EQ(c->def->kind(), ir::OpKind::Splat);
  EXPECT_EQ(c->def->operand(0)->def->kind(), ir::OpKind::Constant);
  EXPECT_EQ(c->def->operand(0)->def->float_attr("value"), 2.0);
}

TEST(Promotion, TensorTensorCastsTheNarrowerSide) {
  TestEmitter e;
  Val a = e.arg("tile<8xfp16>"), b = e.arg("tile<8xfp32>");
  Val r = e.bin(BinOp::Add, a, b);
  EXPECT_EQ(type_of(r), "tile<8xfp32>");
  EXPECT_EQ(r.tensor->def->operand(0)->def->kind(), ir::OpKind::Cast);
  EXPECT_EQ(r.tensor->def->operand(1), b.tensor);
}

TEST(Promotion, DTypeNames) {
  EXPECT_EQ(dtype_name(DType::F32), "fp32");
  EXPECT_EQ(dtype_name(DType::BF16), "bf16");
  EXPECT_EQ(dtype_name(DType::I32), "int32");
  EXPECT_EQ(dtype_name(DType::U8), "uint8");
  EXPECT_EQ(dtype_name(DType::I1), "int1");
  EXPECT_EQ(tensor_str(ir::Type(DType::F32, false, {64, 32})),
            "fp32[constexpr[64], constexpr[32]]");
  EXPECT_EQ(tensor_str(ir::Type(DType::F16, true, {8})), "pointer<fp16>[constexpr[8]]");
  EXPECT_EQ(tensor_str(ir::Type(DType::I32)), "int32[]");
}

} // namespace
} // namespace tilec::sema::test
