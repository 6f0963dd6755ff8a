#include "layout/ViewLayouts.h"

#include "layout/Layouts.h"
#include "support/Diagnostics.h"

namespace tilec::layout {

namespace {

std::vector<LinearLayout::OutDim> outs_of(const ir::Shape &shape) {
  std::vector<LinearLayout::OutDim> outs;
  for (size_t d = 0; d < shape.size(); ++d)
    outs.push_back({dim_name(static_cast<int>(d)), static_cast<int32_t>(shape[d])});
  return outs;
}

} // namespace

LinearLayout map_bases(const LinearLayout &l, const ir::Shape &shape,
                       const std::function<LinearLayout::Basis(const LinearLayout::Basis &)> &f) {
  std::vector<LinearLayout::InDim> ins;
  for (const LinearLayout::InDim &in : l.in_dims()) {
    LinearLayout::InDim n{in.name, {}};
    for (const LinearLayout::Basis &b : in.bases)
      n.bases.push_back(f(b));
    ins.push_back(std::move(n));
  }
  return LinearLayout(std::move(ins), outs_of(shape));
}

LinearLayout view_operand_layout(const ir::Op &op, const LinearLayout &result) {
  const ir::Shape &ss = op.operand(0)->type.shape;
  using Basis = LinearLayout::Basis;
  switch (op.kind()) {
  case ir::OpKind::Broadcast: // the operand's size-1 dims do not move
    return map_bases(result, ss, [&](const Basis &x) {
      Basis y(x);
      for (size_t d = 0; d < y.size(); ++d)
        if (ss[d] == 1)
          y[d] = 0;
      return y;
    });
  case ir::OpKind::ExpandDims: {
    auto axis = static_cast<size_t>(op.int_attr("axis"));
    return map_bases(result, ss, [axis](const Basis &x) {
      Basis y;
      for (size_t d = 0; d < x.size(); ++d)
        if (d != axis)
          y.push_back(x[d]);
      return y;
    });
  }
  case ir::OpKind::Reshape: // power-of-two dims: the row-major flat index is linear
    return result.reshape_outs(outs_of(ss));
  case ir::OpKind::Permute: {
    std::vector<int64_t> order = op.ints_attr("order");
    return map_bases(result, ss, [order](const Basis &x) {
      Basis y(x.size());
      for (size_t i = 0; i < order.size(); ++i)
        y[static_cast<size_t>(order[i])] = x[i];
      return y;
    });
  }
  default:
    TILEC_ASSERT(false, "view_operand_layout: not a view op");
    return result;
  }
}

LinearLayout paired_layout(const LinearLayout &half, const ir::Shape &paired) {
  std::vector<LinearLayout::InDim> ins;
  bool reg = false;
  for (const LinearLayout::InDim &in : half.in_dims()) {
    LinearLayout::InDim n{in.name, {}};
    for (const LinearLayout::Basis &b : in.bases) {
      n.bases.push_back(b);
      n.bases.back().push_back(0);
    }
    if (in.name == kRegister) {
      n.bases.emplace_back(paired.size(), 0);
      n.bases.back().back() = 1;
      reg = true;
    }
    ins.push_back(std::move(n));
  }
  if (!reg) {
    LinearLayout::Basis top(paired.size(), 0);
    top.back() = 1;
    ins.insert(ins.begin(), LinearLayout::InDim{kRegister, {top}});
  }
  return LinearLayout(std::move(ins), outs_of(paired));
}

} // namespace tilec::layout
