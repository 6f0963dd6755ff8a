// Layout assignment: gives every tile value of every function a distributed layout.
//
// 1. Anchors: each load/store/atomic gets a blocked layout chosen from axis info
//    (Triton's coalesce heuristic): dims ordered by contiguity of the pointer tile,
//    size_per_thread along the most contiguous dim = min(16 bytes / element size,
//    contiguity, alignment from divisibility, numel / threads), lanes and warps
//    (num_warps from the module attribute) filled along that order.
// 2. Forward propagation through elementwise and shape ops; reductions produce slice
//    layouts of their operand's layout, expand_dims the parent of a slice, etc. Values
//    with no anchor get a default blocked layout.
// 3. Where an operand's layout differs from what its user needs, a convert_layout op is
//    inserted. (The next pipeline stage, remove-conversions, removes those that
//    rematerialising cheap producers in the wanted layout avoids: RemoveConversions.h.)
//
// Afterwards every tile-typed value (op results, block arguments) has a layout, and the
// IR verifies (elementwise operands share a layout; loop-carried values match).
#pragma once

#include "analysis/AxisInfo.h"
#include "ir/IR.h"

namespace tilec::layout {

// Assignment and conversion insertion; the pipeline's next stage, remove_conversions
// (RemoveConversions.h), takes out the conversions it can.
void assign_layouts(ir::Module &m);

// The coalesced blocked layout for a memory access through the pointer tile `ptr`.
ir::LayoutRef coalesced_layout(const ir::Value *ptr, const analysis::AxisInfoAnalysis &ax,
                               int num_warps);

// The module's num_warps attribute (4 when absent).
int module_num_warps(const ir::Module &m);
// The module's "wgmma" attribute (set by the GPU pipeline for sm_90a targets): dots that
// qualify take the wgmma accumulator layout #mma<v=3>.
bool module_has_wgmma(const ir::Module &m);
// The module's "f64_mma" attribute (set by the GPU pipeline for sm_80 and sm_90, the
// targets whose tensor cores run fp64 at full rate, as Triton decides): fp64 dots that
// qualify take the mma.sync layouts instead of the FMA path.
bool module_has_f64_mma(const ir::Module &m);

} // namespace tilec::layout
