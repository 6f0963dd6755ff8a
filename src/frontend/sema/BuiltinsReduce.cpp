// Reductions and scans: tl.reduce / tl.associative_scan with @jit combiners, and the
// library ones (sum, max, min, argmax, argmin, xor_sum, reduce_or, cumsum, cumprod,
// softmax) with Triton's dtype rules (standard.py).
#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

// The inputs of a reduction: a tensor or a tuple of tensors of one shape.
std::vector<Value *> reduce_inputs(const Args &a, bool *was_tuple) {
  const Val &in = a["input"];
  *was_tuple = in.kind == Val::Kind::Tuple;
  std::vector<Value *> xs;
  if (!*was_tuple) {
    xs.push_back(a.tensor("input"));
  } else {
    for (const Val &v : in.elems) {
      if (!v.is_tensor())
        a.fail(a.fn() + "(): the inputs must be tensors, got " + v.repr());
      xs.push_back(v.tensor);
    }
    if (xs.empty())
      a.fail(a.fn() + "(): no inputs");
  }
  for (Value *x : xs)
    if (x->type.shape != xs[0]->type.shape)
      a.fail(a.fn() + "(): all inputs must have the same shape, got " +
             shape_str(xs[0]->type.shape) + " and " + shape_str(x->type.shape));
  return xs;
}

// Reduces `xs` along `axis` (all axes when nullopt, after flattening), then restores the
// reduced dims as size 1 when `keep_dims`.
std::vector<Value *> reduction(Emitter &e, const Args &a, std::vector<Value *> xs,
                               std::optional<int64_t> axis, const CombineFn &combine,
                               bool keep_dims) {
  SourceLoc loc = a.loc();
  int rank = xs[0]->type.rank();
  int ax = 0;
  if (axis) {
    ax = wrap_axis(a, *axis, rank);
  } else {
    for (Value *&x : xs)
      x = reshape(e, x, {x->type.numel()}, loc);
  }
  ir::Op *op = make_reduce(e, xs, ax, combine, loc);
  std::vector<Value *> rs;
  for (size_t i = 0; i < xs.size(); ++i) {
    Value *r = op->result(i);
    if (keep_dims) {
      if (axis)
        r = expand_dims(e, r, ax, loc);
      else
        for (int d = 0; d < rank; ++d)
          r = expand_dims(e, r, 0, loc);
    }
    rs.push_back(r);
  }
  return rs;
}

Val wrap_results(const std::vector<Value *> &rs, bool tuple) {
  if (!tuple)
    return Val::of(rs[0]);
  std::vector<Val> out;
  for (Value *r : rs)
    out.push_back(Val::of(r));
  return Val::tuple(std::move(out));
}

// Calls the user's @jit combiner on the region's scalars and checks what it returns.
CombineFn user_combiner(Emitter &e, const Args &a, const std::vector<Value *> &xs) {
  const Val &fn = a["combine_fn"];
  if (fn.kind != Val::Kind::Function)
    a.fail(a.fn() + "(): combine_fn must be a @jit function, got " + fn.repr());
  return [&e, &a, fn, n = xs.size()](const std::vector<Value *> &args) {
    std::vector<Val> vs;
    for (Value *v : args)
      vs.push_back(Val::of(v));
    Val r = e.call_function(fn, vs, a.loc());
    std::vector<Val> outs = r.kind == Val::Kind::Tuple ? r.elems : std::vector<Val>{r};
    if (outs.size() != n)
      a.fail(a.fn() + "(): combine_fn must return " + std::to_string(n) + " value" +
             (n == 1 ? "" : "s") + ", got " + std::to_string(outs.size()));
    std::vector<Value *> ys;
    for (size_t i = 0; i < n; ++i) {
      const Type &want = args[i]->type;
      const Val &o = outs[i];
      Value *y = nullptr;
      if (is_number(o))
        y = constant_of(e, o, want, a.loc());
      else if (o.is_tensor() && o.tensor->type == want)
        y = o.tensor;
      else
        a.fail(a.fn() + "(): combine_fn returned " +
               (o.is_tensor() ? tensor_str(o.tensor->type) : o.repr()) + " for result " +
               std::to_string(i) + " where " + tensor_str(want) + " was expected");
      ys.push_back(y);
    }
    return ys;
  };
}

