#include <gtest/gtest.h>

#include "ir/IR.h"

using namespace tilec::ir;

TEST(Type, StrRoundTrip) {
  for (const char *s : {"i32", "ptr<fp32>", "tile<128xi32>", "tile<64x32xfp16>",
                        "tile<16xptr<bf16>>", "fp8e4nv"}) {
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
