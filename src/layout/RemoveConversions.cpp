#include "layout/RemoveConversions.h"

#include <map>

#include "layout/LayoutRules.h"
#include "transforms/DCE.h"

namespace tilec::layout {

using ir::LayoutRef;
using ir::OpKind;

namespace {

constexpr int kMaxRematOps = 16;

// Ops a copy of `v` in another layout would take; -1 when it cannot be recomputed.
int remat_cost(const ir::Value *v, int budget) {
  if (!v->type.is_tile())
    return 0;
  const ir::Op *op = v->def;
  if (!op || op->num_results() != 1 || !rules::is_rematerialisable(*op))
    return -1;
  int cost = 1;
  for (size_t i = 0; i < op->num_operands(); ++i) {
    const ir::Value *o = op->operand(i);
    if (!o->type.is_tile())
      continue;
    int c = remat_cost(o, budget - cost);
    if (c < 0 || cost + c > budget)
      return -1;
    cost += c;
  }
  return cost;
}

class Rematerialiser {
public:
  explicit Rematerialiser(ir::Op *before) { b_.set_insertion_point(before); }

  ir::Value *clone(ir::Value *v, const LayoutRef &l) {
    if (!v->type.is_tile() || ir::same_layout(v->type.layout, l))
      return v;
    auto key = std::make_pair(v, l->str());
    auto it = done_.find(key);
    if (it != done_.end())
      return it->second;
    ir::Op *op = v->def;
    std::vector<ir::Value *> operands;
    for (size_t i = 0; i < op->num_operands(); ++i) {
      ir::Value *o = op->operand(i);
      operands.push_back(o->type.is_tile() ? clone(o, rules::operand_for_result(*op, i, l)) : o);
    }
    ir::Op *c = b_.create(op->kind(), operands, {v->type.with_layout(l)}, op->attrs(), op->loc());
    done_[key] = c->result(0);
    return c->result(0);
  }

private:
  ir::Builder b_;
  std::map<std::pair<ir::Value *, std::string>, ir::Value *> done_;
};

void run(ir::Function &f) {
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
    else if (remat_cost(x, kMaxRematOps) >= 0)
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

} // namespace

void remove_conversions(ir::Module &m) {
  for (auto &f : m.functions)
    run(*f);
  transforms::dce(m);
}

} // namespace tilec::layout