Val reduce(Emitter &e, const Args &a) {
  bool tuple = false;
  std::vector<Value *> xs = reduce_inputs(a, &tuple);
  CombineFn fn = user_combiner(e, a, xs);
  return wrap_results(
      reduction(e, a, xs, a.const_int_or_none("axis"), fn, a.const_bool("keep_dims")), tuple);
}

Val associative_scan(Emitter &e, const Args &a) {
  bool tuple = false;
  std::vector<Value *> xs = reduce_inputs(a, &tuple);
  int ax = wrap_axis(a, a.const_int("axis"), xs[0]->type.rank());
  ir::Op *op = make_scan(e, xs, ax, a.const_bool("reverse"), user_combiner(e, a, xs), a.loc());
  std::vector<Value *> rs;
  for (size_t i = 0; i < xs.size(); ++i)
    rs.push_back(op->result(i));
  return wrap_results(rs, tuple);
}

CombineFn binary_combiner(Emitter &e, OpKind k, SourceLoc loc) {
  return [&e, k, loc](const std::vector<Value *> &args) {
    std::vector<ir::NamedAttr> attrs;
    // Triton's max/min reductions use maxnum/minnum: a NaN does not propagate.
    if ((k == OpKind::Max || k == OpKind::Min) && ir::is_float(args[0]->type.elem))
      attrs.push_back({"propagate_nan", int64_t(0)});
    return std::vector<Value *>{emit(e, k, {args[0], args[1]}, args[0]->type, loc, attrs)};
  };
}

Value *numeric_input(const Args &a) {
  Value *x = a.tensor("input");
  if (x->type.is_ptr())
    a.fail(a.fn() + "(): cannot reduce a tensor of pointers");
  return x;
}

Value *promote_bf16(Emitter &e, Value *x, SourceLoc loc) {
  return x->type.elem == DType::BF16 ? cast_dtype(e, x, DType::F32, loc) : x;
}

// _pick_sum_dtype: an explicit dtype, else ints narrower than 32 bits widen to 32 bits of
// the same signedness (int1 counts as unsigned).
Value *sum_input(Emitter &e, const Args &a, Value *x) {
  if (std::optional<Type> d = a.const_dtype_or_none("dtype"))
    return cast_elem(e, x, *d, a.loc());
  DType el = x->type.elem;
  if (ir::is_int(el) && ir::bits(el) < 32)
    return cast_dtype(e, x, ir::is_signed_int(el) ? DType::I32 : DType::U32, a.loc());
  return x;
}

Val sum(Emitter &e, const Args &a) {
  Value *x = sum_input(e, a, numeric_input(a));
  return Val::of(reduction(e, a, {x}, a.const_int_or_none("axis"),
                           binary_combiner(e, OpKind::Add, a.loc()), a.const_bool("keep_dims"))[0]);
}

CombineFn arg_combiner(Emitter &e, bool is_max, bool tie_break_left, SourceLoc loc) {
  return [&e, is_max, tie_break_left, loc](const std::vector<Value *> &args) {
    Value *v1 = args[0], *i1 = args[1], *v2 = args[2], *i2 = args[3];
    Value *better = compare(e, is_max ? "gt" : "lt", v1, v2, loc);
    if (tie_break_left) {
      Value *tie =
          emit(e, OpKind::And, {compare(e, "eq", v1, v2, loc), compare(e, "lt", i1, i2, loc)},
               Type(DType::I1), loc);
      better = emit(e, OpKind::Or, {better, tie}, Type(DType::I1), loc);
    }
    return std::vector<Value *>{emit(e, OpKind::Select, {better, v1, v2}, v1->type, loc),
                                emit(e, OpKind::Select, {better, i1, i2}, i1->type, loc)};
  };
}

