// Conversion removal: a convert_layout whose operand is produced by a cheap tree of ops
// (constants, arange, splat, broadcast, expand_dims, hints and element-wise ops over
// them, and loads of fewer elements than the CTA has threads, as Triton's
// isExpensiveLoadOrStore counts them; up to a size limit) is replaced by a copy of that
// tree built directly in the wanted layout (a simplified version of Triton's
// RemoveLayoutConversions); conversions to the layout the value already has disappear;
// dead originals are erased.
// Before that: add(x, dot(a, b, 0)) becomes dot(a, b, x) (the accumulator chains through
// the mma instead of a second accumulator-sized tile), and a loop-carried tile converted
// to layout L at the top of every iteration and back before the yield, or whose every use
// converts to L while the yielded value is such a cheap tree (a prefetched small load), is
// carried in L.
#pragma once

#include "ir/IR.h"

namespace tilec::layout {

void remove_conversions(ir::Module &m);

} // namespace tilec::layout
