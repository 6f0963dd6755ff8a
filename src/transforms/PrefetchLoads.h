// The GPU stage "prefetch-loads" (after "pipeline-loads"): the small loads a dot loop
// still issues where their values are used get a prefetch of the next iteration's bytes
// into L1, so that the next iteration's load hits there instead of waiting on L2.
//
// "pipeline-loads" leaves loads of fewer elements than the CTA has threads where they are
// (carried, they would hold registers across the dot: attention backward's m and Di rows,
// in a kernel at its register limit). Such a load, in the body of a `for` loop that
// computes a dot (num_stages >= 2, a constant positive step, no stores, atomics or
// barriers), with no mask, whose pointers move by the same constant number of bytes each
// iteration (through the induction variable and carried values stepped by constants;
// splats, broadcasts, adds, subs, multiplications by constants, addptr), gets
// kPrefetchAttr = that number. The lowering (lower/LowerMemory.cpp) then issues, after
// each of its accesses, `prefetch.global.L1 [address + bytes]` under the predicate that
// a next iteration exists: the very addresses that iteration loads, no others. No
// registers are held across the iteration. TILEC_PREFETCH=0 turns the stage off.
//
// Measured (H200, tutorial 06's backward, GPU time against TILEC_PREFETCH=0 in one run):
// D 64 1.4-1.6 % faster at N 1024, 0.1-0.2 % at N 4096; D 128 1.6-1.7 % at both.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/IR.h"

namespace tilec::transforms {

// The load attribute: bytes from each access's address to the next iteration's.
inline constexpr const char *kPrefetchAttr = "prefetch";

// By how much `v` (a scalar or a tile, all elements alike) changes from one iteration of
// `loop` to the next, when that is a known constant: in elements for numbers, in bytes for
// pointers. Values defined outside the loop change by 0.
std::optional<int64_t> per_iteration_step(const ir::Op &loop, const ir::Value *v);

void prefetch_loads(ir::Module &m);

} // namespace tilec::transforms
