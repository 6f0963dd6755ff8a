#include "transforms/PrefetchLoads.h"

#include <climits>

#include "ir/RingOps.h"
#include "support/Env.h"
#include "transforms/FoldUtils.h"
#include "transforms/PipelineLoads.h"

namespace tilec::transforms {

using namespace ir;

namespace {

// Whether `v` is defined in `body` or in a region nested in it.
bool inside(const Block *body, const Value *v) {
  const Block *blk = v->def ? v->def->parent() : v->owner;
  while (blk) {
    if (blk == body)
      return true;
    const Region *r = blk->parent();
    const Op *o = r ? r->parent() : nullptr;
    blk = o ? o->parent() : nullptr;
  }
  return false;
}

// The integer constant `v` is (a scalar or tile constant, or a splat of one).
std::optional<int64_t> constant_int(const Value *v) {
  if (v->def && v->def->kind() == OpKind::Splat)
    v = v->def->operand(0);
  std::optional<Scalar> s = constant_value(v);
  return s && !s->is_float ? std::optional<int64_t>(s->i) : std::nullopt;
}

using Step = std::optional<int64_t>;

Step add(Step a, Step b) {
  int64_t r;
  return a && b && !__builtin_add_overflow(*a, *b, &r) ? Step(r) : std::nullopt;
}

Step scale(Step a, std::optional<int64_t> k) {
  int64_t r;
  return a && k && !__builtin_mul_overflow(*a, *k, &r) ? Step(r) : std::nullopt;
}

struct StepOf {
  const Op &loop;
  const Block *body;

  // A carried value whose yield is itself plus a constant (addptr: constant elements).
  Step carried(const Value *arg, size_t k) const {
    const Op *yield = body->terminator();
    if (!yield || k == 0 || k - 1 >= yield->num_operands())
      return std::nullopt;
    const Value *y = yield->operand(k - 1);
    if (y == arg)
      return 0;
    const Op *d = y->def;
    if (!d || d->parent() != body)
      return std::nullopt;
    if (d->kind() == OpKind::AddPtr && d->operand(0) == arg)
      return scale(constant_int(d->operand(1)), byte_size(arg->type.elem));
    if (d->kind() == OpKind::Add && !arg->type.ptr && !is_float(arg->type.elem))
      for (int i = 0; i < 2; ++i)
        if (d->operand(static_cast<size_t>(i)) == arg)
          return constant_int(d->operand(static_cast<size_t>(1 - i)));
    return std::nullopt;
  }

  Step operator()(const Value *v, int depth = 0) const {
    if (!inside(body, v))
      return 0;
    if (depth > 48 || (!v->type.ptr && is_float(v->type.elem)))
      return std::nullopt;
    if (v->is_block_arg()) // the induction variable or a carried value
      return v->owner != body ? std::nullopt
             : v->index == 0  ? constant_int(loop.operand(2))
                              : carried(v, v->index);
    const Op &d = *v->def;
    auto of = [&](size_t i) { return (*this)(d.operand(i), depth + 1); };
    switch (d.kind()) {
    case OpKind::Constant:
    case OpKind::Arange:
      return 0;
    case OpKind::Splat:
    case OpKind::Broadcast:
    case OpKind::ExpandDims:
    case OpKind::Reshape:
    case OpKind::Permute:
    case OpKind::ConvertLayout:
    case OpKind::Hint:
      return of(0);
    case OpKind::Add:
      return add(of(0), of(1));
    case OpKind::Sub:
      return add(of(0), scale(of(1), -1));
    case OpKind::Mul:
      if (auto k = constant_int(d.operand(1)))
        return scale(of(0), k);
      if (auto k = constant_int(d.operand(0)))
        return scale(of(1), k);
      break;
    case OpKind::AddPtr:
      return add(of(0), scale(of(1), byte_size(v->type.elem)));
    default:
      break;
    }
    // an op of values that do not change (computed in the body all the same)
    if (!is_pure(d.kind()) || d.num_regions())
      return std::nullopt;
    for (size_t i = 0; i < d.num_operands(); ++i)
      if (of(i) != Step(0))
        return std::nullopt;
    return 0;
  }
};

void mark_loop(Op &loop, int64_t stages, int64_t threads) {
  if (!pipelinable_dot_loop(loop, stages))
    return;
  for (auto &op : loop.region(0)->block()->ops()) {
    if (op->kind() != OpKind::Load || op->num_operands() != 1 || op->int_attr("volatile", 0) ||
        op->int_attr(kRingLoadAttr, 0) || op->int_attr("tma", 0) || !op->result()->type.is_tile() ||
        op->result()->type.numel() >= threads)
      continue;
    Step s = per_iteration_step(loop, op->operand(0));
    if (s && *s != 0 && *s > INT32_MIN && *s < INT32_MAX)
      op->set_attr(kPrefetchAttr, *s);
  }
}

} // namespace

std::optional<int64_t> per_iteration_step(const Op &loop, const Value *v) {
  return StepOf{loop, loop.region(0)->block()}(v);
}

void prefetch_loads(Module &m) {
  if (!env::flag(env::Var::Prefetch))
    return;
  int64_t stages = m.int_attr("num_stages", 3), threads = 32 * m.int_attr("num_warps", 4);
  for (auto &f : m.functions)
    for_each_loop(*f->entry(), [&](Op &loop) { mark_loop(loop, stages, threads); });
}

} // namespace tilec::transforms
