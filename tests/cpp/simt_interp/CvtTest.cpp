// cvt: integer <-> integer, float <-> integer and float <-> float conversions with their
// rounding modes and saturation, packed half and fp8 conversions.
#include <cfloat>
#include <cmath>

#include "SimTestUtil.h"

using namespace tilec;
using namespace tilec::simt;
using namespace tilec::simt::test;

namespace {
using V = std::vector<uint64_t>;
uint64_t u32(int64_t v) { return static_cast<uint32_t>(v); }
Mods sat() {
  Mods m;
  m.sat = true;
  return m;
}
} // namespace

TEST(SimCvt, FloatToIntRoundsAndSaturates) {
  V in{fbits(2.5f), fbits(-2.5f), fbits(3.5f), fbits(-0.4f)};
  EXPECT_EQ(cvt(Ty::S32, Ty::F32, in, Rnd::Rni), (V{2, u32(-2), 4, 0}));
  EXPECT_EQ(cvt(Ty::S32, Ty::F32, in, Rnd::Rzi), (V{2, u32(-2), 3, 0}));
  EXPECT_EQ(cvt(Ty::S32, Ty::F32, in, Rnd::Rmi), (V{2, u32(-3), 3, u32(-1)}));
  EXPECT_EQ(cvt(Ty::S32, Ty::F32, in, Rnd::Rpi), (V{3, u32(-2), 4, 0}));
  V big{fbits(1e10f), fbits(-1e10f), fbits(NAN), fbits(INFINITY)};
  EXPECT_EQ(cvt(Ty::S32, Ty::F32, big, Rnd::Rzi),
            (V{u32(INT32_MAX), u32(INT32_MIN), 0, u32(INT32_MAX)}));
  EXPECT_EQ(cvt(Ty::U32, Ty::F32, big, Rnd::Rzi), (V{0xffffffff, 0, 0, 0xffffffff}));
  EXPECT_EQ(cvt(Ty::U8, Ty::F32, {fbits(300.0f), fbits(-5.0f), fbits(7.9f)}, Rnd::Rzi),
            (V{255, 0, 7}));
  EXPECT_EQ(cvt(Ty::S8, Ty::F32, {fbits(-200.0f), fbits(-3.0f)}, Rnd::Rzi), (V{0x80, 0xfd}));
  // s8 results are sign-extended in their 16-bit register (seen through a 16-bit move)
  V reg16 = lanes({Ty::F32}, Ty::U16, {{fbits(-3.0f), fbits(100.0f)}},
                  [](Builder &b, std::vector<Reg> s) {
                    return b.mov(Ty::U16, b.cvt(Ty::S8, Ty::F32, s[0], Rnd::Rzi));
                  });
  EXPECT_EQ(reg16, (V{0xfffd, 100}));
  EXPECT_EQ(cvt(Ty::S64, Ty::F64, {dbits(1e300), dbits(-12345678901.7)}, Rnd::Rzi),
            (V{static_cast<uint64_t>(INT64_MAX), static_cast<uint64_t>(-12345678901ll)}));
  EXPECT_EQ(cvt(Ty::U64, Ty::F32, {fbits(1.8446744e19f)}, Rnd::Rni), (V{~0ull}));
  EXPECT_EQ(cvt(Ty::S32, Ty::F16, {0xc500}, Rnd::Rzi), (V{u32(-5)})); // f16 -5.0
}

