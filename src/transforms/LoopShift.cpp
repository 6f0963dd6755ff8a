#include "transforms/LoopShift.h"

#include <algorithm>
#include <map>

#include "support/Diagnostics.h"

namespace tilec::transforms {

using namespace ir;

namespace {

// An `if` whose regions hold only pure ops without regions (a flattened loop's once-a-tile
// prologue: FlattenLoops.h) is recomputed as a whole.
bool pure_if(const Op *op) {
  if (op->kind() != OpKind::If)
    return false;
  for (size_t r = 0; r < op->num_regions(); ++r)
    for (const auto &in : op->region(r)->block()->ops())
      if (in->kind() != OpKind::Yield && (!is_pure(in->kind()) || in->num_regions() != 0))
        return false;
  return true;
}

// `f` on each operand of the ops in `op`'s regions defined outside them.
template <typename F> bool each_outer_operand(const Op *op, F &&f) {
  for (size_t r = 0; r < op->num_regions(); ++r) {
    const Block *blk = op->region(r)->block();
    for (const auto &in : blk->ops())
      for (Value *o : in->operands())
        if (!(o->def && o->def->parent() == blk) && !f(o))
          return false;
  }
  return true;
}

// The ops of `from` (pure, region-free, then a yield) appended to `to`, their operands
// through `map` (which holds every value from outside `from` they read).
void copy_ops(const Block &from, Block &to, std::map<const Value *, Value *> &map) {
  Builder in(&to);
  for (const auto &o : from.ops()) {
    std::vector<Value *> xs;
    for (Value *x : o->operands())
      xs.push_back(map.at(x));
    std::vector<Type> ts;
    for (size_t i = 0; i < o->num_results(); ++i)
      ts.push_back(o->result(i)->type);
    Op *n = in.create(o->kind(), xs, ts, o->attrs(), o->loc());
    for (size_t i = 0; i < o->num_results(); ++i)
      map[o->result(i)] = n->result(i);
  }
}

} // namespace

LoopShift::LoopShift(Op &loop, bool reuse_current, std::set<const Op *> visible, bool carry_caches)
    : loop_(loop), body_(*loop.region(0)->block()), reuse_current_(reuse_current),
      visible_(std::move(visible)), carry_caches_(carry_caches) {}

void LoopShift::close() {
  for (auto &[arg, next] : carried_) {
    TILEC_ASSERT(next, "LoopShift: a carried value without its next value");
    body_.terminator()->add_operand(next);
  }
  carried_.clear();
}

Value *LoopShift::carry(Value *initial) {
  loop_.add_operand(initial);
  loop_.add_result(initial->type);
  Value *arg = body_.add_arg(initial->type);
  carried_.push_back({arg, nullptr});
  return arg;
}

bool LoopShift::inside(const Value *v) const {
  const Block *b = v->def ? v->def->parent() : v->owner;
  return b == &body_;
}

bool LoopShift::recomputable(Value *v) {
  if (!v || !inside(v))
    return true;
  if (auto it = ok_.find(v); it != ok_.end())
    return it->second;
  ok_[v] = true; // a cycle through a carried value closes on itself
  bool ok;
  if (v->is_block_arg())
    ok = v->index == 0 || recomputable(body_.terminator()->operand(v->index - 1));
  else {
    Op *op = v->def;
    ok = (is_pure(op->kind()) && op->num_regions() == 0) || pure_if(op);
    for (size_t i = 0; ok && i < op->num_operands(); ++i)
      ok = recomputable(op->operand(i));
    if (ok && op->num_regions())
      ok = each_outer_operand(op, [&](Value *o) { return recomputable(o); });
  }
  ok_[v] = ok;
  return ok;
}

Value *LoopShift::offset_iv(Value *base, int d, Builder &b) {
  if (d == 0)
    return base;
  Value *step = loop_.operand(2);
  Value *delta = step;
  if (d != 1) {
    if (step->def && step->def->kind() == OpKind::Constant)
      delta = b.constant_int(step->type, step->def->int_attr("value", 0) * d, loop_.loc());
    else
      delta = b.create(OpKind::Mul, {step, b.constant_int(step->type, d, loop_.loc())},
                       {step->type}, {}, loop_.loc())
                  ->result();
  }
  return b.create(OpKind::Add, {base, delta}, {base->type}, {}, loop_.loc())->result();
}

Value *LoopShift::stepped_ahead(Value *v, int d, Builder &b) {
  Op *next = body_.terminator()->operand(v->index - 1)->def;
  if (d < 3 || !next || next->kind() != OpKind::AddPtr || next->operand(0) != v ||
      inside(next->operand(1)))
    return nullptr;
  Value *off = next->operand(1), *s = off;
  if (off->type.is_tile()) {
    if (!off->def || off->def->kind() != OpKind::Splat)
      return nullptr;
    s = off->def->operand(0);
  }
  if (!is_signed_int(s->type.elem) || bits(s->type.elem) > 64)
    return nullptr;
  Builder pre; // invariant: before the loop
  pre.set_insertion_point(&loop_);
  SourceLoc loc = next->loc();
  Type i64(DType::I64);
  Value *m;
  if (s->def && s->def->kind() == OpKind::Constant) {
    m = pre.constant_int(i64, s->def->int_attr("value", 0) * d, loc);
  } else {
    Value *w =
        s->type.elem == DType::I64 ? s : pre.create(OpKind::Cast, {s}, {i64}, {}, loc)->result();
    m = pre.create(OpKind::Mul, {w, pre.constant_int(i64, d, loc)}, {i64}, {}, loc)->result();
  }
  if (off->type.is_tile())
    m = pre.create(OpKind::Splat, {m}, {off->type.with_elem(DType::I64)}, {}, loc)->result();
  return b.create(OpKind::AddPtr, {v, m}, {v->type}, {}, loc)->result();
}

Value *LoopShift::clone(Op *op, unsigned index, bool start, int d, Builder &b) {
  auto shifted = [&](Value *o) { return start ? from_start(o, d, b) : ahead(o, d, b); };
  std::vector<Value *> ops;
  for (Value *o : op->operands()) {
    Value *x = shifted(o);
    if (!x)
      return nullptr;
    ops.push_back(x);
  }
  // a pure `if`: what its regions read from outside, shifted before it
  std::map<const Value *, Value *> outer;
  if (!each_outer_operand(op, [&](Value *o) { return (outer[o] = shifted(o)) != nullptr; }))
    return nullptr;
  std::vector<Type> types;
  for (size_t i = 0; i < op->num_results(); ++i)
    types.push_back(op->result(i)->type);
  Op *c = b.create(op->kind(), ops, types, op->attrs(), op->loc(),
                   static_cast<unsigned>(op->num_regions()));
  for (size_t r = 0; r < op->num_regions(); ++r) {
    std::map<const Value *, Value *> map = outer;
    copy_ops(*op->region(r)->block(), *c->region(r)->ensure_block(), map);
  }
  for (size_t i = 0; i < op->num_results(); ++i)
    memo_[{op->result(i), start, d}] = c->result(i);
  return c->result(index);
}

Value *LoopShift::ahead(Value *v, int d, Builder &b) {
  if (!v || !inside(v))
    return v;
  auto key = std::make_tuple(v, false, d);
  if (auto it = memo_.find(key); it != memo_.end())
    return it->second;
  Value *r = nullptr;
  if (v->is_block_arg()) {
    if (v->index == 0)
      r = offset_iv(v, d, b);
    else if (d == 0)
      r = v;
    else if (!(r = stepped_ahead(v, d, b))) // what iteration i + d - 1 yields
      r = ahead(body_.terminator()->operand(v->index - 1), d - 1, b);
  } else if (d == 0 && (reuse_current_ || visible_.count(v->def))) {
    r = v;
  } else {
    Op *op = v->def;
    if ((!is_pure(op->kind()) || op->num_regions() != 0) && !pure_if(op))
      return nullptr;
    if (op->int_attr(kCacheAttr, 0))
      r = cached_ahead(op, v->index, d, b);
    if (!r)
      r = clone(op, v->index, false, d, b);
  }
  memo_[key] = r;
  return r;
}

bool LoopShift::shifted_inputs(Op *op, int d, Builder &b, std::map<const Value *, Value *> &map,
                               std::vector<std::pair<Value *, Value *>> &varying) {
  const Block *then = op->region(0)->block();
  for (const auto &in : then->ops())
    for (Value *o : in->operands()) {
      if ((o->def && o->def->parent() == then) || map.count(o))
        continue;
      Value *x = ahead(o, d, b);
      if (!x || (inside(o) && (o->type.is_tile() || o->type.is_ptr())))
        return false; // compared: scalar numbers only
      map[o] = x;
      if (inside(o))
        varying.push_back({o, x});
    }
  return true;
}

namespace {
// x0 == y0 && x1 == y1 && ...
Value *all_equal(Builder &b, const std::vector<std::pair<Value *, Value *>> &xy, SourceLoc loc) {
  Value *same = nullptr;
  for (auto &[x, y] : xy) {
    Value *eq = b.create(OpKind::Cmp, {x, y}, {Type(DType::I1)}, {{"pred", std::string("eq")}}, loc)
                    ->result();
    same = same ? b.create(OpKind::And, {same, eq}, {eq->type}, {}, loc)->result() : eq;
  }
  return same;
}
} // namespace

// The results at i + d are the then-region's on the inputs shifted there, unless those
// equal the inputs compared with, whose results are taken instead: with carry_caches, the
// inputs and results of iteration i + d - 1 (carried; from the start, those of iteration
// d - 1), both going on to the next iteration; else the current iteration's own.
Value *LoopShift::cached_ahead(Op *op, unsigned index, int d, Builder &b) {
  bool carried = carry_caches_ && d >= 1, current = reuse_current_ || visible_.count(op);
  if (!carried && !current)
    return nullptr;
  const Block *then = op->region(0)->block();
  SourceLoc loc = op->loc();
  std::map<const Value *, Value *> map;
  std::vector<std::pair<Value *, Value *>> varying; // (input, its value at i + d)
  if (!shifted_inputs(op, d, b, map, varying))
    return nullptr;
  if (varying.empty()) // nothing it reads changes in the loop
    return current ? op->result(index) : nullptr;
  std::vector<Value *> first; // carried: the inputs and results at iteration d - 1
  if (carried) {
    Builder pre;
    pre.set_insertion_point(&loop_);
    for (auto &[o, x] : varying)
      first.push_back(start_->from_start(o, d - 1, pre));
    for (size_t i = 0; i < op->num_results(); ++i)
      first.push_back(start_->from_start(op->result(i), d - 1, pre));
    if (std::find(first.begin(), first.end(), nullptr) != first.end())
      first.clear();
  }
  if (first.empty() && !current)
    return nullptr;
  size_t at = carried_.size();
  std::vector<std::pair<Value *, Value *>> compared; // (input at i + d, compared with)
  std::vector<Value *> kept;                         // the results when they are equal
  for (size_t j = 0; j < varying.size(); ++j)
    compared.push_back({varying[j].second, first.empty() ? varying[j].first : carry(first[j])});
  for (size_t i = 0; i < op->num_results(); ++i)
    kept.push_back(first.empty() ? op->result(i) : carry(first[varying.size() + i]));
  std::vector<Type> types;
  for (size_t i = 0; i < op->num_results(); ++i)
    types.push_back(op->result(i)->type);
  Op *c = b.create(OpKind::If, {all_equal(b, compared, loc)}, types, {}, loc, 2);
  Builder(c->region(0)->ensure_block()).create(OpKind::Yield, kept, {}, {}, loc);
  copy_ops(*then, *c->region(1)->ensure_block(), map);
  for (size_t i = 0; i < op->num_results(); ++i)
    memo_[{op->result(i), false, d}] = c->result(i);
  if (!first.empty()) { // what goes on to the next iteration
    for (size_t j = 0; j < varying.size(); ++j)
      carried_[at + j].second = varying[j].second;
    for (size_t i = 0; i < op->num_results(); ++i)
      carried_[at + varying.size() + i].second = c->result(i);
  }
  return c->result(index);
}

Value *LoopShift::from_start(Value *v, int s, Builder &b) {
  if (!v || !inside(v))
    return v;
  auto key = std::make_tuple(v, true, s);
  if (auto it = memo_.find(key); it != memo_.end())
    return it->second;
  Value *r = nullptr;
  if (v->is_block_arg()) {
    if (v->index == 0)
      r = offset_iv(loop_.operand(0), s, b);
    else if (s == 0)
      r = loop_.operand(2 + v->index); // the initial value
    else
      r = from_start(body_.terminator()->operand(v->index - 1), s - 1, b);
  } else {
    Op *op = v->def;
    if ((!is_pure(op->kind()) || op->num_regions() != 0) && !pure_if(op))
      return nullptr;
    r = clone(op, v->index, true, s, b);
  }
  memo_[key] = r;
  return r;
}

} // namespace tilec::transforms
