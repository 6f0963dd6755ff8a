#include "layout/RemoveConversions.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "layout/LayoutRules.h"
#include "transforms/DCE.h"
#include "transforms/FoldUtils.h"

namespace tilec::layout {

using ir::LayoutRef;
using ir::OpKind;

namespace {

constexpr int kMaxRematOps = 16;

// A load of fewer elements than the CTA has threads is loaded again in the wanted layout
// rather than converted (as Triton does: its lines are in L1 / L2 already); attention
// backward's m and Di rows, read straight into the accumulator's column slice.
bool cheap_load(const ir::Op &op, int64_t threads) {
  return op.kind() == OpKind::Load && op.num_results() == 1 && op.num_operands() <= 3 &&
         op.int_attr("volatile", 0) == 0 && op.result(0)->type.numel() < threads;
}

// Ops a copy of `v` in another layout would take; -1 when it cannot be recomputed.
int remat_cost(const ir::Value *v, int budget, int64_t threads) {
  if (!v->type.is_tile())
    return 0;
  const ir::Op *op = v->def;
  if (op && op->kind() == OpKind::ConvertLayout)
    return 1; // converted again, from its source: never a bigger tile than the one above
  if (!op || op->num_results() != 1 ||
      !(rules::is_rematerialisable(*op) || cheap_load(*op, threads)))
    return -1;
  int cost = 1;
  for (size_t i = 0; i < op->num_operands(); ++i) {
    const ir::Value *o = op->operand(i);
    if (!o->type.is_tile())
      continue;
    int c = remat_cost(o, budget - cost, threads);
    if (c < 0 || cost + c > budget)
      return -1;
    cost += c;
  }
  return cost;
}

// Rematerialises a chain of cheap ops in another layout. A conversion inside the chain
// (`convert(broadcast(expand_dims(convert(m))))`, attention backward's m[None, :]) is redone
// from its source: the 1-D vector moves between layouts, not the broadcast tile. A load is
// loaded again right after the original, with its address math: at the conversion (after
// attention's first dot) its latency would stall the softmax, and a store in between
// would change what it reads.
class Rematerialiser {
public:
  explicit Rematerialiser(ir::Op *before) { b_.set_insertion_point(before); }

  ir::Value *clone(ir::Value *v, const LayoutRef &l) {
    if (!v->type.is_tile() || ir::same_layout(v->type.layout, l))
      return v;
    auto key = std::make_tuple(v, l->str(), at_load_ != nullptr);
    auto it = done_.find(key);
    if (it != done_.end())
      return it->second;
    ir::Op *op = v->def;
    if (op->kind() == OpKind::ConvertLayout) { // the chain's source, converted once
      ir::Value *src = op->operand(0);
      ir::Value *c =
          ir::same_layout(src->type.layout, l) ? src : make_convert_at(src, l, op->loc());
      done_[key] = c;
      return c;
    }
    ir::Builder outer = b_;
    ir::Op *outer_load = at_load_;
    if (op->kind() == OpKind::Load && !at_load_) {
      at_load_ = op;
      b_.set_insertion_point(std::next(op->self_iterator())->get());
    }
    std::vector<ir::Value *> operands;
    for (size_t i = 0; i < op->num_operands(); ++i) {
      ir::Value *o = op->operand(i);
      LayoutRef ol = op->kind() == OpKind::Load ? l : rules::operand_for_result(*op, i, l);
      operands.push_back(o->type.is_tile() ? clone(o, ol) : o);
    }
    ir::Op *c = b_.create(op->kind(), operands, {v->type.with_layout(l)}, op->attrs(), op->loc());
    b_ = outer;
    at_load_ = outer_load;
    done_[key] = c->result(0);
    return c->result(0);
  }

private:
  ir::Value *make_convert_at(ir::Value *v, const LayoutRef &l, SourceLoc loc) {
    return b_.create(OpKind::ConvertLayout, {v}, {v->type.with_layout(l)}, {}, loc)->result(0);
  }

