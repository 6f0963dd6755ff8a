#include "layout/Layouts.h"

#include <algorithm>

#include "layout/MmaLayouts.h"
#include "layout/WgmmaLayouts.h"
#include "support/Diagnostics.h"

namespace tilec::layout {

namespace {

std::vector<std::string> standard_outs(int rank) {
  std::vector<std::string> names;
  for (int d = 0; d < rank; ++d)
    names.push_back(dim_name(d));
  return names;
}

// Product over `order` (fastest dim first) of identity maps of `sizes` along `in`.
LinearLayout identity_nd(const char *in, const std::vector<int32_t> &sizes,
                         const std::vector<int32_t> &order) {
  LinearLayout l = LinearLayout::identity_1d(1, in, dim_name(order.empty() ? 0 : order[0]));
  for (int32_t d : order)
    l = l * LinearLayout::identity_1d(sizes[d], in, dim_name(d));
  return l;
}

void check_order(const std::vector<int32_t> &order, size_t rank) {
  TILEC_ASSERT(order.size() == rank, "layout order must list every dim");
  std::vector<bool> seen(rank, false);
  for (int32_t d : order) {
    TILEC_ASSERT(d >= 0 && static_cast<size_t>(d) < rank && !seen[d],
                 "layout order must be a permutation");
    seen[d] = true;
  }
}

} // namespace

LinearLayout fit_to_shape(const LinearLayout &cta, const ir::Shape &shape,
                          const std::vector<int32_t> &order) {
  std::vector<LinearLayout::InDim> ins;
  std::vector<LinearLayout::OutDim> outs;
  for (const auto &o : cta.out_dims()) {
    int d = std::stoi(o.name.substr(3));
    outs.push_back({o.name, static_cast<int32_t>(std::min<int64_t>(o.size, shape[d]))});
  }
  for (const auto &in : cta.in_dims()) {
    LinearLayout::InDim r{in.name, {}};
    for (const auto &b : in.bases) {
      LinearLayout::Basis nb = b;
      bool zero = true;
      for (size_t k = 0; k < nb.size(); ++k) {
        if (nb[k] >= outs[k].size)
          nb[k] = 0;
        zero = zero && nb[k] == 0;
      }
      if (zero && in.name == kRegister)
        continue; // a register holding a copy is pointless
      r.bases.push_back(nb);
    }
    ins.push_back(std::move(r));
  }
  LinearLayout l(std::move(ins), std::move(outs));
  for (int32_t d : order) {
    int32_t have = l.out_dim_size(dim_name(d));
    if (have < shape[d])
      l = l *
          LinearLayout::identity_1d(static_cast<int32_t>(shape[d] / have), kRegister, dim_name(d));
  }
  return l;
}

LinearLayout blocked(const std::vector<int32_t> &spt, const std::vector<int32_t> &tpw,
                     const std::vector<int32_t> &wpc, const std::vector<int32_t> &order,
                     const ir::Shape &shape) {
  size_t rank = shape.size();
  TILEC_ASSERT(rank > 0 && spt.size() == rank && tpw.size() == rank && wpc.size() == rank,
               "blocked layout fields must have the tile's rank");
  check_order(order, rank);
  LinearLayout cta = identity_nd(kRegister, spt, order) * identity_nd(kLane, tpw, order) *
                     identity_nd(kWarp, wpc, order);
  LinearLayout l = fit_to_shape(cta, shape, order);
  return l.transpose_outs(standard_outs(static_cast<int>(rank)));
}

LinearLayout slice(const LinearLayout &parent, int dim) {
  int rank = parent.num_out_dims();
  TILEC_ASSERT(dim >= 0 && dim < rank, "slice dim out of range");
  std::vector<std::string> keep, ins;
  for (int d = 0; d < rank; ++d)
    if (d != dim)
      keep.push_back(dim_name(d));
  for (const auto &in : parent.in_dims())
    ins.push_back(in.name);
  LinearLayout s = parent.sublayout(ins, keep);
  // registers that only stepped along the removed dim now hold copies: drop them
  std::vector<LinearLayout::InDim> nins;
  for (const auto &in : s.in_dims()) {
    LinearLayout::InDim r{in.name, {}};
    for (const auto &b : in.bases)
      if (in.name != kRegister || std::any_of(b.begin(), b.end(), [](int32_t v) { return v; }))
        r.bases.push_back(b);
    nins.push_back(std::move(r));
  }
  std::vector<LinearLayout::OutDim> outs;
  for (int d = 0; d < rank - 1; ++d)
    outs.push_back({dim_name(d), s.out_dims()[d].size});
  return LinearLayout(std::move(nins), std::move(outs));
}

LinearLayout shared_unswizzled(const std::vector<int32_t> &order, const ir::Shape &shape) {
  return shared_swizzled(1, 1, 1, order, shape);
}

LinearLayout shared_swizzled(int32_t vec, int32_t per_phase, int32_t max_phase,
                             const std::vector<int32_t> &order, const ir::Shape &shape) {
  size_t rank = shape.size();
  check_order(order, rank);
  std::vector<LinearLayout::Basis> bases;
  auto unit = [&](int d, int64_t v) {
    LinearLayout::Basis b(rank, 0);
    b[d] = static_cast<int32_t>(v);
    return b;
  };
  int col = order[0];
  for (int i = 0; i < log2i(shape[col]); ++i)
    bases.push_back(unit(col, int64_t{1} << i));
  if (rank >= 2) {
    int row = order[1];
    int64_t cols = shape[col];
    for (int i = 0; i < log2i(shape[row]); ++i) {
      int64_t r = int64_t{1} << i;
      LinearLayout::Basis b = unit(row, r);
      b[col] = static_cast<int32_t>(((r / per_phase) % max_phase) * vec % cols);
      bases.push_back(b);
    }
  }
  for (size_t k = 2; k < rank; ++k)
    for (int i = 0; i < log2i(shape[order[k]]); ++i)
      bases.push_back(unit(order[k], int64_t{1} << i));
  std::vector<LinearLayout::OutDim> outs;
  for (size_t d = 0; d < rank; ++d)
    outs.push_back({dim_name(static_cast<int>(d)), static_cast<int32_t>(shape[d])});
  return LinearLayout({{kOffset, std::move(bases)}}, std::move(outs));
}

LinearLayout to_linear(const ir::Layout &l, const ir::Shape &shape) {
  TILEC_ASSERT(l.rank() == static_cast<int>(shape.size()),
               "layout " + l.str() + " applied to a tile of another rank");
  switch (l.kind) {
  case ir::LayoutKind::Blocked:
    return blocked(l.size_per_thread, l.threads_per_warp, l.warps_per_cta, l.order, shape);
  case ir::LayoutKind::Slice: {
    ir::Shape ps = shape;
    ps.insert(ps.begin() + l.dim, 1);
    return slice(to_linear(*l.parent, ps), l.dim);
  }
  case ir::LayoutKind::Shared:
    return shared_swizzled(l.vec, l.per_phase, l.max_phase, l.order, shape);
  case ir::LayoutKind::Linear: {
    std::vector<LinearLayout::InDim> ins;
    bool shared = false;
    for (const auto &[name, b] : l.bases) {
      ins.push_back({name, b});
      shared = shared || name == kOffset;
    }
    // A smaller tile (a slice's parent with the reduced dim at 1): the bits stepping past
    // a dim's size hold copies, as a blocked layout larger than its tile.
    for (LinearLayout::InDim &in : ins)
      for (LinearLayout::Basis &b : in.bases)
        for (size_t d = 0; d < b.size() && d < shape.size(); ++d)
          b[d] &= static_cast<int32_t>(shape[d] - 1);
    if (!shared) // distributed layouts always have the three hardware dims
      for (const char *n : {kRegister, kLane, kWarp})
        if (std::none_of(ins.begin(), ins.end(), [&](const auto &d) { return d.name == n; }))
          ins.push_back({n, {}});
    std::vector<LinearLayout::OutDim> outs;
    for (size_t d = 0; d < shape.size(); ++d)
      outs.push_back({dim_name(static_cast<int>(d)), static_cast<int32_t>(shape[d])});
    LinearLayout r(std::move(ins), std::move(outs));
    return shared ? r : r.transpose_ins({kRegister, kLane, kWarp});
  }
  case ir::LayoutKind::Mma:
    if (l.mma_version == 3)
      return wgmma_acc_encoded(l.warps_per_cta[0] / 4, l.warps_per_cta[1], l.instr_shape[1], shape);
    return mma_v2(l.warps_per_cta, shape);
  case ir::LayoutKind::DotOperand:
    return dot_operand(l, shape);
  }
  TILEC_ASSERT(false, "no linear layout for " + l.str());
  return {};
}

LinearLayout to_linear(const ir::Type &t) {
  TILEC_ASSERT(t.is_tile() && t.layout, "to_linear of a type without a layout: " + t.str());
  return to_linear(*t.layout, t.shape);
}

ir::LayoutRef blocked_for_shape(const ir::Shape &shape, const std::vector<int32_t> &spt,
                                const std::vector<int32_t> &order, int num_warps) {
  size_t rank = shape.size();
  check_order(order, rank);
  std::vector<int32_t> tpw(rank, 1), wpc(rank, 1);
  int64_t lanes_left = kWarpSize, warps_left = num_warps;
  for (size_t i = 0; i + 1 < rank; ++i) {
    int d = order[i];
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    tpw[d] = static_cast<int32_t>(std::clamp<int64_t>(lanes_left, 1, room));
    lanes_left /= tpw[d];
    int64_t wroom = std::max<int64_t>(1, shape[d] / (int64_t{spt[d]} * tpw[d]));
    wpc[d] = static_cast<int32_t>(std::clamp<int64_t>(warps_left, 1, wroom));
    warps_left /= wpc[d];
  }
  tpw[order[rank - 1]] *= static_cast<int32_t>(lanes_left);
  wpc[order[rank - 1]] *= static_cast<int32_t>(warps_left);
  return ir::Layout::blocked(spt, tpw, wpc, order);
}

ir::LayoutRef default_blocked(const ir::Shape &shape, int num_warps, std::vector<int32_t> order) {
  int rank = static_cast<int>(shape.size());
  if (order.empty())
    for (int d = rank - 1; d >= 0; --d)
      order.push_back(d);
  return blocked_for_shape(shape, std::vector<int32_t>(rank, 1), order, num_warps);
}

int32_t registers_per_thread(const LinearLayout &l) { return l.in_dim_size(kRegister); }

int32_t contiguous_per_thread(const LinearLayout &l, int dim) {
  return l.num_consecutive_in_out(kRegister, dim_name(dim));
}

int shared_bank_conflicts(const LinearLayout &dist, const LinearLayout &shared, int elem_bytes) {
  LinearLayout to_offset = dist.invert_and_compose(shared) // (register, lane, warp) -> offset
                               .sublayout({kRegister, kLane}, {kOffset});
  int worst = 1;
  for (int32_t r = 0; r < to_offset.in_dim_size(kRegister); ++r) {
    std::vector<std::vector<int64_t>> words(32); // distinct words per bank
    for (int32_t lane = 0; lane < to_offset.in_dim_size(kLane); ++lane) {
      int64_t byte = int64_t{to_offset.apply(std::vector<int32_t>{r, lane})[0]} * elem_bytes;
      int64_t word = byte / 4;
      std::vector<int64_t> &w = words[static_cast<size_t>(word % 32)];
      if (std::find(w.begin(), w.end(), word) == w.end())
        w.push_back(word);
    }
    for (const auto &w : words)
      worst = std::max(worst, static_cast<int>(w.size()));
  }
  return worst;
}

std::vector<int32_t> coords_of(const LinearLayout &l, int32_t reg, int32_t lane, int32_t warp) {
  std::vector<int32_t> out(l.num_out_dims(), 0);
  for (const auto &[n, v] : l.apply_named({{kRegister, reg}, {kLane, lane}, {kWarp, warp}}))
    out[l.out_dim_index(n)] = v;
  return out;
}

} // namespace tilec::layout
