// The shared-memory layouts of the ring buffers that layout/PipelineLoops fills with
// cp.async and the dots read in place (docs/ARCHITECTURE.md, "The fast matmul path").
// One choice, made here, used by the pass (the buffer's type) and by the lowering
// (descriptors, ldmatrix addresses, cp.async destinations).
//
// A stage holds one dot operand tile [d0, d1] (A: [M, K], B: [K, N]); `contiguous_dim`
// is the tile dim that runs contiguously in global memory (from the load's blocked
// layout order[0]): the stage keeps 16-byte chunks of it contiguous, so cp.async copies
// whole chunks.
//   wgmma (#mma<v=3> dot):  layout::wgmma_operand_smem, K-major when contiguous_dim is
//                           K, MN-major otherwise (16-bit elements only), with the
//                           arguments LowerWgmma uses (A: mn_instr 64, B: the instr N).
//   mma.sync (#dot_op of #mma<v=2>, 16-bit): row-major along contiguous_dim, swizzled
//                           with vec = 8 elements (16 bytes) and per_phase / max_phase
//                           such that any 8 consecutive rows' 16-byte chunks fall in 8
//                           distinct bank groups (ldmatrix and cp.async conflict-free).
#pragma once

#include <cstdint>
#include <optional>

#include "ir/IR.h"
#include "layout/LinearLayout.h"
#include "layout/WgmmaLayouts.h"

namespace tilec::layout {

// Whether the lowering reads operand `operand` (0: A, 1: B) of `dot` (layout-assigned)
// from a ring stage. The pass pipelines only such operands; PipelineLoads leaves their
// loads alone.
bool ring_consumer_supported(const ir::Op &dot, int operand);

// The same, before layout assignment (PipelineLoads): with the layout the dot will get
// (layout::dot_result_layout with the module's num_warps and wgmma attribute).
bool ring_consumer_supported_before_layouts(const ir::Op &dot, int operand, const ir::Module &m);

// The stage layout ("offset" in elements -> (dim0, dim1) of the operand tile), or nullopt
// when this consumer / dtype / order is not pipelined.
std::optional<LinearLayout> ring_stage_layout(const ir::Op &dot, int operand, int contiguous_dim);

// For a wgmma operand: the WgmmaOperandSmem whose .layout ring_stage_layout returns
// (swizzle, LBO, SBO, starts for the descriptors).
std::optional<WgmmaOperandSmem> ring_wgmma_smem(const ir::Op &dot, int operand, int contiguous_dim);

// The stage layout of a wgmma dot's operand before layout assignment (the dot's layout
// from layout::dot_result_layout); nullopt for other consumers.
std::optional<LinearLayout> wgmma_ring_stage_before_layouts(const ir::Op &dot, int operand,
                                                            int contiguous_dim,
                                                            const ir::Module &m);

// The contiguous dim a ring buffer type was made for (read back from its layout: the
// dim its first offset basis steps).
int ring_contiguous_dim(const ir::Type &buf);

// One stage of a ring buffer type as a linear layout: "offset" -> (dim0, dim1).
LinearLayout ring_stage_linear(const ir::Type &buf);

// A stage layout read transposed: "offset" -> (dim1, dim0) of the same elements.
LinearLayout transposed_stage(const LinearLayout &stage);

// Bytes of one stage (d0 * d1 * element bytes) of a ring buffer type; stage s starts at
// s * ring_stage_bytes.
int64_t ring_stage_bytes(const ir::Type &buf);

// (The buffer's alignment, 1024 bytes for wgmma readers: AllocateShared.h ring_alignment.)

} // namespace tilec::layout
