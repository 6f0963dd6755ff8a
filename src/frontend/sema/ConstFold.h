// Python semantics for constexpr operands: arithmetic on ints (int64; overflow beyond it
// is a CompileError), floats, bools, strings and tuples, comparisons and truthiness.
#pragma once

#include "frontend/Ast.h"
#include "frontend/sema/Value.h"

namespace tilec::sema {

bool truthy(const Val &v);
bool py_equal(const Val &a, const Val &b);
// Python's ordering of two values: <0, 0, >0. TypeError-like CompileError when the
// values are not ordered (e.g. str and int). `op` names the operator for the message.
int py_order(const Val &a, const Val &b, const char *op, SourceLoc loc);

Val fold_binary(ast::BinOp op, const Val &a, const Val &b, SourceLoc loc);
Val fold_unary(ast::UnaryOp op, const Val &a, SourceLoc loc);
Val fold_compare(ast::CmpOp op, const Val &a, const Val &b, SourceLoc loc);

} // namespace tilec::sema
