#include "layout/LinearLayout.h"

#include <algorithm>

#include "support/Diagnostics.h"

namespace tilec::layout {

std::string dim_name(int d) { return "dim" + std::to_string(d); }

namespace {

int log2_exact(int64_t v) {
  TILEC_ASSERT(v > 0 && (v & (v - 1)) == 0,
               "linear layout sizes must be powers of two, got " + std::to_string(v));
  int k = 0;
  while ((int64_t{1} << k) < v)
    ++k;
  return k;
}

// A linear map over F2 as columns: column j = image of input bit j, packed into a
// uint64_t (output bits of dim 0 lowest, then dim 1, ...). Used for elimination.
struct BitMatrix {
  int rows = 0; // output bits
  std::vector<uint64_t> cols;
};

// Rank of a set of packed vectors, and for each vector whether it was independent of the
// ones before it (Gaussian elimination, in order).
int eliminate(const std::vector<uint64_t> &vecs, std::vector<bool> *independent) {
  std::vector<uint64_t> basis; // reduced, each with a distinct leading bit
  if (independent)
    independent->assign(vecs.size(), false);
  for (size_t i = 0; i < vecs.size(); ++i) {
    uint64_t v = vecs[i];
    for (uint64_t b : basis)
      if (v & (uint64_t{1} << (63 - __builtin_clzll(b))))
        v ^= b;
    if (v) {
      // keep the basis reduced so each leading bit appears in one vector only
      uint64_t lead = uint64_t{1} << (63 - __builtin_clzll(v));
      for (uint64_t &b : basis)
        if (b & lead)
          b ^= v;
      basis.push_back(v);
      if (independent)
        (*independent)[i] = true;
    }
  }
  return static_cast<int>(basis.size());
}

} // namespace

// ---- construction ----------------------------------------------------------------------

LinearLayout::LinearLayout(std::vector<InDim> ins, std::vector<OutDim> outs)
    : ins_(std::move(ins)), outs_(std::move(outs)) {
  for (size_t i = 0; i < outs_.size(); ++i) {
    log2_exact(outs_[i].size);
    for (size_t j = 0; j < i; ++j)
      TILEC_ASSERT(outs_[i].name != outs_[j].name, "duplicate output dim " + outs_[i].name);
  }
  for (size_t i = 0; i < ins_.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      TILEC_ASSERT(ins_[i].name != ins_[j].name, "duplicate input dim " + ins_[i].name);
    for (const Basis &b : ins_[i].bases) {
      TILEC_ASSERT(b.size() == outs_.size(), "basis of '" + ins_[i].name + "' has " +
                                                 std::to_string(b.size()) + " entries for " +
                                                 std::to_string(outs_.size()) + " output dims");
      for (size_t k = 0; k < b.size(); ++k)
        TILEC_ASSERT(b[k] >= 0 && b[k] < outs_[k].size,
                     "basis of '" + ins_[i].name + "' steps outside output dim " + outs_[k].name);
    }
  }
  TILEC_ASSERT(total_in_bits() <= 63 && total_out_bits() <= 63, "linear layout too large");
}

LinearLayout LinearLayout::from_bases(std::vector<InDim> ins, std::vector<std::string> out_names) {
  std::vector<OutDim> outs;
  for (size_t k = 0; k < out_names.size(); ++k) {
    int32_t mx = 0;
    for (const InDim &d : ins)
      for (const Basis &b : d.bases)
        if (k < b.size())
          mx = std::max(mx, b[k]);
    int32_t size = 1;
    while (size <= mx)
      size *= 2;
    outs.push_back({out_names[k], size});
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::identity_1d(int32_t size, const std::string &in,
                                       const std::string &out) {
  return strided_1d(size, 1, in, out);
}

LinearLayout LinearLayout::strided_1d(int32_t size, int32_t stride, const std::string &in,
                                      const std::string &out) {
  int k = log2_exact(size);
  log2_exact(stride);
  InDim d{in, {}};
  for (int i = 0; i < k; ++i)
    d.bases.push_back({stride << i});
  return LinearLayout({d}, {{out, size * stride}});
}

LinearLayout LinearLayout::zeros_1d(int32_t size, const std::string &in, const std::string &out,
                                    int32_t out_size) {
  int k = log2_exact(size);
  InDim d{in, std::vector<Basis>(k, Basis{0})};
  return LinearLayout({d}, {{out, out_size}});
}

// ---- shape -----------------------------------------------------------------------------

bool LinearLayout::has_in_dim(const std::string &name) const {
  for (const InDim &d : ins_)
    if (d.name == name)
      return true;
  return false;
}

bool LinearLayout::has_out_dim(const std::string &name) const {
  for (const OutDim &d : outs_)
    if (d.name == name)
      return true;
  return false;
}

int LinearLayout::in_dim_index(const std::string &name) const {
  for (size_t i = 0; i < ins_.size(); ++i)
    if (ins_[i].name == name)
      return static_cast<int>(i);
  TILEC_ASSERT(false, "linear layout has no input dim '" + name + "': " + str());
  return -1;
}

int LinearLayout::out_dim_index(const std::string &name) const {
  for (size_t i = 0; i < outs_.size(); ++i)
    if (outs_[i].name == name)
      return static_cast<int>(i);
  TILEC_ASSERT(false, "linear layout has no output dim '" + name + "': " + str());
  return -1;
}

int32_t LinearLayout::in_dim_size(const std::string &name) const {
  for (const InDim &d : ins_)
    if (d.name == name)
      return int32_t{1} << d.bases.size();
  return 1;
}

int32_t LinearLayout::out_dim_size(const std::string &name) const {
  for (const OutDim &d : outs_)
    if (d.name == name)
      return d.size;
  return 1;
}

int LinearLayout::in_dim_bits(const std::string &name) const {
  return log2_exact(in_dim_size(name));
}
int LinearLayout::out_dim_bits(const std::string &name) const {
  return log2_exact(out_dim_size(name));
}

int LinearLayout::total_in_bits() const {
  int n = 0;
  for (const InDim &d : ins_)
    n += static_cast<int>(d.bases.size());
  return n;
}

int LinearLayout::total_out_bits() const {
  int n = 0;
  for (const OutDim &d : outs_)
    n += log2_exact(d.size);
  return n;
}

int64_t LinearLayout::total_in_size() const { return int64_t{1} << total_in_bits(); }
int64_t LinearLayout::total_out_size() const { return int64_t{1} << total_out_bits(); }

const LinearLayout::Basis &LinearLayout::basis(const std::string &in, int bit) const {
  const InDim &d = ins_[in_dim_index(in)];
  TILEC_ASSERT(bit >= 0 && bit < static_cast<int>(d.bases.size()),
               "input dim '" + in + "' has no bit " + std::to_string(bit));
  return d.bases[bit];
}

// ---- evaluation --------------------------------------------------------------------------

std::vector<int32_t> LinearLayout::apply(const std::vector<int32_t> &in) const {
  TILEC_ASSERT(in.size() == ins_.size(), "apply needs one index per input dim");
  std::vector<int32_t> out(outs_.size(), 0);
  for (size_t i = 0; i < ins_.size(); ++i) {
    TILEC_ASSERT(in[i] >= 0 && in[i] < (int32_t{1} << ins_[i].bases.size()),
                 "index " + std::to_string(in[i]) + " out of range for input dim " + ins_[i].name);
    for (size_t b = 0; b < ins_[i].bases.size(); ++b)
      if (in[i] >> b & 1)
        for (size_t k = 0; k < out.size(); ++k)
          out[k] ^= ins_[i].bases[b][k];
  }
  return out;
}

std::vector<std::pair<std::string, int32_t>>
LinearLayout::apply_named(const std::vector<std::pair<std::string, int32_t>> &in) const {
  std::vector<int32_t> idx(ins_.size(), 0);
  for (const auto &[name, v] : in)
    idx[in_dim_index(name)] = v;
  std::vector<int32_t> out = apply(idx);
  std::vector<std::pair<std::string, int32_t>> r;
  for (size_t k = 0; k < outs_.size(); ++k)
    r.emplace_back(outs_[k].name, out[k]);
  return r;
}

int64_t LinearLayout::apply_flat(int64_t flat_in) const {
  std::vector<int32_t> idx;
  for (const InDim &d : ins_) {
    idx.push_back(static_cast<int32_t>(flat_in & ((int64_t{1} << d.bases.size()) - 1)));
    flat_in >>= d.bases.size();
  }
  std::vector<int32_t> out = apply(idx);
  int64_t flat = 0;
  for (size_t k = 0; k < outs_.size(); ++k)
    flat = flat * outs_[k].size + out[k];
  return flat;
}

// ---- packing helpers -------------------------------------------------------------------

namespace {

// Bit offsets of each output dim in a packed vector (dim 0 lowest).
std::vector<int> out_offsets(const LinearLayout &l) {
  std::vector<int> off;
  int o = 0;
  for (const auto &d : l.out_dims()) {
    off.push_back(o);
    o += __builtin_ctz(static_cast<uint32_t>(d.size));
  }
  return off;
}

uint64_t pack(const LinearLayout::Basis &b, const std::vector<int> &off) {
  uint64_t v = 0;
  for (size_t k = 0; k < b.size(); ++k)
    v |= static_cast<uint64_t>(b[k]) << off[k];
  return v;
}

// All input columns packed, in input order.
std::vector<uint64_t> columns(const LinearLayout &l) {
  std::vector<int> off = out_offsets(l);
  std::vector<uint64_t> cols;
  for (const auto &d : l.in_dims())
    for (const auto &b : d.bases)
      cols.push_back(pack(b, off));
  return cols;
}

// Solves sum_j x_j cols[j] = target over the columns marked usable; returns the input bit
// mask x, or false when target is outside their span.
bool solve(const std::vector<uint64_t> &cols, const std::vector<bool> &usable, uint64_t target,
           uint64_t &x) {
  // Reduced basis, each vector remembering which columns compose it.
  std::vector<std::pair<uint64_t, uint64_t>> basis; // (vector, combination)
  for (size_t j = 0; j < cols.size(); ++j) {
    if (!usable[j])
      continue;
    uint64_t v = cols[j], c = uint64_t{1} << j;
    for (auto &[bv, bc] : basis)
      if (v & (uint64_t{1} << (63 - __builtin_clzll(bv)))) {
        v ^= bv;
        c ^= bc;
      }
    if (!v)
      continue;
    uint64_t lead = uint64_t{1} << (63 - __builtin_clzll(v));
    for (auto &[bv, bc] : basis)
      if (bv & lead) {
        bv ^= v;
        bc ^= c;
      }
    basis.emplace_back(v, c);
  }
  x = 0;
  for (auto &[bv, bc] : basis)
    if (target & (uint64_t{1} << (63 - __builtin_clzll(bv)))) {
      target ^= bv;
      x ^= bc;
    }
  return target == 0;
}

} // namespace

// ---- algebra -----------------------------------------------------------------------------

LinearLayout LinearLayout::operator*(const LinearLayout &o) const {
  std::vector<OutDim> outs = outs_;
  std::vector<int32_t> scale; // factor for o's coordinates in each result out dim
  std::vector<int> o_to_r;    // o's out dim k -> result out dim
  for (const OutDim &d : o.outs_) {
    int idx = -1;
    for (size_t k = 0; k < outs.size(); ++k)
      if (outs[k].name == d.name)
        idx = static_cast<int>(k);
    if (idx < 0) {
      outs.push_back(d);
      o_to_r.push_back(static_cast<int>(outs.size()) - 1);
    } else {
      o_to_r.push_back(idx);
      outs[idx].size *= d.size;
    }
  }
  std::vector<InDim> ins;
  auto find_or_add = [&](const std::string &name) -> InDim & {
    for (InDim &d : ins)
      if (d.name == name)
        return d;
    ins.push_back({name, {}});
    return ins.back();
  };
  for (const InDim &d : ins_) {
    InDim &r = find_or_add(d.name);
    for (const Basis &b : d.bases) {
      Basis nb(outs.size(), 0);
      std::copy(b.begin(), b.end(), nb.begin());
      r.bases.push_back(nb);
    }
  }
  for (const InDim &d : o.ins_) {
    InDim &r = find_or_add(d.name);
    for (const Basis &b : d.bases) {
      Basis nb(outs.size(), 0);
      for (size_t k = 0; k < b.size(); ++k) {
        int rk = o_to_r[k];
        int32_t s = rk < static_cast<int>(outs_.size()) ? outs_[rk].size : 1;
        nb[rk] = b[k] * s;
      }
      r.bases.push_back(nb);
    }
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::compose(const LinearLayout &outer) const {
  std::vector<std::string> names;
  for (const OutDim &d : outs_) {
    TILEC_ASSERT(outer.has_in_dim(d.name) || d.size == 1,
                 "compose: outer layout has no input dim '" + d.name + "'");
    TILEC_ASSERT(d.size <= outer.in_dim_size(d.name),
                 "compose: output dim '" + d.name + "' is larger than the outer layout's input");
  }
  std::vector<InDim> ins;
  for (const InDim &d : ins_) {
    InDim r{d.name, {}};
    for (const Basis &b : d.bases) {
      std::vector<std::pair<std::string, int32_t>> x;
      for (size_t k = 0; k < outs_.size(); ++k)
        if (outer.has_in_dim(outs_[k].name))
          x.emplace_back(outs_[k].name, b[k]);
      Basis nb;
      for (const auto &[n, v] : outer.apply_named(x))
        nb.push_back(v);
      r.bases.push_back(nb);
    }
    ins.push_back(std::move(r));
  }
  return LinearLayout(std::move(ins), outer.outs_);
}

LinearLayout LinearLayout::invert() const {
  TILEC_ASSERT(is_invertible(), "invert of a layout that is not bijective: " + str());
  return pseudo_invert();
}

LinearLayout LinearLayout::pseudo_invert() const {
  TILEC_ASSERT(is_surjective(), "pseudo_invert of a layout that is not surjective: " + str());
  std::vector<uint64_t> cols = columns(*this);
  std::vector<bool> usable(cols.size(), true);
  // Result: inputs = this's outputs, outputs = this's inputs.
  std::vector<InDim> ins;
  std::vector<OutDim> outs;
  for (const InDim &d : ins_)
    outs.push_back({d.name, int32_t{1} << d.bases.size()});
  std::vector<int> off = out_offsets(*this);
  for (size_t k = 0; k < outs_.size(); ++k) {
    InDim r{outs_[k].name, {}};
    for (int bit = 0; (int32_t{1} << bit) < outs_[k].size; ++bit) {
      uint64_t x = 0;
      bool ok = solve(cols, usable, uint64_t{1} << (off[k] + bit), x);
      TILEC_ASSERT(ok, "pseudo_invert: output bit unreachable");
      Basis nb;
      int shift = 0;
      for (const InDim &d : ins_) {
        nb.push_back(static_cast<int32_t>((x >> shift) & ((uint64_t{1} << d.bases.size()) - 1)));
        shift += static_cast<int>(d.bases.size());
      }
      r.bases.push_back(nb);
    }
    ins.push_back(std::move(r));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::invert_and_compose(const LinearLayout &outer) const {
  // Express this layout with outer's output dims (same names, any order).
  std::vector<std::string> order;
  for (const OutDim &d : outer.outs_)
    order.push_back(d.name);
  TILEC_ASSERT(order.size() == outs_.size(),
               "invert_and_compose: the layouts have different output dims");
  LinearLayout self = transpose_outs(order);
  for (size_t k = 0; k < outs_.size(); ++k)
    TILEC_ASSERT(self.outs_[k].size == outer.outs_[k].size,
                 "invert_and_compose: output dim sizes differ");
  return self.compose(outer.pseudo_invert());
}

// ---- properties ----------------------------------------------------------------------

int LinearLayout::rank_f2() const { return eliminate(columns(*this), nullptr); }
bool LinearLayout::is_injective() const { return rank_f2() == total_in_bits(); }
bool LinearLayout::is_surjective() const { return rank_f2() == total_out_bits(); }

std::vector<int32_t> LinearLayout::free_variable_masks() const {
  std::vector<bool> indep;
  eliminate(columns(*this), &indep);
  std::vector<int32_t> masks;
  size_t j = 0;
  for (const InDim &d : ins_) {
    int32_t m = 0;
    for (size_t b = 0; b < d.bases.size(); ++b, ++j)
      if (!indep[j])
        m |= int32_t{1} << b;
    masks.push_back(m);
  }
  return masks;
}

int32_t LinearLayout::free_variable_mask(const std::string &in) const {
  if (!has_in_dim(in))
    return 0;
  return free_variable_masks()[in_dim_index(in)];
}

int32_t LinearLayout::num_consecutive_in_out(const std::string &in, const std::string &out) const {
  if (!has_in_dim(in) || !has_out_dim(out))
    return 1;
  const InDim &d = ins_[in_dim_index(in)];
  int k = out_dim_index(out);
  int32_t n = 1;
  for (size_t b = 0; b < d.bases.size(); ++b) {
    for (size_t j = 0; j < outs_.size(); ++j)
      if (d.bases[b][j] != (static_cast<int>(j) == k ? (int32_t{1} << b) : 0))
        return n;
    n *= 2;
  }
  return n;
}

std::string LinearLayout::str() const {
  std::string s;
  for (const InDim &d : ins_) {
    s += d.name + ": [";
    for (size_t b = 0; b < d.bases.size(); ++b) {
      s += b ? ",[" : "[";
      for (size_t k = 0; k < d.bases[b].size(); ++k)
        s += (k ? "," : "") + std::to_string(d.bases[b][k]);
      s += "]";
    }
    s += "]; ";
  }
  s += "->";
  for (size_t k = 0; k < outs_.size(); ++k)
    s += (k ? ", " : " ") + outs_[k].name + ":" + std::to_string(outs_[k].size);
  return s;
}

bool LinearLayout::operator==(const LinearLayout &o) const {
  if (ins_.size() != o.ins_.size() || outs_.size() != o.outs_.size())
    return false;
  for (size_t i = 0; i < ins_.size(); ++i)
    if (ins_[i].name != o.ins_[i].name || ins_[i].bases != o.ins_[i].bases)
      return false;
  for (size_t k = 0; k < outs_.size(); ++k)
    if (outs_[k].name != o.outs_[k].name || outs_[k].size != o.outs_[k].size)
      return false;
  return true;
}

} // namespace tilec::layout
