// A Thread IR pass run at the end of lowering: `xor d, a, t` where t = `xor a, b` (in either
// order) earlier in the block, with a and b unchanged since, is `mov d, b`; the xor
// defining t is removed when nothing else reads t. The bitonic network of tl.sort takes
// each element's partner as x ^ (x ^ partner) (a butterfly xor-sum), two xors an element
// per compare-exchange that ptxas keeps as LOP3s. Exact for every bit pattern.
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::lower {

// Returns the number of xors folded.
int fold_xor_pairs(simt::Function &f);

} // namespace tilec::lower
