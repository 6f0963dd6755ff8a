#include "layout/WarpSpecialize.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "transforms/DCE.h"

namespace tilec::layout {

using namespace ir;

namespace {

// The top-level op of `entry` that holds `op` (or is it).
Op *top_level(Op *op, const Block *entry) {
  while (op->parent() != entry)
    op = op->parent()->parent()->parent();
  return op;
}

struct Plan {
  Op *loop = nullptr;
  std::set<const Op *> rings;         // their local_allocs
  std::vector<Op *> copies;           // the rings' fills in the loop body
  std::vector<Op *> prologue;         // and before the loop, in its block
  std::map<const Op *, Op *> wait_of; // a body fill -> the body's tma_wait of its ring
  bool cp = false;                    // some ring is filled by cp.async (each thread)
};

// What fills a ring stage: a TMA copy, or a cp.async ring's copies and arrival.
bool fills(const Op *op) {
  OpKind k = op->kind();
  return k == OpKind::TmaCopy || k == OpKind::AsyncCopy || k == OpKind::AsyncArrive;
}

bool ring_copy(const Op *op, const Plan &p) {
  return fills(op) && p.rings.count(op->operand(0)->def);
}

std::optional<Plan> plan(Function &f, Op &loop) {
  Plan p;
  p.loop = &loop;
  Block &body = *loop.region(0)->block();
  for (auto &o : body.ops()) {
    if (fills(o.get())) {
      p.copies.push_back(o.get());
      p.rings.insert(o->operand(0)->def);
      p.cp = p.cp || o->kind() == OpKind::AsyncCopy;
    }
    if (o->kind() == OpKind::AsyncCommit || o->kind() == OpKind::AsyncWait)
      return std::nullopt; // cp.async groups: a ring without barriers (PipelineLoops.h)
  }
  if (p.copies.empty())
    return std::nullopt;
  // the copies' prologue and the rings' barriers run once: nothing repeats the loop (a K
  // loop in a tile loop that is not flattened refills its ring from stage 0 every tile)
  for (const Op *o = &loop; o->parent() != f.entry();) {
    o = o->parent()->parent()->parent();
    if (o->kind() != OpKind::If)
      return std::nullopt;
  }
  for (const Op *r : p.rings) // hoisted to the kernel's start (they take no operands)
    if (!r || r->kind() != OpKind::LocalAlloc || !(r->int_attr("tma", 0) || r->int_attr("mbar", 0)))
      return std::nullopt;
  bool ok = true;
  walk(f.entry(), [&](Op *op) {
    if (!ring_copy(op, p) || op->parent() == &body)
      return;
    if (op->parent() != loop.parent())
      ok = false;
    else
      p.prologue.push_back(op);
  });
  bool past_loop = false; // the prologue's copies come before the loop
  for (auto &o : loop.parent()->ops()) {
    past_loop = past_loop || o.get() == &loop;
    ok = ok && !(past_loop && std::count(p.prologue.begin(), p.prologue.end(), o.get()));
  }
  for (Op *c : p.copies) {
    for (auto &o : body.ops())
      if (o->kind() == OpKind::TmaWait && o->operand(0) == c->operand(0))
        p.wait_of[c] = o.get();
    ok = ok && p.wait_of.count(c);
  }
  if (!ok)
    return std::nullopt;
  return p;
}

// What only the consumers can compute: ops with effects other than the rings' copies
// (loads, ring reads, stores, ...) and everything computed from their results, through
// yields into if results and carried values.
struct Taint {
  std::set<const Op *> ops;
  std::set<const Value *> vals;
  bool changed = false;
  bool refuse = false; // it reaches a while loop
  void value(const Value *v) { changed |= vals.insert(v).second; }
  void op(const Op *o) {
    changed |= ops.insert(o).second;
    for (size_t i = 0; i < o->num_results(); ++i)
      value(o->result(i));
  }
  bool any(const Op &o) const {
    for (size_t i = 0; i < o.num_operands(); ++i)
      if (vals.count(o.operand(i)))
        return true;
    return false;
  }
};

void taint(const Block &b, const Plan &p, Taint &t) {
  for (const auto &owned : b.ops()) {
    const Op &o = *owned;
    OpKind k = o.kind();
    if (k == OpKind::Yield || k == OpKind::Condition) {
      const Op *parent = b.parent() ? b.parent()->parent() : nullptr;
      for (size_t i = 0; i < o.num_operands(); ++i) {
        if (!parent || !t.vals.count(o.operand(i)) || parent->kind() == OpKind::WarpSpecialize)
          continue;
        if (parent->kind() == OpKind::If) {
          t.value(parent->result(i));
        } else if (parent->kind() == OpKind::For) {
          t.value(parent->result(i));
          t.value(parent->region(0)->block()->arg(i + 1));
        } else if (parent->kind() == OpKind::While) {
          t.refuse = true;
        } // a combiner's yield: the reduce or scan reads tainted operands itself
      }
      continue;
    }
    if (k == OpKind::While) {
      t.refuse = t.refuse || t.any(o);
    } else if (k == OpKind::If) {
      if (t.any(o))
        t.op(&o);
    } else if (k == OpKind::For) {
      if (t.vals.count(o.operand(0)) || t.vals.count(o.operand(1)) || t.vals.count(o.operand(2)))
        t.op(&o);
      for (size_t i = 3; i < o.num_operands(); ++i)
        if (t.vals.count(o.operand(i))) {
          t.value(o.result(i - 3));
          t.value(o.region(0)->block()->arg(i - 2));
        }
    } else if ((!is_pure(k) && !ring_copy(&o, p)) || t.any(o)) {
      t.op(&o);
    }
    for (size_t r = 0; r < o.num_regions(); ++r)
      taint(*o.region(r)->block(), p, t);
  }
}

// An `if cond` (no results, an empty else) made with `b`: its then-block, which the caller
// fills and ends with a yield.
Block &guarded(Builder &b, Value *cond, SourceLoc loc) {
  Op *when = b.create(OpKind::If, {cond}, {}, {}, loc, 2);
  Builder(when->region(1)->ensure_block()).create(OpKind::Yield, {}, {}, {}, loc);
  return *when->region(0)->ensure_block();
}

// The loop body's fills of each ring, in order, the rings in the order of their first.
std::vector<std::pair<const Op *, std::vector<Op *>>> ring_groups(const Plan &p) {
  std::vector<std::pair<const Op *, std::vector<Op *>>> out;
  for (Op *c : p.copies) {
    const Op *ring = c->operand(0)->def;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto &g) { return g.first == ring; });
    if (it == out.end())
      it = out.insert(out.end(), {ring, {}});
    it->second.push_back(c);
  }
  return out;
}

