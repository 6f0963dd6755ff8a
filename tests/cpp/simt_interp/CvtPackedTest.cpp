// The packed f32 -> f16x2 / bf16x2 conversions round each half exactly like the scalar
// cvt (the lowering replaces two scalar cvts and a pack by one packed cvt: FuseCvtPacks).
// Compared bit for bit over specials (zeros, infinities, NaN payloads, subnormals, the
// overflow and rounding boundaries of both formats) and pseudo-random bit patterns.
#include <cmath>
#include <random>

#include "SimTestUtil.h"

using namespace tilec;
using namespace tilec::simt;
using namespace tilec::simt::test;

namespace {

using V = std::vector<uint64_t>;

V patterns() {
  V v = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
         0x7f800001, 0xff800001, 0x7fa00000, 0x7fbfffff, 0x7fffffff, 0xffffffff,
         0x00000001, 0x807fffff, 0x00800000, 0x33000000, 0x33000001, 0x337fffff,
         0x33800000, 0x387fe000, 0x387ff000, 0x38800000, 0xb8801000, 0x477fe000,
         0x477fefff, 0x477ff000, 0xc77ff000, 0x47800000, 0x7f7fffff, 0x7f7f8000,
         0x7f7f7fff, 0x3f808000, 0x3f818000, 0x3f808001, 0xbf808000, 0x3f801000};
  for (float f : {1.0f, -2.5f, 65504.0f, 65519.99f, 65520.0f, 6.1e-5f, 5.96e-8f, 2.98e-8f, 1.0e-40f,
                  3.0e38f, 0.1f, -0.3333333f})
    v.push_back(fbits(f));
  std::mt19937 rng(12345);
  while (v.size() % 32 != 0 || v.size() < 32 * 40)
    v.push_back(rng());
  return v;
}

// Scalar and packed results agree for every pattern, each value in both halves.
void expect_packed_matches_scalar(Ty half, Ty packed, Rnd r) {
  V all = patterns();
  for (size_t at = 0; at < all.size(); at += 32) {
    V a(all.begin() + static_cast<long>(at), all.begin() + static_cast<long>(at + 32));
    V b(a.rbegin(), a.rend()); // a different partner in the other half
    V sa = cvt(half, Ty::F32, a, r), sb = cvt(half, Ty::F32, b, r);
    V p = lanes({Ty::F32, Ty::F32}, packed, {a, b}, [&](Builder &bl, std::vector<Reg> s) {
      return bl.cvt_pack(packed, Ty::F32, s[0], s[1], r);
    });
    for (size_t l = 0; l < 32; ++l) {
      EXPECT_EQ(p[l] >> 16, sa[l] & 0xffff) << std::hex << "hi of 0x" << a[l];
      EXPECT_EQ(p[l] & 0xffff, sb[l] & 0xffff) << std::hex << "lo of 0x" << b[l];
    }
  }
}

} // namespace

TEST(SimCvtPacked, F16x2MatchesScalarRn) {
  expect_packed_matches_scalar(Ty::F16, Ty::F16x2, Rnd::Rn);
}
TEST(SimCvtPacked, F16x2MatchesScalarRz) {
  expect_packed_matches_scalar(Ty::F16, Ty::F16x2, Rnd::Rz);
}
TEST(SimCvtPacked, Bf16x2MatchesScalarRn) {
  expect_packed_matches_scalar(Ty::BF16, Ty::BF16x2, Rnd::Rn);
}
TEST(SimCvtPacked, Bf16x2MatchesScalarRz) {
  expect_packed_matches_scalar(Ty::BF16, Ty::BF16x2, Rnd::Rz);
}

// A few known roundings, so that a simulator bug shared by both forms still shows.
TEST(SimCvtPacked, KnownHalves) {
  auto pack = [](Ty t, float hi, float lo) {
    return lanes(
        {Ty::F32, Ty::F32}, t, {{fbits(hi)}, {fbits(lo)}},
        [&](Builder &b, std::vector<Reg> s) { return b.cvt_pack(t, Ty::F32, s[0], s[1]); })[0];
  };
  EXPECT_EQ(pack(Ty::F16x2, 65520.0f, 65519.0f), 0x7c007bffu); // overflow to inf; below it, max
  EXPECT_EQ(pack(Ty::F16x2, 2.98023224e-8f, -5.96e-8f),
            0x00008001u); // tie to even 0; -min subnormal
  EXPECT_EQ(pack(Ty::F16x2, INFINITY, -INFINITY), 0x7c00fc00u);
  EXPECT_EQ(pack(Ty::BF16x2, 1.00390625f, 1.01171875f), 0x3f803f82u); // ties to even both ways
  uint64_t n = pack(Ty::F16x2, NAN, 1.0f);
  EXPECT_EQ(n >> 26 & 0x1f, 0x1fu); // a NaN: exponent all ones,
  EXPECT_NE(n >> 16 & 0x3ff, 0u);   // mantissa not zero
  EXPECT_EQ(n & 0xffff, 0x3c00u);
}
