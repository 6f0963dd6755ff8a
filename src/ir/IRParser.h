// Reads the text Printer.h writes back into a Module (for tests and `tilec opt`).
// Ops are line-oriented: an op's name, operands, attributes and types sit on one line;
// its regions follow in braces. `//` starts a comment. Any op kind from Ops.def is
// accepted generically; the parser checks syntax, names and listed operand types, not
// op semantics (run the verifier for that).
#pragma once

#include <memory>
#include <string_view>

#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace tilec::ir {

// Parses the text registered as `file` in `sm`. Errors throw CompileError at the
// offending line:col (render it with render_diagnostic). Paths named in loc(...) are
// registered in `sm` (with no text) so op locations stay meaningful.
std::unique_ptr<Module> parse_module(SourceManager &sm, int file);

// For tests: parses `text`; errors throw CompileError whose message starts with
// "line:col: ". Locations are dropped.
std::unique_ptr<Module> parse_module(std::string_view text);

} // namespace tilec::ir
