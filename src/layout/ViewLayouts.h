// What the shape ops that only rearrange elements (broadcast, expand_dims, reshape, permute,
// join, split) ask of layouts: each is a linear map between the result's and the operand's
// coordinates, so the layout the operand "should" have is the result's with every basis
// mapped through it. When it has that layout (up to a renumbering of registers) the op is
// a relabelling; otherwise its lowering moves the data through shared memory. Lowering
// (lower/LowerShape) and AllocateShared's scratch rule both ask here.
#pragma once

#include <functional>

#include "ir/IR.h"
#include "layout/LinearLayout.h"

namespace tilec::layout {

// `l` with each basis mapped through `f` (coordinates of its tile -> of a tile of `shape`).
LinearLayout map_bases(const LinearLayout &l, const ir::Shape &shape,
                       const std::function<LinearLayout::Basis(const LinearLayout::Basis &)> &f);

// The layout the tile operand of a broadcast, expand_dims, reshape or permute needs for
// the op to relabel registers only, its result being in `result`.
LinearLayout view_operand_layout(const ir::Op &op, const LinearLayout &result);

// join / split: `half` (the layout of each of two tiles) as a layout of the tile of shape
// `paired` holding them side by side along a new last dim of 2, the top register bit
// stepping it. join's operands then are its result's registers as they are, and split's
// results the two halves of its operand's registers (when the layouts agree).
LinearLayout paired_layout(const LinearLayout &half, const ir::Shape &paired);

} // namespace tilec::layout
