// Per-lane semantics of the arithmetic instructions, against values worked out by hand
// from the PTX ISA.
#include <cfloat>
#include <cmath>
#include <limits>

#include "SimTestUtil.h"

using namespace tilec;
using namespace tilec::simt;
using namespace tilec::simt::test;

namespace {
using V = std::vector<uint64_t>;
uint64_t u32(int64_t v) { return static_cast<uint32_t>(v); }
uint64_t u16(int64_t v) { return static_cast<uint16_t>(v); }
Mods mul(MulMode m) {
  Mods r;
  r.mul = m;
  return r;
}
} // namespace

TEST(SimArith, IntegerAddSubWrapAndSaturate) {
  EXPECT_EQ(binary(Op::Add, Ty::U32, {0xffffffff, 5}, {1, 7}), (V{0, 12}));
  EXPECT_EQ(binary(Op::Sub, Ty::S16, {u16(-32768)}, {1}), (V{32767}));
  Mods sat;
  sat.sat = true;
  EXPECT_EQ(binary(Op::Add, Ty::S32, {u32(INT32_MAX), u32(-5)}, {1, u32(INT32_MIN)}, sat),
            (V{u32(INT32_MAX), u32(INT32_MIN)}));
  EXPECT_EQ(binary(Op::Sub, Ty::S32, {u32(INT32_MIN)}, {1}, sat), (V{u32(INT32_MIN)}));
  EXPECT_EQ(binary(Op::Add, Ty::U64, {~0ull}, {2}), (V{1}));
}

TEST(SimArith, IntegerMultiply) {
  EXPECT_EQ(binary(Op::Mul, Ty::S32, {u32(-3), 0x10000}, {7, 0x10000}, mul(MulMode::Lo)),
            (V{u32(-21), 0}));
  EXPECT_EQ(binary(Op::Mul, Ty::U32, {0x80000000, 0xffffffff}, {4, 0xffffffff}, mul(MulMode::Hi)),
            (V{2, 0xfffffffe}));
  EXPECT_EQ(binary(Op::Mul, Ty::S32, {u32(-1)}, {1}, mul(MulMode::Hi)), (V{0xffffffff}));
  EXPECT_EQ(binary(Op::Mul, Ty::U64, {~0ull}, {~0ull}, mul(MulMode::Hi)), (V{~0ull - 1}));
  EXPECT_EQ(binary(Op::Mul, Ty::S64, {static_cast<uint64_t>(INT64_MIN)}, {2}, mul(MulMode::Hi)),
            (V{~0ull}));
  // mul.wide: a 64-bit result of 32-bit operands
  V w = lanes({Ty::S32, Ty::S32}, Ty::S64, {{u32(-100000), 70000}, {300000, 70000}},
              [](Builder &b, std::vector<Reg> s) { return b.mul_wide(Ty::S32, s[0], s[1]); });
  EXPECT_EQ(w, (V{static_cast<uint64_t>(-30000000000ll), 4900000000ull}));
  V uw = lanes({Ty::U16, Ty::U16}, Ty::U32, {{0xffff}, {0xffff}},
               [](Builder &b, std::vector<Reg> s) { return b.mul_wide(Ty::U16, s[0], s[1]); });
  EXPECT_EQ(uw, (V{0xfffe0001}));
  // mad.lo / mad.hi / mad.wide
  V m = lanes({Ty::U32, Ty::U32, Ty::U32}, Ty::U32, {{0x10000, 3}, {0x10000, 4}, {5, 6}},
              [](Builder &b, std::vector<Reg> s) { return b.mad(Ty::U32, s[0], s[1], s[2]); });
  EXPECT_EQ(m, (V{5, 18}));
  V mh = lanes({Ty::U32, Ty::U32, Ty::U32}, Ty::U32, {{0x80000000}, {4}, {10}},
               [](Builder &b, std::vector<Reg> s) {
                 return b.ternary(Op::Mad, Ty::U32, s[0], s[1], s[2], mul(MulMode::Hi));
               });
  EXPECT_EQ(mh, (V{12}));
  V mw =
      lanes({Ty::S32, Ty::S32, Ty::S64}, Ty::S64, {{u32(-2)}, {1 << 30}, {5}},
            [](Builder &b, std::vector<Reg> s) { return b.mad_wide(Ty::S32, s[0], s[1], s[2]); });
  EXPECT_EQ(mw, (V{static_cast<uint64_t>(-(int64_t(1) << 31) + 5)}));
}

