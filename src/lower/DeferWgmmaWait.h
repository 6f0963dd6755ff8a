// A Thread IR pass run at the end of lowering: fewer wgmma.wait_group, so the tensor
// cores work on while the next instructions issue.
//
// Within a block (always): a group retired at once (`commit; wait_group 0`) whose block
// retires it again at its next wait (attention backward's dv dot, then dp's dot and its
// wait_group 0) drops its own wait when nothing in between touches the group's registers,
// writes memory or passes a barrier. dv's accumulation then runs beside dp's issue, as in
// Triton's kernels.
//
// Across a back edge (opt-in, below): a loop body whose last wgmma group is
// retired at once (`commit; wait_group 0; [bar.sync]`, attention's p v) lets that group run
// on across the back edge instead, until the next iteration's own wait retires it
// (attention: q k^T's `wait_group 0`), as Triton's kernels do. The tensor cores then work
// on p v while the loop test, the ring wait and q k^T's issue run.
//
//   before: body: ... D2 commit, wait 0, bar | header: test, exit? | body: D1 ... wait 0, bar
//   after:  body: ... D2 commit             | header: test, exit? | body: D1 ... wait 0, bar
//           exit: wait 0, bar, ...
//
// Matched only when every instruction between the two waits (loop header included) leaves
// the group's registers (its accumulators and A fragments) alone and writes no memory, the
// later wait retires the group (it keeps fewer groups pending than were committed after
// it) and, if the first wait was followed by a barrier, so is the later one: a stage of a
// shared-memory ring the group reads is then still overwritten only after every
// warpgroup retired it. The loop's exit waits for the group (and passes the barrier).
//
// Opt-in (TILEC_WGMMA_DEFER=1). On an H200 (2026-11-29, tutorial 06's forward, one
// config, in a build that also packed p's A fragments before wgmma.fence, an experiment
// not kept) it was even at D 64 (within 4 %, either way) and costly at D 128 (404 -> 251
// TFLOP/s at N 4096): p v's 128 accumulator registers and A fragments stay held across
// q k^T's issue beside the cp.async rings' per-thread addresses, and ptxas spills (here:
// 68 -> 184 bytes at D 128). Without per-thread copy addresses (TMA) that may change.
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::lower {

// Returns the number of waits removed or moved.
int defer_wgmma_wait(simt::Function &f);

} // namespace tilec::lower
