// Shared-memory allocation: gives each op that needs scratch shared memory an offset,
// reusing space between buffers whose lifetimes do not overlap. Scratch lives only while
// its op runs, so scratch buffers of different ops share space (lowering puts a barrier
// before a write that may race with earlier readers); longer-lived buffers (pipelined
// operands, later) would be placed around each other by the same interval allocator.
//
// Writes, on each op that needs scratch: attributes `smem_offset` and `smem_size` (bytes,
// 16-byte aligned); on the module: `shared_bytes` (the largest total over its functions,
// 0 when none). Runs after layout assignment (sizes depend on layouts).
#pragma once

#include <cstdint>

#include "ir/IR.h"

namespace tilec::layout {

// Scratch bytes `op` needs (0 for none), the scheme lowering follows (src/lower). Element
// sizes: the dtype's bytes, pointers 8, i1 1. Each value's region is 16-byte aligned.
//  - convert_layout, and shape ops (broadcast, expand_dims, reshape, permute) whose
//    operand layout is not a relabelling of the result's: the whole tile, row-major, no
//    padding, when the conversion is not register-only (ConvertPlan.h);
//  - join, split, cat: the larger tile (conservatively);
//  - reduce whose axis is split across warps: per reduced value,
//    numel(result) * (warps along the axis) elements;
//  - scan whose axis is split across warps: per value, the whole operand tile;
//  - atomics whose old value is used: one element (scalar), or the tile when some threads
//    hold replicas (the owner publishes the value).
int64_t scratch_bytes(const ir::Op &op);

void allocate_shared(ir::Module &m);

} // namespace tilec::layout
