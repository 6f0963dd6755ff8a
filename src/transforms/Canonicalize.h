// Canonicalization and constant folding: folds arithmetic, comparisons, casts and
// selects of constants with each dtype's exact semantics (see FoldUtils.h), applies
// algebraic identities (x+0, x*1, x&-1, ...), folds shape ops of constants and chains
// of reshapes, inlines `if` on a constant condition, drops zero-trip `for` loops, and
// erases pure ops left without users. Runs to a fixed point.
#pragma once

#include "ir/IR.h"

namespace tilec::transforms {

void canonicalize(ir::Module &m);

} // namespace tilec::transforms
