// How the interpreter stores and computes each dtype, and the one switch that turns a
// run-time DType into a compile-time traits type (once per op, never per element).
//
// Traits D: D::S is the storage type (what a tile element is in memory), D::C the type
// arithmetic happens in; D::ld / D::st convert (st rounds to the dtype). Small floats
// are stored as their bits and computed in float, each result rounded back: for + - * /
// sqrt the float result rounded to fp16/bf16/fp8 equals the correctly rounded one.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "support/FloatFormats.h"
#include "ir/Type.h"
#include "support/Diagnostics.h"

namespace tilec::interp {

template <ir::DType Dt, class Storage, class Compute> struct DTBase {
  using S = Storage;
  using C = Compute;
  static constexpr ir::DType dtype = Dt;
  static constexpr bool is_float = std::is_floating_point_v<Compute>;
  static constexpr bool is_signed = std::is_signed_v<Compute>;
};

// Integers: storage and compute are the same type; wraparound is done by the ops in the
// unsigned counterpart.
template <ir::DType Dt, class T> struct IntDT : DTBase<Dt, T, T> {
  using U = std::make_unsigned_t<T>;
  static constexpr bool is_bool = false;
  static T ld(T v) { return v; }
  static T st(T v) { return v; }
};

struct BoolDT : DTBase<ir::DType::I1, uint8_t, uint8_t> {
  using U = uint8_t;
  static constexpr bool is_bool = true;
  static uint8_t ld(uint8_t v) { return v; }
  static uint8_t st(uint8_t v) { return v & 1; } // i1 arithmetic is modulo 2
};

template <ir::DType Dt, class T> struct NativeFloatDT : DTBase<Dt, T, T> {
  static constexpr bool is_bool = false;
  static T ld(T v) { return v; }
  static T st(T v) { return v; }
};

struct F16DT : DTBase<ir::DType::F16, uint16_t, float> {
  static constexpr bool is_bool = false;
  static float ld(uint16_t v) { return fp16_to_float(v); }
  static uint16_t st(float v) { return fp16_from_float(v); }
  static uint16_t st_d(double v, FloatRound r) { return fp16_from_double(v, r); }
};
struct BF16DT : DTBase<ir::DType::BF16, uint16_t, float> {
  static constexpr bool is_bool = false;
  static float ld(uint16_t v) { return bf16_to_float(v); }
  static uint16_t st(float v) { return bf16_from_float(v); }
  static uint16_t st_d(double v, FloatRound r) { return bf16_from_double(v, r); }
};
// Values rounded to fp8e5 saturate (overflow and inf give +-57344, NaN stays NaN), as
// the GPU's cvt.rn.satfinite.e5m2x2 does in Triton's code and in tilec's. Toward zero
// (the top byte of an fp16 toward zero, on the GPU) an overflow gives +-57344 and inf
// stays inf.
struct F8E5DT : DTBase<ir::DType::F8E5, uint8_t, float> {
  static constexpr bool is_bool = false;
  static float ld(uint8_t v) { return fp8e5_to_float(v); }
  static uint8_t st(float v) { return st_d(v, FloatRound::Nearest); }
  static uint8_t st_d(double v, FloatRound r) {
    if (r == FloatRound::TowardZero || std::isnan(v))
      return fp8e5_from_double(v, r);
    return fp8e5_from_double(std::clamp(v, -57344.0, 57344.0), r);
  }
};
struct F8E4NVDT : DTBase<ir::DType::F8E4NV, uint8_t, float> {
  static constexpr bool is_bool = false;
  static float ld(uint8_t v) { return fp8e4nv_to_float(v); }
  static uint8_t st(float v) { return fp8e4nv_from_double(v, FloatRound::Nearest); }
  static uint8_t st_d(double v, FloatRound r) { return fp8e4nv_from_double(v, r); }
};
// Triton's software fp8 (FloatFormats.h): one encoding whatever the rounding asked.
struct F8E4B15DT : DTBase<ir::DType::F8E4B15, uint8_t, float> {
  static constexpr bool is_bool = false;
  static float ld(uint8_t v) { return fp8e4b15_to_float(v); }
  static uint8_t st(float v) { return fp8e4b15_from_double(v); }
  static uint8_t st_d(double v, FloatRound) { return fp8e4b15_from_double(v); }
};

using I1T = BoolDT;
using I8T = IntDT<ir::DType::I8, int8_t>;
using I16T = IntDT<ir::DType::I16, int16_t>;
using I32T = IntDT<ir::DType::I32, int32_t>;
using I64T = IntDT<ir::DType::I64, int64_t>;
using U8T = IntDT<ir::DType::U8, uint8_t>;
using U16T = IntDT<ir::DType::U16, uint16_t>;
using U32T = IntDT<ir::DType::U32, uint32_t>;
using U64T = IntDT<ir::DType::U64, uint64_t>; // also pointers
using F32T = NativeFloatDT<ir::DType::F32, float>;
using F64T = NativeFloatDT<ir::DType::F64, double>;

template <class D>
constexpr bool is_small_float_v = D::is_float && !std::is_same_v<typename D::S, typename D::C>;

// Calls f(D{}) with D the traits of `d`. Pointers are dispatched as U64 by the caller.
template <class F> decltype(auto) dispatch_dtype(ir::DType d, F &&f) {
  switch (d) {
  case ir::DType::I1:
    return f(I1T{});
  case ir::DType::I8:
    return f(I8T{});
  case ir::DType::I16:
    return f(I16T{});
  case ir::DType::I32:
    return f(I32T{});
  case ir::DType::I64:
    return f(I64T{});
  case ir::DType::U8:
    return f(U8T{});
  case ir::DType::U16:
    return f(U16T{});
  case ir::DType::U32:
    return f(U32T{});
  case ir::DType::U64:
    return f(U64T{});
  case ir::DType::F8E4NV:
    return f(F8E4NVDT{});
  case ir::DType::F8E5:
    return f(F8E5DT{});
  case ir::DType::F8E4B15:
    return f(F8E4B15DT{});
  case ir::DType::F16:
    return f(F16DT{});
  case ir::DType::BF16:
    return f(BF16DT{});
  case ir::DType::F32:
    return f(F32T{});
  case ir::DType::F64:
    return f(F64T{});
  }
  throw_internal(__FILE__, __LINE__, "unknown dtype");
}

// Storage-only dispatch on the element size in bytes (1, 2, 4, 8): data movement ops.
template <class F> decltype(auto) dispatch_bytes(int bytes, F &&f) {
  switch (bytes) {
  case 1:
    return f(uint8_t{});
  case 2:
    return f(uint16_t{});
  case 4:
    return f(uint32_t{});
  case 8:
    return f(uint64_t{});
  default:
    break;
  }
  throw_internal(__FILE__, __LINE__, "bad element size");
}

constexpr double pow2(int n) {
  double v = 1;
  for (int i = 0; i < n; ++i)
    v *= 2;
  return v;
}

// float -> integer: truncate toward zero, saturate to T's range, NaN -> 0 (what the
// GPU's cvt.rzi does), without C++'s undefined behaviour for out-of-range values.
template <class T> T float_to_int_sat(double v) {
  if (v != v)
    return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
  constexpr double hi_excl = pow2(std::numeric_limits<T>::digits); // max() + 1, exact
  if (v <= lo)
    return std::numeric_limits<T>::min();
  if (v >= hi_excl)
    return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

} // namespace tilec::interp
