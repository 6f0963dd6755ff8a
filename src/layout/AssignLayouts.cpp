#include "layout/AssignLayouts.h"

#include <algorithm>
#include <map>
#include <utility>

#include "layout/LayoutRules.h"
#include "layout/Layouts.h"
#include "layout/RemoveConversions.h"

namespace tilec::layout {

using ir::LayoutRef;
using ir::OpKind;

int module_num_warps(const ir::Module &m) { return static_cast<int>(m.int_attr("num_warps", 4)); }

bool module_has_wgmma(const ir::Module &m) { return m.int_attr("wgmma", 0) != 0; }
bool module_has_f64_mma(const ir::Module &m) { return m.int_attr("f64_mma", 0) != 0; }

namespace {

// A memory access's coalescing: the dims by contiguity and the elements per thread along
// the first (a vector of at most 16 bytes, no more than the tile spreads over the threads).
struct Coalescing {
  std::vector<int32_t> order;
  int64_t per;
};

int64_t per_thread_cap(const ir::Value *ptr, int num_warps) {
  int64_t threads = int64_t{kWarpSize} * num_warps;
  return std::max<int64_t>(1, ptr->type.numel() / threads);
}

Coalescing coalescing_of(const ir::Value *ptr, const analysis::AxisInfoAnalysis &ax,
                         int num_warps) {
  std::vector<int32_t> order = ax.order_by_contiguity(ptr);
  int64_t elem_bytes = ir::byte_size(ptr->type.elem);
  int64_t per =
      std::min<int64_t>(ax.ptr_vector_elems(ptr, order[0]), std::max<int64_t>(1, 16 / elem_bytes));
  per = std::min(per, per_thread_cap(ptr, num_warps));
  return {std::move(order), per};
}

LayoutRef layout_for(const ir::Value *ptr, const Coalescing &c, int num_warps) {
  const ir::Shape &shape = ptr->type.shape;
  std::vector<int32_t> spt(shape.size(), 1);
  spt[c.order[0]] = static_cast<int32_t>(std::min(c.per, shape[c.order[0]]));
  return blocked_for_shape(shape, spt, c.order, num_warps);
}

// Triton's Coalesce rule: a load takes the most elements per thread of the memory accesses
// of its slice (the values connected to it through ops on tiles of its shape) that share
// its order, so that a gather feeding a vectorised load's arithmetic gets that load's
// layout instead of a conversion through shared memory. Stores keep their own width (a
// wider one would leave gaps in each warp's write).
void share_slice_widths(ir::Function &f, std::map<ir::Op *, Coalescing> &mem, int num_warps) {
  std::map<const ir::Value *, const ir::Value *> parent; // union-find over tile values
  auto find = [&](const ir::Value *v) {
    const ir::Value *root = v;
    for (auto it = parent.find(root); it != parent.end() && it->second != root;
         it = parent.find(root))
      root = it->second;
    while (v != root) { // path compression
      auto it = parent.find(v);
      v = std::exchange(it->second, root);
    }
    return root;
  };
  auto unite = [&](const ir::Value *a, const ir::Value *b) {
    const ir::Value *ra = find(a), *rb = find(b);
    if (ra != rb)
      parent[ra] = rb;
  };
  ir::walk(f.entry(), [&](ir::Op *op) {
    const ir::Value *first = nullptr;
    auto join = [&](const ir::Value *v) {
      if (!v->type.is_tile())
        return;
      if (!first)
        first = v;
      else if (v->type.shape == first->type.shape)
        unite(v, first);
    };
    for (size_t i = 0; i < op->num_results(); ++i)
      join(op->result(i));
    for (size_t i = 0; i < op->num_operands(); ++i)
      join(op->operand(i));
  });
  std::map<std::pair<const ir::Value *, std::vector<int32_t>>, int64_t> widest;
  for (auto &[op, c] : mem) {
    auto key = std::make_pair(find(op->operand(0)), c.order);
    widest[key] = std::max(widest[key], c.per);
  }
  for (auto &[op, c] : mem)
    if (op->kind() == OpKind::Load)
      c.per = std::min(widest[{find(op->operand(0)), c.order}],
                       per_thread_cap(op->operand(0), num_warps));
}

} // namespace

LayoutRef coalesced_layout(const ir::Value *ptr, const analysis::AxisInfoAnalysis &ax,
                           int num_warps) {
  return layout_for(ptr, coalescing_of(ptr, ax, num_warps), num_warps);
}

namespace {

void set_layout(ir::Value *v, LayoutRef l) { v->type = v->type.with_layout(std::move(l)); }
bool unset(const ir::Value *v) { return v->type.is_tile() && !v->type.layout; }
LayoutRef layout_of(const ir::Value *v) { return v->type.is_tile() ? v->type.layout : nullptr; }

ir::Op *terminator(const ir::Op &op, size_t region) {
  return op.region(region)->block()->terminator();
}

class Assigner {
public:
  Assigner(ir::Module &m, ir::Function &f)
      : f_(f), nw_(module_num_warps(m)), wgmma_(module_has_wgmma(m)),
        f64_mma_(module_has_f64_mma(m)), ax_(f, &m) {}