TEST(SimArith, IntegerDivisionAndRemainder) {
  V a{u32(-7), 7, u32(-7), u32(INT32_MIN), 5};
  V b{2, u32(-2), u32(-2), u32(-1), 0};
  EXPECT_EQ(binary(Op::Div, Ty::S32, a, b), (V{u32(-3), u32(-3), 3, u32(INT32_MIN), 0xffffffff}));
  EXPECT_EQ(binary(Op::Rem, Ty::S32, a, b), (V{u32(-1), 1, u32(-1), 0, 5}));
  EXPECT_EQ(binary(Op::Div, Ty::U32, {0xffffffff, 9}, {16, 0}), (V{0x0fffffff, 0xffffffff}));
  EXPECT_EQ(binary(Op::Rem, Ty::U64, {~0ull}, {10}), (V{5}));
}

TEST(SimArith, IntegerMinMaxAbsNeg) {
  EXPECT_EQ(binary(Op::Min, Ty::S32, {u32(-1)}, {1}), (V{u32(-1)}));
  EXPECT_EQ(binary(Op::Min, Ty::U32, {u32(-1)}, {1}), (V{1}));
  EXPECT_EQ(binary(Op::Max, Ty::S16, {u16(-5)}, {u16(-6)}), (V{u16(-5)}));
  EXPECT_EQ(unary(Op::Abs, Ty::S32, {u32(-9), u32(INT32_MIN)}), (V{9, u32(INT32_MIN)}));
  EXPECT_EQ(unary(Op::Neg, Ty::S64, {5}), (V{static_cast<uint64_t>(-5ll)}));
}

TEST(SimArith, ShiftsClampTheirAmount) {
  V sh = lanes({Ty::B32, Ty::U32}, Ty::B32, {{1, 1, 0x80000000}, {31, 32, 100}},
               [](Builder &b, std::vector<Reg> s) { return b.shl(Ty::B32, s[0], s[1]); });
  EXPECT_EQ(sh, (V{0x80000000, 0, 0}));
  V sr = lanes({Ty::S32, Ty::U32}, Ty::S32, {{u32(-16), u32(-16), 16}, {2, 40, 40}},
               [](Builder &b, std::vector<Reg> s) { return b.shr(Ty::S32, s[0], s[1]); });
  EXPECT_EQ(sr, (V{u32(-4), 0xffffffff, 0}));
  V ur = lanes({Ty::U32, Ty::U32}, Ty::U32, {{0x80000000, 0x80000000}, {31, 32}},
               [](Builder &b, std::vector<Reg> s) { return b.shr(Ty::U32, s[0], s[1]); });
  EXPECT_EQ(ur, (V{1, 0}));
  V r64 = lanes({Ty::B64, Ty::U32}, Ty::B64, {{1}, {63}},
                [](Builder &b, std::vector<Reg> s) { return b.shl(Ty::B64, s[0], s[1]); });
  EXPECT_EQ(r64, (V{1ull << 63}));
}

TEST(SimArith, BitOperations) {
  EXPECT_EQ(unary(Op::Popc, Ty::B32, {0xf0f0, 0}), (V{8, 0}));
  EXPECT_EQ(lanes({Ty::B64}, Ty::U32, {{1ull << 40, 0}},
                  [](Builder &b, std::vector<Reg> s) { return b.unary(Op::Clz, Ty::B64, s[0]); }),
            (V{23, 64}));
  EXPECT_EQ(unary(Op::Clz, Ty::B32, {1}), (V{31}));
  EXPECT_EQ(unary(Op::Brev, Ty::B32, {1, 0x80000000}), (V{0x80000000, 1}));
  EXPECT_EQ(binary(Op::Xor, Ty::B16, {0xff00}, {0x0ff0}), (V{0xf0f0}));
  EXPECT_EQ(unary(Op::Not, Ty::B32, {0}), (V{0xffffffff}));
  // prmt: byte i of the result is selected by nibble i of c from the 8 bytes {b, a}
  V p = lanes({Ty::B32, Ty::B32}, Ty::B32, {{0x44332211}, {0x88776655}},
              [](Builder &b, std::vector<Reg> s) {
                return b.ternary(Op::Prmt, Ty::B32, s[0], s[1], imm(0x5410));
              });
  EXPECT_EQ(p, (V{0x66552211}));
  V ps =
      lanes({Ty::B32, Ty::B32}, Ty::B32, {{0x000080ff}, {0}}, [](Builder &b, std::vector<Reg> s) {
        return b.ternary(Op::Prmt, Ty::B32, s[0], s[1], imm(0x9810)); // sign replicate
      });
  EXPECT_EQ(ps, (V{0xffff80ff}));
}

