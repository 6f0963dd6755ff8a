// Structural checks of a Thread IR function: operand counts and kinds, register widths
// matching the instruction type, guards are predicates, labels exist, modifiers valid
// for the instruction. A failure is a bug in whoever built the function (lowering), so
// it throws InternalError naming the block, the instruction and the problem.
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::simt {

void verify(const Function &fn);

} // namespace tilec::simt