  ir::Builder b_;
  ir::Op *at_load_ = nullptr; // the load whose address math is being cloned after it
  std::map<std::tuple<ir::Value *, std::string, bool>, ir::Value *> done_;
};

ir::Value *make_convert(ir::Builder &b, ir::Value *v, const LayoutRef &l, SourceLoc loc) {
  return b.create(OpKind::ConvertLayout, {v}, {v->type.with_layout(l)}, {}, loc)->result(0);
}

// A loop-carried tile that every iteration converts to layout L at the top and converts
// back from L before the yield (carried pointers whose init chain took a default layout
// while the loads want the coalesced one) is carried in L instead: the conversion moves to
// the init (once, before the loop; often rematerialised away), the body's conversions to
// L disappear, and uses wanting the old layout (inside or after the loop) get one
// conversion each. Two conversions per iteration become none.
bool carry_in_converted_layout(ir::Op &loop, int64_t threads, bool cheap_yields) {
  ir::Block *body = loop.region(0)->block();
  ir::Op *yield = body->terminator();
  bool changed = false;
  for (size_t i = 0; i < loop.num_results(); ++i) {
    ir::Value *arg = body->arg(i + 1), *res = loop.result(i), *y = yield->operand(i);
    if (!arg->type.is_tile() || !y->def || y->def->parent() != body)
      continue;
    LayoutRef want, old = arg->type.layout;
    ir::Value *y_in_want = nullptr; // the yielded value in `want`, when it exists already
    if (y->def->kind() == OpKind::ConvertLayout) {
      want = y->def->operand(0)->type.layout;
      y_in_want = y->def->operand(0);
    } else if (cheap_yields && !arg->users.empty() && remat_cost(y, kMaxRematOps, threads) >= 0) {
      // every use converts to one layout, and the yielded value is cheap to build in it
      // (attention backward's prefetched m row: a small load)
      bool one = true;
      for (const ir::Op *u : arg->users) {
        one = one && u->kind() == OpKind::ConvertLayout &&
              (!want || ir::same_layout(u->result(0)->type.layout, want));
        if (one && !want)
          want = u->result(0)->type.layout;
      }
      if (!one)
        continue;
    }
    if (!want)
      continue;
    bool converted_to_want = false;
    for (const ir::Op *u : arg->users)
      converted_to_want |=
          u->kind() == OpKind::ConvertLayout && ir::same_layout(u->result(0)->type.layout, want);
    if (!converted_to_want || ir::same_layout(want, old))
      continue;
    if (!y_in_want) { // converted right where it is made: rematerialised there below
      ir::Builder at;
      at.set_insertion_point(std::next(y->def->self_iterator())->get());
      y_in_want = make_convert(at, y, want, loop.loc());
    }
    changed = true;
    ir::Builder b;
    b.set_insertion_point(&loop);
    loop.set_operand(i + 3, make_convert(b, loop.operand(i + 3), want, loop.loc()));
    std::vector<ir::Op *> users = arg->users;
    arg->type = arg->type.with_layout(want);
    ir::Value *old_view = nullptr; // the arg in its old layout, for the other users
    for (size_t k = 0; k < users.size(); ++k) {
      ir::Op *u = users[k];
      if (std::find(users.begin(), users.begin() + static_cast<long>(k), u) !=
          users.begin() + static_cast<long>(k))
        continue; // a user of it twice: handled
      if (u->kind() == OpKind::ConvertLayout) {
        if (ir::same_layout(u->result(0)->type.layout, want)) {
          u->result(0)->replace_all_uses_with(arg);
          u->drop_operands();
          u->erase();
        }
        continue; // a conversion to a third layout converts from `want` now
      }
      if (!old_view) {
        b.set_insertion_point(body->ops().front().get());
        old_view = make_convert(b, arg, old, loop.loc());
      }
      for (size_t j = 0; j < u->num_operands(); ++j)
        if (u->operand(j) == arg)
          u->set_operand(j, old_view);
    }
    yield->set_operand(i, y_in_want);
    std::vector<ir::Op *> res_users = res->users;
    res->type = res->type.with_layout(want);
    if (!res_users.empty()) {
      b.set_insertion_point(std::next(loop.self_iterator())->get());
      ir::Value *back = make_convert(b, res, old, loop.loc());
      for (ir::Op *u : res_users)
        for (size_t j = 0; j < u->num_operands(); ++j)
          if (u->operand(j) == res)
            u->set_operand(j, back);
    }
  }
  return changed;
}

// add(x, dot(a, b, 0)) -> dot(a, b, x), as Triton's combine pass does: the accumulator
// chains through the mma instead of a second copy of it living beside the product (with
// a 128x128 fp32 tile on 4 warps that copy alone is 128 registers a thread). The sum is
// the same up to the order of the fp32 additions.
void fold_dot_accumulator(ir::Function &f) {
  std::vector<ir::Op *> adds;
  ir::walk(f.entry(), [&](ir::Op *op) {
    if (op->kind() == OpKind::Add && op->result(0)->type.is_tile())
      adds.push_back(op);
  });
  for (ir::Op *add : adds)
    for (size_t k = 0; k < 2; ++k) {
      ir::Value *d = add->operand(k), *x = add->operand(1 - k);
      ir::Op *dot = d->def;
      if (!dot || dot->kind() != OpKind::Dot || d->users.size() != 1 ||
          dot->parent() != add->parent() || !transforms::is_plus_zero_constant(dot->operand(2)) ||
          !(x->type == d->type) || !(add->result(0)->type == d->type))
        continue;
      ir::Builder b;
      b.set_insertion_point(add); // x may be defined after the dot: the new dot goes here
      ir::Op *nd = b.create(OpKind::Dot, {dot->operand(0), dot->operand(1), x}, {d->type},
                            dot->attrs(), dot->loc());
      add->result(0)->replace_all_uses_with(nd->result(0));
      add->drop_operands();
      add->erase();
      dot->drop_operands();
      dot->erase();
      break;
    }
}

// Carries loop values in their converted layout (above); true if any changed.
bool carry_converted(ir::Function &f, int64_t threads, bool cheap_yields) {
  std::vector<ir::Op *> loops;
  ir::walk(f.entry(), [&](ir::Op *op) {
    if (op->kind() == OpKind::For)
      loops.push_back(op);
  });
  bool changed = false;
  for (ir::Op *loop : loops)
    changed = carry_in_converted_layout(*loop, threads, cheap_yields) || changed;
  return changed;
}

// Each conversion of a cheap tree becomes the tree rebuilt in the wanted layout.
void rematerialise(ir::Function &f, int64_t threads) {
  std::vector<ir::Op *> converts;
  ir::walk(f.entry(), [&](ir::Op *op) {
    if (op->kind() == OpKind::ConvertLayout)
      converts.push_back(op);
  });
  for (ir::Op *c : converts) {
    ir::Value *x = c->operand(0);
    const LayoutRef &want = c->result(0)->type.layout;
    // convert(convert(y)) -> convert(y)
    while (x->def && x->def->kind() == OpKind::ConvertLayout)
      x = x->def->operand(0);
    ir::Value *replacement = nullptr;
    if (ir::same_layout(x->type.layout, want))
      replacement = x;
    else if (remat_cost(x, kMaxRematOps, threads) >= 0)
      replacement = Rematerialiser(c).clone(x, want);
    if (replacement) {
      c->result(0)->replace_all_uses_with(replacement);
      c->drop_operands();
      c->erase();
    } else if (x != c->operand(0)) {
      c->set_operand(0, x);
    }
  }
}

// After DCE: the small loads loaded again in another layout and read no more (DCE keeps
// loads); then DCE again for their address math.
void erase_dead_small_loads(ir::Module &m, int64_t threads) {
  std::vector<ir::Op *> dead;
  for (auto &f : m.functions)
    ir::walk(f->entry(), [&](ir::Op *op) {
      if (cheap_load(*op, threads) && op->result(0)->users.empty())
        dead.push_back(op);
    });
  for (ir::Op *op : dead) {
    op->drop_operands();
    op->erase();
  }
  if (!dead.empty())
    transforms::dce(m);
}

// The op of `b` that is or contains `op`, or null.
ir::Op *ancestor_in(ir::Op *op, const ir::Block *b) {
  while (op && op->parent() != b) {
    ir::Region *r = op->parent() ? op->parent()->parent() : nullptr;
    op = r ? r->parent() : nullptr;
  }
  return op;
}

// Each conversion moves down to just before its first user in its block: layout
// assignment puts it right after the value's definition (a loop's top for carried
// values), which keeps the converted copy alive across everything in between (in the
// attention loop, v's mma fragments across the whole softmax).
void sink_conversions(ir::Function &f) {
  std::vector<ir::Op *> converts;
  ir::walk(f.entry(), [&](ir::Op *op) {
    if (op->kind() == OpKind::ConvertLayout)
      converts.push_back(op);
  });
  for (ir::Op *c : converts) {
    ir::Block *b = c->parent();
    std::vector<ir::Op *> anc;
    for (ir::Op *u : c->result(0)->users)
      anc.push_back(ancestor_in(u, b));
    if (anc.empty() || std::find(anc.begin(), anc.end(), nullptr) != anc.end())
      continue;
    ir::Op *first = nullptr;
    for (auto it = std::next(c->self_iterator()); it != b->ops().end() && !first; ++it)
      if (std::find(anc.begin(), anc.end(), it->get()) != anc.end())
        first = it->get();
    if (!first || std::prev(first->self_iterator())->get() == c)
      continue;
    ir::Builder bld;
    bld.set_insertion_point(first);
    ir::Op *moved = bld.create(OpKind::ConvertLayout, {c->operand(0)}, {c->result(0)->type},
                               c->attrs(), c->loc());
    c->result(0)->replace_all_uses_with(moved->result(0));
    c->drop_operands();
    c->erase();
  }
}

} // namespace

void remove_conversions(ir::Module &m) {
  int64_t threads = 32 * m.int_attr("num_warps", 4);
  for (auto &f : m.functions) {
    fold_dot_accumulator(*f);
    carry_converted(*f, threads, false);
    rematerialise(*f, threads);
  }
  transforms::dce(m);
  // then carried values that every use (after the first round: m[None, :]'s chain is
  // converted at its 1-D source) converts to one layout, yielded by a cheap tree
  bool again = false;
  for (auto &f : m.functions)
    again = carry_converted(*f, threads, true) || again;
  if (again) {
    for (auto &f : m.functions)
      rematerialise(*f, threads);
    transforms::dce(m);
  }
  erase_dead_small_loads(m, threads);
  for (auto &f : m.functions)
    sink_conversions(*f);
}

} // namespace tilec::layout
