// tl.map_elementwise(scalar_fn, *args, pack=1): a @jit function on scalars, its control
// flow included, applied to every element of the (broadcast) arguments. The function is
// inlined on scalar stand-ins in a detached region, then that code is rewritten on tiles
// of the arguments' shape: elementwise ops on tiles, an `if` as both branches and a select
// per result (the function may only compute, so running the other branch changes nothing;
// an integer division there divides by 1 instead: the interpreter faults on 0), a loop
// whose bounds are the same for every element as a loop carrying tiles, one whose trip
// count differs per element as a loop while any element runs. Triton lowers a
// region per element instead; the results are the same. With `pack` = k the function takes
// k elements of each argument (neighbours along the last dim) and returns k of each result.
#include <map>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/EmitUtil.h"

namespace tilec::sema::builtins {

namespace {

using ir::Op;
using ir::OpKind;
using ir::Type;
using ir::Value;

[[noreturn]] void unsupported(const Op &op, const std::string &why) {
  throw CompileError(op.loc(), "tl.map_elementwise: `" + std::string(op.name()) +
                                   "` in the mapped function: " + why);
}

// The scalar code of `from`, emitted at the builder's insertion point on tiles of `shape`.
class Vectorizer {
public:
  Vectorizer(Emitter &e, ir::Shape shape, SourceLoc loc)
      : e_(e), shape_(std::move(shape)), loc_(loc) {}

  void set_tile(const Value *scalar, Value *tile) { tiles_[scalar] = tile; }
  void set_uniform(const Value *scalar, Value *value) { scalars_[scalar] = value; }
  // Emits `from`'s ops under `pred` (null: every element), returning its yield's operands
  // as tiles.
  std::vector<Value *> run(const ir::Block &from, Value *pred);
  Value *tile(Value *v);

private:
  bool varies(const Value *v) const { return tiles_.count(v) != 0; }
  Value *uniform(Value *v) {
    auto it = scalars_.find(v);
    return it == scalars_.end() ? v : it->second;
  }
  Value *conjoin(Value *pred, Value *c) {
    return pred ? emit(e_, OpKind::And, {pred, c}, c->type, loc_) : c;
  }
  void op_on_tiles(const Op &op, Value *pred);
  void if_on_tiles(const Op &op, Value *pred);
  void for_on_tiles(const Op &op, Value *pred);
  void for_per_element(const Op &op, Value *pred);
  void while_on_tiles(const Op &op, Value *pred);
  Value *all_true() { return make_int(e_, Type(ir::DType::I1).with_shape(shape_), 1, loc_); }
  Value *any(Value *mask);

