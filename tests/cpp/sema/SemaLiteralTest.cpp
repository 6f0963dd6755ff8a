// Integer literals and constexpr ints over Triton's whole range: int32, uint32, int64, and
// uint64 for 2**63..2**64-1 (Val::u64), in folding, literal typing and printing.
#include "SemaTestUtil.h"

namespace tilec::sema::test {
namespace {

TEST(SemaLiteral, LiteralsTypedByMagnitude) {
  const char *src = R"(def k(Z):
    a = 2147483647
    b = 2147483648
    c = 4294967296
    d = 9223372036854775807
    e = 9223372036854775808
    f = 18446744073709551615
    g = -9223372036854775808
    tl.static_assert(a.dtype == tl.int32 and b.dtype == tl.uint32 and c.dtype == tl.int64)
    tl.static_assert(d.dtype == tl.int64 and e.dtype == tl.uint64 and f.dtype == tl.uint64)
    tl.static_assert(g.dtype == tl.int64)
    tl.store(Z, f)
)";
  Lowered l = lower("k", src, {ptr(ir::DType::U64)});
  // A uint64 constant holds its bits.
  EXPECT_NE(l.ir.find("constant {value = -1} : u64"), std::string::npos) << l.ir;
  EXPECT_NE(l.ir.find("constant {value = -9223372036854775808} : u64"), std::string::npos) << l.ir;
}

TEST(SemaLiteral, ConstexprFoldingPastInt64) {
  const char *src = R"(def k(Z, BIG: tl.constexpr):
    tl.static_assert(BIG == 9223372036854775808 and BIG - 1 == 9223372036854775807)
    M: tl.constexpr = 2**63 + (2**63 - 1) # 2**64 - 1 (2**64 itself is out of range)
    tl.static_assert(M == 18446744073709551615 and 2**63 // 2 == 2**62)
    tl.static_assert(18446744073709551615 > 9223372036854775807 and BIG > -1 and BIG >= 1.0)
    tl.static_assert(-(2**63) == -9223372036854775808 and M % 10 == 5)
    tl.static_assert((M & 255) == 255 and M >> 60 == 15 and 1 << 63 == BIG)
    tl.static_assert(BIG + (BIG - 1) == 18446744073709551615 and 18446744073709551615 / 2 == 2.0**63)
    tl.static_print(BIG, M, f"{BIG:x} {M:,} {BIG!r}")
    y = BIG + 0
    tl.static_assert(y.dtype == tl.uint64)
    tl.store(Z, y)
)";
  Lowered l = lower("k", src, {ptr(ir::DType::U64), cexpr(Val::uint64(uint64_t{1} << 63))});
  EXPECT_EQ(l.result.static_output, "9223372036854775808 18446744073709551615 8000000000000000 "
                                    "18,446,744,073,709,551,615 9223372036854775808\n");
}

TEST(SemaLiteral, Uint64ScalarsMeetTensors) {
  const char *src = R"(def k(U, I):
    u = tl.load(U + tl.arange(0, 4))
    v = u + 9223372036854775808
    w = tl.where(u > 18446744073709551614, u, 0)
    tl.static_assert(v.dtype == tl.uint64 and w.dtype == tl.uint64)
    tl.store(U + tl.arange(0, 4), v + w)
)";
  Lowered l = lower("k", src, {ptr(ir::DType::U64), ptr(ir::DType::I64)});
  EXPECT_NE(l.ir.find("constant {value = -9223372036854775808} : u64"), std::string::npos) << l.ir;
  EXPECT_NE(l.ir.find("constant {value = -2} : u64"), std::string::npos) << l.ir;
}

TEST(SemaLiteral, OutOfRangeErrors) {
  struct Case {
    const char *body, *message;
  } cases[] = {
      {"    x = tl.load(I) + 9223372036854775808\n",
       "Scalar 9223372036854775808 is out of range for type int64"},
      {"    x = 2**64\n",
       "integer overflow in constant expression: the result does not fit in 64 bits"},
      {"    x = -9223372036854775809\n",
       "integer overflow in constant expression: the result does not fit in 64 bits"},
      {"    x = ~18446744073709551615\n",
       "integer overflow in constant expression: the result does not fit in 64 bits"},
      {"    x = 18446744073709551616\n", "integer literal is too large (at most 2**64 - 1)"},
      {"    x = tl.load(U) - 18446744073709551615 * -1\n",
       "integer overflow in constant expression: the result does not fit in 64 bits"},
  };
  for (const Case &c : cases) {
    Diag d = lower_error("k", std::string("def k(U, I):\n") + c.body,
                         {ptr(ir::DType::U64), ptr(ir::DType::I64)});
    ASSERT_TRUE(d.raised) << c.body;
    EXPECT_EQ(d.message, c.message) << c.body;
    EXPECT_EQ(d.line, 2) << c.body;
  }
}

} // namespace
} // namespace tilec::sema::test
