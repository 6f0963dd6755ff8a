#include "transforms/StrengthReduce.h"

#include <map>

#include "transforms/DCE.h"
#include "transforms/FoldUtils.h"

namespace tilec::transforms {

using namespace ir;

namespace {

bool inside(const Value *v, const Block &body) {
  return (v->def ? v->def->parent() : v->owner) == &body;
}

// Whether `v` is f(iv) for an f whose difference f(x + s) - f(x) is the same for every x
// the loop visits: built from the induction variable by sign-extending (or same-width)
// integer casts, adding or subtracting invariants, and multiplying by invariants.
bool affine(const Value *v, const Block &body) {
  if (v == body.arg(0))
    return true;
  if (!inside(v, body) || v->is_block_arg() || !v->type.is_scalar() || v->type.ptr ||
      !is_int(v->type.elem) || is_bool(v->type.elem))
    return false;
  const Op &op = *v->def;
  switch (op.kind()) {
  case OpKind::Cast: {
    DType from = op.operand(0)->type.elem;
    // iv + step does not wrap in the iv's type between iterations that run (a loop whose
    // iv wraps is not one Triton's range() describes), so a sign extension keeps
    // differences; a zero extension does not across negative values.
    bool keeps =
        is_int(from) && !is_bool(from) && (bits(v->type.elem) == bits(from) || is_signed_int(from));
    return keeps && bits(v->type.elem) >= bits(from) && affine(op.operand(0), body);
  }
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul: {
    bool a = affine(op.operand(0), body), b = affine(op.operand(1), body);
    bool a_inv = !inside(op.operand(0), body), b_inv = !inside(op.operand(1), body);
    return (a && b_inv) || (b && a_inv);
  }
  default:
    return false;
  }
}

// Emits (with `b`, before the loop) f with the induction variable replaced by `x`.
Value *at(Value *v, const Block &body, Value *x, Builder &b, std::map<Value *, Value *> &memo) {
  if (v == body.arg(0))
    return x;
  if (!inside(v, body))
    return v;
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Op &op = *v->def;
  std::vector<Value *> operands;
  for (Value *o : op.operands())
    operands.push_back(at(o, body, x, b, memo));
  Value *r = b.create(op.kind(), operands, {v->type}, op.attrs(), op.loc())->result();
  return memo[v] = r;
}

// c * x, folded when c is a constant: x << log2(c) for a power of two. ptxas folds a
// 64-bit multiplication by a constant into every address that adds it (IMAD.WIDE and
// register moves per pointer), but keeps a shifted value as one increment.
Value *times(Value *c, Value *x, Builder &b, SourceLoc loc) {
  const Type &t = x->type;
  auto k = constant_value(c);
  if (!k)
    return b.create(OpKind::Mul, {c, x}, {t}, {}, loc)->result();
  int64_t v = wrap_int(k->i, t.elem);
  if (v == 1)
    return x;
  if (v > 0 && (v & (v - 1)) == 0)
    return b
        .create(OpKind::Shl, {x, b.constant_int(t, __builtin_ctzll(static_cast<uint64_t>(v)), loc)},
                {t}, {}, loc)
        ->result();
  return b.create(OpKind::Mul, {b.constant_int(t, v, loc), x}, {t}, {}, loc)->result();
}

// Emits (before the loop) f(iv + step) - f(iv), in f's type; constant when step is.
Value *delta(Value *v, const Block &body, Value *step, Builder &b) {
  if (v == body.arg(0))
    return step;
  Op &op = *v->def;
  SourceLoc loc = op.loc();
  switch (op.kind()) {
  case OpKind::Cast: {
    Value *d = delta(op.operand(0), body, step, b);
    if (auto k = constant_value(d)) // a sign extension (or same width) of a constant
      return b.constant_int(v->type, wrap_int(k->i, v->type.elem), loc);
    return b.create(OpKind::Cast, {d}, {v->type}, op.attrs(), loc)->result();
  }
  case OpKind::Mul: {
    bool first = inside(op.operand(0), body);
    return times(delta(op.operand(first ? 0 : 1), body, step, b), op.operand(first ? 1 : 0), b,
                 loc);
  }
  case OpKind::Add:
    return delta(op.operand(inside(op.operand(0), body) ? 0 : 1), body, step, b);
  case OpKind::Sub: {
    if (inside(op.operand(0), body))
      return delta(op.operand(0), body, step, b);
    Value *d = delta(op.operand(1), body, step, b);
    if (auto k = constant_value(d))
      return b.constant_int(
          v->type, wrap_int(static_cast<int64_t>(0ull - static_cast<uint64_t>(k->i)), v->type.elem),
          loc);
    return b.create(OpKind::Neg, {d}, {v->type}, {}, loc)->result();
  }
  default:
    TILEC_ASSERT(false, "strength_reduce: delta of a non-affine value");
    return nullptr;
  }
}

// The scalar f(iv) of `addptr(P, splat(f(iv)))` with P invariant, or null.
Value *reducible_offset(const Op &op, const Block &body) {
  if (op.kind() != OpKind::AddPtr || !op.result()->type.is_tile() || inside(op.operand(0), body))
    return nullptr;
  const Value *o = op.operand(1);
  if (!o->def || o->def->kind() != OpKind::Splat || !inside(o, body))
    return nullptr;
  Value *f = o->def->operand(0);
  return affine(f, body) ? f : nullptr;
}

bool reduce_loop(Op &loop) {
  Block &body = *loop.region(0)->block();
  Value *lb = loop.operand(0), *step = loop.operand(2);
  std::vector<std::pair<Op *, Value *>> found; // the addptr and its f(iv)
  for (auto &op : body.ops())
    if (Value *f = reducible_offset(*op, body))
      found.emplace_back(op.get(), f);
  if (found.empty())
    return false;
  Builder pre;
  pre.set_insertion_point(&loop);
  Op *yield = body.terminator();
  Builder end;
  end.set_insertion_point(yield);
  std::map<Value *, Value *> start_memo, deltas; // shared by addptrs of one f
  for (auto [op, f] : found) {
    const Type &pt = op->result()->type;
    const Type &ot = op->operand(1)->type;
    SourceLoc loc = op->loc();
    Value *f0 = at(f, body, lb, pre, start_memo);
    Value *q0 =
        pre.create(OpKind::AddPtr,
                   {op->operand(0), pre.create(OpKind::Splat, {f0}, {ot}, {}, loc)->result()}, {pt},
                   {}, loc)
            ->result();
    Value *&d = deltas[f];
    if (!d)
      d = delta(f, body, step, pre);
    Value *inc = pre.create(OpKind::Splat, {d}, {ot}, {}, loc)->result();
    Value *q = body.add_arg(pt);
    loop.add_operand(q0);
    loop.add_result(pt);
    op->result()->replace_all_uses_with(q);
    yield->add_operand(end.create(OpKind::AddPtr, {q, inc}, {pt}, {}, loc)->result());
  }
  return true;
}

} // namespace

void strength_reduce(Module &m) {
  bool changed = false;
  for (auto &f : m.functions)
    ir::for_each_loop(*f->entry(), [&](Op &loop) { changed = reduce_loop(loop) || changed; });
  if (changed) // the replaced addptrs and the chains only they used
    dce(m);
}

} // namespace tilec::transforms