TEST(SimCvt, IntToIntTruncatesExtendsOrSaturates) {
  EXPECT_EQ(cvt(Ty::U8, Ty::U32, {0x1ff}), (V{0xff}));
  EXPECT_EQ(cvt(Ty::S8, Ty::S32, {0x180}), (V{0x80}));
  EXPECT_EQ(cvt(Ty::S32, Ty::S8, {0xff80}), (V{u32(-128)}));
  EXPECT_EQ(cvt(Ty::U32, Ty::U8, {0x80}), (V{0x80}));
  EXPECT_EQ(cvt(Ty::S64, Ty::S32, {u32(-7)}), (V{static_cast<uint64_t>(-7ll)}));
  EXPECT_EQ(cvt(Ty::U64, Ty::S32, {u32(-7)}), (V{static_cast<uint64_t>(-7ll)}));
  EXPECT_EQ(cvt(Ty::U64, Ty::U32, {u32(-7)}), (V{0xfffffff9}));
  EXPECT_EQ(cvt(Ty::S8, Ty::S32, {300, u32(-300), 5}, Rnd::None, sat()), (V{127, 0x80, 5}));
  EXPECT_EQ(cvt(Ty::U32, Ty::S32, {u32(-1)}, Rnd::None, sat()), (V{0}));
  EXPECT_EQ(cvt(Ty::S32, Ty::U32, {0xffffffff}, Rnd::None, sat()), (V{u32(INT32_MAX)}));
  EXPECT_EQ(cvt(Ty::U16, Ty::S64, {static_cast<uint64_t>(-1ll), 70000}, Rnd::None, sat()),
            (V{0, 0xffff}));
}

TEST(SimCvt, IntToFloatRounding) {
  // 2^24 + 1 is not an f32: rn gives 2^24 (to even), rp 2^24 + 2
  V in{(1 << 24) + 1};
  EXPECT_EQ(cvt(Ty::F32, Ty::S32, in, Rnd::Rn), (V{fbits(16777216.0f)}));
  EXPECT_EQ(cvt(Ty::F32, Ty::S32, in, Rnd::Rz), (V{fbits(16777216.0f)}));
  EXPECT_EQ(cvt(Ty::F32, Ty::S32, in, Rnd::Rp), (V{fbits(16777218.0f)}));
  EXPECT_EQ(cvt(Ty::F32, Ty::S32, {u32(-((1 << 24) + 1))}, Rnd::Rm), (V{fbits(-16777218.0f)}));
  // u64 max: rn rounds up to 2^64, rz gives the largest f32 below it
  EXPECT_EQ(cvt(Ty::F32, Ty::U64, {~0ull}, Rnd::Rn), (V{fbits(18446744073709551616.0f)}));
  EXPECT_EQ(cvt(Ty::F32, Ty::U64, {~0ull}, Rnd::Rz),
            (V{fbits(std::nextafter(18446744073709551616.0f, 0.0f))}));
  // 2^53 + 1 into f64: rp needs the exact remainder
  uint64_t v = (1ull << 53) + 1;
  EXPECT_EQ(cvt(Ty::F64, Ty::U64, {v}, Rnd::Rn), (V{dbits(9007199254740992.0)}));
  EXPECT_EQ(cvt(Ty::F64, Ty::U64, {v}, Rnd::Rp), (V{dbits(9007199254740994.0)}));
  EXPECT_EQ(cvt(Ty::F64, Ty::S8, {0xff80}, Rnd::Rn), (V{dbits(-128.0)}));
  EXPECT_EQ(cvt(Ty::F16, Ty::S32, {2049}, Rnd::Rn), (V{0x6800}));
  EXPECT_EQ(cvt(Ty::F16, Ty::S32, {2049}, Rnd::Rp), (V{0x6801}));
  EXPECT_EQ(cvt(Ty::F16, Ty::S32, {100000}, Rnd::Rn), (V{0x7c00}));
  EXPECT_EQ(cvt(Ty::F16, Ty::S32, {100000}, Rnd::Rz), (V{0x7bff}));
}

