#include "frontend/sema/Promotion.h"

#include <cmath>
#include <limits>

namespace tilec::sema {

using ir::DType;

std::string dtype_name(DType d) {
  // Triton names floats by their short IR spelling and integers by their Python name.
  return std::string(ir::is_float(d) ? ir::ir_name(d) : ir::python_name(d));
}

std::string elem_name(const ir::Type &t) {
  std::string e = dtype_name(t.elem);
  return t.is_ptr() ? (t.is_const ? "const_pointer<" : "pointer<") + e + ">" : e; // Triton's
}

std::string shape_str(const ir::Shape &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

std::string tensor_str(const ir::Type &t) {
  std::string r = elem_name(t) + "[";
  for (size_t i = 0; i < t.shape.size(); ++i)
    r += (i ? ", constexpr[" : "constexpr[") + std::to_string(t.shape[i]) + "]";
  return r + "]";
}

DKind dkind(DType d) {
  if (ir::is_bool(d))
    return DKind::Bool;
  return ir::is_float(d) ? DKind::Floating : DKind::Integral;
}

static bool is_unsigned(DType d) { return ir::is_unsigned_int(d) || ir::is_bool(d); }

DType integer_promote(DType a, DType b) {
  int ar = ir::bits(a), br = ir::bits(b);
  bool au = is_unsigned(a), bu = is_unsigned(b);
  if (au == bu)
    return ar > br ? a : b;
  if (au)
    return ar >= br ? a : b;
  return br >= ar ? b : a;
}

using ir::is_fp8;

DType computation_type(DType a, bool a_scalar, DType b, bool b_scalar, bool div_or_mod,
                       SourceLoc loc) {
  // A Python number of a kind no higher than the tensor's does not take part.
  if (a_scalar != b_scalar) {
    DType scalar = a_scalar ? a : b, tensor = a_scalar ? b : a;
    if (dkind(scalar) <= dkind(tensor)) {
      if (div_or_mod && (tensor == DType::F16 || tensor == DType::BF16))
        return DType::F32;
      return tensor;
    }
  }
  if (a == DType::F64 || b == DType::F64)
    return DType::F64;
  if (a == DType::F32 || b == DType::F32)
    return DType::F32;
  // fp16 and bf16 have no native division or remainder.
  if (a == DType::F16 || b == DType::F16)
    return div_or_mod ? DType::F32 : DType::F16;
  if (a == DType::BF16 && b == DType::BF16)
    return div_or_mod ? DType::F32 : DType::BF16;
  if (a == DType::BF16 || b == DType::BF16)
    return DType::F32;
  if (is_fp8(a) && is_fp8(b))
    return a == b ? a : DType::F16;
  if (ir::is_float(a) || ir::is_float(b))
    throw CompileError(loc, "unexpected type " + dtype_name(a) + " and " + dtype_name(b));
  if (div_or_mod && is_unsigned(a) != is_unsigned(b))
    throw CompileError(loc, "Cannot use /, // or % with " + dtype_name(a) + " and " +
                                dtype_name(b) +
                                " because they have different signedness; cast them to the "
                                "same signedness");
  return integer_promote(a, b);
}

DType literal_int_type(int64_t v) {
  if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max())
    return DType::I32;
  if (v > 0 && v <= static_cast<int64_t>(std::numeric_limits<uint32_t>::max()))
    return DType::U32;
  return DType::I64;
}

DType literal_float_type(double v) {
  double a = std::fabs(v);
  const double min_f32 = std::ldexp(1.0, -126);
  const double max_f32 = static_cast<double>(std::numeric_limits<float>::max());
  if (std::isinf(a) || a == 0.0 || std::isnan(v) || (a >= min_f32 && a <= max_f32))
    return DType::F32;
  return DType::F64;
}

int64_t int_min(DType d) {
  if (is_unsigned(d))
    return 0;
  int b = ir::bits(d);
  return b >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (b - 1));
}

int64_t int_max(DType d) {
  int b = ir::bits(d);
  if (is_unsigned(d))
    return b >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << b) - 1;
  return b >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (b - 1)) - 1;
}

} // namespace tilec::sema
