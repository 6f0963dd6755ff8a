#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "support/FloatFormats.h"

using namespace tilec;

TEST(FloatFormats, Fp16KnownValues) {
  EXPECT_EQ(fp16_from_double(1.0), 0x3c00);
  EXPECT_EQ(fp16_from_double(-2.0), 0xc000);
  EXPECT_EQ(fp16_from_double(65504.0), 0x7bff);
  EXPECT_EQ(fp16_from_double(65519.99), 0x7bff); // below the rounding midpoint to inf
  EXPECT_EQ(fp16_from_double(65520.0), 0x7c00);  // the midpoint rounds to even: inf
  EXPECT_EQ(fp16_from_double(INFINITY), 0x7c00);
  EXPECT_EQ(fp16_from_double(-0.0), 0x8000);
  EXPECT_EQ(fp16_from_double(std::ldexp(1.0, -24)), 0x0001);       // smallest subnormal
  EXPECT_EQ(fp16_from_double(std::ldexp(1.0, -25)), 0x0000);       // tie: to even (zero)
  EXPECT_EQ(fp16_from_double(std::ldexp(3.0, -25)), 0x0002);       // tie: to even (2)
  EXPECT_EQ(fp16_from_double(std::ldexp(1.0, -14)), 0x0400);       // smallest normal
  EXPECT_EQ(fp16_from_double(std::ldexp(1023.5, -24)), 0x0400);    // subnormal rounds up to normal
  EXPECT_EQ(fp16_from_double(1.0 + std::ldexp(1.0, -11)), 0x3c00); // tie to even
  EXPECT_EQ(fp16_from_double(1.0 + std::ldexp(3.0, -11)), 0x3c02); // tie to even (up)
  EXPECT_EQ(fp16_from_double(1.0 + std::ldexp(1.0, -11) + 1e-9), 0x3c01);
  uint16_t nan = fp16_from_double(NAN);
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x3ff, 0);
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16_to_float(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_TRUE(std::isinf(fp16_to_float(0xfc00)) && fp16_to_float(0xfc00) < 0);
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7e00)));
}

TEST(FloatFormats, Fp16RoundTripAllValues) {
  for (uint32_t b = 0; b < 65536; ++b) {
    float f = fp16_to_float(static_cast<uint16_t>(b));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(fp16_from_float(f), b) << b;
    ASSERT_EQ(fp16_from_double(f, FloatRound::TowardZero), b) << b;
  }
}

TEST(FloatFormats, Fp16TowardZero) {
  EXPECT_EQ(fp16_from_double(1.0 + std::ldexp(1.9, -10), FloatRound::TowardZero), 0x3c01);
  EXPECT_EQ(fp16_from_double(-1.0 - std::ldexp(1.9, -10), FloatRound::TowardZero), 0xbc01);
  EXPECT_EQ(fp16_from_double(1e6, FloatRound::TowardZero), 0x7bff); // overflow: largest finite
  EXPECT_EQ(fp16_from_double(INFINITY, FloatRound::TowardZero), 0x7c00);
}

TEST(FloatFormats, Bf16) {
  EXPECT_EQ(bf16_from_double(1.0), 0x3f80);
  EXPECT_EQ(bf16_from_float(1.0f), 0x3f80);
  EXPECT_EQ(bf16_from_double(1.0 + std::ldexp(1.0, -8)), 0x3f80); // tie to even
  EXPECT_EQ(bf16_from_double(1.0 + std::ldexp(3.0, -8)), 0x3f82);
  EXPECT_EQ(bf16_from_float(1.0f + std::ldexp(3.0f, -8)), 0x3f82);
  EXPECT_EQ(bf16_from_float(3.0e38f), 0x7f62);
  EXPECT_EQ(bf16_from_float(std::bit_cast<float>(0x7f7fffffu)), 0x7f80); // rounds to inf
  EXPECT_EQ(bf16_from_double(3.4e38, FloatRound::TowardZero), 0x7f7f);
  EXPECT_TRUE(std::isnan(bf16_to_float(bf16_from_float(NAN))));
  EXPECT_EQ(bf16_to_float(0x4049), 3.140625f);
  for (uint32_t b = 0; b < 65536; ++b) {
    float f = bf16_to_float(static_cast<uint16_t>(b));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(bf16_from_float(f), b);
    ASSERT_EQ(bf16_from_double(f), b);
  }
}

