// A Thread IR pass run at the end of lowering: fewer wgmma.wait_group, so the tensor
// cores work on while the next instructions issue.
//
// Within a block (always): a group retired at once (`commit; wait_group 0`) whose block
// retires it again at its next wait (attention backward's dv dot, then dp's dot and its
// wait_group 0) drops its own wait when nothing in between touches the group's registers,
// writes memory or passes a barrier. dv's accumulation then runs beside dp's issue, as in
// Triton's kernels.
//
// Across a back edge (see "When" below): a loop body whose last wgmma group is
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
// When (TILEC_WGMMA_DEFER): by default ("auto") only in loop bodies committing three
// groups or more. On an H200 (N 4096, same runs): tutorial 06's backward (four dots, dk's
// group deferred) +3 % at D 64, even at D 128; two-dot forward bodies (p v deferred) ran
// slower: the seed attention -17 % at D 64 (cp.async rings; no spills, 203 -> 218
// registers), tutorial 06's D 128 warp_specialize forward -13 %, and an earlier build's
// D 128 forward 404 -> 251 TFLOP/s (ptxas spilled 68 -> 184 bytes): p v's accumulators
// and A fragments stay held across q k^T's issue. "1" defers in every loop, "0" never.
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::lower {

// Returns the number of waits removed or moved.
int defer_wgmma_wait(simt::Function &f);

} // namespace tilec::lower
