// Triton's dtype rules, shared by the operators and the builtins: how dtypes are
// spelled in messages, literal typing of Python numbers, and the promotion of two
// operand dtypes (triton/language/semantic.py: integer_promote_impl and
// computation_type_impl).
#pragma once

#include <cstdint>
#include <string>

#include "ir/Type.h"
#include "support/Diagnostics.h"

namespace tilec::sema {

// Triton's str() of a dtype: fp32, bf16, fp8e4nv, int32, uint8, int1.
std::string dtype_name(ir::DType d);
// The element of `t` as Triton prints it: "fp32" or "pointer<fp32>".
std::string elem_name(const ir::Type &t);
// "[64, 32]" ("[]" for a scalar).
std::string shape_str(const ir::Shape &s);
// Triton's str() of a tensor: "fp32[constexpr[64], constexpr[32]]", "int32[]".
std::string tensor_str(const ir::Type &t);

// bool < integral < floating: the kinds of the Python-scalar ("weak typing") rule.
enum class DKind { Bool = 0, Integral = 1, Floating = 2 };
DKind dkind(ir::DType d);

// C's usual arithmetic conversions for two integer dtypes (i1 counts as unsigned).
ir::DType integer_promote(ir::DType a, ir::DType b);

// The dtype both operands of an arithmetic op are converted to. `x_scalar` is true for
// an operand that was a Python number (constexpr); `a`/`b` are then its literal type.
// Throws CompileError(loc) where Triton raises (e.g. /, % on ints of mixed signedness).
ir::DType computation_type(ir::DType a, bool a_scalar, ir::DType b, bool b_scalar, bool div_or_mod,
                           SourceLoc loc);

// Literal typing (to_tensor): ints are i32, then u32, then i64; floats fp32 unless
// finite, non-zero and outside fp32's range (then fp64); bools i1.
ir::DType literal_int_type(int64_t v);
ir::DType literal_float_type(double v);

// The inclusive value range of an integer dtype, clipped to int64 (u64's max is
// reported as INT64_MAX, which is all a constexpr int can hold).
int64_t int_min(ir::DType d);
int64_t int_max(ir::DType d);

} // namespace tilec::sema
