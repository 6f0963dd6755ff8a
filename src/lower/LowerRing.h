// The shared-memory ring as the lowering sees it (LowerRing.cpp; LowerWgmma reads stages
// in place through descriptors).
#pragma once

#include <utility>

#include "lower/LoweringContext.h"

namespace tilec::lower {

struct RingView {
  const ir::Op *alloc = nullptr;
  int64_t d0 = 0, d1 = 0;
  int elem_bytes = 2;
  int64_t stage_bytes = 0;
  layout::LinearLayout stage; // "offset" (elements within a stage) -> (dim0, dim1)
  int64_t base = 0;           // the buffer's start: a .shared offset, ring_alignment-aligned
};

// The ring `buf` (a local_alloc's result).
RingView ring_view(LoweringContext &c, const ir::Value *buf);
// The ring a local_load reads, as its result sees a stage: transposed (d0 and d1, and the
// stage's dims, swapped) for a local_load {trans = 1}.
RingView ring_view(LoweringContext &c, const ir::Op &local_load);
// Where `stage` of the ring starts: a .shared offset, plus a u32 register (stage * stage
// bytes) when the stage is not a constant (invalid otherwise).
std::pair<int64_t, Reg> ring_stage_start(LoweringContext &c, const RingView &r,
                                         const ir::Value *stage);
// local_alloc, async_copy, async_commit, async_wait, local_load.
void lower_ring(LoweringContext &c, const ir::Op &op);

} // namespace tilec::lower
