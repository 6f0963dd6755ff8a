#include "layout/PlanRings.h"

#include "transforms/FlattenLoops.h"

#include <algorithm>
#include <optional>

#include "analysis/AxisInfo.h"
#include "ir/RingOps.h"
#include "layout/RingLayouts.h"
#include "support/Env.h"
#include "transforms/FoldUtils.h"
#include "transforms/LoopShift.h"

namespace tilec::layout {

using namespace ir;

namespace {

// The dot operand `v` reaches through single-use permute / convert_layout ops of `blk`.
std::optional<RingConsumer> consumer_of(const Value *v, const Op *user, const Block *blk) {
  RingConsumer c;
  while (true) {
    if (user->parent() != blk)
      return std::nullopt;
    if (user->kind() == OpKind::Dot) {
      for (int i = 0; i < 2; ++i)
        if (user->operand(static_cast<size_t>(i)) == v) {
          c.dot = const_cast<Op *>(user);
          c.operand = i;
          return c;
        }
      return std::nullopt;
    }
    if (user->kind() != OpKind::Permute && user->kind() != OpKind::ConvertLayout)
      return std::nullopt;
    c.chain.push_back(const_cast<Op *>(user));
    c.transposed ^=
        user->kind() == OpKind::Permute && user->ints_attr("order") != std::vector<int64_t>{0, 1};
    v = user->result();
    if (v->users.size() != 1)
      return std::nullopt;
    user = v->users.front();
  }
}

// Whether "pipeline-loops" will be able to take `load`, judged before layouts exist (the
// dots' layouts from their shapes and the module's wgmma choice; contiguity from axis info).
bool ring_planned(const Op &load, const Module &m, const analysis::AxisInfoAnalysis &a) {
  std::vector<RingConsumer> cs = ring_consumers(load);
  if (cs.empty())
    return false;
  for (const RingConsumer &c : cs)
    if (!ring_consumer_supported_before_layouts(*c.dot, c.operand, m))
      return false;
  const Value *ptr = load.operand(0);
  // a tile smaller than 4 bytes a thread leaves runs under 4 bytes in some thread
  int64_t threads = 32 * m.int_attr("num_warps", 4);
  if (ptr->type.rank() != 2 || ptr->type.numel() * byte_size(ptr->type.elem) < 4 * threads ||
      (load.num_operands() > 2 && !transforms::is_plus_zero_constant(load.operand(2))))
    return false;
  int cdim = a.order_by_contiguity(ptr).front();
  // several readers: wgmma dots reading one stage (the bytes of each element the same)
  if (!ring_readers_share_stage(cs, [&](const RingConsumer &c) {
        return wgmma_ring_stage_before_layouts(*c.dot, c.operand, c.transposed ? 1 - cdim : cdim,
                                               m);
      }))
    return false;
  // a tma load (a wgmma reads it) is copied whole by TMA, which checks the bounds itself
  if (cs.size() == 1 && load.int_attr("tma", 0) && m.int_attr("wgmma", 0))
    return true;
  int64_t run = a.ptr_vector_elems(ptr, cdim);
  if (load.num_operands() > 1) {
    const analysis::AxisInfo &mi = a.get(load.operand(1));
    run = mi.rank() == 2 ? std::min(run, mi.constancy[static_cast<size_t>(cdim)]) : 1;
  }
  return run * byte_size(ptr->type.elem) >= 4;
}

} // namespace

std::vector<RingConsumer> ring_consumers(const Op &load) {
  std::vector<RingConsumer> out;
  const Value *v = load.result();
  for (const Op *u : v->users) {
    std::optional<RingConsumer> c = consumer_of(v, u, load.parent());
    if (!c)
      return {};
    for (const RingConsumer &o : out)
      if (o.dot == c->dot) // both operands of one dot
        return {};
    out.push_back(std::move(*c));
  }
  const Block *blk = load.parent();
  auto index = [&](const Op *op) {
    size_t i = 0;
    for (const auto &o : blk->ops()) {
      if (o.get() == op)
        return i;
      ++i;
    }
    return i;
  };
  std::stable_sort(out.begin(), out.end(), [&](const RingConsumer &x, const RingConsumer &y) {
    return index(x.dot) < index(y.dot);
  });
  return out;
}

int64_t ring_stages(Op &loop, int64_t module_stages) {
  int64_t S = loop.int_attr("num_stages", module_stages);
  // a flattened loop's epilogue stores: the user let its loads go ahead of them
  if (S < 2 ||
      has_schedule_barriers(loop.region(0)->block(), loop.int_attr(transforms::kFlattenedAttr, 0)))
    return 0;
  Value *step = loop.operand(2);
  if (!step->def || step->def->kind() != OpKind::Constant || !step->type.is_scalar() ||
      step->def->int_attr("value", 0) <= 0)
    return 0;
  return S;
}

void plan_rings(Module &m) {
  if (env::get(env::Var::Ring) == "0")
    return;
  int64_t stages = m.int_attr("num_stages", 3);
  for (auto &f : m.functions) {
    std::optional<analysis::AxisInfoAnalysis> ax; // only for functions with a ring loop
    ir::for_each_loop(*f->entry(), [&](Op &loop) {
      if (ring_stages(loop, stages) == 0)
        return;
      transforms::LoopShift sh(loop, true);
      for (auto &op : loop.region(0)->block()->ops()) {
        if (op->kind() != OpKind::Load || op->int_attr("volatile", 0) != 0 ||
            ring_consumers(*op).empty())
          continue;
        if (!ax)
          ax.emplace(*f, &m);
        bool ok = ring_planned(*op, m, *ax);
        for (size_t i = 0; ok && i < std::min<size_t>(2, op->num_operands()); ++i)
          ok = sh.recomputable(op->operand(i));
        if (ok)
          op->set_attr(kRingLoadAttr, int64_t{1});
      }
    });
  }
}

} // namespace tilec::layout
