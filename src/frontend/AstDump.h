// A compact, stable text form of the AST for tests and debugging.
//   expressions: s-expressions, e.g. (+ a (call (. tl load) p mask=m))
//   statements:  one per line, nested blocks indented by two spaces
// With `locs`, every node shows its SourceLoc as @line:col.
#pragma once

#include <string>

#include "frontend/Ast.h"

namespace tilec::ast {

std::string dump(const Expr &e, bool locs = false);
std::string dump(const Stmt &s, bool locs = false, int indent = 0);
std::string dump(const Module &m, bool locs = false);

} // namespace tilec::ast
