#include "transforms/PipelineLoads.h"

#include <algorithm>
#include <functional>
#include <map>

#include "transforms/CSE.h"
#include "transforms/DCE.h"

namespace tilec::transforms {

using namespace ir;

namespace {

int64_t module_int(const Module &m, const char *name, int64_t def) {
  for (const NamedAttr &a : m.attrs)
    if (a.name == name)
      if (auto *v = std::get_if<int64_t>(&a.value))
        return *v;
  return def;
}

// The prefetched tiles live in registers across the dot: past this many bytes per thread
// they would crowd out the accumulator and spill (the shared-memory ring is the answer).
constexpr int64_t kPrefetchBytesPerThread = 128;

int64_t elem_bytes(const Type &t) { return t.ptr ? 8 : std::max(1, bits(t.elem) / 8); }

bool has_side_effects(Block *b) {
  bool found = false;
  walk(b, [&](Op *op) {
    OpKind k = op->kind();
    found = found || k == OpKind::Store || k == OpKind::AtomicRmw || k == OpKind::AtomicCas ||
            k == OpKind::Barrier || k == OpKind::Print || k == OpKind::Assert;
  });
  return found;
}

// Values of the loop body re-computed at another point: at the top of the body for the
// current iteration (`current`) or the next one (`next`), or before the loop for the
// first one (`first`). A value that needs an op with side effects or regions fails.
class Shifter {
public:
  Shifter(Op &loop, Block &body) : loop_(loop), body_(body) {}

  bool inside(const Value *v) const {
    const Block *b = v->def ? v->def->parent() : v->owner;
    return b == &body_;
  }

  // `v` in iteration `which` (0: first, 1: current, 2: next), emitted with `b`.
  Value *at(Value *v, int which, Builder &b) {
    if (!v || !inside(v))
      return v;
    auto key = std::make_pair(v, which);
    if (auto it = memo_.find(key); it != memo_.end())
      return it->second;
    Value *r = nullptr;
    if (v->is_block_arg()) {
      if (v->index == 0) // the induction variable
        r = which == 0 ? loop_.operand(0) : which == 1 ? v : iv_next(b);
      else if (which == 0)
        r = loop_.operand(2 + v->index); // the initial value
      else if (which == 1)
        r = v;
      else // the value the current iteration yields
        r = at(body_.terminator()->operand(v->index - 1), 1, b);
    } else {
      Op *op = v->def;
      if (!is_pure(op->kind()) || op->num_regions() != 0)
        return nullptr;
      std::vector<Value *> ops;
      for (Value *o : op->operands()) {
        Value *x = at(o, which, b);
        if (!x)
          return nullptr;
        ops.push_back(x);
      }
      std::vector<Type> types;
      for (size_t i = 0; i < op->num_results(); ++i)
        types.push_back(op->result(i)->type);
      Op *c = b.create(op->kind(), ops, types, op->attrs(), op->loc());
      for (size_t i = 0; i < op->num_results(); ++i)
        memo_[{op->result(i), which}] = c->result(i);
      r = c->result(v->index);
    }
    memo_[key] = r;
    return r;
  }

private:
  Value *iv_next(Builder &b) {
    if (!next_iv_) {
      Value *iv = body_.arg(0);
      next_iv_ =
          b.create(OpKind::Add, {iv, loop_.operand(2)}, {iv->type}, {}, loop_.loc())->result();
    }
    return next_iv_;
  }

