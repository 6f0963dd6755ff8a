#include "transforms/DCE.h"

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

// Last to first, inner regions before their op, so chains of dead ops go in one pass.
bool sweep(Block &b) {
  bool changed = false;
  for (auto it = b.ops().end(); it != b.ops().begin();) {
    Op *op = (--it)->get();
    for (size_t r = 0; r < op->num_regions(); ++r)
      changed |= sweep(*op->region(r)->block());
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