TEST(SimArith, PredicateLogic) {
  V r = lanes({Ty::Pred, Ty::Pred}, Ty::Pred, {{0, 0, 1, 1}, {0, 1, 0, 1}},
              [](Builder &b, std::vector<Reg> s) {
                Reg a = b.and_(Ty::Pred, s[0], s[1]);
                Reg o = b.or_(Ty::Pred, s[0], s[1]);
                Reg x = b.xor_(Ty::Pred, a, o); // true when exactly one
                return b.not_(Ty::Pred, x);
              });
  EXPECT_EQ(r, (V{1, 0, 0, 1}));
}

TEST(SimArith, FloatRoundingModes) {
  float tiny = std::ldexp(1.0f, -30);
  V a{fbits(1.0f), fbits(-1.0f)}, b{fbits(tiny), fbits(-tiny)};
  float up = std::nextafter(1.0f, 2.0f);
  EXPECT_EQ(binary(Op::Add, Ty::F32, a, b, rnd(Rnd::Rn)), (V{fbits(1.0f), fbits(-1.0f)}));
  EXPECT_EQ(binary(Op::Add, Ty::F32, a, b, rnd(Rnd::Rz)), (V{fbits(1.0f), fbits(-1.0f)}));
  EXPECT_EQ(binary(Op::Add, Ty::F32, a, b, rnd(Rnd::Rp)), (V{fbits(up), fbits(-1.0f)}));
  EXPECT_EQ(binary(Op::Add, Ty::F32, a, b, rnd(Rnd::Rm)), (V{fbits(1.0f), fbits(-up)}));
  // 1 - 2^-30 lies below 1: rz/rm give the float below 1
  float below = std::nextafter(1.0f, 0.0f);
  EXPECT_EQ(binary(Op::Sub, Ty::F32, {fbits(1.0f)}, {fbits(tiny)}, rnd(Rnd::Rz)),
            (V{fbits(below)}));
  EXPECT_EQ(binary(Op::Sub, Ty::F32, {fbits(1.0f)}, {fbits(tiny)}, rnd(Rnd::Rn)), (V{fbits(1.0f)}));
  // division and sqrt: 1/3 and sqrt(2) rounded each way
  float third_rn = 1.0f / 3.0f;
  V d = binary(Op::Div, Ty::F32, {fbits(1.0f)}, {fbits(3.0f)}, rnd(Rnd::Rn));
  EXPECT_EQ(d, (V{fbits(third_rn)}));
  V dz = binary(Op::Div, Ty::F32, {fbits(1.0f)}, {fbits(3.0f)}, rnd(Rnd::Rz));
  V dp = binary(Op::Div, Ty::F32, {fbits(1.0f)}, {fbits(3.0f)}, rnd(Rnd::Rp));
  EXPECT_LT(bf(dz[0]), bf(dp[0]));
  EXPECT_EQ(std::nextafter(bf(dz[0]), 1.0f), bf(dp[0]));
  EXPECT_LT(static_cast<double>(bf(dz[0])), 1.0 / 3.0);
  EXPECT_GT(static_cast<double>(bf(dp[0])), 1.0 / 3.0);
  V sz = unary(Op::Sqrt, Ty::F32, {fbits(2.0f)}, rnd(Rnd::Rz));
  V sp = unary(Op::Sqrt, Ty::F32, {fbits(2.0f)}, rnd(Rnd::Rp));
  EXPECT_LT(static_cast<double>(bf(sz[0])), std::sqrt(2.0));
  EXPECT_GT(static_cast<double>(bf(sp[0])), std::sqrt(2.0));
  // f64 directed rounding
  double dt = std::ldexp(1.0, -60);
  V r64 = binary(Op::Add, Ty::F64, {dbits(1.0)}, {dbits(dt)}, rnd(Rnd::Rp));
  EXPECT_EQ(bd(r64[0]), std::nextafter(1.0, 2.0));
  V m64 = binary(Op::Mul, Ty::F64, {dbits(1.0 / 3.0)}, {dbits(3.0)}, rnd(Rnd::Rn));
  EXPECT_EQ(bd(m64[0]), (1.0 / 3.0) * 3.0);
}