// Ops of a and b, which have the same shape, in the same walk order.
void pair_ops(Block &a, Block &b, std::map<const Op *, Op *> &out) {
  std::vector<Op *> x, y;
  walk(&a, [&](Op *op) { x.push_back(op); });
  walk(&b, [&](Op *op) { y.push_back(op); });
  for (size_t i = 0; i < x.size() && i < y.size(); ++i)
    out[x[i]] = y[i];
}

// The producer: the consumer's code without what taint `t` marks; before each ring copy
// in the loop, the wait for its stage to be free.
void strip(Block &prod, const Plan &p, const Taint &t, const std::map<const Op *, Op *> &ops,
           std::map<const Value *, Value *> &vals) {
  // each ring's fills (a tma_copy, or cp.async copies and their arrival) after a wait for
  // the stage to be free; cp.async ones in an `if` on the iteration existing (a copy for
  // none would zero-fill a stage that may still be read)
  std::map<std::pair<Value *, Value *>, Value *> parities; // rings read alike share one
  for (const auto &[ring, group] : ring_groups(p)) {
    Op *last = ops.at(group.back()), *w = ops.at(p.wait_of.at(group.back()));
    Builder b;
    b.set_insertion_point(last);
    SourceLoc loc = last->loc();
    Type i32(DType::I32);
    Value *cur = w->operand(1), *phase = w->operand(2);
    Value *&parity = parities[{cur, phase}];
    if (!parity) {
      Value *is0 = b.create(OpKind::Cmp, {cur, b.constant_int(i32, 0, loc)}, {Type(DType::I1)},
                            {{"pred", std::string("eq")}}, loc)
                       ->result(0);
      Value *flip =
          b.create(OpKind::Xor, {phase, b.constant_int(i32, 1, loc)}, {i32}, {}, loc)->result(0);
      parity = b.create(OpKind::Select, {is0, flip, phase}, {i32}, {}, loc)->result(0);
    }
    Value *in_range = last->operand(2); // tma_copy's and async_arrive's
    std::vector<Value *> wait = {last->operand(0), last->operand(1), parity, in_range};
    if (last->kind() == OpKind::TmaCopy) {
      b.create(OpKind::TmaWait, wait, {}, {{"free", int64_t{1}}}, loc);
      continue;
    }
    Block &then = guarded(b, in_range, loc);
    Builder(&then).create(OpKind::TmaWait, wait, {}, {{"free", int64_t{1}}}, loc);
    for (const Op *f : group)
      then.append(ops.at(f)->parent()->take(ops.at(f)));
    Builder(&then).create(OpKind::Yield, {}, {}, {}, loc);
  }
  // the prologue's cp.async groups too (the stages are fresh: no wait), so that no copy of
  // a loop shorter than the prologue is left in flight when the producer returns
  std::map<const Op *, std::vector<Op *>> open; // ring -> its copies since its last arrival
  for (Op *f : p.prologue) {
    if (f->kind() == OpKind::TmaCopy)
      continue;
    const Op *ring = f->operand(0)->def;
    open[ring].push_back(ops.at(f));
    if (f->kind() != OpKind::AsyncArrive)
      continue;
    Op *arrive = ops.at(f);
    Builder b;
    b.set_insertion_point(arrive);
    Block &then = guarded(b, arrive->operand(2), arrive->loc());
    for (Op *g : open[ring])
      then.append(g->parent()->take(g));
    open[ring].clear();
    Builder(&then).create(OpKind::Yield, {}, {}, {}, arrive->loc());
  }
  std::set<Op *> dead;
  for (const Op *o : t.ops)
    dead.insert(ops.at(o));
  std::set<const Value *> tainted;
  for (const Value *v : t.vals)
    if (auto it = vals.find(v); it != vals.end())
      tainted.insert(it->second);
  // values of ifs and loops that only the consumers compute, outermost first
  std::vector<std::pair<Op *, size_t>> drop;
  walk(&prod, [&](Op *op) {
    if (op->kind() != OpKind::If && op->kind() != OpKind::For)
      return;
    for (size_t i = op->num_results(); i-- > 0;)
      if (tainted.count(op->result(i)))
        drop.emplace_back(op, i);
  });
  for (Op *op : dead)
    walk(op, [](Op *inner) { inner->drop_operands(); });
  for (auto [op, i] : drop) {
    if (dead.count(op))
      continue;
    for (size_t r = 0; r < op->num_regions(); ++r)
      if (Op *y = op->region(r)->block()->terminator())
        y->erase_operand(i);
    if (op->kind() == OpKind::For) {
      op->region(0)->block()->erase_arg(i + 1);
      op->erase_operand(3 + i);
    }
    op->erase_result(i);
  }
  std::vector<Op *> tops;
  for (Op *op : dead) {
    bool nested = false;
    for (Block *b = op->parent(); b && b->parent() && b->parent()->parent() && !nested;
         b = b->parent()->parent()->parent())
      nested = dead.count(b->parent()->parent());
    if (!nested)
      tops.push_back(op);
  }
  for (Op *op : tops)
    op->erase();
  transforms::dce_block(prod);
}

