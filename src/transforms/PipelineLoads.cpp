#include "transforms/PipelineLoads.h"

#include <algorithm>

#include "ir/RingOps.h"
#include "transforms/CSE.h"
#include "transforms/DCE.h"
#include "transforms/LoopShift.h"

namespace tilec::transforms {

using namespace ir;

namespace {

// The prefetched tiles live in registers across the dot: past this many bytes per thread
// they would crowd out the accumulator and spill (the shared-memory ring is the answer).
constexpr int64_t kPrefetchBytesPerThread = 128;

int64_t elem_bytes(const Type &t) { return t.ptr ? 8 : std::max(1, bits(t.elem) / 8); }

// cond (i1 scalar) broadcast to `t`'s shape, and-ed into `mask` (may be null).
Value *and_in_bounds(Builder &b, Value *mask, Value *cond, const Type &ptr_t, SourceLoc loc) {
  Value *c = cond;
  if (ptr_t.is_tile())
    c = b.create(OpKind::Splat, {cond}, {Type(DType::I1, false, ptr_t.shape)}, {}, loc)->result();
  if (!mask)
    return c;
  return b.create(OpKind::And, {mask, c}, {mask->type}, {}, loc)->result();
}

bool pipeline_loop(Op &loop, int64_t stages, int64_t threads) {
  if (!pipelinable_dot_loop(loop, stages))
    return false;
  Block *body = loop.region(0)->block();
  std::vector<Op *> loads;
  for (auto &op : body->ops())
    if (op->kind() == OpKind::Load && op->int_attr("volatile", 0) == 0 &&
        op->int_attr(ir::kRingLoadAttr, 0) == 0 && // plan-rings gave it to a ring
        op->result()->type.numel() >= threads)     // small: loaded where used (below)
      loads.push_back(op.get());
  if (loads.empty())
    return false;
  LoopShift sh(loop, false);
  std::vector<Op *> chosen;
  for (Op *ld : loads) {
    bool ok = true;
    for (Value *v : ld->operands())
      ok = ok && sh.recomputable(v);
    if (ok)
      chosen.push_back(ld);
  }
  int64_t bytes = 0;
  for (Op *ld : chosen) {
    int64_t n = elem_bytes(ld->result()->type);
    for (int64_t d : ld->result()->type.shape)
      n *= d;
    bytes += n;
  }
  if (chosen.empty() || bytes > kPrefetchBytesPerThread * threads)
    return false;

  Builder pre;
  pre.set_insertion_point(&loop);
  Builder top;
  top.set_insertion_point(body->ops().front().get());
  SourceLoc loc = loop.loc();
  Value *ub = loop.operand(1);
  Op *yield = body->terminator();
  Value *first_ok = pre.create(OpKind::Cmp, {loop.operand(0), ub}, {Type(DType::I1)},
                               {{"pred", std::string("lt")}}, loc)
                        ->result();
  Value *next_ok = nullptr;
  for (Op *ld : chosen) {
    auto emit = [&](Builder &b, bool first, Value *ok) {
      std::vector<Value *> ops;
      for (Value *v : ld->operands())
        ops.push_back(first ? sh.from_start(v, 0, b) : sh.ahead(v, 1, b));
      Value *mask = ops.size() > 1 ? ops[1] : nullptr;
      Value *m = and_in_bounds(b, mask, ok, ld->operand(0)->type, ld->loc());
      if (ops.size() > 1)
        ops[1] = m;
      else
        ops.push_back(m);
      return b.create(OpKind::Load, ops, {ld->result()->type}, ld->attrs(), ld->loc())->result();
    };
    Value *first = emit(pre, true, first_ok);
    if (!next_ok) {
      Value *iv_next = sh.ahead(body->arg(0), 1, top);
      next_ok = top.create(OpKind::Cmp, {iv_next, ub}, {Type(DType::I1)},
                           {{"pred", std::string("lt")}}, loc)
                    ->result();
    }
    Value *next = emit(top, false, next_ok);
    loop.add_operand(first);
    Value *carried = body->add_arg(ld->result()->type);
    loop.add_result(ld->result()->type);
    yield->add_operand(next);
    ld->result()->replace_all_uses_with(carried);
  }
  // Erased only now: `top` inserts before the body's first op, which may be one of them
  // (tutorial 06's backward loop starts with its load of q^T).
  for (Op *ld : chosen) {
    ld->drop_operands();
    ld->erase();
  }
  return true;
}

} // namespace

bool pipelinable_dot_loop(Op &loop, int64_t module_stages) {
  Block *body = loop.region(0)->block();
  if (loop.int_attr("num_stages", module_stages) < 2 || has_schedule_barriers(body))
    return false;
  Op *step = loop.operand(2)->def;
  if (!step || step->kind() != OpKind::Constant || !loop.operand(2)->type.is_scalar() ||
      step->int_attr("value", 0) <= 0)
    return false;
  for (auto &op : body->ops())
    if (op->kind() == OpKind::Dot)
      return true;
  return false;
}

void pipeline_loads(Module &m) {
  bool changed = false;
  int64_t stages = m.int_attr("num_stages", 3), threads = 32 * m.int_attr("num_warps", 4);
  for (auto &f : m.functions)
    ir::for_each_loop(*f->entry(),
                      [&](Op &loop) { changed = pipeline_loop(loop, stages, threads) || changed; });
  if (changed) { // the recomputed pointers repeat the body's; the old masks may be dead
    cse(m);
    dce(m);
  }
}

} // namespace tilec::transforms
