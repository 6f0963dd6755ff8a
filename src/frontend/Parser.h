// Lexer + parser entry points for the Python subset kernels are written in.
#pragma once

#include <string>
#include <vector>

#include "frontend/Ast.h"

namespace tilec::frontend {

// Parses the source registered as `file` in `sm` (line numbers are absolute: the
// file's first_line is added). The text may start indented (a nested def or a method
// from inspect.getsource): the first non-blank line's indentation is the base.
// Syntax errors throw CompileError with file:line:col.
// Decorators are host code: one whose arguments use syntax kernels may not (the dicts
// of @autotune's configs) is kept as a call of its dotted name with no arguments.
// Lambdas are kept as markers (LambdaExpr); their bodies are skipped, not checked.
ast::Module parse(const SourceManager &sm, int file);

// For the CLI, which reads a whole .py file without Python: parses the top-level
// imports, simple assignments and function definitions (with decorators); any other
// top-level statement (classes, host code using unsupported syntax, ...) is skipped.
ast::Module parse_module_lenient(const SourceManager &sm, int file);

// Where a top-level statement lies: from its first token (a decorator's '@' for a
// decorated def) to the end of its last token (absolute lines, 1-based columns; `end`
// is one past the last character).
struct StmtExtent {
  SourceLoc begin, end;
};
// As above, also giving each kept statement's extent (parallel to Module::body), so
// the CLI can cut a def's source text out of the file.
ast::Module parse_module_lenient(const SourceManager &sm, int file,
                                 std::vector<StmtExtent> &extents);

// Every name a function reads (in its body, defaults and annotations), in first-use
// order, without duplicates. Includes locals too; callers filter by what they know.
std::vector<std::string> referenced_names(const ast::FunctionDefStmt &fn);

} // namespace tilec::frontend