// The warp_specialize op's attributes. TMA rings: one producer warp (its thread 0 issues);
// cp.async rings: as many producer warps as consumers, which run the consumers' copy code
// as written (their thread indices, past the layouts' warps, alias the consumers'; {cp}).
// With `regs`, when it gives the consumers more than an even share of the register file
// (two consumer warpgroups or more): the producer is a warpgroup (or more) that gives its
// registers to them (setmaxnreg; cp.async producers keep more for their address math).
std::vector<NamedAttr> producer_attrs(int num_warps, bool regs, bool cp) {
  constexpr int64_t kFile = 65536, kMaxRegs = 240;
  int64_t producers = cp ? num_warps : 4, give = cp ? 56 : 40;
  int64_t threads = 32 * (num_warps + producers);
  int64_t entry = std::min<int64_t>(255, kFile / threads) / 8 * 8;
  int64_t consumer =
      std::min(kMaxRegs, (entry * threads - 32 * producers * give) / (32 * num_warps) / 8 * 8);
  std::vector<NamedAttr> out;
  if (!regs || consumer <= entry) {
    out.push_back({"producer_warps", cp ? producers : int64_t{1}});
  } else {
    out.push_back({"producer_warps", producers});
    out.push_back({"producer_regs", give});
    out.push_back({"consumer_regs", consumer});
  }
  if (cp)
    out.push_back({"cp", int64_t{1}});
  return out;
}

