// What each op needs of its operands' layouts and gives its results (private to
// src/layout: layout assignment and conversion removal share these rules).
#pragma once

#include <unordered_map>

#include "ir/IR.h"

namespace tilec::layout::rules {

// Anchored layouts of memory ops (load/store/atomics on tiles), chosen from axis info.
using Anchors = std::unordered_map<const ir::Op *, ir::LayoutRef>;

bool is_memory(const ir::Op &op);
// Ops that only rearrange or compute element-wise from their operands and are cheap to
// recompute in another layout (creation, broadcast/expand_dims, element-wise math).
bool is_rematerialisable(const ir::Op &op);

// The layout `user` requires of its tile operand `i`, given the user's own (result,
// block-argument or anchor) layouts; null when it has no requirement or does not know
// yet. Shape ops (broadcast, expand_dims, permute) ask for the layout that makes them a
// relabelling in lowering.
ir::LayoutRef operand_want(const ir::Op &user, size_t i, const Anchors &anchors);

// The layout result `index` of `op` gets from its operands' layouts (null when they have
// none yet, or when the op has no rule: loads, loops, ...).
// `wgmma`: the target has wgmma (sm_90a; a dot may take #mma<v=3>); `f64_mma`: fp64 dots
// may take #mma<v=2> (module_has_f64_mma).
ir::LayoutRef forward(const ir::Op &op, size_t index, int num_warps, bool wgmma = false,
                      bool f64_mma = false);

// The layout an operand must have for `op`'s result to come out in `result` (for
// rematerialisation); null when that cannot be arranged.
ir::LayoutRef operand_for_result(const ir::Op &op, size_t i, const ir::LayoutRef &result);

// permute's encoding rule: the operand layout (blocked) permuted by `order`.
ir::LayoutRef permuted(const ir::LayoutRef &l, const std::vector<int64_t> &order, bool inverse);

} // namespace tilec::layout::rules