TEST(SimCvt, FloatToFloat) {
  EXPECT_EQ(cvt(Ty::F64, Ty::F32, {fbits(0.1f)}), (V{dbits(static_cast<double>(0.1f))}));
  EXPECT_EQ(cvt(Ty::F32, Ty::F64, {dbits(0.1)}, Rnd::Rn), (V{fbits(0.1f)}));
  float lo = std::nextafter(0.1f, 0.0f), hi = std::nextafter(0.1f, 1.0f);
  uint64_t z = cvt(Ty::F32, Ty::F64, {dbits(0.1)}, Rnd::Rz)[0];
  uint64_t p = cvt(Ty::F32, Ty::F64, {dbits(0.1)}, Rnd::Rp)[0];
  EXPECT_TRUE(bf(z) == 0.1f || bf(z) == lo);
  EXPECT_TRUE(bf(p) == 0.1f || bf(p) == hi);
  EXPECT_EQ(std::nextafter(bf(z), 1.0f), bf(p)); // 0.1 is not an f32: they straddle it
  EXPECT_EQ(cvt(Ty::F32, Ty::F64, {dbits(1e300)}, Rnd::Rn), (V{fbits(INFINITY)}));
  EXPECT_EQ(cvt(Ty::F32, Ty::F64, {dbits(1e300)}, Rnd::Rz), (V{fbits(FLT_MAX)}));
  // f32 -> f16 in every mode: 1 + 2^-11 is halfway between 1 and 1 + 2^-10
  V half{fbits(1.0f + std::ldexp(1.0f, -11)), fbits(-(1.0f + std::ldexp(1.0f, -11)))};
  EXPECT_EQ(cvt(Ty::F16, Ty::F32, half, Rnd::Rn), (V{0x3c00, 0xbc00}));
  EXPECT_EQ(cvt(Ty::F16, Ty::F32, half, Rnd::Rz), (V{0x3c00, 0xbc00}));
  EXPECT_EQ(cvt(Ty::F16, Ty::F32, half, Rnd::Rp), (V{0x3c01, 0xbc00}));
  EXPECT_EQ(cvt(Ty::F16, Ty::F32, half, Rnd::Rm), (V{0x3c00, 0xbc01}));
  EXPECT_EQ(cvt(Ty::F16, Ty::F32, {fbits(1e6f)}, Rnd::Rn), (V{0x7c00}));
  Mods satf;
  satf.satfinite = true;
  EXPECT_EQ(cvt(Ty::F16, Ty::F32, {fbits(1e6f), fbits(NAN)}, Rnd::Rn, satf), (V{0x7bff, 0x7fff}));
  Mods relu;
  relu.relu = true;
  EXPECT_EQ(cvt(Ty::F16, Ty::F32, {fbits(-3.0f), fbits(2.0f)}, Rnd::Rn, relu), (V{0, 0x4000}));
  EXPECT_EQ(cvt(Ty::F32, Ty::F16, {0x3555, 0x0001}),
            (V{fbits(0.333251953125f), fbits(std::ldexp(1.0f, -24))}));
  EXPECT_EQ(cvt(Ty::BF16, Ty::F32, {fbits(1.00390625f)}, Rnd::Rn), (V{0x3f80})); // tie: even
  EXPECT_EQ(cvt(Ty::BF16, Ty::F32, {fbits(1.01171875f)}, Rnd::Rn), (V{0x3f82})); // tie: even up
  EXPECT_EQ(cvt(Ty::BF16, Ty::F32, {fbits(1.00390625f)}, Rnd::Rp), (V{0x3f81}));
  EXPECT_EQ(cvt(Ty::F32, Ty::BF16, {0xc0a0}), (V{fbits(-5.0f)}));
  EXPECT_EQ(cvt(Ty::BF16, Ty::F16, {0x3c00}, Rnd::Rn), (V{0x3f80}));
  // integer rounding within a float type, and .sat / .ftz
  V r{fbits(2.5f), fbits(-1.5f), fbits(0.7f)};
  EXPECT_EQ(cvt(Ty::F32, Ty::F32, r, Rnd::Rni), (V{fbits(2.0f), fbits(-2.0f), fbits(1.0f)}));
  EXPECT_EQ(cvt(Ty::F32, Ty::F32, r, Rnd::Rmi), (V{fbits(2.0f), fbits(-2.0f), fbits(0.0f)}));
  EXPECT_EQ(cvt(Ty::F32, Ty::F32, r, Rnd::Rpi), (V{fbits(3.0f), fbits(-1.0f), fbits(1.0f)}));
  EXPECT_EQ(cvt(Ty::F32, Ty::F32, r, Rnd::Rzi), (V{fbits(2.0f), fbits(-1.0f), fbits(0.0f)}));
  EXPECT_EQ(cvt(Ty::F32, Ty::F32, r, Rnd::None, sat()), (V{fbits(1.0f), fbits(0.0f), fbits(0.7f)}));
  Mods ftz;
  ftz.ftz = true;
  float sub = FLT_MIN / 4;
  EXPECT_EQ(cvt(Ty::F64, Ty::F32, {fbits(sub)}, Rnd::None, ftz), (V{dbits(0.0)}));
  EXPECT_EQ(cvt(Ty::F64, Ty::F32, {fbits(sub)}), (V{dbits(static_cast<double>(sub))}));
  EXPECT_EQ(cvt(Ty::TF32, Ty::F32, {fbits(1.0f + std::ldexp(1.0f, -11))}, Rnd::Rna),
            (V{fbits(1.0f + std::ldexp(1.0f, -10))})); // ties away from zero
}

