// How a ring stage is filled by TMA (cp.async.bulk.tensor) rather than per-thread
// cp.async: the box and swizzle whose placement in shared memory is exactly the stage's.
//
// A 2-D box [b0, p] (p elements of the contiguous dim, b0 rows) lands row after row, p
// elements a row, and with an S-byte swizzle the 16-byte chunk bits [4, 4 + log2(S/16))
// of each shared address are XORed with bits [7, ...) (the same rule as the wgmma
// operand layouts, which is why they can match). A block [r0, r1] wider than one swizzle
// row (r1 > S / elem bytes) is copied as r1 / p panels [r0, p], one after the other.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "analysis/AxisInfo.h"
#include "ir/IR.h"
#include "layout/LinearLayout.h"

namespace tilec::layout {

struct TmaCopyPlan {
  int64_t box0 = 0, box1 = 0; // the box [rows, elements of the contiguous dim]
  int swizzle_bytes = 0;      // 128, 64, 32 or 0
  int64_t panels = 1;         // copies per stage, panel k at k * box0 * box1 elements and
                              // column k * box1 of the block
};

// The plan that places a [rows, cols] block (cols contiguous in global memory, elements of
// `elem_bytes`) exactly as `stage` does ("offset" -> (dim0, dim1) of the dot operand tile),
// where the operand tile is the block itself (`transposed` false) or its transpose; nullopt
// when no TMA box does.
std::optional<TmaCopyPlan> tma_copy_plan(const LinearLayout &stage, int64_t rows, int64_t cols,
                                         bool transposed, int elem_bytes);

// The element offset within a stage at which TMA puts element (r, c) of the block.
int64_t tma_element_offset(const TmaCopyPlan &p, int64_t r, int64_t c, int elem_bytes);

// Whether copies issued before and in `loop` may use the tensor map that the tma load
// `load` carries: a host descriptor's (a kernel argument, checked by the launch), or one
// the kernel builds (make_tmap) outside the loop. TMA needs a 16-byte aligned base and
// strides of whole 16-byte units: tl.make_tensor_descriptor's contract, as in Triton (a
// map built from values axis info cannot prove so checks them when it is built).
// `loop` may be null: no loop (a store's map, which must then be made in the function's
// body, outside every loop). `kernel_maps`: the target builds maps (module attribute
// kKernelMapsAttr: tensormap.replace is sm_90a's).
bool tma_map_usable(const ir::Op &load, const ir::Op *loop, bool kernel_maps);

// Whether axis info proves `make_tmap`'s base 16-byte aligned and its stride whole 16-byte
// units; otherwise its lowering checks them when the kernel runs (Triton's contract).
bool tma_map_provably_aligned(const ir::Op &make_tmap, const analysis::AxisInfoAnalysis &ax);

// The module attribute that lets kernels build tensor maps (set for sm_90a targets).
inline constexpr const char *kKernelMapsAttr = "kernel_maps";

// The boxes a TMA store of a [rows, cols] block of `elem_bytes` elements stages: the
// widest swizzle whose rows the block's rows fill (panels side by side); nullopt when TMA
// cannot store it (rows over 256, rows of under 16 bytes).
std::optional<TmaCopyPlan> tma_store_plan(int64_t rows, int64_t cols, int elem_bytes);

// Offset (elements) -> (dim0, dim1) of the plan's placement of a [rows, cols] block
// (tma_element_offset as a linear layout over "offset").
LinearLayout tma_box_layout(const TmaCopyPlan &p, int64_t rows, int64_t cols, int elem_bytes);

// Each tma store (Ops.def) of a 2-D block whose map tma_map_usable accepts (the store's
// function as its loop), whose inner extent is provably whole 16-byte units and whose box
// `boxes` leaves free becomes tma_store, reading the value in its producer's layout (a
// conversion into the store's layout is skipped); the map's box goes into `boxes`. One in
// a loop is {defer = 1} (unless TILEC_TMA_STORE_DEFER=0): its wait for the boxes' reads of
// shared memory moves to its next staging (a persistent kernel's next tile computes while
// the store drains) and the function's end, its staging its own (AllocateShared).
void make_tma_stores(ir::Module &m, std::map<ir::Value *, TmaCopyPlan> &boxes);

// The outermost `for` / `while` around `op` (null: none).
const ir::Op *outermost_loop(const ir::Op &op);

// The make_tmap ops of `m`: the descriptors made in the kernel whose loads or stores might
// use a map (counted before rings replace loads and the unused maps die).
int64_t count_kernel_maps(const ir::Module &m);

// The maps built in the kernel that copies use (in `boxes`, by value) get their box,
// swizzle and a global scratch slot (Ops.def make_tmap). When one does, the module
// attribute `scratch_bytes` is 128 bytes (per program) for each of `descriptors` (at
// least the slots used): Triton's request counts every descriptor the kernel makes.
// Called once the rings and TMA stores are made.
void place_kernel_maps(ir::Module &m, const std::map<ir::Value *, TmaCopyPlan> &boxes,
                       int64_t descriptors);

} // namespace tilec::layout
