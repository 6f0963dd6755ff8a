// Checks Tile IR against the conventions in Ops.def: operand/result counts and types,
// region signatures and terminators, dominance (a value is used only after its
// definition, in the same block or one that encloses it) and power-of-two tile dims.
// A failure is a bug in whoever built the IR: it throws InternalError whose message
// names the problem and prints the offending op.
#pragma once

#include "ir/IR.h"

namespace tilec::ir {

void verify(const Module &m);
void verify(const Function &f);

} // namespace tilec::ir
