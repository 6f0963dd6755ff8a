// Conversions between the kernel's small float formats and float/double, written out
// bit by bit so the interpreter does not depend on compiler or CPU support for them.
//
//   fp16     IEEE binary16 (1-5-10), bias 15, inf and NaN
//   bf16     1-8-7, bias 127, inf and NaN (the top half of a binary32)
//   fp8e5    e5m2 (1-5-2), bias 15, inf and NaN (IEEE-like)
//   fp8e4nv  e4m3fn (1-4-3), bias 7, no inf; S.1111.111 is NaN; max finite 448.
//            Overflow and inf saturate to +-448, as the GPU's cvt ... .satfinite does.
//
// Decoding is exact. Encoding rounds once, from double, to nearest-even (Round::Nearest)
// or toward zero (Round::TowardZero; an overflow then gives the largest finite value).
// Every double value of a source format decodes exactly, so any conversion
// format -> double -> format rounds exactly once.
#pragma once

#include <cstdint>

namespace tilec::interp {

enum class Round : uint8_t { Nearest, TowardZero };

float fp16_to_float(uint16_t bits);
uint16_t fp16_from_double(double x, Round r = Round::Nearest);
uint16_t fp16_from_float(float x); // round to nearest even

float bf16_to_float(uint16_t bits);
uint16_t bf16_from_double(double x, Round r = Round::Nearest);
uint16_t bf16_from_float(float x); // round to nearest even

float fp8e5_to_float(uint8_t bits);
uint8_t fp8e5_from_double(double x, Round r = Round::Nearest);

float fp8e4nv_to_float(uint8_t bits);
uint8_t fp8e4nv_from_double(double x, Round r = Round::Nearest);

// double -> float with the given rounding (Nearest is the hardware conversion).
float float_from_double(double x, Round r);

// fp32 rounded to tf32 (10 explicit mantissa bits), to nearest with ties away from zero,
// as cvt.rna.tf32.f32 does; NaN and inf pass through.
float round_to_tf32(float x);

} // namespace tilec::interp
