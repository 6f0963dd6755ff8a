#include "transforms/LICM.h"

#include "transforms/FoldUtils.h"

namespace tilec::transforms {

using namespace ir;

namespace {

// Integer division can trap at run time; hoisting it out of a loop that runs zero
// times would introduce that fault. Safe only with a constant divisor other than 0, -1.
bool may_fault(const Op &op) {
  if ((op.kind() != OpKind::Div && op.kind() != OpKind::Rem) || is_float(op.result(0)->type.elem))
    return false;
  auto c = constant_value(op.operand(1));
  return !c || c->i == 0 || c->i == -1;
}

// addptr(p, splat(inv + var)) with p invariant is addptr(addptr(p, splat(inv)), splat(var))
// (the same bytes mod 2^64): the first addptr leaves the loop, and what is left per
// iteration is one address from the loop's own offset. A tensor descriptor's load at
// [row, k] is this (base + (row offset + k)); the lowering then emits one mad.wide.s32 a
// pointer for an i32 k, as for a block pointer's advance.
void split_invariant_offset(Op &op, Op &loop) {
  if (op.kind() != OpKind::AddPtr || !defined_outside(op.operand(0), &loop))
    return;
  Value *o = op.operand(1);
  Op *sp = o->def;
  if (!sp || sp->kind() != OpKind::Splat || defined_outside(o, &loop))
    return;
  Op *add = sp->operand(0)->def;
  if (!add || add->kind() != OpKind::Add || defined_outside(add->result(0), &loop))
    return;
  Value *x = add->operand(0), *y = add->operand(1);
  bool xo = defined_outside(x, &loop), yo = defined_outside(y, &loop);
  if (xo == yo)
    return;
  Value *inv = xo ? x : y, *var = xo ? y : x;
  Builder outside;
  outside.set_insertion_point(&loop);
  Value *inv_tile = outside.create(OpKind::Splat, {inv}, {o->type}, {}, op.loc())->result();
  Value *base =
      outside.create(OpKind::AddPtr, {op.operand(0), inv_tile}, {op.result(0)->type}, {}, op.loc())
          ->result();
  Builder inside;
  inside.set_insertion_point(&op);
  op.set_operand(0, base);
  op.set_operand(1, inside.create(OpKind::Splat, {var}, {o->type}, {}, op.loc())->result());
}

// Whether the offsets `v` step by one element along the dim they vary in (an arange
// through expand_dims / broadcast, plus an invariant splat): the columns of a row-major
// tile. Such a pointer tile is read in runs, so a thread keeps one hoisted address a run;
// strided offsets would keep one an element live across the loop, where recomputing them
// each iteration held none.
bool unit_steps(const Value *v) {
  const Op *d = v->def;
  if (!d)
    return false;
  switch (d->kind()) {
  case OpKind::Arange:
    return true;
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
    return unit_steps(d->operand(0));
  case OpKind::Add: {
    const Op *a = d->operand(0)->def, *b = d->operand(1)->def;
    return (a && a->kind() == OpKind::Splat && unit_steps(d->operand(1))) ||
           (b && b->kind() == OpKind::Splat && unit_steps(d->operand(0)));
  }
  default:
    return false;
  }
}

// addptr(X, b) with b invariant and of unit steps, X = addptr(s, a) (possibly broadcast),
// s invariant and `a` not: applying b first makes addptr(s, b) invariant (the same bytes
// mod 2^64, each offset sign-extended as before), as LLVM's LICM reassociates GEPs. A pointer tile
// `base + rows(iv) * stride + cols` then adds its column offsets before the loop and one row
// offset an element inside it (the seed attention's K and V copies: 20 fewer instructions
// a K step, +2-3 % on an H200).
void reassociate_invariant_offset(Op &op, Op &loop) {
  if (op.kind() != OpKind::AddPtr || !defined_outside(op.operand(1), &loop) ||
      defined_outside(op.operand(0), &loop) || !unit_steps(op.operand(1)))
    return;
  Value *x = op.operand(0);
  Op *bc = nullptr, *inner = x->def;
  if (!inner || x->users.size() != 1)
    return;
  if (inner->kind() == OpKind::Broadcast) {
    bc = inner;
    Value *y = bc->operand(0);
    inner = y->def;
    if (!inner || y->users.size() != 1)
      return;
  }
  if (inner->kind() != OpKind::AddPtr || !defined_outside(inner->operand(0), &loop) ||
      defined_outside(inner->operand(1), &loop))
    return;
  Value *s = inner->operand(0), *a = inner->operand(1);
  const Type &shape_of = op.result(0)->type;
  Builder outside;
  outside.set_insertion_point(&loop);
  if (bc)
    s = outside.create(OpKind::Broadcast, {s}, {s->type.with_shape(shape_of.shape)}, {}, op.loc())
            ->result();
  Value *base =
      outside.create(OpKind::AddPtr, {s, op.operand(1)}, {shape_of}, {}, op.loc())->result();
  Builder here;
  here.set_insertion_point(&op);
  if (bc)
    a = here.create(OpKind::Broadcast, {a}, {a->type.with_shape(shape_of.shape)}, {}, op.loc())
            ->result();
  op.set_operand(0, base);
  op.set_operand(1, a);
}

void hoist(Op &loop) {
  if (loop.int_attr("disable_licm", 0)) // tl.range(..., disable_licm=True), as Triton's LICM
    return;
  Block *body = loop.region(0)->block();
  Block *outer = loop.parent();
  for (auto it = body->ops().begin(); it != body->ops().end();) {
    Op *op = (it++)->get();
    split_invariant_offset(*op, loop);
    reassociate_invariant_offset(*op, loop);
    if (!is_pure(op->kind()) || op->num_regions() != 0 || op->num_results() == 0 || may_fault(*op))
      continue;
    bool invariant = true;
    for (Value *v : op->operands())
      invariant = invariant && defined_outside(v, &loop);
    if (invariant)
      outer->insert(loop.self_iterator(), body->take(op));
  }
}

} // namespace

void licm(Module &m) {
  for (auto &f : m.functions)
    ir::for_each_loop(*f->entry(), hoist);
}

} // namespace tilec::transforms
