// Float math on one register (f32 or f64): exp, exp2, log, log2, sqrt, rsqrt, sin, cos,
// erf, floor, ceil, and fmod. Private to src/lower.
#pragma once

#include "lower/LoweringContext.h"

namespace tilec::lower {

// `op` is the math op (its kind and attributes pick the instruction); t is F32 or F64.
Reg emit_math(LoweringContext &c, const ir::Op &op, Ty t, Reg x);
// exp, exp2, log, log2, sin, cos, erf on fp64 (LowerMath64.cpp).
Reg emit_math_f64(LoweringContext &c, const ir::Op &op, Reg x);
// C fmod (the sign of the dividend), exact while |a / b| < 2^mantissa.
Reg emit_fmod(LoweringContext &c, Ty t, Reg a, Reg b);

// fp16/bf16/fp8 <-> fp32 (LowerCast.cpp). from_f32 rounds to nearest even (or toward
// zero when `rtz`); fp8 needs sm_89 (CompileError at `loc` otherwise).
Reg to_f32(LoweringContext &c, Reg x, ir::DType d);
Reg from_f32(LoweringContext &c, Reg x, ir::DType d, bool rtz, SourceLoc loc);

} // namespace tilec::lower