TEST(FloatFormats, Fp8E4Nv) {
  EXPECT_EQ(fp8e4nv_from_double(1.0), 0x38);
  EXPECT_EQ(fp8e4nv_from_double(448.0), 0x7e);
  EXPECT_EQ(fp8e4nv_from_double(500.0), 0x7e); // saturates
  EXPECT_EQ(fp8e4nv_from_double(-1e9), 0xfe);
  EXPECT_EQ(fp8e4nv_from_double(INFINITY), 0x7e);
  EXPECT_EQ(fp8e4nv_from_double(NAN) & 0x7f, 0x7f);
  EXPECT_EQ(fp8e4nv_from_double(std::ldexp(1.0, -9)), 0x01); // smallest subnormal
  EXPECT_EQ(fp8e4nv_to_float(0x7e), 448.0f);
  EXPECT_TRUE(std::isnan(fp8e4nv_to_float(0x7f)));
  EXPECT_TRUE(std::isnan(fp8e4nv_to_float(0xff)));
  EXPECT_EQ(fp8e4nv_to_float(0x78), 256.0f);            // exponent 15 is finite here
  EXPECT_EQ(fp8e4nv_from_double(1.0 + 1.0 / 16), 0x38); // tie to even
  EXPECT_EQ(fp8e4nv_from_double(1.0 + 3.0 / 16), 0x3a); // tie to even (up)
  EXPECT_EQ(fp8e4nv_from_double(1.0 + 1.9 / 8, FloatRound::TowardZero), 0x39);
  for (uint32_t b = 0; b < 256; ++b) {
    float f = fp8e4nv_to_float(static_cast<uint8_t>(b));
    if (!std::isnan(f)) {
      ASSERT_EQ(fp8e4nv_from_double(f), b);
    }
  }
}

TEST(FloatFormats, Fp8E5) {
  EXPECT_EQ(fp8e5_from_double(1.0), 0x3c);
  EXPECT_EQ(fp8e5_from_double(57344.0), 0x7b);
  EXPECT_EQ(fp8e5_from_double(1e6), 0x7c); // overflow to inf
  EXPECT_EQ(fp8e5_from_double(1e6, FloatRound::TowardZero), 0x7b);
  EXPECT_EQ(fp8e5_from_double(std::ldexp(1.0, -16)), 0x01);
  EXPECT_TRUE(std::isinf(fp8e5_to_float(0x7c)));
  EXPECT_TRUE(std::isnan(fp8e5_to_float(0x7e)));
  for (uint32_t b = 0; b < 256; ++b) {
    float f = fp8e5_to_float(static_cast<uint8_t>(b));
    if (!std::isnan(f)) {
      ASSERT_EQ(fp8e5_from_double(f), b);
    }
  }
}

TEST(FloatFormats, Fp32TowardZeroAndTf32) {
  double x = 1.0 + std::ldexp(1.0, -30);
  EXPECT_EQ(float_from_double(x, FloatRound::Nearest), 1.0f);
  EXPECT_EQ(float_from_double(1.0 + std::ldexp(1.9, -23), FloatRound::TowardZero),
            1.0f + std::ldexp(1.0f, -23));
  EXPECT_EQ(float_from_double(1e300, FloatRound::TowardZero), std::bit_cast<float>(0x7f7fffffu));
  EXPECT_EQ(round_to_tf32(1.0f + std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -10)); // tie: away
  EXPECT_EQ(round_to_tf32(1.0f + std::ldexp(1.0f, -12)), 1.0f);
  EXPECT_EQ(round_to_tf32(-1.0f - std::ldexp(3.0f, -12)), -1.0f - std::ldexp(1.0f, -10));
  EXPECT_TRUE(std::isinf(round_to_tf32(INFINITY)));
}
