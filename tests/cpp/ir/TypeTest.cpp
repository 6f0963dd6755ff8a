#include <gtest/gtest.h>

#include <cmath>

#include "ir/IR.h"

using namespace tilec::ir;

TEST(Type, StrRoundTrip) {
  for (const char *s :
       {"i32", "ptr<fp32>", "tile<128xi32>", "tile<64x32xfp16>", "tile<16xptr<bf16>>", "fp8e4nv"}) {
    auto t = parse_type(s);
    ASSERT_TRUE(t.has_value()) << s;
    EXPECT_EQ(t->str(), s);
  }
  EXPECT_FALSE(parse_type("tile<x>").has_value());
  EXPECT_FALSE(parse_type("f33").has_value());
}

TEST(IR, BuildAndUses) {
  Module m;
  Function *f = m.add_function("k");
  Value *a = f->entry()->add_arg(Type(DType::I32));
  Builder b(f->entry());
  Value *c = b.constant_int(Type(DType::I32), 3);
  Op *add = b.create(OpKind::Add, {a, c}, {Type(DType::I32)});
  EXPECT_EQ(a->users.size(), 1u);
  EXPECT_EQ(c->users.size(), 1u);
  add->erase();
  EXPECT_TRUE(c->users.empty());
  EXPECT_EQ(op_name(OpKind::Add), "add");
  EXPECT_TRUE(is_pure(OpKind::Add));
  EXPECT_FALSE(is_pure(OpKind::Store));
}

// Constants are encoded (lowering) and folded (canonicalize) with the interpreter's
// rounding: the dtype-level helpers are the format-level ones, and fp8e4nv saturates where
// the IEEE-like formats overflow to inf.
TEST(Type, FloatBitsFollowTheFormats) {
  EXPECT_EQ(float_bits(1.0, DType::F16), 0x3c00u);
  EXPECT_EQ(float_bits(1.0, DType::BF16), 0x3f80u);
  EXPECT_EQ(float_bits(-2.0, DType::F8E5), 0xc0u);
  EXPECT_EQ(float_bits(1e6, DType::F8E4NV), 0x7eu);    // +448: saturated
  EXPECT_EQ(float_bits(-1e6, DType::F8E5), 0xfcu);     // -inf
  EXPECT_EQ(float_bits(65520.0, DType::F16), 0x7c00u); // the midpoint: to even, inf
  EXPECT_EQ(float_bits(0.1, DType::F32), 0x3dcccccdu);
  EXPECT_EQ(float_bits(0.5, DType::F64), 0x3fe0000000000000u);
  for (double v : {0.1, -3.14159, 1e-5, 300.0, 1e-7})
    for (DType d : {DType::F8E4NV, DType::F8E5, DType::F16, DType::BF16})
      EXPECT_EQ(float_bits(round_to_dtype(v, d), d), float_bits(v, d))
          << v << " " << ir_name(d); // rounding twice changes nothing
  EXPECT_EQ(round_to_dtype(1.0 + std::ldexp(1.0, -11), DType::F16), 1.0); // tie: even
  EXPECT_EQ(round_to_dtype(1.0 + std::ldexp(3.0, -11), DType::F16), 1.0 + std::ldexp(1.0, -9));
  EXPECT_FALSE(float_format(DType::F64).has_value());
  EXPECT_FALSE(float_format(DType::I32).has_value());
  EXPECT_EQ(float_format(DType::BF16)->man, mantissa_bits(DType::BF16));
}
