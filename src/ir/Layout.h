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
// Mma / dot-operand encodings (tensor-core issue) are later LayoutKind values with their
// own fields; code switching on LayoutKind must keep a default.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilec::ir {

enum class LayoutKind : uint8_t { Blocked, Slice, Shared, Linear };

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

  static LayoutRef blocked(std::vector<int32_t> spt, std::vector<int32_t> tpw,
                           std::vector<int32_t> wpc, std::vector<int32_t> order);
  static LayoutRef slice(int32_t dim, LayoutRef parent);
  static LayoutRef shared(int32_t vec, int32_t per_phase, int32_t max_phase,
                          std::vector<int32_t> order);
  static LayoutRef linear(int32_t rank,
                          std::vector<std::pair<std::string, std::vector<std::vector<int32_t>>>> b);

  int rank() const; // tile rank the layout applies to
  bool is_distributed() const { return kind != LayoutKind::Shared; }
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
