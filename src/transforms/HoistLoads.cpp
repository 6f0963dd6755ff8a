#include "transforms/HoistLoads.h"

#include <algorithm>
#include <set>
#include <vector>

namespace tilec::transforms {

using namespace ir;

namespace {

constexpr int64_t kMinWarps = 8;
// The moved loads' tiles stay live across the reductions: past this many bytes a thread
// they would cost occupancy (LayerNorm 8192 over 8 warps moves 128: 62 -> 80 registers,
// 4 -> 3 CTAs an SM, still 2 % faster).
constexpr int64_t kBytesPerThread = 128;

bool orders_memory(OpKind k) {
  return k == OpKind::Store || k == OpKind::AtomicRmw || k == OpKind::AtomicCas ||
         k == OpKind::Barrier || k == OpKind::Print || k == OpKind::Assert ||
         k == OpKind::AsyncCopy || k == OpKind::AsyncWait || k == OpKind::LocalAlloc;
}

bool writes_or_orders(Op *op) {
  bool found = false;
  walk(op, [&](Op *o) { found = found || orders_memory(o->kind()); });
  return found;
}

bool cross_warp(const Op *op) { return op->kind() == OpKind::Reduce || op->kind() == OpKind::Scan; }

bool plain_load(const Op *op) {
  return op->kind() == OpKind::Load && op->int_attr("volatile", 0) == 0;
}

// Can `op` move up along with the load it computes an operand of?
bool movable(const Op *op) {
  return (is_pure(op->kind()) && op->num_regions() == 0 && !cross_warp(op)) || plain_load(op);
}

int64_t bytes_per_thread(const Op &load, int64_t threads) {
  const Type &t = load.result(0)->type;
  int64_t n = 1;
  for (int64_t d : t.shape)
    n *= d;
  int64_t each = t.ptr ? 8 : std::max(1, bits(t.elem) / 8);
  return (n * each + threads - 1) / threads;
}

void hoist_in(Block &b, int64_t threads) {
  int64_t budget = kBytesPerThread;
  std::vector<Op *> order;
  for (auto &op : b.ops())
    order.push_back(op.get());
  for (size_t i = 0; i < order.size(); ++i) {
    Op *load = order[i];
    if (writes_or_orders(load))
      return; // nothing after a write moves (its readers may rely on the barriers between)
    if (!plain_load(load))
      continue;
    // the ops of this block that the load depends on
    std::set<Op *> slice;
    std::vector<Op *> work{load};
    while (!work.empty()) {
      Op *o = work.back();
      work.pop_back();
      for (Value *v : o->operands())
        if (v->def && v->def->parent() == &b && slice.insert(v->def).second)
          work.push_back(v->def);
    }
    // the earliest reduce or scan it can go before: not past one it depends on, nor past
    // control flow
    size_t target = i;
    for (size_t k = i; k-- > 0;) {
      Op *o = order[k];
      if ((slice.count(o) && !movable(o)) || (o->num_regions() != 0 && !cross_warp(o)))
        break;
      if (cross_warp(o) && !slice.count(o))
        target = k;
    }
    if (target == i)
      continue;
    int64_t bytes = bytes_per_thread(*load, threads);
    if (bytes > budget)
      continue;
    budget -= bytes;
    std::vector<Op *> moved;
    for (size_t k = target + 1; k <= i; ++k)
      if (k == i || slice.count(order[k]))
        moved.push_back(order[k]);
    auto before = order[target]->self_iterator();
    for (Op *o : moved)
      b.insert(before, b.take(o));
    // the new order: [.. target) moved [target ..] without the moved ops
    std::vector<Op *> next(order.begin(), order.begin() + static_cast<long>(target));
    next.insert(next.end(), moved.begin(), moved.end());
    for (size_t k = target; k < order.size(); ++k)
      if (std::find(moved.begin(), moved.end(), order[k]) == moved.end())
        next.push_back(order[k]);
    order = std::move(next);
  }
}

} // namespace

void hoist_loads(Module &m) {
  int64_t warps = m.int_attr("num_warps", 4);
  if (warps < kMinWarps)
    return;
  for (auto &f : m.functions)
    hoist_in(*f->entry(), warps * 32);
}

} // namespace tilec::transforms