bool split(Function &f, Plan &p, int num_warps, const std::vector<NamedAttr> &attrs) {
  Block &entry = *f.entry();
  // the rings first: their barriers are set up by every warp before the split
  std::vector<Op *> rings;
  walk(&entry, [&](Op *op) {
    if (p.rings.count(op))
      rings.push_back(op);
  });
  for (auto it = rings.rbegin(); it != rings.rend(); ++it)
    entry.insert(entry.ops().begin(), (*it)->parent()->take(*it));
  // the split point: after the rings and the tensor maps the copies read
  std::map<const Op *, size_t> index;
  size_t n = 0;
  for (auto &o : entry.ops())
    index[o.get()] = n++;
  size_t at = rings.size();
  std::vector<Op *> all = p.copies;
  all.insert(all.end(), p.prologue.begin(), p.prologue.end());
  for (Op *c : all)
    if (const Op *m = c->kind() == OpKind::TmaCopy ? c->operand(3)->def : nullptr) {
      if (m->parent() != &entry)
        return false;
      at = std::max(at, index.at(m) + 1);
    }
  Op *first = nullptr;
  for (auto &o : entry.ops()) {
    size_t i = index.at(o.get());
    if (i < at && transforms::has_side_effects(*o) && o->kind() != OpKind::LocalAlloc &&
        o->kind() != OpKind::Load)
      return false;
    if (i == at)
      first = o.get();
  }
  if (!first || index.at(top_level(p.loop, &entry)) < at || first->kind() == OpKind::Return)
    return false;
  // the consumer: the kernel from the split point on
  Builder at_first;
  at_first.set_insertion_point(first);
  Op *ws = at_first.create(OpKind::WarpSpecialize, {}, {}, attrs, p.loop->loc(), 2);
  Block &prod = *ws->region(0)->ensure_block(), &cons = *ws->region(1)->ensure_block();
  for (auto it = std::next(ws->self_iterator()); it != entry.ops().end();) {
    Op *o = (it++)->get();
    if (o->kind() == OpKind::Return)
      break;
    cons.append(entry.take(o));
  }
  Taint t;
  do {
    t.changed = false;
    taint(cons, p, t);
  } while (t.changed && !t.refuse);
  bool copies_free = !t.refuse;
  for (Op *c : all)
    copies_free = copies_free && !t.ops.count(c);
  if (!copies_free) { // undo: the kernel as it was (rings first, which changes nothing)
    for (auto it = cons.ops().begin(); it != cons.ops().end();) {
      Op *o = (it++)->get();
      entry.insert(ws->self_iterator(), cons.take(o));
    }
    ws->erase();
    return false;
  }
  // the producer: a copy, stripped
  std::map<const Value *, Value *> vals;
  Builder pb(&prod);
  for (auto &o : cons.ops())
    clone(*o, pb, vals);
  std::map<const Op *, Op *> ops;
  pair_ops(cons, prod, ops);
  Builder(&cons).create(OpKind::Yield, {}, {}, {}, p.loop->loc());
  pb.create(OpKind::Yield, {}, {}, {}, p.loop->loc());
  strip(prod, p, t, ops, vals);
  // the consumer: no copies; each warp frees the stage the last iteration read
  for (Op *c : p.prologue) {
    c->drop_operands();
    c->erase();
  }
  Block &body = *p.loop->region(0)->block();
  Value *later = nullptr; // not the first iteration: the previous one read a stage
  for (const auto &[ring, group] : ring_groups(p)) {
    Op *last = group.back();
    Builder b;
    b.set_insertion_point(last);
    if (!later)
      later = b.create(OpKind::Cmp, {body.arg(0), p.loop->operand(0)}, {Type(DType::I1)},
                       {{"pred", std::string("ne")}}, last->loc())
                  ->result(0);
    b.create(OpKind::TmaFree, {last->operand(0), last->operand(1), later}, {}, {}, last->loc());
  }
  for (Op *c : p.copies) {
    c->drop_operands();
    c->erase();
  }
  for (Op *r : rings)
    r->set_attr("free", int64_t{num_warps});
  return true;
}

} // namespace

void warp_specialize(Module &m) {
  // GpuPipeline: TILEC_WARP_SPECIALIZE=1 (1: marked loops), =all (2: any loop that qualifies)
  int64_t mode = m.int_attr("warp_specialize", 0);
  if (!mode)
    return;
  int num_warps = static_cast<int>(m.int_attr("num_warps", 4));
  if (num_warps % 4 != 0 || num_warps > 16)
    return;
  bool regs = m.int_attr("warp_specialize_regs", 0) != 0;
  int64_t producers = 0;
  bool alias = false;
  for (auto &f : m.functions) {
    std::vector<Op *> loops;
    walk(f->entry(), [&](Op *op) {
      if (op->kind() == OpKind::For && (mode == 2 || op->int_attr("warp_specialize", 0)))
        loops.push_back(op);
    });
    for (Op *loop : loops) // the first that qualifies
      if (auto p = plan(*f, *loop)) {
        std::vector<NamedAttr> attrs = producer_attrs(num_warps, regs, p->cp);
        if (split(*f, *p, num_warps, attrs)) {
          producers = std::max(producers, std::get<int64_t>(attrs.front().value));
          alias = alias || p->cp;
        }
        break;
      }
  }
  if (producers) // the block's warps beyond num_warps (LoweringContext)
    m.attrs.push_back({"producer_warps", producers});
  if (alias) // cp.async producers' thread indices alias the consumers' (LoweringContext)
    m.attrs.push_back({"producer_alias", int64_t{1}});
}

} // namespace tilec::layout
