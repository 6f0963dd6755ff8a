// Attributes of language objects: tl.PropagateNan's members, a tensor's .type (a dtype
// for scalars, a block type for tiles) and what that type offers.
#include "SemaTestUtil.h"

namespace tilec::sema::test {
namespace {

TEST(SemaAttribute, PropagateNanMembersSelectNanPropagation) {
  const char *src = R"(def k(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(X + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(Y + offs, tl.minimum(x, y, propagate_nan=tl.PropagateNan.NONE))
    tl.static_print(tl.PropagateNan.ALL, tl.PropagateNan.NONE)
)";
  Lowered l = lower("k", src, {ptr(), ptr(), cint(4)});
  EXPECT_NE(l.ir.find("= max %3, %6 {propagate_nan = 1}"), std::string::npos) << l.ir;
  EXPECT_NE(l.ir.find("= min %3, %6 {propagate_nan = 0}"), std::string::npos) << l.ir;
  EXPECT_EQ(l.result.static_output, "65535 0\n"); // Triton's enum values
}

TEST(SemaAttribute, PropagateNanUnknownMemberIsAnError) {
  Diag d = lower_error("k", R"(def k(X):
    tl.store(X, tl.maximum(tl.load(X), 0.0, propagate_nan=tl.PropagateNan.SOME))
)",
                       {ptr()});
  ASSERT_TRUE(d.raised);
  EXPECT_EQ(d.message, "type object 'PropagateNan' has no attribute 'SOME'");
  EXPECT_EQ(d.line, 2);
}

TEST(SemaAttribute, TensorTypeOfScalarsIsTheirDtype) {
  const char *src = R"(def k(X, n):
    p = X + 1
    tl.static_assert(X.type.element_ty == tl.float16)
    tl.static_assert(p.type.element_ty == X.dtype.element_ty)
    tl.static_assert(n.type == tl.int32)
    tl.static_assert(X.type.is_ptr() and not n.type.is_block())
    v = tl.load(X).to(X.type.element_ty)
    tl.static_print(X.type, n.type)
    tl.store(X, v)
)";
  Lowered l = lower("k", src, {ptr(ir::DType::F16), int_arg()});
  EXPECT_EQ(l.result.static_output, "pointer<fp16> int32\n");
}

TEST(SemaAttribute, TensorTypeOfTilesIsABlockType) {
  const char *src = R"(def k(X, B: tl.constexpr):
    offs = tl.arange(0, B)[:, None] + tl.arange(0, 2)[None, :]
    ptrs = X + offs
    x = tl.load(ptrs)
    t = x.type
    tl.static_assert(t.element_ty == tl.float32 and t.scalar == tl.float32)
    tl.static_assert(t.shape == (B, 2) and t.get_block_shapes() == (B, 2) and t.numel == 2 * B)
    tl.static_assert(t.is_block() and not t.is_floating() and not t.is_ptr())
    tl.static_assert(t != tl.float32 and t == (x + 1.0).type and t != offs.type)
    tl.static_assert(ptrs.type.element_ty.element_ty == tl.float32)
    y = tl.zeros(t.shape, t.element_ty)
    tl.static_print(t, ptrs.type.element_ty, t.name, f"{offs.type}")
    tl.store(ptrs, x + y)
)";
  Lowered l = lower("k", src, {ptr(), cint(8)});
  EXPECT_EQ(l.result.static_output,
            "<(8, 2), fp32> pointer<fp32> <(8, 2), fp32> <(8, 2), int32>\n");
  Diag d = lower_error("k", R"(def k(X):
    x = tl.load(X + tl.arange(0, 4))
    w = x.type.primitive_bitwidth
)",
                       {ptr()});
  ASSERT_TRUE(d.raised);
  EXPECT_EQ(d.message, "'block_type' object has no attribute 'primitive_bitwidth'");
  d = lower_error("k", R"(def k(X):
    x = tl.load(X + tl.arange(0, 4))
    w = x.type.is_blocky()
)",
                  {ptr()});
  ASSERT_TRUE(d.raised);
  EXPECT_EQ(d.message, "'dtype' object has no attribute 'is_blocky'");
}

} // namespace
} // namespace tilec::sema::test
