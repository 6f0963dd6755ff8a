// Global-memory accesses of V consecutive elements (private to src/lower): the vector
// width a layout and axis info allow, and the packed load/store of V elements as words.
#pragma once

#include "lower/LoweringContext.h"

namespace tilec::lower {

// Elements per access for a tile of pointers `ptr` in layout `l` (registers g..g+V-1 of
// each group of V are consecutive along the thread's contiguous dim, aligned, and under
// one mask value): a power of two, at most 16 bytes.
int vector_width(LoweringContext &c, const ir::Value *ptr, const ir::Value *mask,
                 const layout::LinearLayout &l, int elem_bytes);

// Loads `vec` consecutive elements of type `elem` from `addr` (u64). With `masked`, the
// load runs under `guard` and the results start as `init` (per element; an invalid Reg is
// 0). Returns fresh registers, one per element.
std::vector<Reg> load_vector(LoweringContext &c, Reg addr, int vec, const ir::Type &elem, Reg guard,
                             bool masked, const std::vector<Reg> &init,
                             const simt::MemHints &hints);

// Stores `vals` (consecutive elements of type `elem`) at `addr`, under `guard` if valid.
void store_vector(LoweringContext &c, Reg addr, const std::vector<Reg> &vals, const ir::Type &elem,
                  Reg guard, const simt::MemHints &hints);

} // namespace tilec::lower