TEST(SimArith, FmaRoundsOnce) {
  // a*b = 1 - 2^-46 exactly; with c = -1, fma gives -2^-46, a mul then add gives 0.
  float a = 1.0f + std::ldexp(1.0f, -23), bb = 1.0f - std::ldexp(1.0f, -23);
  V f = lanes({Ty::F32, Ty::F32, Ty::F32}, Ty::F32, {{fbits(a)}, {fbits(bb)}, {fbits(-1.0f)}},
              [](Builder &b, std::vector<Reg> s) { return b.fma(Ty::F32, s[0], s[1], s[2]); });
  EXPECT_EQ(bf(f[0]), -std::ldexp(1.0f, -46));
  V two = lanes({Ty::F32, Ty::F32, Ty::F32}, Ty::F32, {{fbits(a)}, {fbits(bb)}, {fbits(-1.0f)}},
                [](Builder &b, std::vector<Reg> s) {
                  return b.add(Ty::F32, b.mul(Ty::F32, s[0], s[1]), s[2]);
                });
  EXPECT_EQ(bf(two[0]), 0.0f);
}

TEST(SimArith, FlushToZeroAndSaturate) {
  float sub = std::numeric_limits<float>::denorm_min() * 8;
  Mods ftz;
  ftz.ftz = true;
  EXPECT_EQ(binary(Op::Add, Ty::F32, {fbits(sub)}, {fbits(0.0f)}), (V{fbits(sub)}));
  EXPECT_EQ(binary(Op::Add, Ty::F32, {fbits(sub)}, {fbits(0.0f)}, ftz), (V{fbits(0.0f)}));
  EXPECT_EQ(binary(Op::Mul, Ty::F32, {fbits(-FLT_MIN)}, {fbits(0.5f)}, ftz), (V{fbits(-0.0f)}));
  Mods sat;
  sat.sat = true;
  EXPECT_EQ(binary(Op::Add, Ty::F32, {fbits(0.75f), fbits(-3.0f), fbits(0.25f)},
                   {fbits(0.5f), fbits(1.0f), fbits(0.25f)}, sat),
            (V{fbits(1.0f), fbits(0.0f), fbits(0.5f)}));
  EXPECT_EQ(binary(Op::Add, Ty::F32, {fbits(NAN)}, {fbits(1.0f)}, sat), (V{fbits(0.0f)}));
}

TEST(SimArith, NaNsAreCanonical) {
  V r = binary(Op::Mul, Ty::F32, {fbits(INFINITY), 0xffc00001}, {fbits(0.0f), fbits(1.0f)});
  EXPECT_EQ(r, (V{0x7fffffff, 0x7fffffff}));
}

TEST(SimArith, FloatMinMax) {
  V a{fbits(NAN), fbits(1.0f), fbits(-0.0f), fbits(NAN)};
  V b{fbits(2.0f), fbits(NAN), fbits(0.0f), fbits(NAN)};
  EXPECT_EQ(binary(Op::Min, Ty::F32, a, b),
            (V{fbits(2.0f), fbits(1.0f), fbits(-0.0f), 0x7fffffff}));
  EXPECT_EQ(binary(Op::Max, Ty::F32, a, b), (V{fbits(2.0f), fbits(1.0f), fbits(0.0f), 0x7fffffff}));
  Mods nan;
  nan.nan = true;
  EXPECT_EQ(binary(Op::Max, Ty::F32, a, b, nan),
            (V{0x7fffffff, 0x7fffffff, fbits(0.0f), 0x7fffffff}));
}

