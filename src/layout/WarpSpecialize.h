// warp-specialize (GPU stage, after pipeline-loops and sink-past-loops): a loop marked
// tl.range(..., warp_specialize=True) whose ring copies are all TMA copies (sm_90) gets a
// producer warp. TILEC_WARP_SPECIALIZE=1 turns it on (the module attribute
// `warp_specialize`, set by GpuPipeline; off by default until measured on a GPU).
//
// Before (pipeline-loops): every warp waits for stage c's bytes, reads it, and after the
// wgmma wait that retires the previous iteration's reads a barrier lets thread 0 refill
// that stage for iteration i + S - 1 (the copies also run S - 1 iterations ahead in a
// prologue). After:
//
//   rings = local_alloc {tma, free = num_warps}    (hoisted to the kernel's start)
//   [what the copies' tensor maps need, run by every warp]
//   warp_specialize {producer_warps = 1}
//   producer: a copy of the kernel from here on stripped to what the TMA copies need:
//       prologue copies; in the loop, before each copy:
//       tma_wait {free} (ring, stage, parity, in_range)    (the stage's readers are done)
//   consumer: the kernel from here on, the copies gone, each in-loop copy replaced by
//       tma_free (ring, stage, iv != lb)                   (each warp: done with the stage
//                                                            the last iteration read)
//
// The consumers then pass no CTA barrier per K step and the producer runs up to S - 1
// stages ahead, through a persistent loop's epilogues too. Parity of the free wait for the
// copy at iteration i (stage c, full-barrier phase p, target stage (c + S - 1) % S):
// c == 0 ? p ^ 1 : p (the target's previous fill was released at this iteration; a fresh
// barrier completes parity 1 at once). cp.async rings (pointer loads) whose stages signal
// mbarriers (pipeline-loops makes them so for these loops when the kernel has 4 warps:
// local_alloc {mbar}, async_arrive) take part too: their producer is as many warps as the
// consumers, running the copy code as written (thread indices alias the consumers', module
// attribute producer_alias), each ring's copies and arrival in an `if` on the iteration
// existing. The loop is left alone when a copy depends on what only the consumers compute
// (a loaded value, a dot), when the code before the split point has side effects, or when
// a ring is filled by cp.async commit groups.
#pragma once

#include "ir/IR.h"

namespace tilec::layout {

void warp_specialize(ir::Module &m);

} // namespace tilec::layout
