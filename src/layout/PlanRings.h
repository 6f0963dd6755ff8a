// The GPU stage "plan-rings" (before "pipeline-loads" and layout assignment): the one
// decision of which loads go into shared-memory rings (layout/PipelineLoops.h makes them),
// made with what is known before layouts (each dot's layout from its shape and the
// module's wgmma choice, contiguity from axis info). Each load in a loop this stage takes,
// whose every reader is a dot operand a ring can feed, with a zero `other`, 2-byte or
// wider elements and runs of 4 bytes or more, gets ir::kRingLoadAttr (`ring = 1`).
// "pipeline-loads" leaves those to "pipeline-loops", which takes only those; a load still
// marked after it was planned but not taken (its layout did not allow the copy runs or the
// stage layout the plan assumed) is loaded where it is.
//
// A load may feed several wgmma dots of its block (attention backward's qT: k @ qT and
// dsT @ qT^T), each directly or through a transpose, when every one of them reads the
// stage the first one places: the same bytes for each element (K-major for one reader is
// MN-major for the transposed one). Every reader then reads the one stage in place.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/IR.h"
#include "layout/RingLayouts.h"

namespace tilec::layout {

// A dot operand a load's result reaches through single-use permute / convert_layout ops in
// the load's block.
struct RingConsumer {
  ir::Op *dot = nullptr;
  int operand = -1;
  std::vector<ir::Op *> chain; // the permute / convert_layout ops from the load to the dot
  bool transposed = false;     // an odd number of (rank-2) permutes on the way
};

// The dot operands `load` feeds, in block order, when every user of its result leads to
// one; empty otherwise.
std::vector<RingConsumer> ring_consumers(const ir::Op &load);

// Whether the readers after the first read the first one's stage: stage(c) is a reader's
// stage layout in its own operand's coordinates (nullopt: none). One reader: always.
template <typename StageOf>
bool ring_readers_share_stage(const std::vector<RingConsumer> &cs, StageOf &&stage) {
  if (cs.size() < 2)
    return true;
  auto first = stage(cs[0]);
  for (size_t i = 1; first && i < cs.size(); ++i) {
    auto mine = stage(cs[i]);
    if (!mine ||
        *mine != (cs[i].transposed != cs[0].transposed ? transposed_stage(*first) : *first))
      return false;
  }
  return first.has_value();
}

// The loop's stage count when its loads can go into rings (S >= 2, no side effects, a
// positive constant step), else 0.
int64_t ring_stages(ir::Op &loop, int64_t module_stages);

void plan_rings(ir::Module &m);

} // namespace tilec::layout
