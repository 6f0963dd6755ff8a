// The GPU stage "pipeline-loops" (after "layouts", before "allocate-shared"): the loads
// that feed a dot in a `for` loop go into a shared-memory ring of num_stages buffers,
// filled by asynchronous copies num_stages - 1 iterations ahead, and the dot reads its
// operand from the ring (docs/ARCHITECTURE.md, "The fast matmul path"; Ops.def's ring ops;
// stage layouts: layout/RingLayouts.h). With S stages:
//
//   ring = local_alloc                                 (one per pipelined load)
//   for s in 0 .. S-2: async_copy(ring, s, ptr(s), mask(s) & lb + s*step < ub); async_commit
//   for i (.., c = 0):
//     async_wait {pending = S-2}
//     x = local_load(ring, c); acc = dot(x, .., acc)
//     async_copy(ring, (c + S-1) % S, ptr(i + S-1), mask(i + S-1) & i + (S-1)*step < ub)
//     async_commit
//     yield .., (c + 1 == S ? 0 : c + 1)
//   async_wait {pending = 0}
//
// Only loads marked by "plan-rings" (layout/PlanRings.h) are taken. A loop qualifies when
// S (its `num_stages`, else the module's) is >= 2, its step is a positive constant and it
// has no stores, atomics, barriers, prints or asserts. A load qualifies when it sits in the
// loop body, reaches dot operands of that body through permute / convert_layout ops used
// nowhere else (several: wgmma dots that all read the first one's stage in place, a
// transposed reader through local_load {trans = 1}), has no `other` or a zero one, its pointer
// and mask are pure functions of the induction variable, carried values and invariants
// (transforms/LoopShift), its elements are 2 bytes or more, each thread copies runs of at
// least 4 bytes along the memory-contiguous dim (layout order and axis info of the pointer
// and mask), and layout::ring_consumer_supported accepts the dot operand. TILEC_RING=0
// turns the stage off.
#pragma once

#include "ir/IR.h"

namespace tilec::layout {

struct PipelineLoopsOptions {
  bool force = false; // tests: take every eligible consumer, lowered or not
};

void pipeline_loops(ir::Module &m);
void pipeline_loops(ir::Module &m, const PipelineLoopsOptions &opts);

} // namespace tilec::layout
