// libdevice's Bessel functions j0, j1, y0, y1, cyl_bessel_i0, cyl_bessel_i1 (what
// torch.special's bessel_j0 ... i1 become under Inductor), in fp64 and rounded once for
// fp32 as the other transcendental functions are (LibdeviceFloat.cpp).
// |x| below a switch point: the power series (fp64 keeps ~1e-12 absolute where the
// alternating J/Y series cancel most, at the switch); above it: Hankel's asymptotic
// expansions, whose terms keep shrinking far past the ones summed there.
#include <cmath>

#include "frontend/sema/Libdevice.h"

namespace tilec::sema::builtins::libdevice {

namespace {

constexpr double kPi = 3.141592653589793;
constexpr double kEulerGamma = 0.5772156649015329;
constexpr double kInvSqrt2 = 0.7071067811865476;
constexpr double kSwitchJY = 12.0; // series below, asymptotic expansion above
constexpr double kSwitchI = 20.0;
constexpr int kSeriesTerms = 60;
constexpr int kAsymptoticTerms = 24;

// sum_k s^k q^k / (k! (k + nu)!) * (harmonic weights h_k when given), q = x^2 / 4:
// the power series shared by J, Y and I (s = -1 for J and Y, +1 for I). `h` returns the
// weight of term k (1 for J and I; the digamma sums of Y's series).
template <class H> Value *series(M &m, Value *q, int nu, double s, H h) {
  double fact = 1.0; // nu!
  for (int j = 2; j <= nu; ++j)
    fact *= j;
  Value *term = c(m, 1.0 / fact); // k = 0
  Value *sum = m.mul(term, c(m, h(0)));
  for (int k = 1; k < kSeriesTerms; ++k) {
    term = m.mul(term, m.mul(q, c(m, s / (double(k) * double(k + nu)))));
    sum = m.add(sum, m.mul(term, c(m, h(k))));
  }
  return sum;
}

double one(int) { return 1.0; }

// Hankel's expansions: a_k = prod_{j<=k} (mu - (2j-1)^2) / (k! (8x)^k), mu = 4 nu^2.
// P = a_0 - a_2 + a_4 ..., Q = a_1 - a_3 + ... (J and Y); S = sum (-1)^k a_k (I).
struct Hankel {
  Value *p, *q, *s;
};

Hankel hankel(M &m, Value *x, int nu) {
  double mu = 4.0 * nu * nu;
  Value *inv8x = m.div(c(m, 1.0), m.mul(c(m, 8.0), x));
  Value *a = c(m, 1.0);
  Hankel h{a, c(m, 0.0), a};
  for (int k = 1; k < kAsymptoticTerms; ++k) {
    double odd = 2.0 * k - 1.0;
    a = m.mul(a, m.mul(inv8x, c(m, (mu - odd * odd) / k)));
    h.s = (k % 2) ? m.sub(h.s, a) : m.add(h.s, a);
    if (k % 2)
      h.q = (k % 4 == 1) ? m.add(h.q, a) : m.sub(h.q, a);
    else
      h.p = (k % 4 == 0) ? m.add(h.p, a) : m.sub(h.p, a);
  }
  return h;
}

// sqrt(2 / (pi x)) (P cos chi - Q sin chi) for J, (P sin chi + Q cos chi) for Y, with
// chi = x - (nu/2 + 1/4) pi written through sin x and cos x (no large x - const rounding).
Value *hankel_jy(M &m, Value *x, int nu, bool y) {
  Hankel h = hankel(m, x, nu);
  Value *sx = m.op(OpKind::Sin, x), *cx = m.op(OpKind::Cos, x);
  Value *cos_chi, *sin_chi;
  if (nu == 0) {
    cos_chi = m.mul(m.add(cx, sx), c(m, kInvSqrt2));
    sin_chi = m.mul(m.sub(sx, cx), c(m, kInvSqrt2));
  } else {
    cos_chi = m.mul(m.sub(sx, cx), c(m, kInvSqrt2));
    sin_chi = m.mul(m.neg(m.add(sx, cx)), c(m, kInvSqrt2));
  }
  Value *amp = m.sqrt(m.div(c(m, 2.0 / kPi), x));
  Value *v = y ? m.add(m.mul(h.p, sin_chi), m.mul(h.q, cos_chi))
               : m.sub(m.mul(h.p, cos_chi), m.mul(h.q, sin_chi));
  return m.mul(amp, v);
}

// J_nu(x) for x >= 0 (nu = 0, 1).
Value *j_pos(M &m, Value *ax, int nu) {
  Value *small = m.op(OpKind::Min, ax, c(m, kSwitchJY));
  Value *q = m.mul(m.mul(small, small), c(m, 0.25));
  Value *s = series(m, q, nu, -1.0, one);
  if (nu == 1)
    s = m.mul(s, m.mul(small, c(m, 0.5)));
  Value *big = m.op(OpKind::Max, ax, c(m, kSwitchJY));
  Value *r = m.sel(m.cmp("lt", ax, c(m, kSwitchJY)), s, hankel_jy(m, big, nu, false));
  return m.sel(m.is_inf(ax), c(m, 0.0), r);
}

Value *j0_c(M &m, Value *x) {
  Value *r = j_pos(m, m.abs(x), 0);
  return m.sel(m.is_nan(x), x, r);
}

Value *j1_c(M &m, Value *x) { // odd
  Value *r = j_pos(m, m.abs(x), 1);
  r = m.sel(m.cmp("lt", x, c(m, 0.0)), m.neg(r), r);
  return m.sel(m.is_nan(x), x, r);
}

// Y_0 = (2/pi) (log(x/2) + gamma) J_0 + (2/pi) sum_{k>=1} (-1)^(k+1) H_k q^k / (k!)^2;
// Y_1 = (2/pi) log(x/2) J_1 - 2 / (pi x)
//       - (1/pi) (x/2) sum_k (-1)^k (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!),
// psi(n+1) = H_n - gamma. NaN below 0, -inf at 0.
Value *y_c(M &m, Value *x, int nu) {
  Value *small = m.op(OpKind::Min, m.op(OpKind::Max, x, c(m, 1e-300)), c(m, kSwitchJY));
  Value *q = m.mul(m.mul(small, small), c(m, 0.25));
  Value *lg = m.op(OpKind::Log, m.mul(small, c(m, 0.5)));
  Value *s;
  if (nu == 0) {
    Value *harm = series(m, q, 0, -1.0, [](int k) {
      double hk = 0;
      for (int j = 1; j <= k; ++j)
        hk += 1.0 / j;
      return -hk; // (-1)^(k+1) H_k = -(-1)^k H_k
    });
    Value *j0 = series(m, q, 0, -1.0, one);
    s = m.mul(c(m, 2.0 / kPi), m.add(m.mul(m.add(lg, c(m, kEulerGamma)), j0), harm));
  } else {
    Value *half = m.mul(small, c(m, 0.5));
    Value *psi = series(m, q, 1, -1.0, [](int k) {
      double hk = 0, hk1 = 0;
      for (int j = 1; j <= k; ++j)
        hk += 1.0 / j;
      hk1 = hk + 1.0 / (k + 1);
      return hk + hk1 - 2 * kEulerGamma;
    });
    Value *j1 = m.mul(series(m, q, 1, -1.0, one), half);
    s = m.sub(m.mul(c(m, 2.0 / kPi), m.mul(lg, j1)), m.div(c(m, 2.0 / kPi), small));
    s = m.sub(s, m.mul(c(m, 1.0 / kPi), m.mul(half, psi)));
  }
  Value *big = m.op(OpKind::Max, x, c(m, kSwitchJY));
  Value *r = m.sel(m.cmp("lt", x, c(m, kSwitchJY)), s, hankel_jy(m, big, nu, true));
  r = m.sel(m.cmp("eq", x, c(m, INFINITY)), c(m, 0.0), r);
  r = m.sel(m.cmp("eq", x, c(m, 0.0)), c(m, -INFINITY), r);
  return m.sel(m.lor(m.cmp("lt", x, c(m, 0.0)), m.is_nan(x)), c(m, NAN), r);
}

Value *y0_c(M &m, Value *x) { return y_c(m, x, 0); }
Value *y1_c(M &m, Value *x) { return y_c(m, x, 1); }

// I_nu(|x|): the series (all terms positive) below kSwitchI, else
// e^x / sqrt(2 pi x) S, computed as e^(x/2) (e^(x/2) S / sqrt(2 pi x)) so it overflows
// only where the value does.
Value *i_pos(M &m, Value *ax, int nu) {
  Value *small = m.op(OpKind::Min, ax, c(m, kSwitchI));
  Value *q = m.mul(m.mul(small, small), c(m, 0.25));
  Value *s = series(m, q, nu, 1.0, one);
  if (nu == 1)
    s = m.mul(s, m.mul(small, c(m, 0.5)));
  Value *big = m.op(OpKind::Max, ax, c(m, kSwitchI));
  Value *e = m.op(OpKind::Exp, m.mul(big, c(m, 0.5)));
  Value *a = m.mul(e, m.div(hankel(m, big, nu).s, m.sqrt(m.mul(big, c(m, 2.0 * kPi)))));
  Value *r = m.sel(m.cmp("lt", ax, c(m, kSwitchI)), s, m.mul(e, a));
  return m.sel(m.is_inf(ax), c(m, INFINITY), r);
}

Value *i0_c(M &m, Value *x) {
  Value *r = i_pos(m, m.abs(x), 0);
  return m.sel(m.is_nan(x), x, r);
}

Value *i1_c(M &m, Value *x) { // odd (I1 >= 0 on x >= 0)
  Value *r = m.copysign(i_pos(m, m.abs(x), 1), x);
  return m.sel(m.is_nan(x), x, r);
}

template <Core core> Value *body(M &m, const Xs &x) { return widened(m, x[0], core); }

} // namespace

void add_bessel_fns(std::vector<Fn> &t) {
  const char *u = "fp32>fp32 fp64>fp64";
  t.insert(t.end(), {
                        {"j0", u, body<j0_c>},
                        {"j1", u, body<j1_c>},
                        {"y0", u, body<y0_c>},
                        {"y1", u, body<y1_c>},
                        {"cyl_bessel_i0", u, body<i0_c>},
                        {"cyl_bessel_i1", u, body<i1_c>},
                    });
}

} // namespace tilec::sema::builtins::libdevice
