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
//    padding, when the conversion is not register-only (ConvertPlan.h); a convert_layout
//    with attribute `chunk_bits = n` goes in 2^n trips of 1/2^n of the tile (ConvertPlan.h
//    chunk_bit): set here, largest first, while the kernel passes the target's max_shared;
//  - join, split, cat: the larger tile (conservatively);
//  - gather: the source tile, row-major; histogram: its bins (u32 each);
//  - reduce whose axis is split across warps: per reduced value,
//    numel(result) * (warps along the axis) elements;
//  - scan whose axis is split across warps: per value, the whole operand tile;
//  - atomics whose old value is used: one element (scalar), or the tile when some threads
//    hold replicas (the owner publishes the value).
//  - tma_store: the value's boxes;
//  - local_alloc (a shared-memory ring): its S stages and their barriers,
//    live from the local_alloc through the last use of the buffer and the first
//    async_wait {pending = 0} after it (masked-off copies still zero-fill until then).
int64_t scratch_bytes(const ir::Op &op);

// The alignment of `op`'s scratch offset: a ring's ring_alignment, a tma_store's 1024 (the
// swizzle is a function of address bits), else 16. The offsets are from the dynamic shared
// memory's start, which the PTX declares 1024-byte aligned; placing at aligned offsets
// (rather than reserving alignment slack in each buffer) saves up to 1008 bytes a buffer,
// which kept tutorial 09's 4-stage 128x256x64 configs off the H200 by 16 bytes.
int64_t scratch_alignment(const ir::Op &op);

// A ring buffer (local_alloc): whether a wgmma reads it through matrix descriptors (its
// stages are local_load'ed only into #mma<v=3> dots), the alignment its start needs (1024
// then: the swizzle is a function of address bits; else 128, whole ldmatrix rows) and its
// bytes (S stages of d0 x d1 elements, stage s at s * stage bytes).
bool ring_feeds_wgmma(const ir::Op &local_alloc);
int64_t ring_alignment(const ir::Op &local_alloc);
int64_t ring_bytes(const ir::Op &local_alloc);

void allocate_shared(ir::Module &m);

} // namespace tilec::layout
