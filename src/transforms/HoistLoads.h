// Loads issued ahead of the cross-warp work they do not wait for (GPU path only): in a
// kernel's entry block, a load that comes after a reduce or scan and does not depend on it
// moves up, with the pure ops that compute its pointer, mask and `other`, to just before
// the first such reduce or scan. ptxas never moves a load across the bar.sync that a
// cross-warp reduction lowers to, so LayerNorm's loads of W and B waited for both
// reductions; issued next to X's they overlap its latency (LayerNorm 4096x8192 on an H100:
// +2.0 %). Only when it is safe: no store, atomic, print, assert or debug barrier before
// the load in the block, no volatile load, no if or loop crossed. Only when it pays:
// kernels of 8 or more warps (few CTAs per SM; with 4 warps, LayerNorm 32768x1024 lost
// 0.16 %: sixteen CTAs an SM hide the wait already), and at most 128 bytes a thread moved.
#pragma once

#include "ir/IR.h"

namespace tilec::transforms {

void hoist_loads(ir::Module &m);

} // namespace tilec::transforms
