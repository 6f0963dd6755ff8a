#include "layout/LayoutRules.h"

#include <algorithm>

#include "layout/Layouts.h"
#include "layout/MmaLayouts.h"
#include "layout/ViewLayouts.h"

namespace tilec::layout::rules {

using ir::LayoutRef;
using ir::OpKind;

bool is_memory(const ir::Op &op) {
  switch (op.kind()) {
  case OpKind::Load:
  case OpKind::Store:
  case OpKind::AtomicRmw:
  case OpKind::AtomicCas:
    return true;
  default:
    return false;
  }
}

bool is_rematerialisable(const ir::Op &op) {
  switch (op.kind()) {
  case OpKind::Constant:
  case OpKind::Arange:
  case OpKind::Splat:
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
  case OpKind::Hint:
    return true;
  default:
    return ir::is_elementwise(op.kind()) && ir::is_pure(op.kind());
  }
}

LayoutRef permuted(const LayoutRef &l, const std::vector<int64_t> &order, bool inverse) {
  if (!l || l->kind != ir::LayoutKind::Blocked)
    return nullptr;
  size_t n = order.size();
  if (l->size_per_thread.size() != n)
    return nullptr;
  // result dim i = operand dim order[i]
  std::vector<int32_t> to(n); // operand dim -> result dim (forward)
  for (size_t i = 0; i < n; ++i)
    to[static_cast<size_t>(order[i])] = static_cast<int32_t>(i);
  auto map = [&](const std::vector<int32_t> &v) {
    std::vector<int32_t> r(n);
    for (size_t i = 0; i < n; ++i) {
      if (inverse) // v is indexed by result dim; give operand-dim indexing
        r[static_cast<size_t>(order[i])] = v[i];
      else
        r[i] = v[static_cast<size_t>(order[i])];
    }
    return r;
  };
  std::vector<int32_t> ord(n);
  for (size_t k = 0; k < n; ++k)
    ord[k] = inverse ? static_cast<int32_t>(order[static_cast<size_t>(l->order[k])])
                     : to[static_cast<size_t>(l->order[k])];
  return ir::Layout::blocked(map(l->size_per_thread), map(l->threads_per_warp),
                             map(l->warps_per_cta), ord);
}

namespace {

// Whether `l` (maybe null) describes tiles of any shape: not a linear layout (its bases
// cover one shape), nor a slice of one.
bool fits_any_shape(const LayoutRef &l) {
  for (const ir::Layout *p = l.get(); p; p = p->parent.get())
    if (p->kind == ir::LayoutKind::Linear)
      return false;
  return true;
}

// `l` as an encoding of a tile of rank `rank`: the named one it equals when there is one
// (the operand's own kind first: an mma accumulator split in halves is the mma layout of
// the narrower instruction), else a distributed linear layout.
LayoutRef encode(const LinearLayout &l, const ir::Shape &shape, const LayoutRef &from,
                 int num_warps) {
  std::vector<LayoutRef> named;
  if (from && from->kind == ir::LayoutKind::Mma && from->mma_version == 3 && shape.size() == 2)
    for (int32_t n = 8; n <= 256 && n <= shape[1]; n *= 2)
      named.push_back(ir::Layout::mma(3, from->warps_per_cta, {from->instr_shape[0], n}));
  named.push_back(default_blocked(shape, num_warps));
  for (const LayoutRef &c : named)
    if (ir::check_layout(*c, static_cast<int>(shape.size())).empty() && to_linear(*c, shape) == l)
      return c;
  std::vector<std::pair<std::string, std::vector<std::vector<int32_t>>>> bases;
  for (const LinearLayout::InDim &in : l.in_dims())
    bases.emplace_back(in.name, in.bases);
  return ir::Layout::linear(static_cast<int32_t>(shape.size()), std::move(bases));
}

// The result layout that makes reshape / permute / split / join of an operand in `from` a
// relabelling of its registers (as Triton infers their encodings): an mma accumulator
// reshaped, permuted and split in halves for a subtiled epilogue stays in registers. Null
// when there is none (split: the halves must differ in one register bit only).
LayoutRef view_result(const ir::Op &op, const LayoutRef &from, int num_warps) {
  const ir::Shape &os = op.operand(0)->type.shape, &rs = op.result(0)->type.shape;
  // a blocked operand keeps the default rule (a blocked result), which the tuned shape
  // kernels (tl.sort's, tl.flip's) rely on
  if (!from || !from->is_distributed() || from->kind == ir::LayoutKind::DotOperand ||
      from->kind == ir::LayoutKind::Blocked)
    return nullptr;
  LinearLayout l = to_linear(*from, os);
  std::vector<LinearLayout::OutDim> outs;
  for (size_t d = 0; d < rs.size(); ++d)
    outs.push_back({dim_name(static_cast<int>(d)), static_cast<int32_t>(rs[d])});
  std::vector<LinearLayout::InDim> ins;
  switch (op.kind()) {
  case OpKind::Reshape:
    return encode(l.reshape_outs(outs), rs, from, num_warps);
  case OpKind::Permute: {
    std::vector<int64_t> order = op.ints_attr("order");
    for (const LinearLayout::InDim &in : l.in_dims()) {
      LinearLayout::InDim n{in.name, {}};
      for (const LinearLayout::Basis &b : in.bases) {
        LinearLayout::Basis y(order.size());
        for (size_t i = 0; i < order.size(); ++i)
          y[i] = b[static_cast<size_t>(order[i])];
        n.bases.push_back(std::move(y));
      }
      ins.push_back(std::move(n));
    }
    break;
  }
  case OpKind::Split: { // the last dim (2) must be one register bit, stepping nothing else
    int found = 0;
    for (const LinearLayout::InDim &in : l.in_dims()) {
      LinearLayout::InDim n{in.name, {}};
      for (const LinearLayout::Basis &b : in.bases) {
        if (b.back() == 0) {
          n.bases.emplace_back(b.begin(), b.end() - 1);
          continue;
        }
        bool alone = std::all_of(b.begin(), b.end() - 1, [](int32_t x) { return x == 0; });
        if (in.name != kRegister || !alone)
          return nullptr;
        ++found;
      }
      ins.push_back(std::move(n));
    }
    if (found != 1)
      return nullptr;
    break;
  }
  case OpKind::Join: // the new last dim: the top register bit
    return encode(paired_layout(l, rs), rs, from, num_warps);
  default:
    return nullptr;
  }
  return encode(LinearLayout(std::move(ins), std::move(outs)), rs, from, num_warps);
}

} // namespace

LayoutRef operand_want(const ir::Op &user, size_t i, const Anchors &anchors) {
  const ir::Value *v = user.operand(i);
  if (!v->type.is_tile())
    return nullptr;
  auto result_layout = [&]() -> LayoutRef {
    return user.num_results() ? user.result(0)->type.layout : nullptr;
  };
  if (is_memory(user)) {
    auto it = anchors.find(&user);
    return it == anchors.end() ? nullptr : it->second;
  }
  switch (user.kind()) {
  case OpKind::Broadcast: // a linear layout holds its own shape only
    return fits_any_shape(result_layout()) ? result_layout() : nullptr;
  case OpKind::Hint:
  case OpKind::Scan:
    return result_layout();
  case OpKind::ExpandDims: {
    LayoutRef r = result_layout();
    return r ? ir::Layout::slice(static_cast<int32_t>(user.int_attr("axis")), r) : nullptr;
  }
  case OpKind::Permute:
    return permuted(result_layout(), user.ints_attr("order"), true);
  case OpKind::Join:
  case OpKind::Cat:       // both operands in one layout (the first's)
  case OpKind::Histogram: // the mask in the input's layout
    return i == 1 ? user.operand(0)->type.layout : nullptr;
  case OpKind::Gather: // index in the result's layout; src is staged in shared memory
    return i == 1 ? result_layout() : nullptr;
  case OpKind::Dot: { // the accumulator has the result's type; a and b the operand layouts
    LayoutRef r = result_layout();
    if (i == 2 || !r)
      return r;
    if (r->kind == ir::LayoutKind::Mma && r->mma_version == 3)
      return nullptr; // wgmma: lowering stores a and b to shared memory from any layout
    int32_t kw = r->kind == ir::LayoutKind::Mma ? mma_k_width(user.operand(0)->type.elem) : 0;
    return ir::Layout::dot_operand(static_cast<int32_t>(i), r, kw);
  }
  case OpKind::Reduce: { // every operand in the layout the result is a slice of
    LayoutRef r = result_layout();
    return r && r->kind == ir::LayoutKind::Slice ? r->parent : nullptr;
  }
  case OpKind::For:
    if (i >= 3)
      return user.region(0)->block()->arg(i - 2)->type.layout;
    return nullptr;
  case OpKind::While:
    return user.region(0)->block()->arg(i)->type.layout;
  case OpKind::Yield: {
    const ir::Op *p = user.parent()->parent()->parent();
    switch (p->kind()) {
    case OpKind::For:
      return p->region(0)->block()->arg(i + 1)->type.layout;
    case OpKind::If:
      return p->result(i)->type.layout;
    case OpKind::While:
      return p->region(0)->block()->arg(i)->type.layout;
    default:
      return nullptr; // reduce/scan combiners yield scalars
    }
  }
  case OpKind::Condition:
    if (i == 0)
      return nullptr;
    return user.parent()->parent()->parent()->result(i - 1)->type.layout;
  default:
    if (ir::is_elementwise(user.kind()))
      return result_layout();
    return nullptr; // reshape, join, split, cat, dot, reduce, print, ...: no requirement
  }
}

LayoutRef forward(const ir::Op &op, size_t index, int num_warps, bool wgmma, bool f64_mma) {
  const ir::Type &rt = op.result(index)->type;
  if (!rt.is_tile())
    return nullptr;
  auto operand_layout = [&](size_t i) -> LayoutRef {
    return i < op.num_operands() && op.operand(i)->type.is_tile() ? op.operand(i)->type.layout
                                                                  : nullptr;
  };
  switch (op.kind()) {
  case OpKind::Constant:
  case OpKind::Arange:
  case OpKind::Splat:
  case OpKind::Histogram: // the bins go through shared memory anyway
    return nullptr;       // flexible: their users decide
  case OpKind::Broadcast: {
    // The operand's layout, unless it spreads the threads over the dims being broadcast
    // (an [N, 1] tile's layout on [1, R]: every thread would hold the whole row): then
    // the users decide (a [1, 1] index broadcast into a reduction loop of Inductor's).
    LayoutRef l = operand_layout(0);
    if (!fits_any_shape(l))
      return nullptr;
    if (l && l->kind == ir::LayoutKind::Blocked &&
        registers_per_thread(to_linear(*l, rt.shape)) >
            registers_per_thread(to_linear(*default_blocked(rt.shape, num_warps), rt.shape)))
      return nullptr;
    return l;
  }
  case OpKind::Hint:
  case OpKind::Scan:
    return operand_layout(0);
  case OpKind::ExpandDims: {
    LayoutRef l = operand_layout(0);
    if (!l)
      return nullptr;
    if (l->kind == ir::LayoutKind::Slice && l->dim == op.int_attr("axis"))
      return l->parent;
    return default_blocked(rt.shape, num_warps);
  }
  case OpKind::Permute: {
    LayoutRef l = operand_layout(0);
    if (!l)
      return nullptr;
    LayoutRef p = permuted(l, op.ints_attr("order"), false);
    if (!p)
      p = view_result(op, l, num_warps);
    return p ? p : default_blocked(rt.shape, num_warps);
  }
  case OpKind::Reduce: {
    LayoutRef l = operand_layout(0);
    return l ? ir::Layout::slice(static_cast<int32_t>(op.int_attr("axis")), l) : nullptr;
  }
  case OpKind::Dot: // mma when the tensor cores can run it, else blocked (FMA)
    return dot_result_layout(op, num_warps, wgmma, f64_mma);
  case OpKind::Gather: // elementwise in the index
    return operand_layout(1);
  case OpKind::Reshape:
  case OpKind::Join:
  case OpKind::Split:
    if (LayoutRef v = view_result(op, operand_layout(0), num_warps))
      return v;
    return default_blocked(rt.shape, num_warps);
  case OpKind::Cat:
    return default_blocked(rt.shape, num_warps);
  case OpKind::ConvertLayout:
    return rt.layout;
  default:
    break;
  }
  if (ir::is_elementwise(op.kind())) {
    // prefer an operand whose layout was fixed by a memory access
    LayoutRef first;
    for (size_t i = 0; i < op.num_operands(); ++i) {
      LayoutRef l = operand_layout(i);
      if (!l)
        continue;
      const ir::Op *d = op.operand(i)->def;
      if (d && is_memory(*d))
        return l;
      if (!first)
        first = l;
    }
    return first;
  }
  return nullptr;
}

LayoutRef operand_for_result(const ir::Op &op, size_t i, const LayoutRef &result) {
  if (!op.operand(i)->type.is_tile())
    return nullptr;
  switch (op.kind()) {
  case OpKind::Broadcast:
    return fits_any_shape(result) ? result : nullptr;
  case OpKind::Hint:
    return result;
  case OpKind::ExpandDims:
    return ir::Layout::slice(static_cast<int32_t>(op.int_attr("axis")), result);
  default:
    return ir::is_elementwise(op.kind()) ? result : nullptr;
  }
}

} // namespace tilec::layout::rules