  void run() {
    std::map<ir::Op *, Coalescing> mem;
    ir::walk(f_.entry(), [&](ir::Op *op) {
      if (rules::is_memory(*op) && op->operand(0)->type.is_tile())
        mem[op] = coalescing_of(op->operand(0), ax_, nw_);
    });
    share_slice_widths(f_, mem, nw_);
    for (const auto &[op, c] : mem)
      anchors_[op] = layout_for(op->operand(0), c, nw_);
    // Forward until loop-carried values settle (each pass only fills unset values).
    for (int pass = 0; pass < 4 && forward_block(*f_.entry()); ++pass) {
    }
    backward_block(*f_.entry());
    ir::walk(f_.entry(), [&](ir::Op *op) { // anything left (unused values): a default
      for (size_t i = 0; i < op->num_results(); ++i)
        if (unset(op->result(i)))
          set_layout(op->result(i), fallback(op->result(i)));
      for (size_t r = 0; r < op->num_regions(); ++r)
        for (size_t i = 0; i < op->region(r)->block()->num_args(); ++i)
          if (unset(op->region(r)->block()->arg(i)))
            set_layout(op->region(r)->block()->arg(i), fallback(op->region(r)->block()->arg(i)));
    });
    fixup_block(*f_.entry());
  }

private:
  ir::Function &f_;
  int nw_;
  bool wgmma_, f64_mma_;
  analysis::AxisInfoAnalysis ax_;
  rules::Anchors anchors_;
  std::map<std::pair<ir::Value *, std::string>, ir::Value *> converted_;

  LayoutRef fallback(const ir::Value *v) const { return default_blocked(v->type.shape, nw_); }

  // Sets an unset value; true when it changed anything.
  bool fill(ir::Value *v, const LayoutRef &l) {
    if (!l || !unset(v))
      return false;
    set_layout(v, l);
    return true;
  }

  // ---- forward: layouts from operands and anchors ------------------------------------
  bool forward_block(ir::Block &b) {
    bool changed = false;
    for (auto &op : b.ops())
      changed |= forward_op(*op);
    return changed;
  }

