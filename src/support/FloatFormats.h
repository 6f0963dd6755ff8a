// The kernel's small float formats and their conversions from and to float/double, written
// out bit by bit so nothing depends on compiler or CPU support for them. One rounding for
// every user: the tile interpreter and the SIMT simulator store with it, the lowering encodes
// constants with it and constant folding rounds with it (ir::float_bits, ir::round_to), so a
// folded or lowered constant has the bits the interpreter would compute.
//
//   fp16     IEEE binary16 (1-5-10), bias 15, inf and NaN
//   bf16     1-8-7, bias 127, inf and NaN (the top half of a binary32)
//   fp8e5    e5m2 (1-5-2), bias 15, inf and NaN (IEEE-like)
//   fp8e4nv  e4m3fn (1-4-3), bias 7, no inf; S.1111.111 is NaN; max finite 448.
//            Overflow and inf saturate to +-448, as the GPU's cvt ... .satfinite does.
//
// Decoding is exact. Encoding rounds once, from double, to nearest-even (FloatRound::Nearest)
// or toward zero (FloatRound::TowardZero; an overflow then gives the largest finite value).
// Every double value of a source format decodes exactly, so any conversion
// format -> double -> format rounds exactly once.
#pragma once

#include <cstdint>

namespace tilec {

enum class FloatRound : uint8_t { Nearest, TowardZero };

// A binary float format: `exp` exponent bits, `man` explicit mantissa bits, bias
// 2^(exp-1)-1. `ieee`: the all-ones exponent encodes inf/NaN; otherwise (e4m3fn) only the
// all-ones exponent and mantissa is NaN and there is no inf.
struct FloatFormat {
  int exp, man;
  bool ieee;
  uint32_t exp_all() const { return (1u << exp) - 1; }
  int bias() const { return (1 << (exp - 1)) - 1; }
  uint32_t max_finite() const {
    return ieee ? ((exp_all() - 1) << man) | ((1u << man) - 1)
                : (exp_all() << man) | ((1u << man) - 2);
  }
  uint32_t nan() const {
    return ieee ? (exp_all() << man) | (1u << (man - 1)) : (1u << (exp + man)) - 1;
  }
  uint32_t inf() const { return exp_all() << man; }
};

inline constexpr FloatFormat kFp16Format{5, 10, true};
inline constexpr FloatFormat kBf16Format{8, 7, true};
inline constexpr FloatFormat kFp32Format{8, 23, true};
inline constexpr FloatFormat kFp8E5Format{5, 2, true};
inline constexpr FloatFormat kFp8E4NVFormat{4, 3, false};

// The bits (sign included) of `x` rounded once to `f`. Overflow gives inf (ieee formats,
// Nearest) or the largest finite value (e4m3fn, or TowardZero); NaN gives a quiet NaN.
uint32_t float_bits(const FloatFormat &f, double x, FloatRound r = FloatRound::Nearest);
// The value of `bits` in `f` (exact).
double float_value(const FloatFormat &f, uint32_t bits);

float fp16_to_float(uint16_t bits);
uint16_t fp16_from_double(double x, FloatRound r = FloatRound::Nearest);
uint16_t fp16_from_float(float x); // round to nearest even

float bf16_to_float(uint16_t bits);
uint16_t bf16_from_double(double x, FloatRound r = FloatRound::Nearest);
uint16_t bf16_from_float(float x); // round to nearest even

float fp8e5_to_float(uint8_t bits);
uint8_t fp8e5_from_double(double x, FloatRound r = FloatRound::Nearest);

float fp8e4nv_to_float(uint8_t bits);
uint8_t fp8e4nv_from_double(double x, FloatRound r = FloatRound::Nearest);

// fp8e4b15, Triton's fp8 of pre-Hopper NVIDIA GPUs, converted in software as Triton does
// (its CUDA backend's convert_custom_float8): bits s eeee mmm are the fp16 with sign s and
// exponent and mantissa eeee mmm << 7 (bias 15, subnormals alike; no inf or NaN: 0x7f is
// 1.875). Encoding goes through fp16, toward zero; the magnitude is clamped to 1.75 (inf
// and NaN too) and rounded to 3 mantissa bits with ties away from zero; the sign stays.
float fp8e4b15_to_float(uint8_t bits);
uint8_t fp8e4b15_from_fp16(uint16_t h);
uint8_t fp8e4b15_from_double(double x);

// double -> float with the given rounding (Nearest is the hardware conversion).
float float_from_double(double x, FloatRound r);

// fp32 rounded to tf32 (10 explicit mantissa bits), to nearest with ties away from zero,
// as cvt.rna.tf32.f32 does; NaN and inf pass through.
float round_to_tf32(float x);

} // namespace tilec
