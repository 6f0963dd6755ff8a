#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "transforms/FoldUtils.h"

using namespace tilec;
using namespace tilec::transforms;
using ir::DType;

namespace {

double decode_f16(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  double v;
  if (exp == 31)
    v = mant ? NAN : INFINITY;
  else if (exp == 0)
    v = std::ldexp(mant, -24);
  else
    v = std::ldexp(1024 + mant, exp - 25);
  return sign ? -v : v;
}

double decode_bf16(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Every finite value of the format is kept; every midpoint rounds to the even neighbour;
// points just off a midpoint round to the nearer one.
void check_format(DType d, double (*decode)(uint16_t)) {
  for (uint32_t b = 0; b < 0x7fff; ++b) {
    double lo = decode(static_cast<uint16_t>(b)), hi = decode(static_cast<uint16_t>(b + 1));
    if (!std::isfinite(lo))
      continue;
    ASSERT_EQ(*round_to(lo, d), lo) << b;
    ASSERT_EQ(*round_to(-lo, d), -lo) << b;
    double mid = (lo + hi) / 2; // exact in double
    if (std::isinf(hi))
      mid = lo + (lo - decode(static_cast<uint16_t>(b - 1))) / 2;
    double even = (b % 2 == 0) ? lo : hi;
    ASSERT_EQ(*round_to(mid, d), even) << b;
    ASSERT_EQ(*round_to(std::nextafter(mid, 0.0), d), lo) << b;
    ASSERT_EQ(*round_to(std::nextafter(mid, INFINITY), d), hi) << b;
  }
}

} // namespace

TEST(FoldUtils, RoundToFp16IsExact) { check_format(DType::F16, decode_f16); }
TEST(FoldUtils, RoundToBf16IsExact) { check_format(DType::BF16, decode_bf16); }

TEST(FoldUtils, RoundToSpecialValues) {
  EXPECT_EQ(*round_to(65504.0, DType::F16), 65504.0);
  EXPECT_EQ(*round_to(65519.99, DType::F16), 65504.0);
  EXPECT_EQ(*round_to(65520.0, DType::F16), INFINITY);
  EXPECT_EQ(*round_to(-1e9, DType::F16), -INFINITY);
  EXPECT_EQ(*round_to(std::ldexp(1.0, -25), DType::F16), 0.0);
  EXPECT_TRUE(std::signbit(*round_to(-std::ldexp(1.0, -26), DType::F16)));
  EXPECT_EQ(*round_to(0.1, DType::F32), static_cast<double>(0.1f));
  EXPECT_EQ(*round_to(1e39, DType::F32), INFINITY);
  EXPECT_TRUE(std::isnan(*round_to(NAN, DType::BF16)));
  EXPECT_EQ(*round_to(1.0, DType::F8E4NV), 1.0); // fp8: exact values only
  EXPECT_EQ(*round_to(-448.0, DType::F8E4NV), -448.0);
  EXPECT_FALSE(round_to(0.1, DType::F8E4NV).has_value());
  EXPECT_FALSE(round_to(464.0, DType::F8E4NV).has_value()); // saturates on a cast
  EXPECT_EQ(*round_to(57344.0, DType::F8E5), 57344.0);
  EXPECT_FALSE(round_to(1.125, DType::F8E5).has_value());
}

TEST(FoldUtils, WrapInt) {
  EXPECT_EQ(wrap_int(128, DType::I8), -128);
  EXPECT_EQ(wrap_int(-1, DType::U8), 255);
  EXPECT_EQ(wrap_int(0x1ffffffffLL, DType::I32), -1);
  EXPECT_EQ(wrap_int(0x1ffffffffLL, DType::U32), 0xffffffffLL);
  EXPECT_EQ(wrap_int(2, DType::I1), 0);
  EXPECT_EQ(wrap_int(3, DType::I1), 1);
  EXPECT_EQ(wrap_int(-5, DType::I64), -5);
  EXPECT_TRUE(is_all_ones(Scalar{false, 255, 0}, DType::U8));
  EXPECT_TRUE(is_all_ones(Scalar{false, -1, 0}, DType::I16));
  EXPECT_FALSE(is_all_ones(Scalar{false, 127, 0}, DType::I8));
}