  bool forward_op(ir::Op &op) {
    bool changed = false;
    switch (op.kind()) {
    case OpKind::For: {
      ir::Block *body = op.region(0)->block();
      for (size_t i = 0; i + 3 < op.num_operands(); ++i)
        changed |= fill_carried(op.result(i), body->arg(i + 1), layout_of(op.operand(i + 3)));
      changed |= forward_block(*body);
      for (size_t i = 0; i < op.num_results(); ++i)
        changed |=
            fill_carried(op.result(i), body->arg(i + 1), layout_of(terminator(op, 0)->operand(i)));
      return changed;
    }
    case OpKind::If: {
      changed |= forward_block(*op.region(0)->block());
      changed |= forward_block(*op.region(1)->block());
      for (size_t i = 0; i < op.num_results(); ++i) {
        LayoutRef l = layout_of(terminator(op, 0)->operand(i));
        changed |= fill(op.result(i), l ? l : layout_of(terminator(op, 1)->operand(i)));
      }
      return changed;
    }
    case OpKind::While: {
      ir::Block *before = op.region(0)->block(), *after = op.region(1)->block();
      for (size_t i = 0; i < op.num_operands(); ++i)
        changed |= fill(before->arg(i), layout_of(op.operand(i)));
      changed |= forward_block(*before);
      ir::Op *cond = terminator(op, 0);
      for (size_t i = 0; i < op.num_results(); ++i)
        changed |= fill_carried(op.result(i), after->arg(i), layout_of(cond->operand(i + 1)));
      changed |= forward_block(*after);
      for (size_t i = 0; i < before->num_args(); ++i)
        changed |= fill(before->arg(i), layout_of(terminator(op, 1)->operand(i)));
      return changed;
    }
    default:
      break;
    }
    if (rules::is_memory(op)) {
      auto it = anchors_.find(&op);
      if (it != anchors_.end() && op.num_results())
        changed |= fill(op.result(0), it->second);
      return changed;
    }
    for (size_t i = 0; i < op.num_results(); ++i)
      changed |= fill(op.result(i), rules::forward(op, i, nw_, wgmma_, f64_mma_));
    return changed;
  }

  // A loop-carried value: the op result and its block argument share one layout.
  bool fill_carried(ir::Value *result, ir::Value *arg, const LayoutRef &l) {
    if (!l || !result->type.is_tile())
      return false;
    if (!unset(result) || !unset(arg)) {
      LayoutRef have = unset(result) ? arg->type.layout : result->type.layout;
      bool c = fill(result, have);
      return fill(arg, have) || c;
    }
    fill(result, l);
    fill(arg, l);
    return true;
  }

  // ---- backward: flexible values take the layout their users want ---------------------
  LayoutRef wanted(const ir::Value *v, int depth = 0) const {
    // memory users first: their layouts are the anchors everything else follows
    for (int memory_pass = 1; memory_pass >= 0; --memory_pass)
      for (const ir::Op *u : v->users) {
        if (rules::is_memory(*u) != static_cast<bool>(memory_pass))
          continue;
        for (size_t i = 0; i < u->num_operands(); ++i)
          if (u->operand(i) == v)
            if (LayoutRef w = rules::operand_want(*u, i, anchors_))
              return w;
      }
    // A hint not laid out yet is transparent: a loop-carried pointer tile whose only user
    // is `tl.multiple_of(ptrs, …)` before a load (tutorial 08) takes the load's layout,
    // not a default that each iteration converts through shared memory.
    if (depth < 4)
      for (const ir::Op *u : v->users)
        if (u->kind() == OpKind::Hint && unset(u->result(0)))
          if (LayoutRef w = wanted(u->result(0), depth + 1))
            return w;
    return nullptr;
  }

  template <typename... L> static LayoutRef first_of(L... ls) {
    LayoutRef r;
    ((r = r ? r : ls), ...);
    return r;
  }

  void backward_block(ir::Block &b) {
    for (auto it = b.ops().rbegin(); it != b.ops().rend(); ++it)
      backward_op(**it);
  }

  void set_carried(ir::Value *result, ir::Value *arg, const LayoutRef &l) {
    if (!result->type.is_tile())
      return;
    LayoutRef have = first_of(result->type.layout, arg->type.layout, l);
    fill(result, have);
    fill(arg, have);
  }

