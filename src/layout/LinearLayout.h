// A linear layout: a linear map over F2 from the bits of hardware indices to the bits of
// tile coordinates (Zhou et al., "Linear Layouts", arXiv 2505.23819).
//
// Input dims are named ("register", "lane", "warp"; "offset" for shared memory), each of
// size 2^k; output dims are named too (tile dims "dim0", "dim1", ...), each of size 2^m.
// The map is given by its bases: for input dim d and bit i, the output vector
// (one coordinate per output dim) that index 1<<i of d maps to. An arbitrary input maps
// to the XOR of the bases of its set bits:
//
//   L(register=r, lane=l, warp=w) = XOR over set bits i of r: bases("register")[i]
//                                   ^ (same for l over "lane") ^ (same for w over "warp")
//
// So lowering can split a thread's coordinates into a compile-time part (the register
// index) and a run-time part (lane and warp) and XOR them. A zero basis means the bit
// does not change the element: that hardware resource holds a copy (broadcast).
//
// Conventions: input dims flatten with the first dim fastest (register, then lane, then
// warp); output dims flatten row-major, i.e. the LAST output dim fastest (tile order).
// Values are immutable; every operation returns a new layout.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tilec::layout {

inline constexpr const char *kRegister = "register";
inline constexpr const char *kLane = "lane";
inline constexpr const char *kWarp = "warp";
inline constexpr const char *kOffset = "offset";
std::string dim_name(int d); // "dim0", "dim1", ...

class LinearLayout {
public:
  using Basis = std::vector<int32_t>; // one coordinate per output dim
  struct InDim {
    std::string name;
    std::vector<Basis> bases; // bases.size() = log2(size of the dim)
  };
  struct OutDim {
    std::string name;
    int32_t size = 1; // a power of two
  };

  LinearLayout() = default; // the empty layout: no dims, maps () -> ()
  // Output dim sizes given explicitly; every basis must fit in them. Asserts on
  // malformed input (wrong basis lengths, non-powers of two, duplicate names).
  LinearLayout(std::vector<InDim> ins, std::vector<OutDim> outs);
  // Output dim sizes inferred: the smallest powers of two covering every basis.
  static LinearLayout from_bases(std::vector<InDim> ins, std::vector<std::string> out_names);

  static LinearLayout empty() { return {}; }
  // in i -> out i for i < size.
  static LinearLayout identity_1d(int32_t size, const std::string &in, const std::string &out);
  // every in index -> out 0 (size copies of one element); out dim of size `out_size`.
  static LinearLayout zeros_1d(int32_t size, const std::string &in, const std::string &out,
                               int32_t out_size = 1);
  // in i -> out i*stride (stride a power of two).
  static LinearLayout strided_1d(int32_t size, int32_t stride, const std::string &in,
                                 const std::string &out);

  // ---- shape ---------------------------------------------------------------------------
  const std::vector<InDim> &in_dims() const { return ins_; }
  const std::vector<OutDim> &out_dims() const { return outs_; }
  int num_in_dims() const { return static_cast<int>(ins_.size()); }
  int num_out_dims() const { return static_cast<int>(outs_.size()); }
  bool has_in_dim(const std::string &name) const;
  bool has_out_dim(const std::string &name) const;
  int in_dim_index(const std::string &name) const;  // asserts it exists
  int out_dim_index(const std::string &name) const; // asserts it exists
  // Size of a dim (1 when the layout does not have it).
  int32_t in_dim_size(const std::string &name) const;
  int32_t out_dim_size(const std::string &name) const;
  int in_dim_bits(const std::string &name) const; // log2 of the size
  int out_dim_bits(const std::string &name) const;
  int64_t total_in_size() const;
  int64_t total_out_size() const;
  int total_in_bits() const;
  int total_out_bits() const;
  const Basis &basis(const std::string &in, int bit) const;

