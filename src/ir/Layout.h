// Layout attributes of tile types: which thread holds which element (distributed
// layouts) or where an element lives in shared memory (shared layouts).
//
// This is the *encoding* attached to a tile type after layout assignment; it is plain
// data so that ir/ can print, parse and compare it. Its meaning is a linear layout over
// F2 (layout/LinearLayout.h): layout::to_linear(attr, shape) builds that map, and every
// consumer (conversion planning, lowering, the SIMT simulator, tests) works on the
// linear form. Kinds:
//
//   #blocked<spt=[1,4], tpw=[8,4], wpc=[4,1], order=[1,0]>
//       size_per_thread / threads_per_warp / warps_per_cta per tile dim; `order` lists the
//       dims fastest-varying first. A tile larger than the CTA tile (spt*tpw*wpc) wraps
//       around in registers; a smaller one broadcasts lanes/warps (replication).
//   #slice<dim=1, #blocked<...>>
//       the parent layout with tile dim `dim` removed (the result of reducing `dim`).
//   #shared<vec=8, per_phase=1, max_phase=8, order=[1,0]>
//       a (swizzled) shared-memory layout: offset -> coordinates, row-major along
//       `order`; vec=1, per_phase=1, max_phase=1 is unswizzled.
//   #linear<register=[[0,1],[0,2]], lane=[[1,0],...], warp=[...], offset=[...]>
//       any linear layout, given by its bases: for each input dim, one output vector
//       per input bit (components in tile-dim order: dim0, dim1, ...).
//
//   #mma<v=2, wpc=[2,2], instr=[16,8]>
//       the accumulator of mma.sync (v=2): each warp owns 16x8 instruction tiles (`instr`,
//       batched: [1,16,8]) as the PTX ISA's C fragment places them; warps_per_cta tile the
//       CTA, and larger tiles repeat in registers (layout/MmaLayouts.h).
//   #dot_op<idx=0, parent=#mma<...>, k_width=2>
//       operand idx (0: A [M,K], 1: B [K,N]) of a dot whose result has layout `parent`;
//       k_width = consecutive K elements per 32-bit register (2 for 16-bit types, 1 for
//       tf32, 4 for 8-bit). With a blocked parent: the FMA path (each thread holds whole K
//       rows/columns for its result elements; k_width unused, 0).
//
// Code switching on LayoutKind must keep a default (more kinds may come).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilec::ir {

enum class LayoutKind : uint8_t { Blocked, Slice, Shared, Linear, Mma, DotOperand };

struct Layout;
using LayoutRef = std::shared_ptr<const Layout>; // immutable, shared between types

struct Layout {
  LayoutKind kind = LayoutKind::Blocked;

  // Blocked (all of length rank), and Shared's `order`.
  std::vector<int32_t> size_per_thread, threads_per_warp, warps_per_cta, order;

  // Slice: the parent's tile dim removed (parent rank = this rank + 1).
  int32_t dim = 0;
  LayoutRef parent;

  // Shared swizzle: row r of the fastest dim is XOR-ed in units of `vec` elements with
  // phase = (r / per_phase) % max_phase.
  int32_t vec = 1, per_phase = 1, max_phase = 1;

  // Linear: (input dim name, bases); each basis has one component per tile dim.
  std::vector<std::pair<std::string, std::vector<std::vector<int32_t>>>> bases;
  int32_t linear_rank = 0; // number of output (tile) dims of a Linear layout

  // Mma (warps_per_cta as above) and DotOperand (parent as above).
  int32_t mma_version = 2;
  std::vector<int32_t> instr_shape; // per tile dim: [16, 8] (batched [1, 16, 8])
  int32_t op_idx = 0;               // dot operand: 0 = A, 1 = B
  int32_t k_width = 0;              // dot operand: K elements per 32-bit register

  static LayoutRef blocked(std::vector<int32_t> spt, std::vector<int32_t> tpw,
                           std::vector<int32_t> wpc, std::vector<int32_t> order);
  static LayoutRef slice(int32_t dim, LayoutRef parent);
  static LayoutRef shared(int32_t vec, int32_t per_phase, int32_t max_phase,
                          std::vector<int32_t> order);
  static LayoutRef linear(int32_t rank,
                          std::vector<std::pair<std::string, std::vector<std::vector<int32_t>>>> b);
  static LayoutRef mma(int32_t version, std::vector<int32_t> wpc, std::vector<int32_t> instr);
  static LayoutRef dot_operand(int32_t idx, LayoutRef parent, int32_t k_width);

  int rank() const; // tile rank the layout applies to
  // Shared layouts and linear ones over the single input "offset" (the ring buffers of
  // local_alloc) place elements in memory; the others distribute them over threads.
  bool is_distributed() const {
    return kind != LayoutKind::Shared &&
           !(kind == LayoutKind::Linear && bases.size() == 1 && bases[0].first == "offset");
  }
  // Product of warps_per_cta for blocked (through slices); 0 if not known from the encoding.
  int num_warps() const;
  std::string str() const; // the syntax above
  bool operator==(const Layout &o) const;
  bool operator!=(const Layout &o) const { return !(*this == o); }
};

// Deep equality of two possibly-null references.
bool same_layout(const LayoutRef &a, const LayoutRef &b);

// Parses the text written by Layout::str() (starting at '#'); nullopt when malformed.
// On success `consumed` (if given) receives the number of characters read.
std::optional<LayoutRef> parse_layout(std::string_view s, size_t *consumed = nullptr);

// Problems with an attribute applied to a tile of rank `rank` ("" when fine): field
// lengths, powers of two, permutation orders, slice dims.
std::string check_layout(const Layout &l, int rank);

} // namespace tilec::ir
