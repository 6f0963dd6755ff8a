#include "interp/tile/FloatFormats.h"

#include <array>
#include <bit>
#include <cmath>

namespace tilec::interp {

namespace {

// A binary float format with E exponent bits and M mantissa bits. `ieee`: the all-ones
// exponent encodes inf/NaN; otherwise (e4m3fn) only all-ones exponent and mantissa is NaN.
struct Format {
  int e, m;
  bool ieee;
  uint32_t exp_all() const { return (1u << e) - 1; }
  int bias() const { return (1 << (e - 1)) - 1; }
  uint32_t max_finite() const {
    return ieee ? ((exp_all() - 1) << m) | ((1u << m) - 1) : (exp_all() << m) | ((1u << m) - 2);
  }
  uint32_t nan() const { return ieee ? (exp_all() << m) | (1u << (m - 1)) : (1u << (e + m)) - 1; }
  uint32_t inf() const { return exp_all() << m; }
};

constexpr Format kF16{5, 10, true};
constexpr Format kBF16{8, 7, true};
constexpr Format kF32{8, 23, true};
constexpr Format kF8E5{5, 2, true};
constexpr Format kF8E4NV{4, 3, false};

uint32_t encode(const Format &f, double x, Round r) {
  uint64_t b = std::bit_cast<uint64_t>(x);
  uint32_t sign = static_cast<uint32_t>(b >> 63) << (f.e + f.m);
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
  int shift = 52 - f.m + (e < emin ? emin - e : 0);
  uint64_t q = 0;
  if (shift < 64) {
    q = sig >> shift;
    uint64_t rem = sig & ((uint64_t(1) << shift) - 1);
    uint64_t half = uint64_t(1) << (shift - 1);
    if (r == Round::Nearest && (rem > half || (rem == half && (q & 1))))
      ++q;
  }
  uint64_t enc;
  if (e < emin) {
    enc = q; // subnormal; a carry into bit m yields the smallest normal, correctly encoded
  } else {
    if (q >> (f.m + 1)) {
      q >>= 1;
      ++e;
    }
    enc = (static_cast<uint64_t>(e + f.bias()) << f.m) | (q & ((uint64_t(1) << f.m) - 1));
  }
  if (enc > f.max_finite())
    enc = (f.ieee && r == Round::Nearest) ? f.inf() : f.max_finite();
  return sign | static_cast<uint32_t>(enc);
}

double decode(const Format &f, uint32_t bits) {
  bool neg = (bits >> (f.e + f.m)) & 1;
  uint32_t ex = (bits >> f.m) & f.exp_all();
  uint32_t man = bits & ((1u << f.m) - 1);
  double v;
  if (f.ieee && ex == f.exp_all())
    v = man ? std::nan("") : INFINITY;
  else if (!f.ieee && ex == f.exp_all() && man == (1u << f.m) - 1)
    v = std::nan("");
  else if (ex == 0)
    v = std::ldexp(static_cast<double>(man), 1 - f.bias() - f.m);
  else
    v = std::ldexp(static_cast<double>((1u << f.m) | man), static_cast<int>(ex) - f.bias() - f.m);
  return neg ? -v : v;
}

template <const Format &F> std::array<float, 256> make_fp8_table() {
  std::array<float, 256> t{};
  for (uint32_t i = 0; i < 256; ++i)
    t[i] = static_cast<float>(decode(F, i));
  return t;
}

const std::array<float, 256> kF8E5Table = make_fp8_table<kF8E5>();
const std::array<float, 256> kF8E4NVTable = make_fp8_table<kF8E4NV>();

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

uint16_t fp16_from_double(double x, Round r) { return static_cast<uint16_t>(encode(kF16, x, r)); }
uint16_t fp16_from_float(float x) {
  return static_cast<uint16_t>(encode(kF16, static_cast<double>(x), Round::Nearest));
}

float bf16_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}
uint16_t bf16_from_double(double x, Round r) { return static_cast<uint16_t>(encode(kBF16, x, r)); }
uint16_t bf16_from_float(float x) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40); // keep NaN quiet
  u += 0x7fffu + ((u >> 16) & 1);                   // ties to even; may carry into inf
  return static_cast<uint16_t>(u >> 16);
}

float fp8e5_to_float(uint8_t bits) { return kF8E5Table[bits]; }
uint8_t fp8e5_from_double(double x, Round r) { return static_cast<uint8_t>(encode(kF8E5, x, r)); }

float fp8e4nv_to_float(uint8_t bits) { return kF8E4NVTable[bits]; }
uint8_t fp8e4nv_from_double(double x, Round r) {
  return static_cast<uint8_t>(encode(kF8E4NV, x, r));
}

float float_from_double(double x, Round r) {
  if (r == Round::Nearest)
    return static_cast<float>(x);
  return std::bit_cast<float>(encode(kF32, x, r));
}

float round_to_tf32(float x) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  if ((u & 0x7f800000u) == 0x7f800000u)
    return x;
  u = (u + 0x1000u) & 0xffffe000u; // add half an ulp of tf32 to the magnitude, then cut
  return std::bit_cast<float>(u);
}

} // namespace tilec::interp