  Emitter &e_;
  ir::Shape shape_;
  SourceLoc loc_;
  std::map<const Value *, Value *> tiles_;   // a scalar that varies -> its tile
  std::map<const Value *, Value *> scalars_; // a uniform scalar -> its copy
};

Value *Vectorizer::tile(Value *v) {
  auto it = tiles_.find(v);
  if (it != tiles_.end())
    return it->second;
  Value *s = uniform(v);
  if (s->type.is_tile())
    throw CompileError(loc_, "tl.map_elementwise: the mapped function may only use scalars, "
                             "not the tensor " +
                                 s->type.str());
  return splat_to(e_, s, shape_, loc_);
}

std::vector<Value *> Vectorizer::run(const ir::Block &from, Value *pred) {
  for (const auto &p : from.ops()) {
    const Op &op = *p;
    if (op.kind() == OpKind::Yield || op.kind() == OpKind::Condition) {
      std::vector<Value *> ys;
      for (Value *y : op.operands())
        ys.push_back(tile(y));
      return ys;
    }
    bool any_varies = false;
    for (Value *x : op.operands())
      any_varies |= varies(x);
    // an integer division under a condition divides only where it holds (below)
    bool int_div = (op.kind() == OpKind::Div || op.kind() == OpKind::Rem) &&
                   !ir::is_float(op.result()->type.elem);
    any_varies |= pred && int_div;
    if (op.kind() == OpKind::If) {
      if_on_tiles(op, pred);
    } else if (op.kind() == OpKind::For) {
      if (varies(op.operand(0)) || varies(op.operand(1)) || varies(op.operand(2)))
        for_per_element(op, pred);
      else
        for_on_tiles(op, pred);
    } else if (op.kind() == OpKind::While) {
      while_on_tiles(op, pred);
    } else if (op.num_regions() != 0 || !ir::is_pure(op.kind())) {
      unsupported(op, "the function may only compute (arithmetic, comparisons, math, casts, "
                      "`if`, loops)");
    } else if (!any_varies) { // the same for every element: a scalar copy
      std::vector<Value *> xs;
      for (Value *x : op.operands())
        xs.push_back(uniform(x));
      std::vector<Type> ts;
      for (size_t i = 0; i < op.num_results(); ++i)
        ts.push_back(op.result(i)->type);
      Op *c = e_.builder().create(op.kind(), xs, ts, op.attrs(), op.loc());
      for (size_t i = 0; i < op.num_results(); ++i)
        scalars_[op.result(i)] = c->result(i);
    } else {
      op_on_tiles(op, pred);
    }
  }
  return {};
}

void Vectorizer::op_on_tiles(const Op &op, Value *pred) {
  if (!ir::is_elementwise(op.kind()) || op.kind() == OpKind::InlineAsm)
    unsupported(op, "it makes or reshapes tensors, which the mapped function may not");
  std::vector<Value *> xs;
  for (Value *x : op.operands())
    xs.push_back(tile(x));
  if (pred && (op.kind() == OpKind::Div || op.kind() == OpKind::Rem) &&
      !ir::is_float(op.result()->type.elem)) // only where this branch runs
    xs[1] = emit(e_, OpKind::Select, {pred, xs[1], make_int(e_, xs[1]->type, 1, loc_)}, xs[1]->type,
                 loc_);
  std::vector<Type> ts;
  for (size_t i = 0; i < op.num_results(); ++i)
    ts.push_back(op.result(i)->type.with_shape(shape_));
  Op *c = e_.builder().create(op.kind(), xs, ts, op.attrs(), op.loc());
  for (size_t i = 0; i < op.num_results(); ++i)
    tiles_[op.result(i)] = c->result(i);
}

void Vectorizer::if_on_tiles(const Op &op, Value *pred) {
  Value *c = tile(op.operand(0));
  Value *not_c = emit(e_, OpKind::Xor, {c, make_int(e_, c->type, 1, loc_)}, c->type, loc_);
  std::vector<Value *> t = run(*op.region(0)->block(), conjoin(pred, c));
  std::vector<Value *> f;
  if (op.num_regions() > 1 && op.region(1)->block())
    f = run(*op.region(1)->block(), conjoin(pred, not_c));
  for (size_t i = 0; i < op.num_results(); ++i)
    tiles_[op.result(i)] = emit(e_, OpKind::Select, {c, t.at(i), f.at(i)}, t[i]->type, op.loc());
}

// Whether any element of the i1 tile `mask` is set, as a scalar.
Value *Vectorizer::any(Value *mask) {
  Value *r = cast_dtype(e_, mask, ir::DType::I32, loc_);
  CombineFn max = [this](const std::vector<Value *> &xy) {
    return std::vector<Value *>{emit(e_, OpKind::Max, {xy[0], xy[1]}, xy[0]->type, loc_)};
  };
  while (r->type.is_tile())
    r = make_reduce(e_, {r}, r->type.rank() - 1, max, loc_)->result();
  return compare(e_, "ne", r, make_int(e_, r->type, 0, loc_), loc_);
}

// A loop whose trip count may differ from one element to another runs while any element
// is active (mask A, carried); an element that has finished keeps its values, so what the
// loop gives it at the end is what it had when it finished. Its body runs under A.
void Vectorizer::while_on_tiles(const Op &op, Value *pred) {
  const ir::Block &before = *op.region(0)->block(), &after = *op.region(1)->block();
  std::vector<Value *> inits;
  std::vector<Type> cts, fts; // carried, forwarded
  for (Value *x : op.operands()) {
    inits.push_back(tile(x));
    cts.push_back(inits.back()->type);
  }
  for (size_t i = 0; i < op.num_results(); ++i)
    fts.push_back(op.result(i)->type.with_shape(shape_));
  Value *a0 = pred ? pred : all_true();
  inits.push_back(a0);
  std::vector<Type> rts = fts; // forwarded: F..., A, C...
  rts.push_back(a0->type);
  rts.insert(rts.end(), cts.begin(), cts.end());
  Op *w = e_.builder().create(OpKind::While, inits, rts, op.attrs(), op.loc(), 2);
  ir::Block *bb = w->region(0)->ensure_block(), *ab = w->region(1)->ensure_block();
  std::vector<Value *> c_b, f_a, c_a;
  for (size_t i = 0; i < cts.size(); ++i)
    tiles_[before.arg(i)] = c_b.emplace_back(bb->add_arg(cts[i]));
  Value *a_b = bb->add_arg(a0->type);
  for (size_t i = 0; i < fts.size(); ++i)
    tiles_[after.arg(i)] = f_a.emplace_back(ab->add_arg(fts[i]));
  Value *a_a = ab->add_arg(a0->type);
  for (const Type &t : cts)
    c_a.push_back(ab->add_arg(t));
  {
    InsertionGuard guard(e_.builder());
    e_.builder().set_insertion_point_to_end(bb);
    std::vector<Value *> ys = run(before, a_b); // cond, forwarded...
    Value *a2 = emit(e_, OpKind::And, {a_b, ys[0]}, a_b->type, loc_);
    std::vector<Value *> fwd(ys.begin() + 1, ys.end());
    fwd.push_back(a2);
    fwd.insert(fwd.end(), c_b.begin(), c_b.end());
    std::vector<Value *> cond = {any(a2)};
    cond.insert(cond.end(), fwd.begin(), fwd.end());
    e_.builder().create(OpKind::Condition, cond, {}, {}, op.loc());
  }
  {
    InsertionGuard guard(e_.builder());
    e_.builder().set_insertion_point_to_end(ab);
    std::vector<Value *> ys = run(after, a_a), next;
    for (size_t i = 0; i < ys.size(); ++i)
      next.push_back(emit(e_, OpKind::Select, {a_a, ys[i], c_a[i]}, ys[i]->type, loc_));
    next.push_back(a_a);
    e_.builder().create(OpKind::Yield, next, {}, {}, op.loc());
  }
  for (size_t i = 0; i < op.num_results(); ++i)
    tiles_[op.result(i)] = w->result(i);
}

// `for` with bounds that differ per element: a while over (iv, carried..., A) as above.
void Vectorizer::for_per_element(const Op &op, Value *pred) {
  Value *lb = tile(op.operand(0)), *ub = tile(op.operand(1)), *step = tile(op.operand(2));
  std::vector<Value *> inits = {lb};
  std::vector<Type> ts = {lb->type};
  for (size_t i = 3; i < op.num_operands(); ++i) {
    inits.push_back(tile(op.operand(i)));
    ts.push_back(inits.back()->type);
  }
  Value *a0 = pred ? pred : all_true();
  inits.push_back(a0);
  ts.push_back(a0->type);
  Op *w = e_.builder().create(OpKind::While, inits, ts, {}, op.loc(), 2);
  ir::Block *bb = w->region(0)->ensure_block(), *ab = w->region(1)->ensure_block();
  std::vector<Value *> vb, va;
  for (const Type &t : ts) {
    vb.push_back(bb->add_arg(t));
    va.push_back(ab->add_arg(t));
  }
  {
    InsertionGuard guard(e_.builder());
    e_.builder().set_insertion_point_to_end(bb);
    Value *iv = vb[0], *a = vb.back();
    Value *zero = make_int(e_, step->type, 0, loc_);
    Value *up = compare(e_, "gt", step, zero, loc_);
    Value *go = emit(e_, OpKind::Select,
                     {up, compare(e_, "lt", iv, ub, loc_), compare(e_, "gt", iv, ub, loc_)},
                     up->type, loc_);
    Value *a2 = emit(e_, OpKind::And, {a, go}, a->type, loc_);
    std::vector<Value *> cond = {any(a2)};
    cond.insert(cond.end(), vb.begin(), vb.end() - 1);
    cond.push_back(a2);
    e_.builder().create(OpKind::Condition, cond, {}, {}, op.loc());
  }
  {
    InsertionGuard guard(e_.builder());
    e_.builder().set_insertion_point_to_end(ab);
    const ir::Block &body = *op.region(0)->block();
    Value *iv = va[0], *a = va.back();
    for (size_t i = 0; i < body.num_args(); ++i)
      tiles_[body.arg(i)] = va[i];
    std::vector<Value *> ys = run(body, a);
    std::vector<Value *> next = {emit(e_, OpKind::Select,
                                      {a, emit(e_, OpKind::Add, {iv, step}, iv->type, loc_), iv},
                                      iv->type, loc_)};
    for (size_t i = 0; i < ys.size(); ++i)
      next.push_back(emit(e_, OpKind::Select, {a, ys[i], va[i + 1]}, ys[i]->type, loc_));
    next.push_back(a);
    e_.builder().create(OpKind::Yield, next, {}, {}, op.loc());
  }
  for (size_t i = 0; i < op.num_results(); ++i)
    tiles_[op.result(i)] = w->result(i + 1);
}

void Vectorizer::for_on_tiles(const Op &op, Value *pred) {
  std::vector<Value *> xs;
  for (size_t i = 0; i < op.num_operands(); ++i)
    xs.push_back(i < 3 ? uniform(op.operand(i)) : tile(op.operand(i)));
  std::vector<Type> ts;
  for (size_t i = 3; i < op.num_operands(); ++i)
    ts.push_back(xs[i]->type);
  Op *loop = e_.builder().create(OpKind::For, xs, ts, op.attrs(), op.loc(), 1);
  ir::Block *body = loop->region(0)->ensure_block();
  const ir::Block &old = *op.region(0)->block();
  scalars_[old.arg(0)] = body->add_arg(old.arg(0)->type);
  for (size_t i = 1; i < old.num_args(); ++i)
    tiles_[old.arg(i)] = body->add_arg(ts[i - 1]);
  {
    InsertionGuard guard(e_.builder());
    e_.builder().set_insertion_point_to_end(body);
    std::vector<Value *> ys = run(old, pred);
    e_.builder().create(OpKind::Yield, ys, {}, {}, op.loc());
  }
  for (size_t i = 0; i < op.num_results(); ++i)
    tiles_[op.result(i)] = loop->result(i);
}

// x (..., n) -> its `pack` interleaved parts (..., n / pack): part j holds x[..., j::pack].
std::vector<Value *> unpack(Emitter &e, Value *x, int64_t pack, SourceLoc loc) {
  if (pack == 1)
    return {x};
  ir::Shape s = x->type.shape;
  s.back() /= 2;
  s.push_back(2);
  Op *sp = e.builder().create(
      OpKind::Split, {reshape(e, x, s, loc)},
      {x->type.with_shape({s.begin(), s.end() - 1}), x->type.with_shape({s.begin(), s.end() - 1})},
      {}, loc);
  // the even elements hold parts 0, 2, 4 ...; the odd ones 1, 3, 5 ...
  std::vector<Value *> even = unpack(e, sp->result(0), pack / 2, loc);
  std::vector<Value *> odd = unpack(e, sp->result(1), pack / 2, loc);
  std::vector<Value *> parts;
  for (size_t j = 0; j < even.size(); ++j) {
    parts.push_back(even[j]);
    parts.push_back(odd[j]);
  }
  return parts;
}

// The inverse of unpack.
Value *repack(Emitter &e, const std::vector<Value *> &parts, SourceLoc loc) {
  if (parts.size() == 1)
    return parts[0];
  std::vector<Value *> even, odd;
  for (size_t j = 0; j < parts.size(); ++j)
    (j % 2 ? odd : even).push_back(parts[j]);
  Value *a = repack(e, even, loc), *b = repack(e, odd, loc);
  ir::Shape s = a->type.shape;
  s.push_back(2);
  Value *joined = emit(e, OpKind::Join, {a, b}, a->type.with_shape(s), loc);
  s.pop_back();
  s.back() *= 2;
  return reshape(e, joined, s, loc);
}

Val map_elementwise(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  const Val &fn = a["scalar_fn"];
  if (fn.kind != Val::Kind::Function)
    a.fail("map_elementwise(): scalar_fn must be a @jit function, got " + fn.repr());
  if (a.rest().empty())
    a.fail("map_elementwise(): needs at least one input tensor");
  int64_t pack = a.const_int("pack");
  std::vector<Value *> xs, uniform; // uniform[i]: input i as a scalar (the same everywhere)
  ir::Shape shape;
  for (const Val &v : a.rest()) {
    if (!v.is_tensor() && !is_number(v))
      a.fail("map_elementwise(): the inputs must be tensors, got " + v.repr());
    xs.push_back(as_tensor(e, v, loc));
    uniform.push_back(xs.back()->type.is_tile() ? nullptr : xs.back());
    shape = broadcast_shape(shape, xs.back()->type.shape, loc);
  }
  for (Value *&x : xs)
    x = broadcast_to(e, x, shape, loc);
  if (pack < 1 || !ir::is_power_of_two(pack))
    a.fail("map_elementwise(): pack must be a power of 2, got " + std::to_string(pack));
  if (pack > 1 && (shape.empty() || shape.back() % pack != 0))
    a.fail("map_elementwise(): pack=" + std::to_string(pack) +
           " must divide the inputs' last dimension (their shape is " +
           ir::Type(ir::DType::I32).with_shape(shape).str() + ")");
  std::vector<std::vector<Value *>> parts; // per input, its pack parts
  for (Value *x : xs)
    parts.push_back(unpack(e, x, pack, loc));
  ir::Shape part_shape = parts[0][0]->type.shape;

  // the function on scalar stand-ins (input i, part j: argument i * pack + j, as Triton's)
  ir::Region region(nullptr);
  ir::Block *block = region.ensure_block();
  struct Detach { // its ops use values of the kernel: detach them before it goes
    ir::Block *b;
    ~Detach() {
      ir::walk(b, [](Op *op) { op->drop_operands(); });
    }
  } detach{block};
  std::vector<Val> args;
  for (Value *x : xs)
    for (int64_t j = 0; j < pack; ++j)
      args.push_back(Val::of(block->add_arg(x->type.element())));
  std::vector<Val> outs;
  {
    InsertionGuard guard(e.builder());
    e.builder().set_insertion_point_to_end(block);
    Val r = e.call_function(fn, args, loc);
    outs = r.kind == Val::Kind::Tuple ? r.elems : std::vector<Val>{r};
    std::vector<Value *> ys;
    for (const Val &o : outs) {
      if (!o.is_tensor() && !is_number(o))
        a.fail("map_elementwise(): scalar_fn must return scalars, got " + o.repr());
      ys.push_back(as_tensor(e, o, loc));
      if (ys.back()->type.is_tile())
        a.fail("map_elementwise(): scalar_fn must return scalars, got a tensor of type " +
               ys.back()->type.str());
    }
    if (ys.size() % static_cast<size_t>(pack) != 0)
      a.fail("map_elementwise(): with pack=" + std::to_string(pack) + ", scalar_fn must return " +
             std::to_string(pack) + " values of each result, got " + std::to_string(ys.size()));
    e.builder().create(OpKind::Yield, ys, {}, {}, loc);
  }
  if (shape.empty()) { // scalars: the function as it is, moved here
    std::vector<Value *> rs;
    Vectorizer v(e, shape, loc);
    for (size_t i = 0; i < xs.size(); ++i)
      v.set_tile(block->arg(i), xs[i]);
    rs = v.run(*block, nullptr);
    std::vector<Val> vals;
    for (Value *r : rs)
      vals.push_back(Val::of(r));
    return vals.size() == 1 ? vals[0] : Val::tuple(std::move(vals));
  }
  // an input given as a scalar stays one: a loop may run to it (the same trip count for
  // every element)
  Vectorizer v(e, part_shape, loc);
  for (size_t i = 0; i < xs.size(); ++i)
    for (int64_t j = 0; j < pack; ++j) {
      Value *arg = block->arg(i * static_cast<size_t>(pack) + static_cast<size_t>(j));
      if (uniform[i])
        v.set_uniform(arg, uniform[i]);
      else
        v.set_tile(arg, parts[i][static_cast<size_t>(j)]);
    }
  std::vector<Value *> ys = v.run(*block, nullptr);
  size_t n = ys.size() / static_cast<size_t>(pack);
  std::vector<Val> results;
  for (size_t k = 0; k < n; ++k) {
    std::vector<Value *> ps(ys.begin() + static_cast<long>(k * pack),
                            ys.begin() + static_cast<long>((k + 1) * pack));
    for (Value *p : ps)
      if (p->type.elem != ps[0]->type.elem)
        a.fail("map_elementwise(): the " + std::to_string(pack) + " values of result " +
               std::to_string(k) + " must have one type");
    results.push_back(Val::of(repack(e, ps, loc)));
  }
  return results.size() == 1 ? results[0] : Val::tuple(std::move(results));
}

} // namespace

void add_map_elementwise_builtins(std::vector<Def> &t) {
  t.push_back({"map_elementwise", "scalar_fn, *args, pack=1", map_elementwise, kTl});
}

} // namespace tilec::sema::builtins
