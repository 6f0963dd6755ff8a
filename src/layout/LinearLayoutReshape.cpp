// LinearLayout's restructuring (LinearLayout.h): sublayouts, transposed and reshaped
// dimensions, renames and replaced bases. None of them changes what the layout maps.
#include <algorithm>

#include "layout/LinearLayout.h"
#include "support/Diagnostics.h"

namespace tilec::layout {

// ---- restructuring ----------------------------------------------------------------------

LinearLayout LinearLayout::sublayout(const std::vector<std::string> &ins,
                                     const std::vector<std::string> &outs) const {
  std::vector<int> keep;
  std::vector<OutDim> nouts;
  for (const std::string &n : outs) {
    keep.push_back(out_dim_index(n));
    nouts.push_back(outs_[keep.back()]);
  }
  std::vector<InDim> nins;
  for (const std::string &n : ins) {
    const InDim &d = ins_[in_dim_index(n)];
    InDim r{d.name, {}};
    for (const Basis &b : d.bases) {
      Basis nb;
      for (int k : keep)
        nb.push_back(b[k]);
      r.bases.push_back(nb);
    }
    nins.push_back(std::move(r));
  }
  return LinearLayout(std::move(nins), std::move(nouts));
}

LinearLayout LinearLayout::transpose_ins(const std::vector<std::string> &order) const {
  TILEC_ASSERT(order.size() == ins_.size(), "transpose_ins needs every input dim");
  std::vector<InDim> nins;
  for (const std::string &n : order)
    nins.push_back(ins_[in_dim_index(n)]);
  return LinearLayout(std::move(nins), outs_);
}

LinearLayout LinearLayout::transpose_outs(const std::vector<std::string> &order) const {
  TILEC_ASSERT(order.size() == outs_.size(), "transpose_outs needs every output dim");
  std::vector<std::string> ins;
  for (const InDim &d : ins_)
    ins.push_back(d.name);
  return sublayout(ins, order);
}

LinearLayout LinearLayout::reshape_outs(const std::vector<OutDim> &outs) const {
  int64_t total = 1;
  for (const OutDim &d : outs)
    total *= d.size;
  TILEC_ASSERT(total == total_out_size(), "reshape_outs must keep the total size");
  std::vector<InDim> nins;
  for (const InDim &d : ins_) {
    InDim r{d.name, {}};
    for (const Basis &b : d.bases) {
      int64_t flat = 0;
      for (size_t k = 0; k < outs_.size(); ++k)
        flat = flat * outs_[k].size + b[k];
      Basis nb(outs.size());
      for (size_t k = outs.size(); k-- > 0;) {
        nb[k] = static_cast<int32_t>(flat % outs[k].size);
        flat /= outs[k].size;
      }
      r.bases.push_back(nb);
    }
    nins.push_back(std::move(r));
  }
  return LinearLayout(std::move(nins), outs);
}

LinearLayout LinearLayout::reshape_ins(const std::vector<InDim> &shape_only) const {
  std::vector<Basis> all;
  for (const InDim &d : ins_)
    all.insert(all.end(), d.bases.begin(), d.bases.end());
  size_t want = 0;
  for (const InDim &d : shape_only)
    want += d.bases.size();
  TILEC_ASSERT(want == all.size(), "reshape_ins must keep the total size");
  std::vector<InDim> nins;
  size_t at = 0;
  for (const InDim &d : shape_only) {
    InDim r{d.name, {}};
    for (size_t i = 0; i < d.bases.size(); ++i)
      r.bases.push_back(all[at++]);
    nins.push_back(std::move(r));
  }
  return LinearLayout(std::move(nins), outs_);
}

LinearLayout LinearLayout::rename_in_dim(const std::string &from, const std::string &to) const {
  LinearLayout r = *this;
  r.ins_[in_dim_index(from)].name = to;
  return LinearLayout(r.ins_, r.outs_);
}

LinearLayout LinearLayout::rename_out_dim(const std::string &from, const std::string &to) const {
  LinearLayout r = *this;
  r.outs_[out_dim_index(from)].name = to;
  return LinearLayout(r.ins_, r.outs_);
}

LinearLayout LinearLayout::with_in_bases(const std::string &in, std::vector<Basis> bases) const {
  std::vector<InDim> nins = ins_;
  if (has_in_dim(in))
    nins[in_dim_index(in)].bases = std::move(bases);
  else
    nins.push_back({in, std::move(bases)});
  return LinearLayout(std::move(nins), outs_);
}

} // namespace tilec::layout
