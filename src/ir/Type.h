// Tile IR types: scalars, pointers to scalars, and tiles (power-of-two shapes) of either.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/Layout.h"
#include "support/FloatFormats.h"

namespace tilec::ir {

enum class DType : uint8_t {
#define DTYPE(id, ir, py, bits, kind, mant) id,
#include "ir/DTypes.def"
#undef DTYPE
};

enum class DTypeKind : uint8_t { Bool, Int, UInt, Float };

int bits(DType d);
DTypeKind kind(DType d);
int mantissa_bits(DType d); // floats only; 0 otherwise
// The bit format of fp8e4nv / fp8e5 / fp16 / bf16 / fp32 (support/FloatFormats.h); nullopt
// for fp64, fp8e4b15 (converted its own way) and the integers.
std::optional<FloatFormat> float_format(DType d);
// The bits of `v` rounded to nearest-even in float dtype `d` (fp8e4nv saturates to +-448 and
// has no inf, as the GPU's cvt .satfinite does; the others overflow to inf; fp8e4b15 takes
// Triton's software encoding): what the interpreter stores and what a lowered constant holds.
uint64_t float_bits(double v, DType d);
// `v` rounded to nearest-even in float dtype `d`, as a double (fp64: `v` itself).
double round_to_dtype(double v, DType d);
inline bool is_float(DType d) { return kind(d) == DTypeKind::Float; }
inline bool is_int(DType d) { return !is_float(d); } // bool counts as an integer (i1)
inline bool is_signed_int(DType d) { return kind(d) == DTypeKind::Int; }
inline bool is_unsigned_int(DType d) { return kind(d) == DTypeKind::UInt; }
inline bool is_bool(DType d) { return d == DType::I1; }
inline bool is_fp8(DType d) { return is_float(d) && bits(d) == 8; }
// Triton's TRITON_MAX_TENSOR_NUMEL: the most elements a tile may have (tl.TRITON_MAX_TENSOR_NUMEL
// in kernels; python/tilec/_utils.py says the same on the host, and a test checks it).
inline constexpr int64_t kMaxTensorNumel = int64_t(1) << 20;
int byte_size(DType d);                // storage bytes (i1 is stored as one byte)
std::string_view ir_name(DType d);     // "fp32"
std::string_view python_name(DType d); // "float32"
std::optional<DType> dtype_from_ir_name(std::string_view s);
std::optional<DType> dtype_from_python_name(std::string_view s);

using Shape = std::vector<int64_t>;

struct Type {
  DType elem = DType::I32;
  bool ptr = false; // a pointer to `elem` in global memory
  // A pointer to constant data (a parameter annotated `tl.const`): the front end refuses
  // stores through it and joins of it with a plain pointer; it leaves no trace in the IR
  // after Sema (sema::lower_kernel clears it).
  bool is_const = false;
  Shape shape; // empty: a scalar
  // Set on tiles by layout assignment (layout/AssignLayouts.h); null before it. Part of
  // the type: it prints as `tile<128xfp32, #blocked<...>>` and takes part in ==.
  LayoutRef layout;

  Type() = default;
  Type(DType e, bool is_ptr = false, Shape s = {}) : elem(e), ptr(is_ptr), shape(std::move(s)) {}
  static Type scalar_of(DType e) { return Type(e); }
  static Type pointer_to(DType e) { return Type(e, true); }

  bool is_tile() const { return !shape.empty(); }
  bool is_scalar() const { return shape.empty(); }
  bool is_ptr() const { return ptr; }
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const;
  // The element type (shape dropped): a scalar or pointer type.
  Type element() const {
    Type t(elem, ptr);
    t.is_const = is_const;
    return t;
  }
  // A new shape drops the layout; a new element type keeps it (same element positions).
  Type with_shape(Shape s) const {
    Type t(elem, ptr, std::move(s));
    t.is_const = is_const;
    return t;
  }
  Type with_elem(DType e) const {
    Type t(e, false, shape);
    t.layout = layout;
    return t;
  }
  Type with_layout(LayoutRef l) const {
    Type t = *this;
    t.layout = std::move(l);
    return t;
  }
  Type without_layout() const { return with_layout(nullptr); }
  bool has_layout() const { return layout != nullptr; }
  // Equal element, pointer-ness and shape, whatever the layouts.
  bool same_ignoring_layout(const Type &o) const {
    return elem == o.elem && ptr == o.ptr && is_const == o.is_const && shape == o.shape;
  }
  // "i32", "ptr<fp32>", "tile<128x64xfp16>", "tile<128xptr<fp32>>",
  // "tile<1024xfp32, #blocked<spt=[4], tpw=[32], wpc=[4], order=[0]>>"
  std::string str() const;

  bool operator==(const Type &o) const {
    return same_ignoring_layout(o) && same_layout(layout, o.layout);
  }
  bool operator!=(const Type &o) const { return !(*this == o); }
};

// Parse the textual form written by Type::str(); nullopt on malformed text.
std::optional<Type> parse_type(std::string_view s);

bool is_power_of_two(int64_t v);

} // namespace tilec::ir