  void backward_op(ir::Op &op) {
    switch (op.kind()) {
    case OpKind::For: {
      ir::Block *body = op.region(0)->block();
      for (size_t i = 0; i < op.num_results(); ++i)
        if (unset(op.result(i)) || unset(body->arg(i + 1)))
          set_carried(op.result(i), body->arg(i + 1),
                      first_of(wanted(body->arg(i + 1)), wanted(op.result(i)),
                               layout_of(terminator(op, 0)->operand(i)),
                               layout_of(op.operand(i + 3)), fallback(op.result(i))));
      backward_block(*body);
      return;
    }
    case OpKind::If:
      for (size_t i = 0; i < op.num_results(); ++i)
        if (unset(op.result(i)))
          fill(op.result(i),
               first_of(wanted(op.result(i)), layout_of(terminator(op, 0)->operand(i)),
                        layout_of(terminator(op, 1)->operand(i)), fallback(op.result(i))));
      backward_block(*op.region(1)->block());
      backward_block(*op.region(0)->block());
      return;
    case OpKind::While: {
      ir::Block *before = op.region(0)->block(), *after = op.region(1)->block();
      ir::Op *cond = terminator(op, 0);
      for (size_t i = 0; i < op.num_results(); ++i)
        if (unset(op.result(i)) || unset(after->arg(i)))
          set_carried(op.result(i), after->arg(i),
                      first_of(wanted(after->arg(i)), wanted(op.result(i)),
                               layout_of(cond->operand(i + 1)), fallback(op.result(i))));
      for (size_t i = 0; i < before->num_args(); ++i)
        if (unset(before->arg(i)))
          fill(before->arg(i),
               first_of(wanted(before->arg(i)), layout_of(op.operand(i)),
                        layout_of(terminator(op, 1)->operand(i)), fallback(before->arg(i))));
      backward_block(*after);
      backward_block(*before);
      return;
    }
    case OpKind::Reduce: {
      if (op.num_results() == 0 || !unset(op.result(0)))
        return;
      // the result is the slice of the operands' layout: pick the operands' layout so
      // that the slice is what the users want, when they want a slice of this axis
      int32_t axis = static_cast<int32_t>(op.int_attr("axis"));
      LayoutRef w = wanted(op.result(0));
      LayoutRef parent = layout_of(op.operand(0));
      if (!parent)
        parent = w && w->kind == ir::LayoutKind::Slice && w->dim == axis
                     ? w->parent
                     : default_blocked(op.operand(0)->type.shape, nw_);
      for (size_t i = 0; i < op.num_results(); ++i)
        fill(op.result(i), ir::Layout::slice(axis, parent));
      return;
    }
    default:
      break;
    }
    for (size_t i = 0; i < op.num_results(); ++i)
      if (unset(op.result(i)))
        fill(op.result(i),
             first_of(wanted(op.result(i)), rules::forward(op, i, nw_, wgmma_, f64_mma_),
                      fallback(op.result(i))));
  }

  // ---- fix-up: convert operands whose layout is not what their user needs --------------
  void fixup_block(ir::Block &b) {
    for (auto &op : b.ops()) {
      for (size_t r = 0; r < op->num_regions(); ++r)
        fixup_block(*op->region(r)->block());
      for (size_t i = 0; i < op->num_operands(); ++i) {
        ir::Value *v = op->operand(i);
        LayoutRef want = rules::operand_want(*op, i, anchors_);
        if (want && !ir::same_layout(want, v->type.layout))
          op->set_operand(i, convert(v, want, op->loc()));
      }
    }
  }

  ir::Value *convert(ir::Value *v, const LayoutRef &l, SourceLoc loc) {
    auto key = std::make_pair(v, l->str());
    auto it = converted_.find(key);
    if (it != converted_.end())
      return it->second;
    ir::Builder b;
    if (v->def) {
      ir::Block *blk = v->def->parent();
      auto pos = std::next(v->def->self_iterator());
      b.set_insertion_point_to_end(blk);
      if (pos != blk->ops().end())
        b.set_insertion_point(pos->get());
    } else {
      ir::Block *blk = v->owner;
      b.set_insertion_point_to_end(blk);
      if (!blk->ops().empty())
        b.set_insertion_point(blk->ops().front().get());
    }
    ir::Op *c = b.create(OpKind::ConvertLayout, {v}, {v->type.with_layout(l)}, {}, loc);
    converted_[key] = c->result(0);
    return c->result(0);
  }
};

} // namespace

void assign_layouts(ir::Module &m) {
  for (auto &f : m.functions)
    Assigner(m, *f).run();
}

} // namespace tilec::layout