TEST(SimArith, Compares) {
  V a{fbits(1.0f), fbits(NAN), fbits(2.0f)}, b{fbits(1.0f), fbits(1.0f), fbits(1.0f)};
  auto cmp = [&](Cmp c, Ty t, V x, V y) {
    return lanes({t, t}, Ty::Pred, {x, y},
                 [&](Builder &bb, std::vector<Reg> s) { return bb.setp(c, t, s[0], s[1]); });
  };
  EXPECT_EQ(cmp(Cmp::Eq, Ty::F32, a, b), (V{1, 0, 0}));
  EXPECT_EQ(cmp(Cmp::Ne, Ty::F32, a, b), (V{0, 0, 1}));
  EXPECT_EQ(cmp(Cmp::Neu, Ty::F32, a, b), (V{0, 1, 1}));
  EXPECT_EQ(cmp(Cmp::Ltu, Ty::F32, a, b), (V{0, 1, 0}));
  EXPECT_EQ(cmp(Cmp::Ge, Ty::F32, a, b), (V{1, 0, 1}));
  EXPECT_EQ(cmp(Cmp::Nan, Ty::F32, a, b), (V{0, 1, 0}));
  EXPECT_EQ(cmp(Cmp::Num, Ty::F32, a, b), (V{1, 0, 1}));
  EXPECT_EQ(cmp(Cmp::Lt, Ty::S32, {u32(-1)}, {1}), (V{1}));
  EXPECT_EQ(cmp(Cmp::Lo, Ty::U32, {u32(-1)}, {1}), (V{0}));
  EXPECT_EQ(cmp(Cmp::Hs, Ty::U64, {~0ull}, {~0ull}), (V{1}));
  EXPECT_EQ(cmp(Cmp::Gt, Ty::S16, {u16(-2)}, {u16(-3)}), (V{1}));
  EXPECT_EQ(cmp(Cmp::Lt, Ty::F64, {dbits(-0.0)}, {dbits(0.0)}), (V{0}));
  V sel = lanes({Ty::Pred, Ty::F32, Ty::F32}, Ty::F32, {{1, 0}, {fbits(1.0f)}, {fbits(2.0f)}},
                [](Builder &bb, std::vector<Reg> s) { return bb.selp(Ty::F32, s[1], s[2], s[0]); });
  EXPECT_EQ(sel, (V{fbits(1.0f), fbits(2.0f)}));
}

TEST(SimArith, HalfPrecision) {
  // 2048 + 1 is a tie in f16 (spacing 2): to even gives 2048; 2048 + 3 gives 2052 (0x6802)
  V a{0x6800, 0x6800}, b{0x3c00, 0x4200}; // 2048; 1, 3
  EXPECT_EQ(binary(Op::Add, Ty::F16, a, b), (V{0x6800, 0x6802}));
  // f16x2: halves are independent (lo: 1 + 1 = 2, hi: 2048 + 1 = 2048)
  EXPECT_EQ(binary(Op::Add, Ty::F16x2, {0x68003c00}, {0x3c003c00}), (V{0x68004000}));
  EXPECT_EQ(binary(Op::Mul, Ty::F16, {0x7bff}, {0x4000}), (V{0x7c00})); // 65504 * 2 = inf
  // bf16 fma: 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to even gives 1
  V f = lanes({Ty::BF16, Ty::BF16, Ty::BF16}, Ty::BF16, {{0x3f80}, {0x3f80}, {0x3b80}},
              [](Builder &bb, std::vector<Reg> s) { return bb.fma(Ty::BF16, s[0], s[1], s[2]); });
  EXPECT_EQ(f, (V{0x3f80}));
  EXPECT_EQ(binary(Op::Max, Ty::BF16x2, {0x3f80bf80}, {0xbf803f80}), (V{0x3f803f80}));
  EXPECT_EQ(unary(Op::Neg, Ty::F16, {0x3c00}), (V{0xbc00}));
}

TEST(SimArith, ApproxMathIsCloseToExact) {
  // .approx instructions use the exact function (documented): compare with a tolerance.
  std::vector<float> xs{0.5f, -1.25f, 3.0f, 10.0f};
  V in;
  for (float x : xs)
    in.push_back(fbits(x));
  Mods ap;
  ap.approx = true;
  V e = unary(Op::Ex2, Ty::F32, in, ap), s = unary(Op::Sin, Ty::F32, in, ap),
    r = unary(Op::Rsqrt, Ty::F32, {fbits(4.0f)}, ap), t = unary(Op::Tanh, Ty::F32, in, ap),
    l = unary(Op::Lg2, Ty::F32, {fbits(8.0f)}, ap);
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_NEAR(bf(e[i]), std::exp2(xs[i]), 1e-6 * std::exp2(xs[i]));
    EXPECT_NEAR(bf(s[i]), std::sin(xs[i]), 1e-6);
    EXPECT_NEAR(bf(t[i]), std::tanh(xs[i]), 1e-6);
  }
  EXPECT_EQ(bf(r[0]), 0.5f);
  EXPECT_EQ(bf(l[0]), 3.0f);
  V rc = unary(Op::Rcp, Ty::F32, {fbits(3.0f)}, rnd(Rnd::Rn));
  EXPECT_EQ(bf(rc[0]), 1.0f / 3.0f);
}
