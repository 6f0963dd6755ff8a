// A tile's trip through shared memory: where a conversion's scratch places the elements
// (a row-major or swizzled layout, its 16-byte chunks' byte pairs reordered so an mma
// accumulator of bytes stores with stmatrix), and the stores and loads of a placement,
// vectorised over each thread's runs of neighbouring elements (in any register order).
#pragma once

#include <vector>

#include "layout/LinearLayout.h"
#include "lower/LoweringContext.h"

namespace tilec::lower {

// Shared memory offset -> coordinates for converting the tile from `src` to `dst`
// ((register, lane, warp) -> coordinates): row-major, or a swizzle of the two minor dims
// (Triton's vec / max_phase), a byte tile's either with its pairs reordered for stmatrix
// (`stmatrix`: available, sm_90+ and a 16-byte aligned scratch) -- the candidate whose
// accesses, as store_to_shared and load_from_shared emit them, take the fewest
// shared-memory wavefronts.
layout::LinearLayout scratch_layout(const layout::LinearLayout &src,
                                    const layout::LinearLayout &dst, const ir::Type &elem,
                                    bool stmatrix);

// Loads the tile of placement `off` ((register, lane, warp) -> element offset from byte
// `base`), registers holding the same element reading it once. The caller orders it.
std::vector<Reg> load_from_shared(LoweringContext &c, const layout::LinearLayout &off,
                                  const ir::Type &elem, int64_t base);

// store_to_shared (the mirror of load_from_shared) is declared in LoweringContext.h.

} // namespace tilec::lower
