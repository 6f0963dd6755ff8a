#include "support/FloatFormats.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

namespace tilec {

uint32_t float_bits(const FloatFormat &f, double x, FloatRound r) {
  uint64_t b = std::bit_cast<uint64_t>(x);
  uint32_t sign = static_cast<uint32_t>(b >> 63) << (f.exp + f.man);
  int de = static_cast<int>((b >> 52) & 0x7ff);
  uint64_t dm = b & ((uint64_t(1) << 52) - 1);
  if (de == 0x7ff) {
    if (dm != 0)
      return sign | f.nan();
    return sign | (f.ieee ? f.inf() : f.max_finite());
  }
  if (de == 0) // zero or a double subnormal: far below every target's smallest subnormal
    return sign;
  int e = de - 1023;
  uint64_t sig = (uint64_t(1) << 52) | dm;
  int emin = 1 - f.bias();
  int shift = 52 - f.man + (e < emin ? emin - e : 0);
  uint64_t q = 0;
  if (shift < 64) {
    q = sig >> shift;
    uint64_t rem = sig & ((uint64_t(1) << shift) - 1);
    uint64_t half = uint64_t(1) << (shift - 1);
    if (r == FloatRound::Nearest && (rem > half || (rem == half && (q & 1))))
      ++q;
  }
  uint64_t enc;
  if (e < emin) {
    enc = q; // subnormal; a carry into bit `man` gives the smallest normal, encoded right
  } else {
    if (q >> (f.man + 1)) {
      q >>= 1;
      ++e;
    }
    enc = (static_cast<uint64_t>(e + f.bias()) << f.man) | (q & ((uint64_t(1) << f.man) - 1));
  }
  if (enc > f.max_finite())
    enc = (f.ieee && r == FloatRound::Nearest) ? f.inf() : f.max_finite();
  return sign | static_cast<uint32_t>(enc);
}

double float_value(const FloatFormat &f, uint32_t bits) {
  bool neg = (bits >> (f.exp + f.man)) & 1;
  uint32_t ex = (bits >> f.man) & f.exp_all();
  uint32_t man = bits & ((1u << f.man) - 1);
  double v;
  if (f.ieee && ex == f.exp_all())
    v = man ? std::nan("") : INFINITY;
  else if (!f.ieee && ex == f.exp_all() && man == (1u << f.man) - 1)
    v = std::nan("");
  else if (ex == 0)
    v = std::ldexp(static_cast<double>(man), 1 - f.bias() - f.man);
  else
    v = std::ldexp(static_cast<double>((1u << f.man) | man),
                   static_cast<int>(ex) - f.bias() - f.man);
  return neg ? -v : v;
}

namespace {

template <const FloatFormat &F> std::array<float, 256> make_fp8_table() {
  std::array<float, 256> t{};
  for (uint32_t i = 0; i < 256; ++i)
    t[i] = static_cast<float>(float_value(F, i));
  return t;
}

const std::array<float, 256> kFp8E5Table = make_fp8_table<kFp8E5Format>();
const std::array<float, 256> kFp8E4NVTable = make_fp8_table<kFp8E4NVFormat>();

} // namespace

float fp16_to_float(uint16_t h) {
  uint32_t s = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t e = (h >> 10) & 0x1f;
  uint32_t m = h & 0x3ff;
  uint32_t f;
  if (e == 0x1f) {
    f = s | 0x7f800000u | (m << 13);
  } else if (e == 0) {
    if (m == 0) {
      f = s;
    } else { // subnormal: normalise the mantissa
      int ex = 1;
      while (!(m & 0x400)) {
        m <<= 1;
        --ex;
      }
      f = s | (static_cast<uint32_t>(ex + 112) << 23) | ((m & 0x3ff) << 13);
    }
  } else {
    f = s | ((e + 112) << 23) | (m << 13);
  }
  return std::bit_cast<float>(f);
}

uint16_t fp16_from_double(double x, FloatRound r) {
  return static_cast<uint16_t>(float_bits(kFp16Format, x, r));
}
uint16_t fp16_from_float(float x) {
  return static_cast<uint16_t>(
      float_bits(kFp16Format, static_cast<double>(x), FloatRound::Nearest));
}

float bf16_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}
uint16_t bf16_from_double(double x, FloatRound r) {
  return static_cast<uint16_t>(float_bits(kBf16Format, x, r));
}
uint16_t bf16_from_float(float x) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40); // keep NaN quiet
  u += 0x7fffu + ((u >> 16) & 1);                   // ties to even; may carry into inf
  return static_cast<uint16_t>(u >> 16);
}

float fp8e5_to_float(uint8_t bits) { return kFp8E5Table[bits]; }
uint8_t fp8e5_from_double(double x, FloatRound r) {
  return static_cast<uint8_t>(float_bits(kFp8E5Format, x, r));
}

float fp8e4nv_to_float(uint8_t bits) { return kFp8E4NVTable[bits]; }
uint8_t fp8e4nv_from_double(double x, FloatRound r) {
  return static_cast<uint8_t>(float_bits(kFp8E4NVFormat, x, r));
}

float fp8e4b15_to_float(uint8_t bits) {
  return fp16_to_float(static_cast<uint16_t>(((bits & 0x80u) << 8) | ((bits & 0x7fu) << 7)));
}
uint8_t fp8e4b15_from_fp16(uint16_t h) {
  uint32_t mag = std::min<uint32_t>(h & 0x7fffu, 0x3f00u); // 1.75; inf and NaN are above
  return static_cast<uint8_t>(((h & 0x8000u) | (mag * 2 + 0x80u)) >> 8);
}
uint8_t fp8e4b15_from_double(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x))
    return fp8e4b15_from_fp16(sign | 0x7e00);
  return fp8e4b15_from_fp16(fp16_from_double(x, FloatRound::TowardZero));
}

float float_from_double(double x, FloatRound r) {
  if (r == FloatRound::Nearest)
    return static_cast<float>(x);
  return std::bit_cast<float>(float_bits(kFp32Format, x, r));
}

float round_to_tf32(float x) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  if ((u & 0x7f800000u) == 0x7f800000u)
    return x;
  u = (u + 0x1000u) & 0xffffe000u; // add half an ulp of tf32 to the magnitude, then cut
  return std::bit_cast<float>(u);
}

} // namespace tilec
