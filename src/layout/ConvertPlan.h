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
  // dst.invert_and_compose(src): for each dst hardware index (register, lane, warp), a
  // src hardware index holding the same element (where a receiving thread reads from).
  // With replicated src elements the holder with the lowest register/lane/warp bits wins.
  LinearLayout dst_to_src;
  std::string str() const; // "registers", "shuffle", ... with a short reason
};

// Both layouts are distributed layouts of the same tile shape (same output dims).
ConversionPlan plan_conversion(const LinearLayout &src, const LinearLayout &dst);

const char *conversion_kind_name(ConversionKind k);

} // namespace tilec::layout