// max/min with and without indices (standard.py's max, min, _reduce_with_indices).
std::vector<Value *> extremum(Emitter &e, const Args &a, bool is_max, bool with_indices,
                              bool tie_break_left) {
  SourceLoc loc = a.loc();
  Value *x = promote_bf16(e, numeric_input(a), loc);
  std::optional<int64_t> axis = a.const_int_or_none("axis");
  bool keep = a.const_bool("keep_dims");
  if (!with_indices) {
    if (ir::bits(x->type.elem) < 32)
      x = cast_dtype(e, x, ir::is_float(x->type.elem) ? DType::F32 : DType::I32, loc);
    return reduction(e, a, {x}, axis, binary_combiner(e, is_max ? OpKind::Max : OpKind::Min, loc),
                     keep);
  }
  int rank = x->type.rank();
  // Without an axis (Triton requires one here) the flattened tensor is reduced.
  int ax = axis ? wrap_axis(a, *axis, rank) : 0;
  if (!axis)
    x = reshape(e, x, {x->type.numel()}, loc);
  int64_t n = x->type.shape[static_cast<size_t>(ax)];
  Value *idx = emit(e, OpKind::Arange, {}, Type(DType::I32, false, {n}), loc,
                    {{"start", int64_t(0)}, {"end", n}});
  for (int d = 0; d < x->type.rank(); ++d)
    if (d != ax)
      idx = expand_dims(e, idx, d, loc);
  idx = broadcast_to(e, idx, x->type.shape, loc);
  std::vector<Value *> rs =
      reduction(e, a, {x, idx}, ax, arg_combiner(e, is_max, tie_break_left, loc), false);
  if (keep) {
    if (axis) {
      for (Value *&r : rs)
        r = expand_dims(e, r, ax, loc);
    } else {
      for (Value *&r : rs)
        for (int d = 0; d < rank; ++d)
          r = expand_dims(e, r, 0, loc);
    }
  }
  return rs;
}

Val max_min(Emitter &e, const Args &a, bool is_max) {
  bool idx = a.const_bool("return_indices");
  std::vector<Value *> rs =
      extremum(e, a, is_max, idx, a.const_bool("return_indices_tie_break_left"));
  if (idx)
    return Val::tuple({Val::of(rs[0]), Val::of(rs[1])});
  return Val::of(rs[0]);
}

Val max_(Emitter &e, const Args &a) { return max_min(e, a, true); }
Val min_(Emitter &e, const Args &a) { return max_min(e, a, false); }
Val argmax(Emitter &e, const Args &a) {
  return Val::of(extremum(e, a, true, true, a.const_bool("tie_break_left"))[1]);
}
Val argmin(Emitter &e, const Args &a) {
  return Val::of(extremum(e, a, false, true, a.const_bool("tie_break_left"))[1]);
}

Val int_reduction(Emitter &e, const Args &a, OpKind k, const char *what) {
  Value *x = numeric_input(a);
  if (!ir::is_int(x->type.elem))
    a.fail(std::string(what) + " only supported for integers, got " + dtype_name(x->type.elem));
  return Val::of(reduction(e, a, {x}, a.const_int_or_none("axis"), binary_combiner(e, k, a.loc()),
                           a.const_bool("keep_dims"))[0]);
}

Val xor_sum(Emitter &e, const Args &a) { return int_reduction(e, a, OpKind::Xor, "xor_sum"); }
Val reduce_or(Emitter &e, const Args &a) { return int_reduction(e, a, OpKind::Or, "reduce_or"); }

Val scan(Emitter &e, const Args &a, Value *x, OpKind k) {
  int ax = wrap_axis(a, a.const_int("axis"), x->type.rank());
  ir::Op *op =
      make_scan(e, {x}, ax, a.const_bool("reverse"), binary_combiner(e, k, a.loc()), a.loc());
  return Val::of(op->result(0));
}

Val cumsum(Emitter &e, const Args &a) {
  Value *x = sum_input(e, a, promote_bf16(e, numeric_input(a), a.loc()));
  return scan(e, a, x, OpKind::Add);
}

