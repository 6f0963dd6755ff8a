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
  std::vector<Op *> copies;           // the rings' copies in the loop body
  std::vector<Op *> prologue;         // and before the loop, in its block
  std::map<const Op *, Op *> wait_of; // a body copy -> the body's tma_wait of its ring
};

bool ring_copy(const Op *op, const Plan &p) {
  return op->kind() == OpKind::TmaCopy && p.rings.count(op->operand(0)->def);
}

std::optional<Plan> plan(Function &f, Op &loop) {
  Plan p;
  p.loop = &loop;
  Block &body = *loop.region(0)->block();
  for (auto &o : body.ops())
    if (o->kind() == OpKind::TmaCopy) {
      p.copies.push_back(o.get());
      p.rings.insert(o->operand(0)->def);
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
    if (!r || r->kind() != OpKind::LocalAlloc || !r->int_attr("tma", 0))
      return std::nullopt;
  bool ok = true;
  walk(f.entry(), [&](Op *op) {
    OpKind k = op->kind();
    if (k == OpKind::AsyncCopy && op->parent() == &body)
      ok = false; // a cp.async ring beside the TMA ones
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
  std::map<std::pair<Value *, Value *>, Value *> parities; // rings read alike share one
  for (Op *c : p.copies) {
    Op *cc = ops.at(c), *w = ops.at(p.wait_of.at(c));
    Builder b;
    b.set_insertion_point(cc);
    SourceLoc loc = cc->loc();
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
    b.create(OpKind::TmaWait, {cc->operand(0), cc->operand(1), parity, cc->operand(2)}, {},
             {{"free", int64_t{1}}}, loc);
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

// The warp_specialize op's attributes: one producer warp; with `regs`, a producer
// warpgroup that gives its registers to the consumers (setmaxnreg), when that gives them
// more than an even share of the register file (two consumer warpgroups or more).
std::vector<NamedAttr> producer_attrs(int num_warps, bool regs) {
  constexpr int64_t kFile = 65536, kProducerRegs = 40, kMaxRegs = 240;
  int64_t threads = 32 * (num_warps + 4);
  int64_t entry = std::min<int64_t>(255, kFile / threads) / 8 * 8;
  int64_t consumer =
      std::min(kMaxRegs, (entry * threads - 128 * kProducerRegs) / (32 * num_warps) / 8 * 8);
  if (!regs || consumer <= entry)
    return {{"producer_warps", int64_t{1}}};
  return {{"producer_warps", int64_t{4}},
          {"producer_regs", kProducerRegs},
          {"consumer_regs", consumer}};
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
    if (const Op *m = c->operand(3)->def) {
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
  for (Op *c : p.copies) {
    Builder b;
    b.set_insertion_point(c);
    if (!later)
      later = b.create(OpKind::Cmp, {body.arg(0), p.loop->operand(0)}, {Type(DType::I1)},
                       {{"pred", std::string("ne")}}, c->loc())
                  ->result(0);
    b.create(OpKind::TmaFree, {c->operand(0), c->operand(1), later}, {}, {}, c->loc());
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
  std::vector<NamedAttr> attrs = producer_attrs(num_warps, m.int_attr("warp_specialize_regs", 0));
  bool any = false;
  for (auto &f : m.functions) {
    std::vector<Op *> loops;
    walk(f->entry(), [&](Op *op) {
      if (op->kind() == OpKind::For && (mode == 2 || op->int_attr("warp_specialize", 0)))
        loops.push_back(op);
    });
    for (Op *loop : loops) // the first that qualifies
      if (auto p = plan(*f, *loop)) {
        any = split(*f, *p, num_warps, attrs) || any;
        break;
      }
  }
  if (any)
    m.attrs.push_back(attrs.front()); // producer_warps: the block's warps beyond num_warps
}

} // namespace tilec::layout
