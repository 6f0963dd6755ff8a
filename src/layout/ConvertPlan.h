// What a layout conversion moves, read off the bases of the two linear layouts
// (DESIGN.md: register permutation, warp shuffles, or a trip through shared memory).
#pragma once

#include <string>

#include "layout/LinearLayout.h"

namespace tilec::layout {

enum class ConversionKind {
  None,        // the same map (possibly different encodings): nothing to do
  Registers,   // each thread already holds what it needs: permute/copy registers
  Shuffle,     // data moves between lanes of a warp only: warp shuffles
  SharedMemory // data crosses warps: store to shared memory, barrier, load
};

struct ConversionPlan {
  ConversionKind kind = ConversionKind::None;
  // src.invert_and_compose(dst) restricted to what matters: for each src hardware index,
  // the dst hardware index holding the same element (inputs and outputs: register, lane,
  // warp). Lowering may use it to build the per-register moves.
  LinearLayout src_to_dst;
  std::string str() const; // "registers", "shuffle", ... with a short reason
};

// Both layouts are distributed layouts of the same tile shape (same output dims).
ConversionPlan plan_conversion(const LinearLayout &src, const LinearLayout &dst);

const char *conversion_kind_name(ConversionKind k);

} // namespace tilec::layout
