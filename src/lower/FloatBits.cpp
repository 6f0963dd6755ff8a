#include "lower/FloatBits.h"

#include <bit>
#include <cmath>

#include "support/Diagnostics.h"

namespace tilec::lower {

namespace {

// Rounds |v| to a format with `man` explicit mantissa bits and `exp` exponent bits
// (bias 2^(exp-1)-1) and returns the magnitude bits; `ieee`: the top exponent is inf/NaN,
// else (e4m3fn) only the all-ones pattern is NaN and overflow saturates.
uint32_t encode_magnitude(double a, int man, int exp, bool ieee) {
  int bias = (1 << (exp - 1)) - 1;
  uint32_t top = (1u << exp) - 1;
  uint32_t max_finite =
      ieee ? (((top - 1) << man) | ((1u << man) - 1)) : ((top << man) | ((1u << man) - 2));
  uint32_t inf_or_max = ieee ? (top << man) : max_finite;
  if (std::isnan(a))
    return ieee ? ((top << man) | (1u << (man - 1))) : ((top << man) | ((1u << man) - 1));
  if (std::isinf(a))
    return inf_or_max;
  if (a == 0)
    return 0;
  int e;
  std::frexp(a, &e); // a = f * 2^e, f in [0.5, 1)
  int unbiased = e - 1;
  int emin = 1 - bias;
  // The quantum (value of one unit in the last place) at this magnitude.
  int q = (unbiased < emin ? emin : unbiased) - man;
  double scaled = std::ldexp(a, -q);     // exact: a power-of-two scaling
  double units = std::nearbyint(scaled); // to nearest even (default rounding mode)
  auto n = static_cast<uint64_t>(units);
  // n counts quanta: below 2^man it is a subnormal's mantissa; a carry to 2^(man+1)
  // moves to the next binade.
  uint64_t bits;
  if (n < (uint64_t{1} << man)) {
    bits = n; // subnormal (exponent field 0)
  } else {
    int ex = q + man; // unbiased exponent of n * 2^q when n in [2^man, 2^(man+1))
    if (n >= (uint64_t{1} << (man + 1))) {
      n >>= 1;
      ++ex;
    }
    bits = (static_cast<uint64_t>(ex + bias) << man) | (n & ((uint64_t{1} << man) - 1));
  }
  if (bits > max_finite)
    return inf_or_max;
  return static_cast<uint32_t>(bits);
}

uint64_t with_sign(double v, uint32_t mag, int width) {
  return (std::signbit(v) ? (uint64_t{1} << (width - 1)) : 0) | mag;
}

} // namespace

uint64_t encode_float(double v, ir::DType d) {
  switch (d) {
  case ir::DType::F64:
    return std::bit_cast<uint64_t>(v);
  case ir::DType::F32:
    return std::bit_cast<uint32_t>(static_cast<float>(v));
  case ir::DType::F16:
    return with_sign(v, encode_magnitude(std::fabs(v), 10, 5, true), 16);
  case ir::DType::BF16:
    return with_sign(v, encode_magnitude(std::fabs(v), 7, 8, true), 16);
  case ir::DType::F8E5:
    return with_sign(v, encode_magnitude(std::fabs(v), 2, 5, true), 8);
  case ir::DType::F8E4NV:
    return with_sign(v, encode_magnitude(std::fabs(v), 3, 4, false), 8);
  default:
    break;
  }
  TILEC_ASSERT(false, "encode_float: not a float dtype");
  return 0;
}

} // namespace tilec::lower
