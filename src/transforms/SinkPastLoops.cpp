#include "transforms/SinkPastLoops.h"

#include <iterator>
#include <map>
#include <vector>

namespace tilec::transforms {

namespace {

// The op of `b` that holds `op` (itself, or the op whose region nests it); null if none.
ir::Op *ancestor_in(ir::Op *op, const ir::Block *b) {
  while (op && op->parent() != b) {
    ir::Region *r = op->parent() ? op->parent()->parent() : nullptr;
    op = r ? r->parent() : nullptr;
  }
  return op;
}

bool movable(const ir::Op &op) {
  return ir::is_pure(op.kind()) && op.num_regions() == 0 && op.num_results() > 0;
}

int sink_block(ir::Block &b) {
  int moved = 0;
  for (auto &op : b.ops())
    for (size_t r = 0; r < op->num_regions(); ++r)
      moved += sink_block(*op->region(r)->block());
  std::vector<ir::Op *> order;
  std::map<const ir::Op *, double> pos; // order in `b`; a moved op takes a midpoint
  for (auto &op : b.ops()) {
    pos[op.get()] = static_cast<double>(order.size());
    order.push_back(op.get());
  }
  // last to first: an op's users have moved before it is looked at, so chains move whole
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    ir::Op *op = *it;
    if (!movable(*op))
      continue;
    // the first op of `b` holding a user (the earliest one)
    ir::Op *first = nullptr;
    for (size_t i = 0; i < op->num_results() && first != op; ++i)
      for (const ir::Op *u : op->result(i)->users) {
        ir::Op *a = ancestor_in(const_cast<ir::Op *>(u), &b);
        if (!a) { // a user outside `b` (cannot be: SSA); keep the op where it is
          first = op;
          break;
        }
        if (!first || pos.at(a) < pos.at(first))
          first = a;
      }
    if (!first || first == op)
      continue;
    bool past_loop = false;
    for (auto p = std::next(op->self_iterator()); p != first->self_iterator(); ++p)
      past_loop |= (*p)->kind() == ir::OpKind::For || (*p)->kind() == ir::OpKind::While;
    if (!past_loop)
      continue;
    std::unique_ptr<ir::Op> taken = b.take(op);
    auto at = first->self_iterator();
    double below = at == b.ops().begin() ? pos.at(first) - 1 : pos.at(std::prev(at)->get());
    pos[op] = (below + pos.at(first)) / 2;
    b.insert(at, std::move(taken));
    ++moved;
  }
  return moved;
}

} // namespace

int sink_past_loops(ir::Module &m) {
  int moved = 0;
  for (auto &f : m.functions)
    moved += sink_block(*f->entry());
  return moved;
}

} // namespace tilec::transforms