  // ---- evaluation ----------------------------------------------------------------------
  // One index per input dim, in in_dims() order -> one coordinate per output dim.
  std::vector<int32_t> apply(const std::vector<int32_t> &in) const;
  // Named inputs (missing dims are 0) -> named outputs, in out_dims() order.
  std::vector<std::pair<std::string, int32_t>>
  apply_named(const std::vector<std::pair<std::string, int32_t>> &in) const;
  // The same as apply_named (a one-int braced list `{i}` is ambiguous between the two
  // apply overloads: spell it std::vector<int32_t>{i}).
  std::vector<std::pair<std::string, int32_t>>
  apply(const std::vector<std::pair<std::string, int32_t>> &in) const {
    return apply_named(in);
  }
  // Flattened forms (see the conventions above).
  int64_t apply_flat(int64_t flat_in) const;

  // ---- algebra -------------------------------------------------------------------------
  // Product (Triton's operator*): the union of both dims. An input dim in both gets
  // this layout's bits first, then `o`'s; an output dim in both has size the product of
  // the two, `o`'s coordinates scaled by this layout's size (o varies slower).
  LinearLayout operator*(const LinearLayout &o) const;
  // outer(this(x)): this layout's output dims must be outer's input dims (same names,
  // sizes may be smaller than outer's).
  LinearLayout compose(const LinearLayout &outer) const;
  // The inverse of a bijective layout (asserts): outputs become inputs.
  LinearLayout invert() const;
  // A right inverse of a surjective layout: R with this(R(y)) = y for every y; free
  // (broadcast) input bits map to 0. Asserts when not surjective.
  LinearLayout pseudo_invert() const;
  // C with outer(C(x)) = this(x), from this's inputs to outer's inputs; outer must be
  // surjective onto this's outputs (same output dims). Used for layout conversions:
  // src.invert_and_compose(dst) says where (in dst's hardware) each src element goes.
  LinearLayout invert_and_compose(const LinearLayout &outer) const;

  // ---- restructuring -------------------------------------------------------------------
  // Keep only these input and output dims (in the given order).
  LinearLayout sublayout(const std::vector<std::string> &ins,
                         const std::vector<std::string> &outs) const;
  // Reorder dims (a permutation of the existing names).
  LinearLayout transpose_ins(const std::vector<std::string> &order) const;
  LinearLayout transpose_outs(const std::vector<std::string> &order) const;
  // Reinterpret the flattened output (row-major) as new dims of the same total size.
  LinearLayout reshape_outs(const std::vector<OutDim> &outs) const;
  // Reinterpret the flattened input (first dim fastest) as new dims of the same size.
  LinearLayout reshape_ins(const std::vector<InDim> &shape_only) const;
  // Rename / resize dims.
  LinearLayout rename_in_dim(const std::string &from, const std::string &to) const;
  LinearLayout rename_out_dim(const std::string &from, const std::string &to) const;
  // Replaces one input dim's bases.
  LinearLayout with_in_bases(const std::string &in, std::vector<Basis> bases) const;

  // ---- properties ----------------------------------------------------------------------
  bool is_injective() const;  // no two inputs map to one output (no zero/dependent bases)
  bool is_surjective() const; // every output reached
  bool is_invertible() const { return is_injective() && is_surjective(); }
  // Per input dim, a bit mask of the input bits that are "free": the bit can be flipped
  // without changing the output, given the lower dims (zero bases and bases that repeat
  // the span of earlier ones): the replicated copies. Same order as in_dims().
  std::vector<int32_t> free_variable_masks() const;
  int32_t free_variable_mask(const std::string &in) const;
  // The number of consecutive `in` indices (from 0) that map to consecutive elements
  // along output dim `out` (other dims fixed): the vector width of a thread's registers
  // along that dim. 1 when the first basis of `in` does not step `out` by 1.
  int32_t num_consecutive_in_out(const std::string &in, const std::string &out) const;
  // The rank of the map (dimension of its image).
  int rank_f2() const;

  std::string str() const; // "register: [[0,1],[0,2]]; lane: ...; -> dim0:16, dim1:64"
  bool operator==(const LinearLayout &o) const;
  bool operator!=(const LinearLayout &o) const { return !(*this == o); }

private:
  std::vector<InDim> ins_;
  std::vector<OutDim> outs_;
};

} // namespace tilec::layout
