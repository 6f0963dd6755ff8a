// Pure ops computed before a loop (`for`, `while`) but used only after it move down to
// their first user, so their values are not live across the loop. CSE and LICM leave such
// ops where the first of their twins was: tutorial 08's `offs_cm`, the same expression as
// the K loop's `offs_am`, was computed before the loop in the epilogue's layout (128 rows
// a thread), which ptxas kept in registers through the loop and spilled. Only pure ops
// without regions move, and only within their block: a value is computed once, as before.
// Nothing moves past ops with regions other than loops (an `if`, a reduction's combiner):
// the order of a loop body's work stays as written.
#pragma once

#include "ir/IR.h"

namespace tilec::transforms {

// Returns the number of ops moved.
int sink_past_loops(ir::Module &m);

} // namespace tilec::transforms
