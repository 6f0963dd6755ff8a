#include "interp/simt/SimFloat.h"

#include <cfloat>
#include <cmath>
#include <cstring>

#include "support/FloatFormats.h"

namespace tilec::simt::sim {

float f32_from_bits(uint64_t b) {
  uint32_t v = static_cast<uint32_t>(b);
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}
double f64_from_bits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
uint64_t bits_from_f32(float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  return v;
}
uint64_t bits_from_f64(double d) {
  uint64_t v;
  std::memcpy(&v, &d, 8);
  return v;
}
float flush_f32(float f) { return (f != 0 && std::fabs(f) < FLT_MIN) ? std::copysign(0.0f, f) : f; }

namespace {
double sign_of(double r) { return r > 0 ? 1 : r < 0 ? -1 : 0; }
} // namespace

Exact exact_add(double a, double b) {
  double s = a + b;
  if (!std::isfinite(s))
    return {s, 0};
  double bb = s - a;
  double e = (a - (s - bb)) + (b - bb);
  return {s, sign_of(e)};
}
Exact exact_mul(double a, double b) {
  double s = a * b;
  if (!std::isfinite(s))
    return {s, 0};
  return {s, sign_of(std::fma(a, b, -s))};
}
Exact exact_div(double a, double b) {
  double s = a / b;
  if (s == 0 && a != 0 && std::isfinite(b)) // underflow: only the sign survives
    return {s, (a > 0) == (b > 0) ? 1.0 : -1.0};
  if (!std::isfinite(s) || s == 0)
    return {s, 0};
  double r = std::fma(-s, b, a);
  return {s, sign_of(r) * sign_of(b)};
}
Exact exact_sqrt(double a) {
  double s = std::sqrt(a);
  if (!std::isfinite(s) || s == 0)
    return {s, 0};
  return {s, sign_of(std::fma(-s, s, a))};
}
Exact exact_fma(double a, double b, double c) {
  // a*b is exact in double for f32 operands; the sum then has an exact remainder.
  double p = a * b;
  double pe = std::isfinite(p) ? std::fma(a, b, -p) : 0; // a*b = p + pe exactly
  if (pe == 0)
    return exact_add(p, c);
  // f64 operands: std::fma rounds a*b + c once. The remainder a*b + c - s is
  // (s1 - s) + e1 + pe with p + c = s1 + e1 exactly (two-sum); s1 - s is exact.
  double s = std::fma(a, b, c);
  if (!std::isfinite(s))
    return {s, 0};
  double s1 = p + c, bb = s1 - p;
  double e1 = (p - (s1 - bb)) + (c - bb);
  return {s, sign_of((s1 - s) + (e1 + pe))};
}

uint32_t round_f32(Exact x, Rnd r, bool ftz) {
  double s = x.s;
  if (std::isnan(s))
    return kNaN32;
  float f = static_cast<float>(s);
  float out = f;
  if (static_cast<double>(f) == s) {
    if (x.e > 0 && (r == Rnd::Rp || (r == Rnd::Rz && f < 0)))
      out = std::nextafterf(f, INFINITY);
    else if (x.e < 0 && (r == Rnd::Rm || (r == Rnd::Rz && f > 0)))
      out = std::nextafterf(f, -INFINITY);
    // overflowing past +-inf is impossible: f finite and s + e represents a finite value
    if (std::isinf(out) && !std::isinf(f))
      out = f;
  } else {
    float lo = f < s ? f : std::nextafterf(f, -INFINITY);
    float hi = f < s ? std::nextafterf(f, INFINITY) : f;
    switch (r) {
    case Rnd::Rz:
      out = s > 0 ? lo : hi;
      break;
    case Rnd::Rm:
      out = lo;
      break;
    case Rnd::Rp:
      out = hi;
      break;
    default:
      // f is RN(s); s = RN(x) could only mislead at an exact midpoint of lo and hi.
      if (!std::isinf(lo) && !std::isinf(hi) &&
          static_cast<double>(lo) + static_cast<double>(hi) == 2 * s && x.e != 0)
        out = x.e > 0 ? hi : lo;
      break;
    }
  }
  if (ftz)
    out = flush_f32(out);
  return static_cast<uint32_t>(bits_from_f32(out));
}

uint64_t round_f64(Exact x, Rnd r) {
  double s = x.s;
  if (std::isnan(s))
    return kNaN64;
  if (x.e > 0 && (r == Rnd::Rp || (r == Rnd::Rz && s < 0)))
    s = std::nextafter(s, INFINITY);
  else if (x.e < 0 && (r == Rnd::Rm || (r == Rnd::Rz && s > 0)))
    s = std::nextafter(s, -INFINITY);
  if (std::isinf(s) && std::isfinite(x.s))
    s = x.s;
  return bits_from_f64(s);
}

namespace {
// Directed rounding of small formats: round toward zero, then step one code away from
// zero when the direction asks for it and the value was not exact (codes are monotone
// in magnitude, so +1 is the next larger magnitude, up to inf).
template <typename Enc, typename Dec> uint16_t round_small(Exact x, Rnd r, Enc enc, Dec dec) {
  double s = x.s;
  if (std::isnan(s))
    return kNaN16;
  if (r == Rnd::None || r == Rnd::Rn)
    return enc(s, FloatRound::Nearest);
  bool neg = s == 0 ? x.e < 0 : std::signbit(s);
  bool away = (r == Rnd::Rp && !neg) || (r == Rnd::Rm && neg);
  if (s == 0) {
    if (x.e == 0)
      return enc(s, FloatRound::Nearest);
    return static_cast<uint16_t>((neg ? 0x8000 : 0) | (away ? 1 : 0));
  }
  uint16_t z = enc(s, FloatRound::TowardZero);
  bool smaller = x.e != 0 && ((x.e < 0) != neg); // |true value| < |s|
  if (dec(z) == s) {
    if (!away && smaller)
      return (z & 0x7fff) ? static_cast<uint16_t>(z - 1) : z;
    if (away && x.e != 0 && !smaller)
      return static_cast<uint16_t>(z + 1);
    return z;
  }
  return away ? static_cast<uint16_t>(z + 1) : z;
}
} // namespace

uint16_t round_f16(Exact x, Rnd r) {
  return round_small(
      x, r, [](double v, FloatRound m) { return tilec::fp16_from_double(v, m); },
      [](uint16_t b) { return static_cast<double>(tilec::fp16_to_float(b)); });
}
uint16_t round_bf16(Exact x, Rnd r) {
  return round_small(
      x, r, [](double v, FloatRound m) { return tilec::bf16_from_double(v, m); },
      [](uint16_t b) { return static_cast<double>(tilec::bf16_to_float(b)); });
}

double float_value(uint64_t bits, Ty t) {
  switch (t) {
  case Ty::F16:
    return tilec::fp16_to_float(static_cast<uint16_t>(bits));
  case Ty::BF16:
    return tilec::bf16_to_float(static_cast<uint16_t>(bits));
  case Ty::F32:
  case Ty::TF32:
    return f32_from_bits(bits);
  case Ty::F64:
    return f64_from_bits(bits);
  default:
    return 0;
  }
}

uint64_t round_to(Exact x, Ty t, Rnd r, bool ftz) {
  switch (t) {
  case Ty::F16:
    return round_f16(x, r);
  case Ty::BF16:
    return round_bf16(x, r);
  case Ty::F32:
    return round_f32(x, r, ftz);
  case Ty::F64:
    return round_f64(x, r);
  default:
    return 0;
  }
}

} // namespace tilec::simt::sim
