// Common-subexpression elimination of pure ops without regions. An op may reuse an
// identical op that dominates it: earlier in its block or in an enclosing block.
// Nothing is reused across sibling regions (the then- and else-branches of an `if`).
#pragma once

#include "ir/IR.h"

namespace tilec::transforms {

void cse(ir::Module &m);

} // namespace tilec::transforms
