// Constructors of linear layouts for the layout encodings (ir/Layout.h), and the
// queries lowering needs. Every encoding's meaning is its linear layout.
//
// Distributed layouts map (register, lane, warp) -> (dim0, ..., dimN-1); shared layouts
// map (offset) -> (dim0, ...). Threads per warp is always 32.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/Layout.h"
#include "ir/Type.h"
#include "layout/LinearLayout.h"

namespace tilec::layout {

inline constexpr int kWarpSize = 32;

// The smallest k with 2^k >= v (bits of an index over v elements).
inline int log2i(int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) < v)
    ++k;
  return k;
}

// A blocked layout for `shape`, as Triton builds it: registers (size_per_thread), then
// lanes, then warps, each filling dims in `order` (fastest first). Where the CTA tile
// (spt*tpw*wpc) is larger than the shape, the lane/warp bits that would step past it
// become zero (those threads hold copies) and such register bits are dropped; where it
// is smaller, extra register bits repeat the CTA tile (minor dims first).
LinearLayout blocked(const std::vector<int32_t> &size_per_thread,
                     const std::vector<int32_t> &threads_per_warp,
                     const std::vector<int32_t> &warps_per_cta, const std::vector<int32_t> &order,
                     const ir::Shape &shape);

// Fits a CTA-level layout (out dims named dim<d>) to `shape`: bits that step past the
// shape become broadcast (lanes, warps) or are dropped (registers); a layout smaller than
// the shape repeats in registers, fastest dims (in `order`) first.
LinearLayout fit_to_shape(const LinearLayout &cta, const ir::Shape &shape,
                          const std::vector<int32_t> &order);

// The parent layout (of a tile of rank r+1) with output dim `dim` removed: the bits that
// stepped along it become broadcast, and register bits that only stepped along it are
// dropped (a thread keeps one copy). Output dims are renamed dim0..dim(r-1).
LinearLayout slice(const LinearLayout &parent, int dim);

// Shared memory, offset (in elements) -> coordinates. `order` fastest dim first.
// Unswizzled: row-major along `order`.
LinearLayout shared_unswizzled(const std::vector<int32_t> &order, const ir::Shape &shape);
// Swizzled (Triton's vec/perPhase/maxPhase): within the 2-D tile of the two fastest dims,
// row r's column (in units of vec) is XOR-ed with (r / per_phase) % max_phase. Dims past
// the first two are stacked as unswizzled.
LinearLayout shared_swizzled(int32_t vec, int32_t per_phase, int32_t max_phase,
                             const std::vector<int32_t> &order, const ir::Shape &shape);

// The linear layout of an encoding for a tile of `shape` (rank must match).
LinearLayout to_linear(const ir::Layout &l, const ir::Shape &shape);
// Of a tile type; asserts the type has a layout.
LinearLayout to_linear(const ir::Type &t);

// A blocked encoding for `shape` with the given size_per_thread and order, spreading the
// 32 lanes and then `num_warps` warps over the dims in `order` without exceeding the
// shape where possible (the rest goes to the slowest dim), as Triton does.
ir::LayoutRef blocked_for_shape(const ir::Shape &shape, const std::vector<int32_t> &spt,
                                const std::vector<int32_t> &order, int num_warps);

// A blocked encoding of rank `rank` with the default shape-agnostic choice Triton makes
// (sizePerThread 1, lanes and warps along `order`) for `shape` and `num_warps`.
ir::LayoutRef default_blocked(const ir::Shape &shape, int num_warps,
                              std::vector<int32_t> order = {});

// ---- queries used by lowering ------------------------------------------------------
// Registers per thread (size of the register dim).
int32_t registers_per_thread(const LinearLayout &l);
// Elements each thread holds contiguously along tile dim `dim` (register vector width).
int32_t contiguous_per_thread(const LinearLayout &l, int dim);
// Shared-memory bank conflicts of one warp accessing a tile held in `dist` (a
// distributed layout) and stored in `shared` (offset -> coordinates, a bijection of the
// same shape): the worst number of wavefronts over the warp's accesses, register by
// register (1: conflict-free). Banks are 32 words of 4 bytes; lanes reading the same word
// do not conflict. Used to choose swizzles for conversions and staged operands.
int shared_bank_conflicts(const LinearLayout &dist, const LinearLayout &shared, int elem_bytes);

// Coordinates of register `reg` of thread (lane, warp).
std::vector<int32_t> coords_of(const LinearLayout &l, int32_t reg, int32_t lane, int32_t warp);

} // namespace tilec::layout
