#include "transforms/DCE.h"

#include <set>
#include <vector>

namespace tilec::transforms {

using namespace ir;

namespace {

bool is_control_flow(OpKind k) {
  return k == OpKind::If || k == OpKind::For || k == OpKind::While || k == OpKind::Yield ||
         k == OpKind::Condition || k == OpKind::Return;
}

bool has_side_effects(const Op &op) {
  if (!is_pure(op.kind()) && !is_control_flow(op.kind()))
    return true;
  for (size_t r = 0; r < op.num_regions(); ++r)
    for (const auto &inner : op.region(r)->block()->ops())
      if (has_side_effects(*inner))
        return true;
  return false;
}

bool is_dead(const Op &op) {
  if (is_terminator(op.kind()))
    return false;
  for (size_t i = 0; i < op.num_results(); ++i)
    if (!op.result(i)->users.empty())
      return false;
  return !has_side_effects(op);
}

// The pure ops of `body` computed from carried value `arg` (its forward slice), when they
// feed nothing but each other and yield operand j; false when something else reads them.
bool carried_slice(Block &body, Value *arg, size_t j, std::set<Op *> &slice) {
  Op *yield = body.terminator();
  std::vector<Value *> work = {arg};
  while (!work.empty()) {
    Value *v = work.back();
    work.pop_back();
    for (Op *u : v->users) {
      if (u == yield) {
        for (size_t k = 0; k < yield->num_operands(); ++k)
          if (yield->operand(k) == v && k != j)
            return false;
        continue;
      }
      if (u->parent() != &body || !is_pure(u->kind()) || u->num_regions())
        return false;
      if (slice.insert(u).second)
        for (size_t r = 0; r < u->num_results(); ++r)
          work.push_back(u->result(r));
    }
  }
  return true;
}

// A `for` loop's carried values whose result is unused and whose slice only makes their
// next value (the pointer tiles TMA copies replaced, a counter nobody reads) go, with
// that slice.
bool drop_dead_carried(Op &loop) {
  Block &body = *loop.region(0)->block();
  Op *yield = body.terminator();
  bool changed = false;
  for (size_t j = loop.num_results(); j-- > 0;) {
    std::set<Op *> slice;
    Value *arg = body.arg(j + 1); // arg 0: the induction variable
    if (!loop.result(j)->users.empty() || !yield || yield->num_operands() != loop.num_results() ||
        !carried_slice(body, arg, j, slice))
      continue;
    yield->erase_operand(j);
    for (auto it = body.ops().end(); it != body.ops().begin();) {
      Op *op = (--it)->get();
      if (slice.count(op)) {
        op->drop_operands();
        it = body.ops().erase(it);
      }
    }
    body.erase_arg(j + 1);
    loop.erase_operand(3 + j); // (lb, ub, step, inits...)
    loop.erase_result(j);
    changed = true;
  }
  return changed;
}

// Last to first, inner regions before their op, so chains of dead ops go in one pass.
bool sweep(Block &b) {
  bool changed = false;
  for (auto it = b.ops().end(); it != b.ops().begin();) {
    Op *op = (--it)->get();
    for (size_t r = 0; r < op->num_regions(); ++r)
      changed |= sweep(*op->region(r)->block());
    if (op->kind() == OpKind::For)
      changed |= drop_dead_carried(*op);
    if (is_dead(*op)) {
      it = b.ops().erase(it);
      changed = true;
    }
  }
  return changed;
}

} // namespace

void dce(Module &m) {
  for (auto &f : m.functions)
    while (sweep(*f->entry())) {
    }
}

} // namespace tilec::transforms