Val cumprod(Emitter &e, const Args &a) {
  return scan(e, a, promote_bf16(e, numeric_input(a), a.loc()), OpKind::Mul);
}

// standard.py's flip: view the flipped dim as 2 x 2 x ... x 2 and swap each pair of
// halves with y ^= xor_sum(y, axis) (on the bits of the elements).
Val flip(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  Value *x = numeric_input(a);
  int rank = x->type.rank();
  std::optional<int64_t> d = a.const_int_or_none("dim");
  int dim = wrap_axis(a, d.value_or(rank - 1), rank);
  int64_t n = x->type.shape[static_cast<size_t>(dim)];
  int steps = 0;
  while ((int64_t(1) << steps) < n)
    ++steps;
  DType it = ir::bits(x->type.elem) == 1    ? DType::I1
             : ir::bits(x->type.elem) == 8  ? DType::I8
             : ir::bits(x->type.elem) == 16 ? DType::I16
             : ir::bits(x->type.elem) == 32 ? DType::I32
                                            : DType::I64;
  Value *y = bitcast_elem(e, x, Type(it), loc);
  ir::Shape cube(x->type.shape.begin(), x->type.shape.begin() + dim);
  for (int i = 0; i < steps; ++i)
    cube.push_back(2);
  cube.insert(cube.end(), x->type.shape.begin() + dim + 1, x->type.shape.end());
  y = reshape(e, y, cube, loc);
  for (int i = 0; i < steps; ++i) {
    Value *s = reduction(e, a, {y}, dim + i, binary_combiner(e, OpKind::Xor, loc), true)[0];
    s = broadcast_to(e, s, y->type.shape, loc);
    y = emit(e, OpKind::Xor, {y, s}, y->type, loc);
  }
  y = reshape(e, y, x->type.shape, loc);
  return Val::of(bitcast_elem(e, y, x->type.element(), loc));
}

Val softmax(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  Val x = Val::of(a.tensor("x"));
  Val dim = a["dim"].kind == Val::Kind::None ? Val::integer(0) : a["dim"];
  Val keep = Val::boolean(a.const_bool("keep_dims"));
  Val m = call(e, "max", {x, dim}, loc, {{"keep_dims", keep}});
  Val z = binary_op(e, ast::BinOp::Sub, x, m, loc);
  Val num = call(e, "exp", {z}, loc);
  Val den = call(e, "sum", {num, dim}, loc, {{"keep_dims", keep}});
  return call(e, "fdiv", {num, den}, loc, {{"ieee_rounding", a["ieee_rounding"]}});
}

} // namespace

void add_reduce_builtins(std::vector<Def> &t) {
  const char *mm = "input, axis=None, return_indices=False, return_indices_tie_break_left=True, "
                   "keep_dims=False";
  t.insert(
      t.end(),
      {
          {"reduce", "input, axis, combine_fn, keep_dims=False", reduce, kTl | kMethod},
          {"associative_scan", "input, axis, combine_fn, reverse=False", associative_scan,
           kTl | kMethod},
          {"sum", "input, axis=None, keep_dims=False, dtype=None", sum, kTl | kMethod},
          {"max", mm, max_, kTl | kMethod},
          {"min", mm, min_, kTl | kMethod},
          {"argmax", "input, axis, tie_break_left=True, keep_dims=False", argmax, kTl | kMethod},
          {"argmin", "input, axis, tie_break_left=True, keep_dims=False", argmin, kTl | kMethod},
          {"xor_sum", "input, axis=None, keep_dims=False", xor_sum, kTl | kMethod},
          {"reduce_or", "input, axis, keep_dims=False", reduce_or, kTl | kMethod},
          {"cumsum", "input, axis=0, reverse=False, dtype=None", cumsum, kTl | kMethod},
          {"cumprod", "input, axis=0, reverse=False", cumprod, kTl | kMethod},
          {"softmax", "x, dim=None, keep_dims=False, ieee_rounding=False", softmax, kTl | kMethod},
          {"flip", "input, dim=None", flip, kTl | kMethod},
      });
}

} // namespace tilec::sema::builtins
