// Shared-memory allocation: gives each op that needs scratch shared memory an offset,
// reusing space between ops whose scratch lifetimes do not overlap (scratch lives only
// during its op, so ops in sequence share space; an op inside a loop does not overlap
// another op's scratch either — scratch never crosses ops).
//
// Writes, on each op that needs scratch: attributes `smem_offset` and `smem_size` (bytes);
// on the module: `shared_bytes` (the largest total over its functions, 0 when none).
// Runs after layout assignment (sizes depend on layouts).
#pragma once

#include <cstdint>

#include "ir/IR.h"

namespace tilec::layout {

// Scratch bytes `op` needs (0 for none). The scheme lowering must follow:
//  - convert_layout whose plan is SharedMemory: the whole tile, row-major, element size
//    of its dtype (pointers 8 bytes, i1 1 byte), no padding.
//  - reduce over an axis whose slice crosses warps: one partial per (warp along the
//    axis, output element), i.e. numel(result) * warps_along_axis * sum of the
//    element sizes of the reduced values (each value in its own region, 16-byte aligned).
//  - scan along an axis that crosses lanes or warps: numel(operand) * element sizes.
//  - everything else: 0.
int64_t scratch_bytes(const ir::Op &op);

void allocate_shared(ir::Module &m);

} // namespace tilec::layout
