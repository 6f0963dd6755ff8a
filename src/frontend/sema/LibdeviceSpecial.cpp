// libdevice's error and gamma functions: erfc, erfcx, normcdf, erfinv, erfcinv,
// normcdfinv, lgamma, tgamma, each an fp64 formula (see LibdeviceFloat.cpp for the
// accuracy rule); their fp64 forms are an error where the formula loses accuracy.
#include <cmath>

#include "frontend/sema/Libdevice.h"

namespace tilec::sema::builtins::libdevice {

namespace {

constexpr double kPi = 3.141592653589793;
constexpr double kInvSqrtPi = 0.5641895835477563;
constexpr double kInvSqrt2 = 0.7071067811865476;

Value *exp_c(M &m, Value *x) { return m.op(OpKind::Exp, x); }
Value *log_c(M &m, Value *x) { return m.op(OpKind::Log, x); }

Value *erf_c(M &m, Value *x) { return m.op(OpKind::Erf, x); }

// erfc: 1 - erf for x < 2 (fp32 needs no more), else e^(-x^2) / (sqrt(pi) K(x)) with
// the continued fraction K = x + (1/2)/(x + 1/(x + (3/2)/(x + ...))) to 60 levels; x^2
// as hi + lo keeps e^(-x^2) accurate.
Value *erfc_c(M &m, Value *x) {
  Value *xc = m.op(OpKind::Max, x, c(m, 2.0));
  Value *k = xc;
  for (int j = 60; j >= 1; --j)
    k = m.add(xc, m.div(c(m, j * 0.5), k));
  Value *hi = m.mul(xc, xc);
  Value *lo = m.fma(xc, xc, m.neg(hi));
  Value *e = exp_c(m, m.neg(hi));
  e = m.fma(e, m.neg(lo), e);
  Value *tail = m.div(m.mul(e, c(m, kInvSqrtPi)), k);
  Value *r = m.sel(m.cmp("lt", x, c(m, 2.0)), m.sub(c(m, 1.0), erf_c(m, x)), tail);
  return m.sel(m.is_nan(x), x, m.sel(m.cmp("eq", x, c(m, INFINITY)), c(m, 0.0), r));
}

Value *normcdf_c(M &m, Value *x) { return m.mul(c(m, 0.5), erfc_c(m, m.mul(x, c(m, -kInvSqrt2)))); }

// erfinv: Giles' single-precision approximation ("Approximating the erfinv function",
// GPU Computing Gems, 2011), then three Newton steps on erf in fp64.
Value *erfinv_c(M &m, Value *x) {
  Value *w = m.neg(log_c(m, m.mul(m.sub(c(m, 1.0), x), m.add(c(m, 1.0), x))));
  auto horner = [&](Value *t, std::initializer_list<double> cs) {
    Value *p = nullptr;
    for (double v : cs)
      p = p ? m.fma(p, t, c(m, v)) : c(m, v);
    return p;
  };
  Value *t1 = m.sub(w, c(m, 2.5));
  Value *p1 = horner(t1, {2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                          0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941});
  Value *t2 = m.sub(m.sqrt(w), c(m, 3.0));
  Value *p2 = horner(t2, {-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                          0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682});
  Value *y = m.mul(m.sel(m.cmp("lt", w, c(m, 5.0)), p1, p2), x);
  for (int k = 0; k < 3; ++k) {
    Value *d = m.mul(c(m, 2.0 * kInvSqrtPi), exp_c(m, m.neg(m.mul(y, y))));
    y = m.sub(y, m.div(m.sub(erf_c(m, y), x), d));
  }
  Value *ax = m.abs(x);
  y = m.sel(m.cmp("eq", ax, c(m, 1.0)), m.copysign(c(m, INFINITY), x), y);
  y = m.sel(m.cmp("gt", ax, c(m, 1.0)), c(m, NAN), y);
  return m.sel(m.cmp("eq", x, c(m, 0.0)), x, y);
}

// erfcinv(y): the start is erfinv's for 1 - y, or for tiny y (where erfc(z) ~
// e^(-z^2) / (z sqrt(pi))) z = sqrt(L - log(sqrt(L pi))), L = -log y; then Newton steps on
// log(erfc(z)) - log(y), which stay well-behaved far into the tail.
Value *erfcinv_c(M &m, Value *y) {
  Value *L = m.neg(log_c(m, y));
  Value *z0 = m.sqrt(L);
  Value *tail = m.sqrt(m.sub(L, log_c(m, m.mul(z0, c(m, 1.7724538509055159)))));
  Value *z = m.sel(m.cmp("lt", y, c(m, 1e-7)), tail, erfinv_c(m, m.sub(c(m, 1.0), y)));
  z = m.sel(m.lor(m.is_inf(z), m.is_nan(z)), c(m, 0.0), z);
  Value *ly = log_c(m, y);
  for (int k = 0; k < 4; ++k) {
    Value *ec = erfc_c(m, z);
    Value *d = m.div(m.mul(c(m, -2.0 * kInvSqrtPi), exp_c(m, m.neg(m.mul(z, z)))), ec);
    z = m.sub(z, m.div(m.sub(log_c(m, ec), ly), d));
  }
  z = m.sel(m.cmp("eq", y, c(m, 0.0)), c(m, INFINITY), z);
  z = m.sel(m.cmp("eq", y, c(m, 2.0)), c(m, -INFINITY), z);
  z = m.sel(m.cmp("eq", y, c(m, 1.0)), c(m, 0.0), z);
  Value *bad = m.lor(m.lor(m.cmp("lt", y, c(m, 0.0)), m.cmp("gt", y, c(m, 2.0))), m.is_nan(y));
  return m.sel(bad, c(m, NAN), z);
}

Value *normcdfinv_c(M &m, Value *p) {
  return m.mul(c(m, -1.4142135623730951), erfcinv_c(m, m.add(p, p)));
}

// erfcx(x) = e^(x^2) erfc(x): the continued fraction alone for x >= 2 (no exp), else
// e^(x^2) (1 - erf(x)).
Value *erfcx_c(M &m, Value *x) {
  Value *xc = m.op(OpKind::Max, x, c(m, 2.0));
  Value *k = xc;
  for (int j = 60; j >= 1; --j)
    k = m.add(xc, m.div(c(m, j * 0.5), k));
  Value *tail = m.div(c(m, kInvSqrtPi), k);
  Value *head = m.mul(exp_c(m, m.mul(x, x)), m.sub(c(m, 1.0), erf_c(m, x)));
  Value *r = m.sel(m.cmp("lt", x, c(m, 2.0)), head, tail);
  r = m.sel(m.cmp("eq", x, c(m, INFINITY)), c(m, 0.0), r);
  return m.sel(m.is_nan(x), x, r);
}

// Gamma by Lanczos' approximation (g = 7, 9 terms: about 1e-15 relative in fp64) for
// x >= 1/2, the reflection formula below; logs kept apart so lgamma never overflows.
// Returns log|Gamma(x)| (and Gamma(x) itself through `gamma`).
constexpr double kLanczos[] = {0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
                               771.32342877765313,   -176.61502916214059,   12.507343278686905,
                               -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};

// For z >= 1/2: log Gamma(z) = (z - 1/2) log t - t + log(sqrt(2 pi) A), t = z + 6.5.
Value *lanczos_log(M &m, Value *z) {
  Value *zm1 = m.sub(z, c(m, 1.0));
  Value *a = c(m, kLanczos[0]);
  for (int i = 1; i < 9; ++i)
    a = m.add(a, m.div(c(m, kLanczos[i]), m.add(zm1, c(m, i))));
  Value *t = m.add(zm1, c(m, 7.5));
  Value *lt = m.sub(m.mul(m.add(zm1, c(m, 0.5)), log_c(m, t)), t);
  return m.add(lt, log_c(m, m.mul(a, c(m, 2.5066282746310002))));
}

Value *lgamma_c(M &m, Value *x) {
  Value *refl = m.cmp("lt", x, c(m, 0.5));
  Value *z = m.sel(refl, m.sub(c(m, 1.0), x), x);
  Value *lg = lanczos_log(m, z);
  // x < 1/2: log(pi / |sin(pi x)|) - log Gamma(1 - x)
  Value *sp = m.abs(sinpi_f64(m, x));
  Value *r = m.sel(refl, m.sub(log_c(m, m.div(c(m, kPi), sp)), lg), lg);
  Value *one_two = m.lor(m.cmp("eq", x, c(m, 1.0)), m.cmp("eq", x, c(m, 2.0)));
  r = m.sel(one_two, c(m, 0.0), r);
  Value *pole = m.land(m.cmp("le", x, c(m, 0.0)), m.cmp("eq", x, m.op(OpKind::Floor, x)));
  r = m.sel(m.lor(pole, m.is_inf(x)), c(m, INFINITY), r);
  return m.sel(m.is_nan(x), x, r);
}

Value *tgamma_c(M &m, Value *x) {
  Value *refl = m.cmp("lt", x, c(m, 0.5));
  Value *z = m.sel(refl, m.sub(c(m, 1.0), x), x);
  Value *g = exp_c(m, lanczos_log(m, z));
  Value *r = m.sel(refl, m.div(c(m, kPi), m.mul(sinpi_f64(m, x), g)), g);
  Value *negint = m.land(m.cmp("lt", x, c(m, 0.0)), m.cmp("eq", x, m.op(OpKind::Floor, x)));
  r = m.sel(m.lor(negint, m.cmp("eq", x, c(m, -INFINITY))), c(m, NAN), r);
  r = m.sel(m.cmp("eq", x, c(m, 0.0)), m.copysign(c(m, INFINITY), x), r);
  r = m.sel(m.cmp("eq", x, c(m, INFINITY)), x, r);
  return m.sel(m.is_nan(x), x, r);
}

const char *kF64Erfc = "tilec's fp64 erfc is not accurate to a few ulp for 0.5 < x < 2";
const char *kF64Inv = "tilec's fp64 inverse error functions are not accurate to a few ulp";
const char *kF64Gamma = "tilec's fp64 gamma functions are not accurate to a few ulp";

Value *b_erfc(M &m, const Xs &x) { return widened(m, x[0], erfc_c, kF64Erfc); }
Value *b_normcdf(M &m, const Xs &x) { return widened(m, x[0], normcdf_c, kF64Erfc); }
Value *b_erfinv(M &m, const Xs &x) { return widened(m, x[0], erfinv_c, kF64Inv); }
Value *b_erfcx(M &m, const Xs &x) { return widened(m, x[0], erfcx_c, kF64Erfc); }
Value *b_lgamma(M &m, const Xs &x) { return widened(m, x[0], lgamma_c, kF64Gamma); }
Value *b_tgamma(M &m, const Xs &x) { return widened(m, x[0], tgamma_c, kF64Gamma); }
Value *b_erfcinv(M &m, const Xs &x) { return widened(m, x[0], erfcinv_c, kF64Inv); }
Value *b_normcdfinv(M &m, const Xs &x) { return widened(m, x[0], normcdfinv_c, kF64Inv); }

} // namespace

void add_special_fns(std::vector<Fn> &t) {
  const char *u = "fp32>fp32 fp64>fp64";
  t.insert(t.end(), {
                        {"erfc", u, b_erfc},
                        {"normcdf", u, b_normcdf},
                        {"erfinv", u, b_erfinv},
                        {"erfcinv", u, b_erfcinv},
                        {"erfcx", u, b_erfcx},
                        {"lgamma", u, b_lgamma},
                        {"tgamma", u, b_tgamma},
                        {"normcdfinv", u, b_normcdfinv},
                    });
}

} // namespace tilec::sema::builtins::libdevice
