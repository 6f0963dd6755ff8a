// Loop-invariant code motion: hoists pure ops out of `for` bodies when every operand
// is defined outside the loop. Ops that may fault or are costly when the loop runs zero
// times stay (integer division and remainder by a non-constant divisor).
#pragma once

#include "ir/IR.h"

namespace tilec::transforms {

void licm(ir::Module &m);

} // namespace tilec::transforms
