// The shared-memory ring ops (Ops.def: local_alloc, async_copy, async_commit, async_wait,
// local_load): their verifier rules and the buffer type's shape, shared by the verifier,
// the pass that makes them (layout/PipelineLoops) and the lowering.
#pragma once

#include <string>

#include "ir/IR.h"

namespace tilec::ir {

bool is_ring_op(OpKind k);

// The mark the stage "plan-rings" (layout/PlanRings.h) puts on each load that goes into
// a ring (`ring = 1`): "pipeline-loads" leaves those loads alone, "pipeline-loops" takes
// only those.
inline constexpr const char *kRingLoadAttr = "ring";

// A ring buffer type: tile<S x d0 x d1 x elem> with a #linear layout over "offset".
bool is_ring_buffer_type(const Type &t);

// The buffer type of an S-stage ring of [d0, d1] tiles of `elem`, placed by
// `stage_bases` (one basis per bit of the offset within a stage, each (d0, d1)).
Type ring_buffer_type(DType elem, int64_t stages, int64_t d0, int64_t d1,
                      const std::vector<std::vector<int32_t>> &stage_bases);

// Whether argument i of `fn` is a host descriptor's tensor map (Sema names it
// "<descriptor>.tmap"; CompileOptions::tma): lowered as a 128-byte .param, not a pointer.
bool is_tensor_map_arg(const Function &fn, size_t i);

// The module attribute "tma_box.<tensor-map argument name>" = [rows, cols, swizzle bytes]:
// the box its TMA copies use (written by pipeline-loops, read into kernel metadata).
inline constexpr const char *kTmaBoxAttrPrefix = "tma_box.";

// "" when `op` (a ring op) follows Ops.def's rules, else what is wrong.
std::string verify_ring_op(const Op &op);

} // namespace tilec::ir