TEST(SimCvt, PackedHalvesAndFp8) {
  // cvt.rn.f16x2.f32 d, a, b puts a in the upper half
  V f = lanes(
      {Ty::F32, Ty::F32}, Ty::F16x2, {{fbits(1.0f)}, {fbits(-2.0f)}},
      [](Builder &b, std::vector<Reg> s) { return b.cvt_pack(Ty::F16x2, Ty::F32, s[0], s[1]); });
  EXPECT_EQ(f, (V{0x3c00c000}));
  V bfp = lanes(
      {Ty::F32, Ty::F32}, Ty::BF16x2, {{fbits(1.0f)}, {fbits(-2.0f)}},
      [](Builder &b, std::vector<Reg> s) { return b.cvt_pack(Ty::BF16x2, Ty::F32, s[0], s[1]); });
  EXPECT_EQ(bfp, (V{0x3f80c000}));
  // e4m3: 448 is the largest finite value; .satfinite clamps 1000 to it; NaN stays NaN
  V e4 = lanes({Ty::F32, Ty::F32}, Ty::E4M3x2,
               {{fbits(1000.0f), fbits(NAN)}, {fbits(-1.5f), fbits(0.0f)}},
               [](Builder &b, std::vector<Reg> s) {
                 return b.cvt_pack(Ty::E4M3x2, Ty::F32, s[0], s[1], Rnd::Rn, true);
               });
  EXPECT_EQ(e4, (V{0x7ebc, 0x7f00}));
  V e5 = lanes({Ty::F32, Ty::F32}, Ty::E5M2x2, {{fbits(1e6f)}, {fbits(0.5f)}},
               [](Builder &b, std::vector<Reg> s) {
                 return b.cvt_pack(Ty::E5M2x2, Ty::F32, s[0], s[1], Rnd::Rn, true);
               });
  EXPECT_EQ(e5, (V{0x7b38})); // 57344 (max finite e5m2) above 0.5
  V back = lanes({Ty::E4M3x2}, Ty::F16x2, {{0x7ebc}}, [](Builder &b, std::vector<Reg> s) {
    return b.cvt(Ty::F16x2, Ty::E4M3x2, s[0], Rnd::Rn);
  });
  EXPECT_EQ(back, (V{0x5f00be00})); // {448, -1.5}
  V from_h2 = lanes({Ty::F16x2}, Ty::E4M3x2, {{0x3c00c000}}, [](Builder &b, std::vector<Reg> s) {
    Reg r = b.cvt(Ty::E4M3x2, Ty::F16x2, s[0], Rnd::Rn);
    b.last().m.satfinite = true;
    return r;
  });
  EXPECT_EQ(from_h2, (V{0x38c0})); // {1.0, -2.0}
}
