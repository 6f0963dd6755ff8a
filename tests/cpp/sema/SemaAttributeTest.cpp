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

} // namespace
} // namespace tilec::sema::test
