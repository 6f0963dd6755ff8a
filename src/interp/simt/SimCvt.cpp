// cvt: every integer/float conversion of the PTX ISA, with its rounding and saturation.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "interp/simt/SimFloat.h"
#include "interp/simt/SimInternal.h"
#include "support/FloatFormats.h"

namespace tilec::simt::sim {

namespace {

uint64_t width_mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

// The integer value of `bits` read as integer type t.
__int128 int_value(uint64_t bits, Ty t) {
  int w = ty_bits(t);
  uint64_t v = bits & width_mask(w);
  if (ty_is_signed(t) && w < 64 && (v >> (w - 1) & 1))
    return static_cast<__int128>(static_cast<int64_t>(v | ~width_mask(w)));
  if (ty_is_signed(t))
    return static_cast<int64_t>(v);
  return static_cast<__int128>(v);
}

__int128 int_min(Ty t) {
  int w = ty_bits(t);
  return ty_is_signed(t) ? -(static_cast<__int128>(1) << (w - 1)) : 0;
}
__int128 int_max(Ty t) {
  int w = ty_bits(t);
  return ty_is_signed(t) ? (static_cast<__int128>(1) << (w - 1)) - 1
                         : (static_cast<__int128>(1) << w) - 1;
}

// The register bits of integer value v as type t (8-bit types are extended into the
// 16-bit register: sign for s8, zero for u8/b8).
uint64_t int_bits(__int128 v, Ty t) {
  uint64_t b = static_cast<uint64_t>(v) & width_mask(ty_bits(t));
  if (t == Ty::S8 && (b & 0x80))
    b |= 0xff00;
  return b;
}

double float_in(uint64_t bits, Ty t, bool ftz) {
  double v = float_value(bits, t);
  if (ftz && t == Ty::F32 && v != 0 && std::fabs(v) < FLT_MIN)
    v = std::copysign(0.0, v);
  return v;
}

uint64_t float_to_int(double v, Ty t, Rnd r) {
  if (std::isnan(v))
    return 0;
  switch (r) {
  case Rnd::Rni:
    v = std::nearbyint(v);
    break;
  case Rnd::Rmi:
    v = std::floor(v);
    break;
  case Rnd::Rpi:
    v = std::ceil(v);
    break;
  default:
    v = std::trunc(v);
    break;
  }
  // float -> int saturates in PTX
  long double lv = v;
  if (lv <= static_cast<long double>(int_min(t)))
    return int_bits(int_min(t), t);
  if (lv >= static_cast<long double>(int_max(t)))
    return int_bits(int_max(t), t);
  return int_bits(static_cast<__int128>(v), t);
}

Exact exact_of_int(__int128 v) {
  long double l = static_cast<long double>(v); // exact: 64-bit mantissa on x86-64
  double s = static_cast<double>(l);
  long double rem = l - static_cast<long double>(s);
  return {s, rem > 0 ? 1.0 : rem < 0 ? -1.0 : 0.0};
}

uint8_t fp8_encode(double v, Ty pair, bool satfinite) {
  if (pair == Ty::E4M3x2)
    return tilec::fp8e4nv_from_double(v); // saturating, as .satfinite
  if (satfinite && !std::isnan(v))
    v = std::clamp(v, -57344.0, 57344.0);
  return tilec::fp8e5_from_double(v);
}
double fp8_decode(uint64_t byte, Ty pair) {
  return pair == Ty::E4M3x2 ? tilec::fp8e4nv_to_float(static_cast<uint8_t>(byte))
                            : tilec::fp8e5_to_float(static_cast<uint8_t>(byte));
}

bool is_int_rnd(Rnd r) { return r == Rnd::Rni || r == Rnd::Rzi || r == Rnd::Rmi || r == Rnd::Rpi; }

uint64_t apply_satfinite(uint64_t bits, Ty t) {
  double v = float_value(bits, t);
  if (!std::isinf(v))
    return bits;
  double max = t == Ty::F16 ? 65504.0 : t == Ty::BF16 ? 3.3895313892515355e38 : FLT_MAX;
  return round_to({std::copysign(max, v), 0}, t, Rnd::Rn);
}

uint64_t float_to_float(double v, Ty dst, const Mods &m) {
  Rnd r = m.rnd == Rnd::None ? Rnd::Rn : m.rnd;
  Exact x{v, 0};
  if (is_int_rnd(r)) {
    x.s = r == Rnd::Rni   ? std::nearbyint(v)
          : r == Rnd::Rmi ? std::floor(v)
          : r == Rnd::Rpi ? std::ceil(v)
                          : std::trunc(v);
    r = Rnd::Rn;
  }
  if (m.sat) {
    x.s = std::isnan(x.s) ? 0 : std::clamp(x.s, 0.0, 1.0);
  }
  if (m.relu && !(x.s > 0) && !std::isnan(x.s))
    x.s = 0;
  uint64_t bits = round_to(x, dst, r, m.ftz);
  if (m.satfinite)
    bits = apply_satfinite(bits, dst);
  return bits;
}

} // namespace

uint64_t eval_cvt(const Decoded &d, const uint64_t *src) {
  const Instr &in = *d.in;
  Ty dt = in.ty, st = in.src_ty;
  const Mods &m = in.m;
  // Packed results.
  if (dt == Ty::F16x2 || dt == Ty::BF16x2) {
    Ty h = dt == Ty::F16x2 ? Ty::F16 : Ty::BF16;
    if (st == Ty::E4M3x2 || st == Ty::E5M2x2) {
      uint64_t lo = float_to_float(fp8_decode(src[0] & 0xff, st), h, m);
      uint64_t hi = float_to_float(fp8_decode((src[0] >> 8) & 0xff, st), h, m);
      return lo | hi << 16;
    }
    uint64_t hi = float_to_float(float_in(src[0], st, m.ftz), h, m);
    uint64_t lo = float_to_float(float_in(src[1], st, m.ftz), h, m);
    return lo | hi << 16;
  }
  if (dt == Ty::E4M3x2 || dt == Ty::E5M2x2) {
    double hi, lo;
    if (st == Ty::F16x2 || st == Ty::BF16x2) {
      Ty h = st == Ty::F16x2 ? Ty::F16 : Ty::BF16;
      lo = float_value(src[0] & 0xffff, h);
      hi = float_value((src[0] >> 16) & 0xffff, h);
    } else {
      hi = float_in(src[0], st, m.ftz);
      lo = float_in(src[1], st, m.ftz);
    }
    if (m.relu) {
      hi = hi < 0 ? 0 : hi;
      lo = lo < 0 ? 0 : lo;
    }
    return fp8_encode(lo, dt, m.satfinite) | uint64_t(fp8_encode(hi, dt, m.satfinite)) << 8;
  }
  if (dt == Ty::TF32)
    return bits_from_f32(tilec::round_to_tf32(f32_from_bits(src[0])));
  bool fd = ty_is_float(dt), fs = ty_is_float(st);
  if (!fd && !fs) {
    __int128 v = int_value(src[0], st);
    if (m.sat)
      v = std::clamp(v, int_min(dt), int_max(dt));
    return int_bits(v, dt);
  }
  if (!fd)
    return float_to_int(float_in(src[0], st, m.ftz), dt, m.rnd);
  if (!fs) {
    Rnd r = m.rnd == Rnd::None ? Rnd::Rn : m.rnd;
    Exact x = exact_of_int(int_value(src[0], st));
    if (m.sat)
      x = {std::clamp(x.s, 0.0, 1.0), x.s > 0 && x.s < 1 ? x.e : 0};
    uint64_t bits = round_to(x, dt, r, m.ftz);
    return m.satfinite ? apply_satfinite(bits, dt) : bits;
  }
  return float_to_float(float_in(src[0], st, m.ftz), dt, m);
}

} // namespace tilec::simt::sim
