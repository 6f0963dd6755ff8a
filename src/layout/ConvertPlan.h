// What a layout conversion moves, read off the bases of the two linear layouts
// (DESIGN.md: register permutation, warp shuffles, or a trip through shared memory).
#pragma once

#include <optional>
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

// A conversion through shared memory may go in chunks (as Triton's does when its scratch
// would not fit): a register bit of src and one of dst with the same basis, a single
// coordinate bit no other basis of either layout touches, splits the tile in two halves
// each thread holds the same registers of in both layouts, so each half can take the trip
// alone through half the scratch.
struct ChunkBit {
  int src_reg = 0, dst_reg = 0; // the register bits
  int dim = 0, bit = 0;         // the coordinate bit they step
};

// Such a bit of src and dst (the highest src register bit that qualifies), if any.
std::optional<ChunkBit> chunk_bit(const LinearLayout &src, const LinearLayout &dst);

// `l` with register bit `reg` gone and coordinate bit (dim, bit) squeezed out of the tile
// (that dim half as large): the layout of one half.
LinearLayout drop_chunk_bit(const LinearLayout &l, int reg, int dim, int bit);

// How many times chunk_bit applies in a row (the conversion can go in up to 2^n chunks).
int chunk_bits_available(const LinearLayout &src, const LinearLayout &dst);

} // namespace tilec::layout
