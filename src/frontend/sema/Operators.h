// Python operators over Sema values with Triton's semantics (the counterpart of
// triton/language/semantic.py's arithmetic): constexpr operands fold with Python's
// rules; tensors follow Triton's promotion, literal typing and numpy broadcasting.
#pragma once

#include "frontend/Ast.h"
#include "frontend/sema/Emitter.h"

namespace tilec::sema {

Val binary_op(Emitter &e, ast::BinOp op, const Val &a, const Val &b, SourceLoc loc);
Val unary_op(Emitter &e, ast::UnaryOp op, const Val &a, SourceLoc loc);
// One comparison (Sema rejects chained comparisons before calling this).
Val compare_op(Emitter &e, ast::CmpOp op, const Val &a, const Val &b, SourceLoc loc);
// `a and b` / `a or b` on two operands (constexpr short-circuit; tensors: logical op).
Val logical_op(Emitter &e, bool is_and, const Val &a, const Val &b, SourceLoc loc);
// x[idx]: idx is a Tuple of None / Slice(:) entries (or one such entry) for tensors;
// an Int for tuples.
Val subscript(Emitter &e, const Val &base, const Val &index, SourceLoc loc);

// A constexpr or tensor as an IR value: ints are i32 unless out of range (then i64,
// then u64), floats fp32, bools i1. Errors on non-numeric values.
ir::Value *to_tensor(Emitter &e, const Val &v, SourceLoc loc);
// The truth of a scalar run-time condition as an i1 scalar (x != 0 for other dtypes).
// Errors for tiles with more than one element.
ir::Value *to_condition(Emitter &e, const Val &v, SourceLoc loc);
// Converts `v` to exactly type `t` for merging if/loop values: only constexpr -> tensor
// of that type is implicit; otherwise the caller reports the type mismatch.
ir::Value *cast_to(Emitter &e, const Val &v, const ir::Type &t, SourceLoc loc);

} // namespace tilec::sema
