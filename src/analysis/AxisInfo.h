// Axis info: for every integer and pointer value (scalar or tile), per dim,
//  - divisibility: the largest power of two dividing the first element of every
//                  contiguous run along the dim (pointers: in bytes); where contiguity
//                  is 1 that is every element. (Triton's meaning: offsets
//                  pid*1024 + arange(0, 1024) have divisibility 1024.)
//  - contiguity:   the length of runs of +1 along the dim (pointers: +1 element);
//  - constancy:    the length of runs of equal values along the dim.
// Runs start at multiples of their length (contiguity 4 means elements [4k, 4k+4) along
// the dim are v, v+1, v+2, v+3). All three are powers of two. Values are assumed
// non-negative where division and shifts meet runs, as Triton does.
//
// Seeded by the module's `tt.divisibility` attribute (one entry per kernel argument:
// 16 for 16-byte-aligned pointers and ints divisible by 16, else 1) and by `hint` ops
// (divisibility / contiguity / constancy). Loops run to a fixed point.
//
// Used by layout assignment (vector width of loads/stores) and lowering (alignment).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/IR.h"

namespace tilec::analysis {

struct AxisInfo {
  // One entry per dim; a scalar has one entry (as a 1-element tile).
  std::vector<int64_t> divisibility, contiguity, constancy;
  std::optional<int64_t> constant; // a known value, same for every element

  int rank() const { return static_cast<int>(divisibility.size()); }
  // The most conservative facts for a value of this rank (what nothing is known about).
  static AxisInfo unknown(int rank);
  static AxisInfo of_constant(int64_t v, const std::vector<int64_t> &shape);
  // The facts true of both (the lattice meet): used where values merge.
  static AxisInfo meet(const AxisInfo &a, const AxisInfo &b);
  bool operator==(const AxisInfo &o) const = default;
  std::string str() const; // "div=[16], contig=[1024], const=[1]"
};

class AxisInfoAnalysis {
public:
  // Analyses `fn`; `module` supplies the tt.divisibility attribute (may be null).
  AxisInfoAnalysis(const ir::Function &fn, const ir::Module *module);

  // Facts of an integer/pointer value (unknown for floats and values not seen).
  const AxisInfo &get(const ir::Value *v) const;

  // Helpers for vectorisation of a pointer tile along dim `dim`:
  // elements per contiguous, aligned run (min of contiguity and alignment in elements).
  int64_t ptr_vector_elems(const ir::Value *ptr, int dim) const;
  // Dims ordered by decreasing contiguity (ties: the later dim first), Triton's
  // getOrder-by-contiguity for coalescing.
  std::vector<int32_t> order_by_contiguity(const ir::Value *ptr) const;

private:
  std::unordered_map<const ir::Value *, AxisInfo> info_;
  mutable std::unordered_map<int, AxisInfo> unknown_; // by rank, for values never seen
  void run_block(const ir::Block &b);
  void run_op(const ir::Op &op);
  void run_for(const ir::Op &op);
  void run_while(const ir::Op &op);
  void set(const ir::Value *v, AxisInfo a);
  std::vector<AxisInfo> infos(const std::vector<ir::Value *> &vs) const;
};

// Text of every op's result facts, for tests and TILEC_DUMP-like debugging:
// one line per value "%name: div=[..], contig=[..], const=[..]".
std::string dump_axis_info(const ir::Module &m);

} // namespace tilec::analysis
