#include "transforms/LoopShift.h"

namespace tilec::transforms {

using namespace ir;

LoopShift::LoopShift(Op &loop, bool reuse_current)
    : loop_(loop), body_(*loop.region(0)->block()), reuse_current_(reuse_current) {}

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
    ok = is_pure(op->kind()) && op->num_regions() == 0;
    for (size_t i = 0; ok && i < op->num_operands(); ++i)
      ok = recomputable(op->operand(i));
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

Value *LoopShift::clone(Op *op, unsigned index, bool start, int d, Builder &b) {
  std::vector<Value *> ops;
  for (Value *o : op->operands()) {
    Value *x = start ? from_start(o, d, b) : ahead(o, d, b);
    if (!x)
      return nullptr;
    ops.push_back(x);
  }
  std::vector<Type> types;
  for (size_t i = 0; i < op->num_results(); ++i)
    types.push_back(op->result(i)->type);
  Op *c = b.create(op->kind(), ops, types, op->attrs(), op->loc());
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
    else // what iteration i + d - 1 yields
      r = ahead(body_.terminator()->operand(v->index - 1), d - 1, b);
  } else if (d == 0 && reuse_current_) {
    r = v;
  } else {
    Op *op = v->def;
    if (!is_pure(op->kind()) || op->num_regions() != 0)
      return nullptr;
    r = clone(op, v->index, false, d, b);
  }
  memo_[key] = r;
  return r;
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
    if (!is_pure(op->kind()) || op->num_regions() != 0)
      return nullptr;
    r = clone(op, v->index, true, s, b);
  }
  memo_[key] = r;
  return r;
}

} // namespace tilec::transforms