  Op &loop_;
  Block &body_;
  std::map<std::pair<Value *, int>, Value *> memo_;
  Value *next_iv_ = nullptr;
};

// A dry run of Shifter::at: can `v` be recomputed for the next iteration (`next`) or the
// current one at the top of the body (no side effects on the way)? Every iteration
// recomputation (first, current, next) needs the same ops, so one check covers all.
bool recomputable(Value *v, Block &body, bool next,
                  std::map<std::pair<Value *, bool>, bool> &seen) {
  const Block *b = v->def ? v->def->parent() : v->owner;
  if (b != &body)
    return true;
  auto key = std::make_pair(v, next);
  if (auto it = seen.find(key); it != seen.end())
    return it->second;
  bool ok;
  if (v->is_block_arg()) // a carried value of the next iteration: what this one yields
    ok = !next || v->index == 0 ||
         recomputable(body.terminator()->operand(v->index - 1), body, false, seen);
  else {
    Op *op = v->def;
    ok = is_pure(op->kind()) && op->num_regions() == 0;
    for (size_t i = 0; ok && i < op->num_operands(); ++i)
      ok = recomputable(op->operand(i), body, next, seen);
  }
  seen[key] = ok;
  return ok;
}

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
  Block *body = loop.region(0)->block();
  int64_t own = loop.int_attr("num_stages", stages);
  if (own < 2 || has_side_effects(body))
    return false;
  bool has_dot = false;
  std::vector<Op *> loads;
  for (auto &op : body->ops()) {
    has_dot = has_dot || op->kind() == OpKind::Dot;
    if (op->kind() == OpKind::Load && op->int_attr("volatile", 0) == 0)
      loads.push_back(op.get());
  }
  if (!has_dot || loads.empty())
    return false;
  // A constant positive step only (the bound test is `iv < ub`).
  Op *step_def = loop.operand(2)->def;
  if (!step_def || step_def->kind() != OpKind::Constant || !loop.operand(2)->type.is_scalar() ||
      step_def->int_attr("value", 0) <= 0)
    return false;
  std::map<std::pair<Value *, bool>, bool> seen;
  std::vector<Op *> chosen;
  for (Op *ld : loads) {
    bool ok = true;
    for (Value *v : ld->operands())
      ok = ok && recomputable(v, *body, true, seen);
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

  Shifter sh(loop, *body);
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
    auto emit = [&](Builder &b, int which, Value *ok) {
      std::vector<Value *> ops;
      for (Value *v : ld->operands())
        ops.push_back(sh.at(v, which, b));
      Value *mask = ops.size() > 1 ? ops[1] : nullptr;
      Value *m = and_in_bounds(b, mask, ok, ld->operand(0)->type, ld->loc());
      if (ops.size() > 1)
        ops[1] = m;
      else
        ops.push_back(m);
      return b.create(OpKind::Load, ops, {ld->result()->type}, ld->attrs(), ld->loc())->result();
    };
    Value *first = emit(pre, 0, first_ok);
    if (!next_ok) {
      Value *iv_next = sh.at(body->arg(0), 2, top);
      next_ok = top.create(OpKind::Cmp, {iv_next, ub}, {Type(DType::I1)},
                           {{"pred", std::string("lt")}}, loc)
                    ->result();
    }
    Value *next = emit(top, 2, next_ok);
    loop.add_operand(first);
    Value *carried = body->add_arg(ld->result()->type);
    loop.add_result(ld->result()->type);
    yield->add_operand(next);
    ld->result()->replace_all_uses_with(carried);
    ld->drop_operands();
    ld->erase();
  }
  return true;
}

void process(Block &b, int64_t stages, int64_t threads, bool &changed) {
  for (auto it = b.ops().begin(); it != b.ops().end();) {
    Op *op = (it++)->get();
    for (size_t r = 0; r < op->num_regions(); ++r)
      process(*op->region(r)->block(), stages, threads, changed);
    if (op->kind() == OpKind::For)
      changed = pipeline_loop(*op, stages, threads) || changed;
  }
}

} // namespace

void pipeline_loads(Module &m) {
  bool changed = false;
  int64_t stages = module_int(m, "num_stages", 3), threads = 32 * module_int(m, "num_warps", 4);
  for (auto &f : m.functions)
    process(*f->entry(), stages, threads, changed);
  if (changed) { // the recomputed pointers repeat the body's; the old masks may be dead
    cse(m);
    dce(m);
  }
}

} // namespace tilec::transforms
