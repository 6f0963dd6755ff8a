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

} // namespace

bool has_side_effects(const Op &op) {
  if (!is_pure(op.kind()) && !is_control_flow(op.kind()))
    return true;
  for (size_t r = 0; r < op.num_regions(); ++r)
    for (const auto &inner : op.region(r)->block()->ops())
      if (has_side_effects(*inner))
        return true;
  return false;
}

namespace {

bool is_dead(const Op &op) {
  if (is_terminator(op.kind()))
    return false;
  for (size_t i = 0; i < op.num_results(); ++i)
    if (!op.result(i)->users.empty())
      return false;
  return !has_side_effects(op);
}

// The `if` op directly in `body` whose region `y` (a yield) ends, or null.
Op *body_if_of(const Op &y, const Block &body) {
  Region *r = y.parent() ? y.parent()->parent() : nullptr;
  Op *f = r ? r->parent() : nullptr;
  return f && f->kind() == OpKind::If && f->parent() == &body ? f : nullptr;
}

// What carried value `arg` feeds inside `body` (its forward slice), when that makes nothing
// but the next value (yield operand j): the pure ops computed from it, and the results of
// `if` ops of the body that pass it on (a value versioned by an `if`, e.g. a flattened
// loop's per-tile pointers, recomputed in one branch and passed on in the other). False
// when anything else reads them.
bool carried_slice(Block &body, Value *arg, size_t j, std::set<Op *> &slice,
                   std::set<std::pair<Op *, size_t>> &if_results) {
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
      if (u->kind() == OpKind::Yield) {
        Op *f = body_if_of(*u, body);
        if (!f)
          return false;
        for (size_t k = 0; k < u->num_operands(); ++k)
          if (u->operand(k) == v && if_results.insert({f, k}).second)
            work.push_back(f->result(k));
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

// Drops result k of `if` op f and what each branch yields for it.
void drop_if_result(Op &f, size_t k) {
  for (size_t r = 0; r < f.num_regions(); ++r)
    if (Op *y = f.region(r)->block()->terminator())
      y->erase_operand(k);
  f.erase_result(k);
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
    std::set<std::pair<Op *, size_t>> if_results;
    Value *arg = body.arg(j + 1); // arg 0: the induction variable
    if (!loop.result(j)->users.empty() || !yield || yield->num_operands() != loop.num_results() ||
        !carried_slice(body, arg, j, slice, if_results))
      continue;
    yield->erase_operand(j);
    for (Op *op : slice) // their reads of the ifs' results go first
      op->drop_operands();
    // The body's ifs last to first (a later one's branches yield an earlier one's
    // results), each one's results from the highest index down.
    for (auto it = body.ops().end(); it != body.ops().begin();) {
      Op *op = (--it)->get();
      for (auto r = if_results.rbegin(); r != if_results.rend(); ++r)
        if (r->first == op)
          drop_if_result(*op, r->second);
    }
    for (auto it = body.ops().end(); it != body.ops().begin();) {
      Op *op = (--it)->get();
      if (slice.count(op))
        it = body.ops().erase(it);
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
    dce_block(*f->entry());
}

void dce_block(Block &b) {
  while (sweep(b)) {
  }
}

} // namespace tilec::transforms
