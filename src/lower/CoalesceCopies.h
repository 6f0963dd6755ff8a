// A Thread IR pass run at the end of lowering: a copy `mov d, s` whose source s lives only
// in the copy's block (written first there, never read after the copy) is removed by
// renaming s to d in that block, when d is neither read nor written from s's first write
// up to the copy. This removes the moves of a loop's yield into its carried registers
// (acc = acc * alpha; acc = dot(p, v, acc): 64 + 64 copies per iteration in the seed
// attention), which ptxas keeps because the carried registers are live across the back
// edge. Pure renaming: every instruction computes the same values.
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::lower {

// Returns the number of copies removed.
int coalesce_copies(simt::Function &f);

} // namespace tilec::lower
