// Float math on one register (f32 or f64): exp, exp2, log, log2, sqrt, rsqrt, sin, cos,
// erf, floor, ceil, and fmod. Private to src/lower.
#pragma once

#include "lower/LoweringContext.h"

namespace tilec::lower {

// `op` is the math op (its kind and attributes pick the instruction); t is F32 or F64.
Reg emit_math(LoweringContext &c, const ir::Op &op, Ty t, Reg x);
// tl.exp over n f32 registers of a thread, bit for bit what emit_math gives each (Triton's
// ex2.approx.f32, whose subnormal results cost ptxas a compare and two multiplies an
// element), by ex2.approx.ftz -- the same MUFU.EX2 -- unless an input is below -126,
// which sends the warp through the exact form once more.
std::vector<Reg> emit_exp_f32_tile(LoweringContext &c, const std::vector<Reg> &xs);
// exp, exp2, log, log2, sin, cos, erf on fp64 (LowerMath64.cpp).
Reg emit_math_f64(LoweringContext &c, const ir::Op &op, Reg x);
// C fmod (the sign of the dividend), exact while |a / b| < 2^mantissa.
Reg emit_fmod(LoweringContext &c, Ty t, Reg a, Reg b);

// fp16/bf16/fp8 <-> fp32 (LowerCast.cpp). from_f32 rounds to nearest even (or toward
// zero when `rtz`); fp8 needs sm_89 (CompileError at `loc` otherwise).
Reg to_f32(LoweringContext &c, Reg x, ir::DType d);
Reg from_f32(LoweringContext &c, Reg x, ir::DType d, bool rtz, SourceLoc loc);

} // namespace tilec::lower
