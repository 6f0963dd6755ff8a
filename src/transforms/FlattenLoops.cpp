#include "transforms/FlattenLoops.h"

#include <map>
#include <set>

#include "support/Env.h"
#include "transforms/CSE.h"
#include "transforms/DCE.h"
#include "transforms/FoldUtils.h"
#include "transforms/LoopShift.h"

namespace tilec::transforms {

using namespace ir;

namespace {

std::optional<int64_t> positive_constant(const Value *v) {
  auto c = constant_value(v);
  if (!c || c->i <= 0)
    return std::nullopt;
  return c->i;
}

// The nest's parts: the inner loop, and the pre ops before it.
struct Nest {
  Op *inner = nullptr;
  std::vector<Op *> pre;
};

std::optional<Nest> match(Op &outer) {
  Block &body = *outer.region(0)->block();
  Nest n;
  for (auto &up : body.ops()) {
    Op *op = up.get();
    if (op == body.terminator())
      break;
    if (!n.inner && op->kind() == OpKind::For) {
      n.inner = op;
    } else if (!n.inner) {
      if (!is_pure(op->kind()) || op->num_regions() != 0)
        return std::nullopt;
      n.pre.push_back(op);
    }
  }
  if (!n.inner || !positive_constant(outer.operand(2)) || !positive_constant(n.inner->operand(2)))
    return std::nullopt;
  Type i32(DType::I32);
  for (int i = 0; i < 3; ++i)
    if (!defined_outside(n.inner->operand(static_cast<size_t>(i)), &outer) ||
        outer.operand(static_cast<size_t>(i))->type != i32 ||
        n.inner->operand(static_cast<size_t>(i))->type != i32)
      return std::nullopt;
  // TILEC_FLATTEN=tma: only loops reading by TMA (the default before the fp8 epilogue
  // went through stmatrix: tutorial 09's pointer kernel then ran slower flattened)
  bool tma_only = true;
  walk(n.inner, [&](Op *op) {
    tma_only = tma_only && (op->kind() != OpKind::Load || op->int_attr("tma", 0));
  });
  if (!tma_only && env::get(env::Var::Flatten) == "tma")
    return std::nullopt;
  for (size_t i = 3; i < n.inner->num_operands(); ++i) { // carried: a zero to start from
    const Type &t = n.inner->operand(i)->type;
    if (t.is_ptr() || !(is_int(t.elem) || is_float(t.elem)))
      return std::nullopt;
  }
  return n;
}

Value *i32c(Builder &b, int64_t v, SourceLoc loc) {
  return b.constant_int(Type(DType::I32), v, loc);
}

Value *bin(Builder &b, OpKind k, Value *x, Value *y, SourceLoc loc) {
  return b.create(k, {x, y}, {x->type}, {}, loc)->result();
}

Value *cmp(Builder &b, const char *pred, Value *x, Value *y, SourceLoc loc) {
  return b.create(OpKind::Cmp, {x, y}, {Type(DType::I1)}, {{"pred", std::string(pred)}}, loc)
      ->result();
}

Value *select(Builder &b, Value *c, Value *x, Value *y, SourceLoc loc) {
  if (x->type.is_tile() && !c->type.is_tile())
    c = b.create(OpKind::Splat, {c}, {x->type.with_elem(DType::I1)}, {}, loc)->result();
  return b.create(OpKind::Select, {c, x, y}, {x->type}, {}, loc)->result();
}

// max(0, cdiv(ub - lb, step)) for a positive step.
Value *trip_count(Builder &b, Op &loop, SourceLoc loc) {
  Value *lb = loop.operand(0), *ub = loop.operand(1), *st = loop.operand(2);
  Value *n = bin(b, OpKind::Add, bin(b, OpKind::Sub, ub, lb, loc),
                 bin(b, OpKind::Sub, st, i32c(b, 1, loc), loc), loc);
  return bin(b, OpKind::Max, bin(b, OpKind::Div, n, st, loc), i32c(b, 0, loc), loc);
}

// Moves `op` to the end of `to`, before its terminator if it has one.
void move_to(Op *op, Block &to) {
  std::unique_ptr<Op> owned = op->parent()->take(op);
  Op *term = to.terminator();
  to.insert(term ? term->self_iterator() : to.ops().end(), std::move(owned));
}

void flatten(Op &outer, const Nest &n) {
  SourceLoc loc = outer.loc();
  Op &inner = *n.inner;
  Block &ob = *outer.region(0)->block(), &ib = *inner.region(0)->block();
  size_t no = outer.num_results(), nc = inner.num_results();

  Builder before;
  before.set_insertion_point(&outer);
  Value *n_out = trip_count(before, outer, loc), *n_in = trip_count(before, inner, loc);
  Value *total = bin(before, OpKind::Mul, n_out, n_in, loc);

  // versioned: an inner loop of no iteration runs the nest as written
  Builder at = before;
  Op *version = nullptr;
  auto known = constant_value(n_in);
  if (!known || known->i <= 0) {
    std::vector<Type> types;
    for (size_t i = 0; i < no; ++i)
      types.push_back(outer.result(i)->type);
    version = before.create(OpKind::If, {cmp(before, "gt", n_in, i32c(before, 0, loc), loc)}, types,
                            {}, loc, 2);
    Builder els(version->region(1)->ensure_block());
    std::map<const Value *, Value *> map;
    Op *copy = clone(outer, els, map);
    copy->erase_attr("flatten");
    // there the inner loop runs no iteration: its results are its initial values
    Op *ci = map[ib.arg(0)]->owner->parent()->parent();
    for (size_t i = 0; i < nc; ++i)
      ci->result(i)->replace_all_uses_with(ci->operand(3 + i));
    walk(ci, [](Op *o) { o->drop_operands(); }); // nested ops too: no dangling uses
    ci->erase();
    std::vector<Value *> rs;
    for (size_t i = 0; i < no; ++i)
      rs.push_back(copy->result(i));
    els.create(OpKind::Yield, rs, {}, {}, loc);
    at = Builder(version->region(0)->ensure_block());
  }

  // the pre ops' values used after them, carried: computed once a tile (in an `if` at its
  // first inner iteration), which the rings recompute ahead as a whole (LoopShift.h);
  // they start as the first tile's, computed before the loop
  std::set<const Op *> pre_set(n.pre.begin(), n.pre.end());
  std::vector<Value *> exported;
  for (Op *p : n.pre)
    for (size_t i = 0; i < p->num_results(); ++i)
      for (const Op *u : p->result(i)->users)
        if (!pre_set.count(u)) {
          exported.push_back(p->result(i));
          break;
        }
  size_t nx = exported.size();
  std::map<const Value *, Value *> first_tile = {{ob.arg(0), outer.operand(0)}};
  for (size_t i = 0; i < no; ++i)
    first_tile[ob.arg(i + 1)] = outer.operand(3 + i);
  for (Op *p : n.pre)
    clone(*p, at, first_tile);

  // the loop: (iv, q, r, outer carried..., pre values..., inner carried...)
  std::vector<Value *> inits = {i32c(at, 0, loc), total, i32c(at, 1, loc), i32c(at, 0, loc),
                                i32c(at, 0, loc)};
  for (size_t i = 3; i < outer.num_operands(); ++i)
    inits.push_back(outer.operand(i));
  for (Value *x : exported)
    inits.push_back(first_tile.at(x));
  for (size_t i = 3; i < inner.num_operands(); ++i) {
    const Type &t = inner.operand(i)->type;
    inits.push_back(is_float(t.elem) ? at.constant_float(t, 0.0, loc) : at.constant_int(t, 0, loc));
  }
  std::vector<Type> types;
  for (size_t i = 3; i < inits.size(); ++i)
    types.push_back(inits[i]->type);
  std::vector<NamedAttr> attrs = {{kFlattenedAttr, int64_t{1}}};
  for (const NamedAttr &a : inner.attrs())
    attrs.push_back(a);
  if (outer.int_attr("warp_specialize", 0) && !inner.int_attr("warp_specialize", 0))
    attrs.push_back({"warp_specialize", int64_t{1}}); // the outer loop's, Triton's place for it
  Op *flat = at.create(OpKind::For, inits, types, attrs, loc, 1);
  Block &fb = *flat->region(0)->ensure_block();
  fb.add_arg(Type(DType::I32));
  std::vector<Value *> args;
  for (const Type &t : types)
    args.push_back(fb.add_arg(t));
  Value *q = args[0], *r = args[1];

  Builder b(&fb);
  Value *t =
      bin(b, OpKind::Add, outer.operand(0), bin(b, OpKind::Mul, q, outer.operand(2), loc), loc);
  Value *k =
      bin(b, OpKind::Add, inner.operand(0), bin(b, OpKind::Mul, r, inner.operand(2), loc), loc);
  ob.arg(0)->replace_all_uses_with(t);
  for (size_t i = 0; i < no; ++i)
    ob.arg(i + 1)->replace_all_uses_with(args[2 + i]);
  Value *first = cmp(b, "eq", r, i32c(b, 0, loc), loc);
  std::vector<Type> xtypes;
  for (Value *x : exported)
    xtypes.push_back(x->type);
  Op *pif = b.create(OpKind::If, {first}, xtypes, {{kCacheAttr, int64_t{1}}}, loc, 2);
  Block &pthen = *pif->region(0)->ensure_block();
  for (Op *p : n.pre)
    move_to(p, pthen);
  for (size_t j = 0; j < nx; ++j) // every use after the pre ops reads the carried value
    for (Op *u : std::vector<Op *>(exported[j]->users))
      if (!pre_set.count(u))
        for (size_t i = 0; i < u->num_operands(); ++i)
          if (u->operand(i) == exported[j])
            u->set_operand(i, pif->result(j));
  Builder(&pthen).create(OpKind::Yield, exported, {}, {}, loc);
  Builder(pif->region(1)->ensure_block())
      .create(OpKind::Yield,
              std::vector<Value *>(args.begin() + 2 + no, args.begin() + 2 + no + nx), {}, {}, loc);
  // a tile's first inner iteration starts from the inner loop's initial values
  ib.arg(0)->replace_all_uses_with(k);
  for (size_t i = 0; i < nc; ++i)
    ib.arg(i + 1)->replace_all_uses_with(
        select(b, first, inner.operand(3 + i), args[2 + no + nx + i], loc));
  Op *iyield = ib.terminator();
  while (ib.ops().front().get() != iyield)
    move_to(ib.ops().front().get(), fb);
  std::vector<Value *> c_out(iyield->operands().begin(), iyield->operands().end());
  for (size_t i = 0; i < nc; ++i)
    inner.result(i)->replace_all_uses_with(c_out[i]);

  // its last one runs what followed the inner loop
  Value *last = cmp(b, "eq", r, bin(b, OpKind::Sub, n_in, i32c(b, 1, loc), loc), loc);
  std::vector<Type> otypes(types.begin() + 2, types.begin() + 2 + static_cast<long>(no));
  Op *post = b.create(OpKind::If, {last}, otypes, {}, loc, 2);
  Block &then = *post->region(0)->ensure_block();
  for (auto it = std::next(inner.self_iterator()); it != ob.ops().end();) {
    Op *op = (it++)->get();
    move_to(op, then); // the outer yield comes last: then's terminator
  }
  Builder els(post->region(1)->ensure_block());
  els.create(OpKind::Yield, std::vector<Value *>(args.begin() + 2, args.begin() + 2 + no), {}, {},
             loc);

  Value *r1 = bin(b, OpKind::Add, r, i32c(b, 1, loc), loc);
  Value *wrap = cmp(b, "eq", r1, n_in, loc);
  std::vector<Value *> ys = {select(b, wrap, bin(b, OpKind::Add, q, i32c(b, 1, loc), loc), q, loc),
                             select(b, wrap, i32c(b, 0, loc), r1, loc)};
  for (size_t i = 0; i < no; ++i)
    ys.push_back(post->result(i));
  for (size_t j = 0; j < nx; ++j)
    ys.push_back(pif->result(j));
  ys.insert(ys.end(), c_out.begin(), c_out.end());
  b.create(OpKind::Yield, ys, {}, {}, loc);

  std::vector<Value *> results;
  for (size_t i = 0; i < no; ++i)
    results.push_back(flat->result(2 + i));
  if (version) {
    Builder(version->region(0)->block()).create(OpKind::Yield, results, {}, {}, loc);
    for (size_t i = 0; i < no; ++i)
      outer.result(i)->replace_all_uses_with(version->result(i));
  } else {
    for (size_t i = 0; i < no; ++i)
      outer.result(i)->replace_all_uses_with(results[i]);
  }
  iyield->drop_operands();
  iyield->erase();
  inner.drop_operands();
  inner.erase();
  outer.drop_operands();
  outer.erase();
}

} // namespace

void flatten_loops(Module &m) {
  if (env::get(env::Var::Flatten) == "0")
    return;
  bool changed = false;
  for (auto &f : m.functions) {
    std::vector<Op *> loops;
    // a warp_specialize nest too when its loops are to be specialised: its producer then
    // runs on across the tiles (layout/WarpSpecialize.h takes loops nested in none)
    bool ws = m.int_attr("warp_specialize", 0) != 0;
    for_each_loop(*f->entry(), [&](Op &loop) {
      if (loop.int_attr("flatten", 0) || (ws && loop.int_attr("warp_specialize", 0)))
        loops.push_back(&loop);
    });
    for (Op *loop : loops)
      if (auto n = match(*loop)) {
        flatten(*loop, *n);
        changed = true;
      }
  }
  if (changed) { // the new index math repeats constants
    cse(m);
    dce(m);
  }
}

} // namespace tilec::transforms
