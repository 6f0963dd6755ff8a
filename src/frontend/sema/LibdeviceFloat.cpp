// libdevice's transcendental functions. Each is one fp64 formula over the Tile IR's fp64
// math ops (exp, log, sin, cos, erf, sqrt: a few ulp on every back end) and fma; the fp32
// form evaluates it on the argument widened to fp64 and rounds once, which lands within
// 1 ulp of the correctly rounded fp32 value. exp and tanh, hot in Inductor's kernels, have
// fp32 forms instead, within 2 ulp on the GPU as CUDA's expf/tanhf (1 on the CPU). The fp64
// form uses the same formula where it keeps a few ulp (formulas chosen to avoid
// cancellation: Kahan's expm1/log1p, fdlibm's asinh/acosh, half-angle atan); where it
// cannot (erfc, erfinv, gamma ...) fp64 is an error. pow is LibdevicePow.cpp.
// fast_* are the approximate fp32 ops tl.exp & co use (ex2/lg2.approx, div.full).
#include <cmath>

#include "frontend/sema/Libdevice.h"

namespace tilec::sema::builtins::libdevice {

namespace {

constexpr double kPi = 3.141592653589793, kPiLo = 1.2246467991473532e-16;
constexpr double kPio2 = 1.5707963267948966, kPio2Lo = 6.123233995736766e-17;
constexpr double kLn2 = 0.6931471805599453;
constexpr double kLn10 = 2.302585092994046, kLn10Lo = -2.1707562233822494e-16;
constexpr double kInvLn10 = 0.4342944819032518;
constexpr double kInvSqrtPi = 0.5641895835477563;
constexpr double kInvSqrt2 = 0.7071067811865476;

Value *u(M &m, OpKind k, Value *x) { return m.op(k, x); }

// ---- exp / log family ---------------------------------------------------------------------

Value *exp_c(M &m, Value *x) { return u(m, OpKind::Exp, x); }
Value *exp2_c(M &m, Value *x) { return u(m, OpKind::Exp2, x); }
Value *log_c(M &m, Value *x) { return u(m, OpKind::Log, x); }
Value *log2_c(M &m, Value *x) { return u(m, OpKind::Log2, x); }
Value *log10_c(M &m, Value *x) { return m.mul(log_c(m, x), c(m, kInvLn10)); }

// 10^x = e^(hi + lo) with x ln10 = hi + lo exactly enough: e^hi (1 + lo).
Value *exp10_c(M &m, Value *x) {
  Value *hi = m.mul(x, c(m, kLn10));
  Value *lo = m.fma(x, c(m, kLn10Lo), m.fma(x, c(m, kLn10), m.neg(hi)));
  Value *e = exp_c(m, hi);
  Value *r = m.fma(e, lo, e);
  Value *edge = m.lor(m.is_inf(e), m.cmp("eq", e, c(m, 0.0)));
  return m.sel(edge, e, r);
}

// Kahan: expm1(x) = (u - 1) x / log(u), u = e^x (exact enough where u - 1 cancels).
Value *expm1_c(M &m, Value *x) {
  Value *e = exp_c(m, x);
  Value *um1 = m.sub(e, c(m, 1.0));
  Value *r = m.div(m.mul(um1, x), log_c(m, e));
  r = m.sel(m.cmp("eq", e, c(m, 1.0)), x, r);
  r = m.sel(m.cmp("eq", um1, c(m, -1.0)), um1, r);
  return m.sel(m.is_inf(e), e, r);
}

// Kahan: log1p(x) = log(u) x / (u - 1), u = 1 + x.
Value *log1p_c(M &m, Value *x) {
  Value *v = m.add(x, c(m, 1.0));
  Value *r = m.mul(log_c(m, v), m.div(x, m.sub(v, c(m, 1.0))));
  r = m.sel(m.cmp("eq", v, c(m, 1.0)), x, r);
  return m.sel(m.cmp("eq", x, c(m, INFINITY)), x, r);
}

// ---- hyperbolic ---------------------------------------------------------------------------

Value *tanh_c(M &m, Value *x) {
  Value *a = m.abs(x);
  Value *t = expm1_c(m, m.add(a, a));
  Value *r = m.div(t, m.add(t, c(m, 2.0)));
  r = m.sel(m.cmp("gt", a, c(m, 22.0)), c(m, 1.0), r);
  return m.copysign(r, x);
}

// fp32 exp in fp32, as CUDA's expf (the fp64 route costs ~3x in Inductor's online
// softmax, which calls libdevice.exp): n = rint(x log2 e) by the 1.5 2^23 trick,
// f = x log2 e - n with log2 e in two parts (|f| <= 1/2), 2^f by the exp2 op (exact on
// the CPU, ex2.approx on the GPU: within 2 ulp, CUDA's bound), times 2^n in two halves so
// that subnormal results round once.
Value *exp_f32(M &m, Value *x) {
  auto f = [&](double v) { return m.f(DType::F32, v); };
  auto i32 = [&](int64_t v) { return m.i(DType::I32, v); };
  // n from x clamped to [-104, 89] (beyond, e^x rounds to 0 or inf; min/max drop a NaN),
  // f from x itself: out of range 2^f is 0 or inf, and a NaN stays NaN.
  Value *xc = m.op(OpKind::Min, m.op(OpKind::Max, x, f(-104.0)), f(89.0));
  constexpr double kMagic = 12582912.0; // 1.5 * 2^23
  constexpr float kLog2e = 1.44269504088896341f;
  Value *t = m.fma(xc, f(kLog2e), f(kMagic));
  Value *n = m.sub(m.bits(t), i32(0x4B400000)); // the integer in t's low bits
  Value *nf = m.sub(t, f(kMagic));
  Value *r = m.fma(x, f(kLog2e), m.neg(nf));
  r = m.fma(x, f(1.44269504088896341 - double(kLog2e)), r);
  Value *e = m.op(OpKind::Exp2, r);
  Value *n1 = m.op(OpKind::Shr, n, i32(1)), *n2 = m.sub(n, n1);
  auto pow2 = [&](Value *k) {
    return m.from_bits(m.op(OpKind::Shl, m.add(k, i32(127)), i32(23)), DType::F32);
  };
  return m.mul(m.mul(e, pow2(n1)), pow2(n2));
}

// fp32 tanh in fp32, within 2 ulp as CUDA's tanhf (1 on the CPU): |x| < 1: x + x^3 P(x^2),
// P fitted (weighted least squares toward minimax); beyond: 1 - 2 / (e^2|x| + 1), |x|
// clamped to 20 (where tanh rounds to 1).
Value *tanh_f32(M &m, Value *x) {
  auto f = [&](double v) { return m.f(DType::F32, v); };
  Value *a = m.abs(x);
  Value *z = m.mul(x, x);
  const double p[] = {-0.33333295583724976,   0.13332344591617584,   -0.05387982726097107,
                      0.021486740559339523,   -0.007946249097585678, 0.0023014831822365522,
                      -0.00035848989500664175};
  Value *acc = f(p[6]);
  for (int k = 5; k >= 0; --k)
    acc = m.fma(acc, z, f(p[k]));
  Value *small = m.fma(x, m.mul(z, acc), x);
  Value *ab = m.sel(m.cmp("gt", a, f(20.0)), f(20.0), a);
  Value *e = exp_f32(m, m.add(ab, ab));
  Value *big = m.sub(f(1.0), m.div(f(2.0), m.add(e, f(1.0))));
  return m.sel(m.cmp("lt", a, f(1.0)), small, m.copysign(big, x));
}

// e^(|x|/2)^2 / 2 for large |x|, where e^|x| alone would overflow first.
Value *half_exp_sq(M &m, Value *a) {
  Value *h = exp_c(m, m.mul(a, c(m, 0.5)));
  return m.mul(m.mul(h, c(m, 0.5)), h);
}

Value *sinh_c(M &m, Value *x) {
  Value *a = m.abs(x);
  Value *e = expm1_c(m, a);
  Value *r = m.mul(c(m, 0.5), m.add(e, m.div(e, m.add(e, c(m, 1.0)))));
  r = m.sel(m.cmp("gt", a, c(m, 20.0)), half_exp_sq(m, a), r);
  return m.copysign(r, x);
}

Value *cosh_c(M &m, Value *x) {
  Value *a = m.abs(x);
  Value *e = exp_c(m, a);
  Value *r = m.add(m.mul(c(m, 0.5), e), m.div(c(m, 0.5), e));
  return m.sel(m.cmp("gt", a, c(m, 20.0)), half_exp_sq(m, a), r);
}

// fdlibm's three ranges.
Value *asinh_c(M &m, Value *x) {
  Value *a = m.abs(x);
  Value *a2 = m.mul(a, a);
  Value *s = m.sqrt(m.add(a2, c(m, 1.0)));
  Value *small = log1p_c(m, m.add(a, m.div(a2, m.add(c(m, 1.0), s))));
  Value *mid = log_c(m, m.add(m.add(a, a), m.div(c(m, 1.0), m.add(s, a))));
  Value *big = m.add(log_c(m, a), c(m, kLn2));
  Value *r =
      m.sel(m.cmp("gt", a, c(m, 268435456.0)), big, m.sel(m.cmp("gt", a, c(m, 2.0)), mid, small));
  return m.copysign(r, x);
}

Value *acosh_c(M &m, Value *x) {
  Value *t = m.sub(x, c(m, 1.0));
  Value *small = log1p_c(m, m.add(t, m.sqrt(m.add(m.add(t, t), m.mul(t, t)))));
  Value *s = m.sqrt(m.sub(m.mul(x, x), c(m, 1.0)));
  Value *mid = log_c(m, m.sub(m.add(x, x), m.div(c(m, 1.0), m.add(x, s))));
  Value *big = m.add(log_c(m, x), c(m, kLn2));
  Value *r =
      m.sel(m.cmp("gt", x, c(m, 268435456.0)), big, m.sel(m.cmp("gt", x, c(m, 2.0)), mid, small));
  return m.sel(m.cmp("lt", x, c(m, 1.0)), c(m, NAN), r);
}

Value *atanh_c(M &m, Value *x) {
  Value *a = m.abs(x);
  Value *r = m.mul(c(m, 0.5), log1p_c(m, m.div(m.add(a, a), m.sub(c(m, 1.0), a))));
  return m.copysign(r, x);
}

// ---- trigonometric ------------------------------------------------------------------------

Value *sin_c(M &m, Value *x) { return u(m, OpKind::Sin, x); }
Value *cos_c(M &m, Value *x) { return u(m, OpKind::Cos, x); }

// 2/pi in 24-bit pieces: piece k is kTwoOverPi[k-1] 2^(-24k).
constexpr double kTwoOverPi[] = {10680707, 7228996, 1387004, 2578385,  16069853,
                                 12639074, 9804092, 4427841, 16666979, 11263675};

// sin and cos of an fp32 value x (widened) for every |x| up to 2^128: x 2/pi mod 4 from
// exact products with 24-bit pieces of 2/pi (each product reduced mod 4 exactly, summed
// as hi + lo), so x = (j + f) pi/2 with f to ~2^-100; then the fp64 sin/cos of f pi/2.
std::pair<Value *, Value *> sincos_f32(M &m, Value *x) {
  Value *ax = m.abs(x);
  Value *hi = c(m, 0.0), *lo = c(m, 0.0);
  for (int k = 0; k < 10; ++k) {
    Value *p = m.mul(ax, c(m, std::ldexp(kTwoOverPi[k], -24 * (k + 1))));
    Value *t = m.sub(p, m.mul(c(m, 4.0), u(m, OpKind::Floor, m.mul(p, c(m, 0.25)))));
    Value *s = m.add(hi, t); // TwoSum
    Value *bb = m.sub(s, hi);
    lo = m.add(lo, m.add(m.sub(hi, m.sub(s, bb)), m.sub(t, bb)));
    hi = s;
  }
  Value *j = m.rint(hi);
  Value *f = m.add(m.sub(hi, j), lo);
  Value *q = m.sub(j, m.mul(c(m, 4.0), u(m, OpKind::Floor, m.mul(j, c(m, 0.25)))));
  Value *r = m.mul(f, c(m, kPio2));
  Value *sr = sin_c(m, r), *cr = cos_c(m, r);
  Value *q1 = m.cmp("eq", q, c(m, 1.0)), *q2 = m.cmp("eq", q, c(m, 2.0));
  Value *q3 = m.cmp("eq", q, c(m, 3.0));
  Value *sn = m.sel(q1, cr, m.sel(q2, m.neg(sr), m.sel(q3, m.neg(cr), sr)));
  Value *cs = m.sel(q1, m.neg(sr), m.sel(q2, m.neg(cr), m.sel(q3, sr, cr)));
  return {m.sel(m.signbit(x), m.neg(sn), sn), cs};
}

// fp64: x = j pi/2 + r by Cody-Waite with pi/2 in three parts (fma), the quadrant kept in
// fp64 (no 32-bit overflow): a few ulp for |x| up to about 2^20 (then fewer bits of r
// are right near multiples of pi/2; docs/LANGUAGE.md).
std::pair<Value *, Value *> sincos_f64(M &m, Value *x) {
  Value *j = m.rint(m.mul(x, c(m, 0.6366197723675814)));
  Value *r = m.fma(m.neg(j), c(m, kPio2), x);
  r = m.fma(m.neg(j), c(m, kPio2Lo), r);
  r = m.fma(m.neg(j), c(m, -1.4973849048591698e-33), r);
  Value *q = m.sub(j, m.mul(c(m, 4.0), u(m, OpKind::Floor, m.mul(j, c(m, 0.25)))));
  Value *sr = sin_c(m, r), *cr = cos_c(m, r);
  Value *q1 = m.cmp("eq", q, c(m, 1.0)), *q2 = m.cmp("eq", q, c(m, 2.0));
  Value *q3 = m.cmp("eq", q, c(m, 3.0));
  Value *sn = m.sel(q1, cr, m.sel(q2, m.neg(sr), m.sel(q3, m.neg(cr), sr)));
  Value *cs = m.sel(q1, m.neg(sr), m.sel(q2, m.neg(cr), m.sel(q3, sr, cr)));
  return {sn, cs};
}

// sin/cos/tan: the reductions above, then the fp64 ops on |r| <= pi/4.
Value *trig(M &m, Value *x, int which) {
  bool f64 = x->type.elem == DType::F64;
  auto [s, co] = f64 ? sincos_f64(m, x) : sincos_f32(m, m.cast(x, DType::F64));
  if (f64)
    return which == 0 ? s : which == 1 ? co : m.div(s, co);
  return m.cast(which == 0 ? s : which == 1 ? co : m.div(s, co), DType::F32);
}

// atan on [0, 1]: one half-angle step to t <= tan(pi/8), then atan's series to t^47.
Value *atan01(M &m, Value *a) {
  Value *t = m.div(a, m.add(c(m, 1.0), m.sqrt(m.fma(a, a, c(m, 1.0)))));
  Value *z = m.mul(t, t);
  Value *p = c(m, -1.0 / 47.0);
  for (int k = 22; k >= 1; --k)
    p = m.fma(p, z, c(m, (k % 2 ? -1.0 : 1.0) / (2 * k + 1)));
  Value *at = m.fma(m.mul(t, z), p, t);
  return m.add(at, at);
}

Value *pio2_minus(M &m, Value *r) { return m.add(m.sub(c(m, kPio2), r), c(m, kPio2Lo)); }

Value *atan_c(M &m, Value *x) {
  Value *a = m.abs(x);
  Value *inv = m.cmp("gt", a, c(m, 1.0));
  Value *r = atan01(m, m.sel(inv, m.div(c(m, 1.0), a), a));
  return m.copysign(m.sel(inv, pio2_minus(m, r), r), x);
}

Value *atan2_c(M &m, Value *y, Value *x) {
  Value *ay = m.abs(y), *ax = m.abs(x);
  Value *sw = m.cmp("gt", ay, ax);
  Value *r = atan01(m, m.div(m.sel(sw, ax, ay), m.sel(sw, ay, ax)));
  r = m.sel(sw, pio2_minus(m, r), r);
  Value *zeros = m.land(m.cmp("eq", ay, c(m, 0.0)), m.cmp("eq", ax, c(m, 0.0)));
  r = m.sel(zeros, c(m, 0.0), r);
  r = m.sel(m.land(m.is_inf(ay), m.is_inf(ax)), c(m, kPi / 4), r);
  r = m.sel(m.signbit(x), m.add(m.sub(c(m, kPi), r), c(m, kPiLo)), r);
  r = m.sel(m.lor(m.is_nan(x), m.is_nan(y)), m.add(x, y), r);
  return m.copysign(r, y);
}

Value *one_minus_sq_root(M &m, Value *x) {
  return m.sqrt(m.mul(m.sub(c(m, 1.0), x), m.add(c(m, 1.0), x)));
}
Value *asin_c(M &m, Value *x) { return atan2_c(m, x, one_minus_sq_root(m, x)); }
Value *acos_c(M &m, Value *x) { return atan2_c(m, one_minus_sq_root(m, x), x); }

// sin(pi x) / cos(pi x): x = n/2 + r exactly (|r| <= 1/4), pi r as hi + lo.
Value *sincospi_c(M &m, Value *x, bool cosine) {
  Value *n = m.rint(m.add(x, x));
  Value *r = m.sub(x, m.mul(n, c(m, 0.5)));
  Value *q = m.sub(n, m.mul(c(m, 4.0), u(m, OpKind::Floor, m.mul(n, c(m, 0.25)))));
  Value *hi = m.mul(r, c(m, kPi));
  Value *lo = m.fma(r, c(m, kPiLo), m.fma(r, c(m, kPi), m.neg(hi)));
  Value *sh = sin_c(m, hi), *ch = cos_c(m, hi);
  Value *s = m.fma(ch, lo, sh);
  Value *co = m.fma(m.neg(sh), lo, ch);
  Value *q1 = m.cmp("eq", q, c(m, 1.0)), *q2 = m.cmp("eq", q, c(m, 2.0));
  Value *q3 = m.cmp("eq", q, c(m, 3.0));
  Value *v;
  if (!cosine)
    v = m.sel(q1, co, m.sel(q2, m.neg(s), m.sel(q3, m.neg(co), s)));
  else
    v = m.sel(q1, m.neg(s), m.sel(q2, m.neg(co), m.sel(q3, s, co)));
  // Exact zeros: sinpi keeps x's sign, cospi is +0.
  Value *zero = m.cmp("eq", v, c(m, 0.0));
  return m.sel(zero, cosine ? c(m, 0.0) : m.copysign(c(m, 0.0), x), v);
}

Value *cospi_c(M &m, Value *x) { return sincospi_c(m, x, true); }

// ---- roots and norms ----------------------------------------------------------------------

Value *rsqrt_c(M &m, Value *x) { return m.div(c(m, 1.0), m.sqrt(x)); }

// cbrt: 2^(log2|x| / 3), one Newton step.
Value *cbrt_c(M &m, Value *x) {
  Value *a = m.abs(x);
  Value *g = exp2_c(m, m.mul(log2_c(m, a), c(m, 1.0 / 3.0)));
  g = m.add(g, m.mul(m.sub(m.div(a, m.mul(g, g)), g), c(m, 1.0 / 3.0)));
  Value *special = m.lor(m.cmp("eq", a, c(m, 0.0)), m.lor(m.is_inf(a), m.is_nan(a)));
  return m.copysign(m.sel(special, a, g), x);
}
Value *rcbrt_c(M &m, Value *x) { return m.div(c(m, 1.0), cbrt_c(m, x)); }

// sqrt(sum x_i^2): fp32 in fp64 directly; fp64 scaled by the largest |x_i|. An infinite
// argument gives inf even beside a NaN.
Value *norm(M &m, const Xs &xs, bool recip) {
  bool f32 = xs[0]->type.elem == DType::F32;
  Xs a;
  for (Value *v : xs)
    a.push_back(m.abs(f32 ? m.cast(v, DType::F64) : v));
  Value *r;
  if (f32) {
    Value *s = m.mul(a[0], a[0]);
    for (size_t k = 1; k < a.size(); ++k)
      s = m.fma(a[k], a[k], s);
    r = m.sqrt(s);
  } else {
    Value *mx = a[0];
    for (size_t k = 1; k < a.size(); ++k)
      mx = m.sel(m.cmp("gt", a[k], mx), a[k], mx);
    Value *s = c(m, 0.0);
    for (Value *v : a) {
      Value *q = m.div(v, mx);
      s = m.fma(q, q, s);
    }
    r = m.mul(mx, m.sqrt(s));
    r = m.sel(m.cmp("eq", mx, c(m, 0.0)), mx, r);
  }
  Value *nan = m.cmp("ne", a[0], a[0]), *inf = m.is_inf(a[0]);
  for (size_t k = 1; k < a.size(); ++k) {
    nan = m.lor(nan, m.cmp("ne", a[k], a[k]));
    inf = m.lor(inf, m.is_inf(a[k]));
  }
  r = m.sel(nan, c(m, NAN), r);
  r = m.sel(inf, c(m, INFINITY), r);
  if (recip)
    r = m.div(c(m, 1.0), r);
  return f32 ? m.cast(r, DType::F32) : r;
}

// ---- bodies -------------------------------------------------------------------------------

#define TILEC_UNARY(NAME, CORE)                                                                    \
  Value *NAME(M &m, const Xs &x) { return widened(m, x[0], CORE); }
TILEC_UNARY(b_exp2, exp2_c)
TILEC_UNARY(b_exp10, exp10_c)
TILEC_UNARY(b_expm1, expm1_c)
TILEC_UNARY(b_log, log_c)
TILEC_UNARY(b_log2, log2_c)
TILEC_UNARY(b_log10, log10_c)
TILEC_UNARY(b_log1p, log1p_c)
TILEC_UNARY(b_sinh, sinh_c)
TILEC_UNARY(b_cosh, cosh_c)
TILEC_UNARY(b_asinh, asinh_c)
TILEC_UNARY(b_acosh, acosh_c)
TILEC_UNARY(b_atanh, atanh_c)
TILEC_UNARY(b_asin, asin_c)
TILEC_UNARY(b_acos, acos_c)
TILEC_UNARY(b_atan, atan_c)
TILEC_UNARY(b_sinpi, sinpi_f64)
TILEC_UNARY(b_cospi, cospi_c)
TILEC_UNARY(b_rsqrt, rsqrt_c)
TILEC_UNARY(b_cbrt, cbrt_c)
TILEC_UNARY(b_rcbrt, rcbrt_c)
#undef TILEC_UNARY

Value *b_exp(M &m, const Xs &x) {
  return x[0]->type.elem == DType::F32 ? exp_f32(m, x[0]) : exp_c(m, x[0]);
}
Value *b_tanh(M &m, const Xs &x) {
  return x[0]->type.elem == DType::F32 ? tanh_f32(m, x[0]) : tanh_c(m, x[0]);
}

// erf and sqrt have exact or few-ulp fp32 ops of their own.
Value *b_erf(M &m, const Xs &x) { return u(m, OpKind::Erf, x[0]); }
Value *b_sqrt(M &m, const Xs &x) { return m.sqrt(x[0]); }

Value *b_atan2(M &m, const Xs &x) {
  if (x[0]->type.elem == DType::F64)
    return atan2_c(m, x[0], x[1]);
  return m.cast(atan2_c(m, m.cast(x[0], DType::F64), m.cast(x[1], DType::F64)), DType::F32);
}

Value *b_sin(M &m, const Xs &x) { return trig(m, x[0], 0); }
Value *b_cos(M &m, const Xs &x) { return trig(m, x[0], 1); }
Value *b_tan(M &m, const Xs &x) { return trig(m, x[0], 2); }

Value *b_hypot(M &m, const Xs &x) { return norm(m, x, false); }
Value *b_rhypot(M &m, const Xs &x) { return norm(m, x, true); }

// ---- fast_*: Triton's approximate fp32 ops ---------------------------------------------------

Value *b_fast_exp(M &m, const Xs &x) { return u(m, OpKind::Exp, x[0]); }
Value *b_fast_log(M &m, const Xs &x) { return u(m, OpKind::Log, x[0]); }
Value *b_fast_log2(M &m, const Xs &x) { return u(m, OpKind::Log2, x[0]); }
Value *b_fast_log10(M &m, const Xs &x) {
  return m.mul(u(m, OpKind::Log2, x[0]), m.f(DType::F32, 0.3010299956639812));
}
Value *b_fast_exp10(M &m, const Xs &x) {
  return u(m, OpKind::Exp2, m.mul(x[0], m.f(DType::F32, 3.321928094887362)));
}
Value *b_fast_pow(M &m, const Xs &x) {
  return u(m, OpKind::Exp2, m.mul(x[1], u(m, OpKind::Log2, x[0])));
}
Value *b_fast_sin(M &m, const Xs &x) { return u(m, OpKind::Sin, x[0]); }
Value *b_fast_cos(M &m, const Xs &x) { return u(m, OpKind::Cos, x[0]); }
Value *b_fast_tan(M &m, const Xs &x) {
  return m.div(u(m, OpKind::Sin, x[0]), u(m, OpKind::Cos, x[0]));
}
Value *b_fast_div(M &m, const Xs &x) { // div.full.f32, as fp32 `/`
  return emit(m.e, OpKind::Div, {x[0], x[1]}, x[0]->type, m.loc);
}

} // namespace

Value *widened(M &m, Value *x, Core core, const char *f64_why) {
  if (x->type.elem == DType::F32)
    return m.cast(core(m, m.cast(x, DType::F64)), DType::F32);
  if (f64_why)
    unsupported(m, x, f64_why);
  return core(m, x);
}

Value *sinpi_f64(M &m, Value *x) { return sincospi_c(m, x, false); }

void add_float_fns(std::vector<Fn> &t) {
  const char *u = "fp32>fp32 fp64>fp64";
  t.insert(t.end(), {
                        {"exp", u, b_exp},
                        {"exp2", u, b_exp2},
                        {"exp10", u, b_exp10},
                        {"expm1", u, b_expm1},
                        {"log", u, b_log},
                        {"log2", u, b_log2},
                        {"log10", u, b_log10},
                        {"log1p", u, b_log1p},
                        {"sqrt", u, b_sqrt},
                        {"rsqrt", u, b_rsqrt},
                        {"rsqrt_rn", "fp32>fp32", b_rsqrt},
                        {"cbrt", u, b_cbrt},
                        {"rcbrt", u, b_rcbrt},
                        {"hypot", "fp32,fp32>fp32 fp64,fp64>fp64", b_hypot},
                        {"rhypot", "fp32,fp32>fp32 fp64,fp64>fp64", b_rhypot},
                        {"norm3d", "fp32,fp32,fp32>fp32 fp64,fp64,fp64>fp64", b_hypot},
                        {"rnorm3d", "fp32,fp32,fp32>fp32 fp64,fp64,fp64>fp64", b_rhypot},
                        {"norm4d", "fp32,fp32,fp32,fp32>fp32 fp64,fp64,fp64,fp64>fp64", b_hypot},
                        {"rnorm4d", "fp32,fp32,fp32,fp32>fp32 fp64,fp64,fp64,fp64>fp64", b_rhypot},
                        {"tanh", u, b_tanh},
                        {"sinh", u, b_sinh},
                        {"cosh", u, b_cosh},
                        {"asinh", u, b_asinh},
                        {"acosh", u, b_acosh},
                        {"atanh", u, b_atanh},
                        {"sin", u, b_sin},
                        {"cos", u, b_cos},
                        {"tan", u, b_tan},
                        {"asin", u, b_asin},
                        {"acos", u, b_acos},
                        {"atan", u, b_atan},
                        {"atan2", "fp32,fp32>fp32 fp64,fp64>fp64", b_atan2},
                        {"sinpi", u, b_sinpi},
                        {"cospi", u, b_cospi},
                        {"erf", u, b_erf},
                        {"fast_expf", "fp32>fp32", b_fast_exp},
                        {"fast_logf", "fp32>fp32", b_fast_log},
                        {"fast_log2f", "fp32>fp32", b_fast_log2},
                        {"fast_log10f", "fp32>fp32", b_fast_log10},
                        {"fast_exp10f", "fp32>fp32", b_fast_exp10},
                        {"fast_powf", "fp32,fp32>fp32", b_fast_pow},
                        {"fast_sinf", "fp32>fp32", b_fast_sin},
                        {"fast_cosf", "fp32>fp32", b_fast_cos},
                        {"fast_tanf", "fp32>fp32", b_fast_tan},
                        {"fast_dividef", "fp32,fp32>fp32", b_fast_div},
                    });
}

} // namespace tilec::sema::builtins::libdevice
