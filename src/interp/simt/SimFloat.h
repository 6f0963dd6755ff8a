// Float helpers of the simulator: exact-remainder arithmetic and rounding of a result to
// f32/f64/f16/bf16 with a PTX rounding mode (.rn/.rz/.rm/.rp), as PTX computes them.
#pragma once

#include <cstdint>

#include "simt/ThreadIR.h"

namespace tilec::simt::sim {

// A real number as s + e: s = the double nearest to it, e = the (tiny) remainder; only
// e's sign and whether it is zero are used.
struct Exact {
  double s = 0;
  double e = 0;
};

Exact exact_add(double a, double b);
Exact exact_mul(double a, double b); // exact e via fma
Exact exact_div(double a, double b);
Exact exact_sqrt(double a);
Exact exact_fma(double a, double b, double c); // exact for f32 operands (not for f64)

// Rounding to a format. `r` None means .rn. ftz: a subnormal result becomes +-0.
uint32_t round_f32(Exact x, Rnd r, bool ftz = false);
uint64_t round_f64(Exact x, Rnd r);
uint16_t round_f16(Exact x, Rnd r);
uint16_t round_bf16(Exact x, Rnd r);

float f32_from_bits(uint64_t b);
double f64_from_bits(uint64_t b);
uint64_t bits_from_f32(float f);
uint64_t bits_from_f64(double d);
// f32 with .ftz applied to an input (subnormal -> sign-preserving zero).
float flush_f32(float f);

// The value of a float register of type t (f16/bf16/f32/f64) as a double.
double float_value(uint64_t bits, Ty t);
// Rounds to type t (f16/bf16/f32/f64) with `r`.
uint64_t round_to(Exact x, Ty t, Rnd r, bool ftz = false);

inline constexpr uint32_t kNaN32 = 0x7fffffffu; // the GPU's canonical NaNs
inline constexpr uint64_t kNaN64 = 0x7fffffffffffffffull;
inline constexpr uint16_t kNaN16 = 0x7fffu;

} // namespace tilec::simt::sim
