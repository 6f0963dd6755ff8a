// fp64 transcendental functions (PTX has no fp64 ex2/lg2/sin/cos), about 1-3 ulp:
//  exp:  x = k ln2 + r (ln2 in two parts, by fma), e^r by its Taylor series to r^13,
//        times 2^k built in two halves (so subnormal results round once more, gently);
//  log:  x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1),
//        by its series to s^21;
//  sin/cos: x = j pi/2 + r (pi/2 in two parts, by fma), Taylor polynomials on
//        [-pi/4, pi/4], the quadrant picking sin/cos and the sign;
//  erf:  the Maclaurin series for |x| < 2, 1 - erfc by its continued fraction (50 levels)
//        for 2 <= |x| < 6, +-1 beyond.
#include <cmath>

#include "lower/LowerMath.h"

namespace tilec::lower {

namespace {

using simt::Cmp;
using simt::Rnd;
using K = ir::OpKind;
constexpr Ty T = Ty::F64;

Operand d(double v) { return Operand::f64(v); }

Reg horner(simt::Builder &b, Reg x, const std::vector<double> &c) {
  Reg acc = b.mov(T, d(c.back()));
  for (size_t i = c.size() - 1; i-- > 0;)
    acc = b.fma(T, acc, x, d(c[i]));
  return acc;
}

// 2^k for an integer-valued f64 k in [-1075, 1024], as two factors 2^(k/2) 2^(k-k/2).
std::pair<Reg, Reg> pow2_halves(simt::Builder &b, Reg kf) {
  Reg k = b.cvt(Ty::S32, T, kf, Rnd::Rzi);
  Reg k1 = b.shr(Ty::S32, k, simt::imm(1));
  Reg k2 = b.sub(Ty::S32, k, k1);
  auto scale = [&](Reg e) {
    Reg biased = b.cvt(Ty::S64, Ty::S32, b.add(Ty::S32, e, simt::imm(1023)));
    return b.shl(Ty::B64, biased, simt::imm(52));
  };
  return {scale(k1), scale(k2)};
}

// e^r for |r| <= ln2/2.
Reg exp_reduced(simt::Builder &b, Reg r) {
  std::vector<double> c;
  double f = 1;
  for (int n = 0; n <= 13; ++n) {
    if (n)
      f *= n;
    c.push_back(1.0 / f);
  }
  return horner(b, r, c);
}

Reg exp_f64(LoweringContext &c, Reg x) {
  simt::Builder &b = c.b();
  Reg xc = b.min(T, b.max(T, x, d(-746.0)), d(710.0));
  Reg k = b.cvt(T, T, b.mul(T, xc, d(1.4426950408889634)), Rnd::Rni);
  Reg r = b.fma(T, b.neg(T, k), d(6.93147180369123816490e-01), xc);
  r = b.fma(T, b.neg(T, k), d(1.90821492927058770002e-10), r);
  auto [s1, s2] = pow2_halves(b, k);
  Reg y = b.mul(T, b.mul(T, exp_reduced(b, r), s1), s2);
  y = b.selp(T, d(INFINITY), y, b.setp(Cmp::Gt, T, x, d(709.782712893384)));
  y = b.selp(T, d(0.0), y, b.setp(Cmp::Lt, T, x, d(-745.1332191019412)));
  return b.selp(T, x, y, b.setp(Cmp::Nan, T, x, x));
}

Reg exp2_f64(LoweringContext &c, Reg x) {
  simt::Builder &b = c.b();
  Reg xc = b.min(T, b.max(T, x, d(-1076.0)), d(1025.0));
  Reg k = b.cvt(T, T, xc, Rnd::Rni);
  Reg r = b.mul(T, b.sub(T, xc, k), d(0.6931471805599453));
  auto [s1, s2] = pow2_halves(b, k);
  Reg y = b.mul(T, b.mul(T, exp_reduced(b, r), s1), s2);
  y = b.selp(T, d(INFINITY), y, b.setp(Cmp::Ge, T, x, d(1024.0)));
  y = b.selp(T, d(0.0), y, b.setp(Cmp::Lt, T, x, d(-1075.0)));
  return b.selp(T, x, y, b.setp(Cmp::Nan, T, x, x));
}

// log(x), or log2(x) when `base2`.
Reg log_f64(LoweringContext &c, Reg x, bool base2) {
  simt::Builder &b = c.b();
  // subnormals: scale by 2^54 first
  Reg sub = b.setp(Cmp::Lt, T, x, d(2.2250738585072014e-308));
  Reg xs = b.selp(T, b.mul(T, x, d(18014398509481984.0)), x, sub);
  Reg eadj = b.selp(Ty::S32, simt::imm(-54), simt::imm(0), sub);
  Reg bits = xs; // f64 bits as b64
  Reg e = b.cvt(Ty::S32, Ty::U64, b.shr(Ty::U64, bits, simt::imm(52)));
  e = b.add(Ty::S32, b.sub(Ty::S32, e, simt::imm(1023)), eadj);
  Reg mant = b.and_(Ty::B64, bits, simt::imm(0xFFFFFFFFFFFFFll));
  // m in [sqrt(1/2), sqrt(2)): above sqrt(2)'s mantissa, halve m and count one more
  Reg big = b.setp(Cmp::Gt, Ty::U64, mant, simt::imm(0x6A09E667F3BCDll));
  Reg expo = b.selp(Ty::B64, simt::imm(int64_t{1022} << 52), simt::imm(int64_t{1023} << 52), big);
  Reg m = b.or_(Ty::B64, mant, expo);
  e = b.add(Ty::S32, e, b.selp(Ty::S32, simt::imm(1), simt::imm(0), big));
  Reg f = b.sub(T, m, d(1.0));
  Reg s = b.div(T, f, b.add(T, f, d(2.0)));
  Reg z = b.mul(T, s, s);
  std::vector<double> cs;
  for (int n = 0; n <= 10; ++n)
    cs.push_back(1.0 / (2 * n + 1));
  Reg logm = b.mul(T, b.mul(T, s, d(2.0)), horner(b, z, cs)); // 2 s (1 + z/3 + ...)
  Reg ef = b.cvt(T, Ty::S32, e, Rnd::Rn);
  Reg y;
  if (base2)
    y = b.fma(T, logm, d(1.4426950408889634), ef);
  else
    y = b.fma(T, ef, d(6.93147180369123816490e-01),
              b.fma(T, ef, d(1.90821492927058770002e-10), logm));
  // specials: 0 -> -inf, negative -> NaN, inf -> inf, NaN -> NaN
  y = b.selp(T, d(-INFINITY), y, b.setp(Cmp::Eq, T, x, d(0.0)));
  y = b.selp(T, d(NAN), y, b.setp(Cmp::Lt, T, x, d(0.0)));
  y = b.selp(T, x, y, b.setp(Cmp::Equ, T, x, d(INFINITY))); // +inf or NaN
  return y;
}

Reg sin_cos_f64(LoweringContext &c, Reg x, int quadrant_offset) {
  simt::Builder &b = c.b();
  Reg j = b.cvt(T, T, b.mul(T, x, d(0.63661977236758134308)), Rnd::Rni);
  Reg r = b.fma(T, b.neg(T, j), d(1.5707963267948966), x);
  r = b.fma(T, b.neg(T, j), d(6.123233995736766e-17), r);
  Reg q = b.cvt(Ty::S32, T, j, Rnd::Rzi);
  if (quadrant_offset)
    q = b.add(Ty::S32, q, simt::imm(quadrant_offset));
  Reg z = b.mul(T, r, r);
  std::vector<double> sc, cc;
  double f = 1;
  for (int n = 1; n <= 18; ++n) {
    f *= n;
    if (n % 2 == 1 && n >= 3)
      sc.push_back(((n / 2) % 2 ? -1.0 : 1.0) / f); // -1/3!, 1/5!, ...
    if (n % 2 == 0 && n >= 4)
      cc.push_back(((n / 2) % 2 ? -1.0 : 1.0) / f); // 1/4!, -1/6!, ...
  }
  Reg s = b.fma(T, b.mul(T, r, z), horner(b, z, sc), r);
  Reg co = b.fma(T, b.mul(T, z, z), horner(b, z, cc), b.fma(T, z, d(-0.5), d(1.0)));
  Reg odd = b.setp(Cmp::Ne, Ty::B32, b.and_(Ty::B32, q, simt::imm(1)), simt::imm(0));
  Reg v = b.selp(T, co, s, odd);
  Reg neg = b.setp(Cmp::Ne, Ty::B32, b.and_(Ty::B32, q, simt::imm(2)), simt::imm(0));
  return b.selp(T, b.neg(T, v), v, neg);
}

Reg erf_f64(LoweringContext &c, Reg x) {
  simt::Builder &b = c.b();
  Reg ax = b.abs(T, x);
  // |x| < 2: x * sum (-1)^n x^2n * 2/sqrt(pi) / (n! (2n+1))
  std::vector<double> cs;
  double f = 1;
  for (int n = 0; n < 36; ++n) {
    if (n)
      f *= n;
    cs.push_back(1.1283791670955126 * ((n % 2) ? -1.0 : 1.0) / (f * (2 * n + 1)));
  }
  Reg small = b.mul(T, x, horner(b, b.mul(T, x, x), cs));
  // 2 <= |x| < 6: 1 - exp(-x^2) / (sqrt(pi) * (x + 1/2/(x + 1/(x + 3/2/(x + ...)))))
  Reg a = b.min(T, b.max(T, ax, d(2.0)), d(6.0));
  Reg t = a;
  for (int k = 50; k >= 1; --k)
    t = b.add(T, a, b.div(T, d(k / 2.0), t));
  Reg e = exp_f64(c, b.neg(T, b.mul(T, a, a)));
  Reg erfc = b.div(T, e, b.mul(T, t, d(1.7724538509055160)));
  Reg big = b.sub(T, d(1.0), erfc);
  big = b.selp(T, d(1.0), big, b.setp(Cmp::Ge, T, ax, d(6.0)));
  Reg sign = b.and_(Ty::B64, x, simt::imm(INT64_MIN));
  Reg big_signed = b.or_(Ty::B64, big, sign);
  Reg r = b.selp(T, small, big_signed, b.setp(Cmp::Lt, T, ax, d(2.0)));
  return b.selp(T, x, r, b.setp(Cmp::Nan, T, x, x));
}

} // namespace

Reg emit_math_f64(LoweringContext &c, const ir::Op &op, Reg x) {
  switch (op.kind()) {
  case K::Exp:
    return exp_f64(c, x);
  case K::Exp2:
    return exp2_f64(c, x);
  case K::Log:
    return log_f64(c, x, false);
  case K::Log2:
    return log_f64(c, x, true);
  case K::Sin:
    return sin_cos_f64(c, x, 0);
  case K::Cos:
    return sin_cos_f64(c, x, 1);
  case K::Erf:
    return erf_f64(c, x);
  default:
    break;
  }
  throw CompileError(op.loc(), "tl." + std::string(op.name()) +
                                   " on float64 is not supported on the GPU yet");
}

} // namespace tilec::lower
