// Creation and shape builtins: arange, full, zeros, reshape, permute, expand_dims,
// broadcast, join, split, cat, ravel, cast.
#include <algorithm>
#include <set>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

Val arange(Emitter &e, const Args &a) {
  const Val &s = a["start"], &t = a["end"];
  if (s.kind != Val::Kind::Int || t.kind != Val::Kind::Int)
    a.fail("arange's arguments must be of type tl.constexpr");
  if ((s.i >> 32) != 0 || (t.i >> 32) != 0)
    a.fail("arange must fit in int32");
  if (t.i <= s.i)
    a.fail("arange's end argument must be greater than the start argument");
  int64_t n = t.i - s.i;
  if ((n & (n - 1)) != 0)
    a.fail("arange's range must be a power of 2"); // Triton's words (tests compare them)
  check_block_shape(a, {n});
  return Val::of(emit(e, OpKind::Arange, {}, Type(DType::I32, false, {n}), a.loc(),
                      {{"start", s.i}, {"end", t.i}}));
}

// Triton's full: a Python number becomes a constant of `dtype`; a single-element tensor
// is cast to `dtype` and splatted.
Value *full_value(Emitter &e, const Args &a, const Val &value, const Type &dtype,
                  const ir::Shape &shape) {
  if (dtype.is_ptr())
    a.fail(a.fn() + "(): cannot fill a tensor of pointers");
  if (is_number(value))
    return constant_of(e, value, dtype.with_shape(shape), a.loc());
  if (!value.is_tensor())
    a.fail(a.fn() + "(): the fill value must be a number or a tensor, got " + value.repr());
  Value *v = value.tensor;
  if (v->type.numel() != 1)
    a.fail(a.fn() + "(): the fill value must have one element, got " + tensor_str(v->type));
  v = cast_elem(e, unsplat(e, v, a.loc()), dtype, a.loc());
  return splat_to(e, v, shape, a.loc());
}

Val full(Emitter &e, const Args &a) {
  std::vector<int64_t> shape = int_list(a, a["shape"], "shape");
  check_block_shape(a, shape);
  return Val::of(full_value(e, a, a["value"], a.const_dtype("dtype"), shape));
}

Val zeros(Emitter &e, const Args &a) {
  std::vector<int64_t> shape = int_list(a, a["shape"], "shape");
  check_block_shape(a, shape);
  return Val::of(full_value(e, a, Val::integer(0), a.const_dtype("dtype"), shape));
}

Val zeros_like(Emitter &e, const Args &a) {
  Value *x = a.tensor("input");
  return Val::of(full_value(e, a, Val::integer(0), x->type.element(), x->type.shape));
}

Val broadcast(Emitter &e, const Args &a) {
  auto [x, y] = broadcast_pair(e, a.tensor("input"), a.tensor("other"), a.loc());
  return Val::tuple({Val::of(x), Val::of(y)});
}

Val broadcast_to_(Emitter &e, const Args &a) {
  std::vector<int64_t> shape = shape_from_rest(a, "shape");
  check_block_shape(a, shape);
  Value *x = a.tensor("input");
  // Triton's broadcast_to never adds dimensions (a scalar is splatted).
  if (x->type.is_tile() && x->type.rank() != static_cast<int>(shape.size()))
    a.fail("Cannot broadcast, rank mismatch: " + shape_str(x->type.shape) + ", " +
           shape_str(shape));
  return Val::of(broadcast_to(e, x, shape, a.loc()));
}

Val reshape_impl(Emitter &e, const Args &a) {
  std::vector<int64_t> shape = shape_from_rest(a, "shape");
  check_block_shape(a, shape);
  return Val::of(reshape(e, a.tensor("input"), shape, a.loc()));
}

Val ravel(Emitter &e, const Args &a) {
  Value *x = a.tensor("input");
  return Val::of(reshape(e, x, {x->type.numel()}, a.loc()));
}

Value *permute_impl(Emitter &e, const Args &a, Value *x, std::vector<int64_t> dims) {
  int rank = x->type.rank();
  if (static_cast<int>(dims.size()) != rank)
    a.fail(a.fn() + "(): permute dims must have the same length as input shape (" +
           std::to_string(dims.size()) + " dims for a tensor of shape " + shape_str(x->type.shape) +
           ")");
  std::vector<int64_t> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < rank; ++i)
    if (sorted[i] != i)
      a.fail(a.fn() + "(): permute dims must be a permutation of 0, 1, ..., n-1, but were " +
             shape_str(dims));
  bool identity = true;
  ir::Shape s;
  for (int i = 0; i < rank; ++i) {
    identity = identity && dims[i] == i;
    s.push_back(x->type.shape[static_cast<size_t>(dims[i])]);
  }
  if (identity)
    return x;
  return emit(e, OpKind::Permute, {x}, x->type.with_shape(s), a.loc(), {{"order", dims}});
}

Val permute(Emitter &e, const Args &a) {
  Value *x = a.tensor("input");
  return Val::of(permute_impl(e, a, x, shape_from_rest(a, "dims")));
}

Val trans(Emitter &e, const Args &a) {
  Value *x = a.tensor("input");
  std::vector<int64_t> dims = shape_from_rest(a, "dims");
  if (dims.empty()) { // swap the last two axes (a batched 2-D transpose)
    int n = x->type.rank();
    if (n < 2)
      a.fail("tl.trans invoked with a 0- or 1-dimensional tensor");
    for (int i = 0; i < n - 2; ++i)
      dims.push_back(i);
    dims.push_back(n - 1);
    dims.push_back(n - 2);
  }
  return Val::of(permute_impl(e, a, x, dims));
}

Val expand_dims_(Emitter &e, const Args &a) {
  Value *x = a.tensor("input");
  std::vector<int64_t> axes = int_list(a, a["axis"], "axis");
  int new_rank = x->type.rank() + static_cast<int>(axes.size());
  std::vector<int> norm;
  std::string listed;
  for (int64_t ax : axes) {
    norm.push_back(wrap_axis(a, ax, new_rank));
    listed += (listed.empty() ? "" : ", ") + std::to_string(norm.back());
  }
  std::sort(norm.begin(), norm.end());
  if (std::adjacent_find(norm.begin(), norm.end()) != norm.end())
    a.fail("expand_dims received duplicate axes, normalized axes = [" + listed + "]");
  for (int ax : norm)
    x = expand_dims(e, x, ax, a.loc());
  return Val::of(x);
}

Val join(Emitter &e, const Args &a) {
  auto [x, y] = broadcast_pair(e, a.tensor("a"), a.tensor("b"), a.loc());
  if (x->type != y->type)
    a.fail("join(): both tensors must have the same dtype, got " + elem_name(x->type) + " and " +
           elem_name(y->type));
  ir::Shape s = x->type.shape;
  s.push_back(2);
  check_block_shape(a, s);
  return Val::of(emit(e, OpKind::Join, {x, y}, x->type.with_shape(s), a.loc()));
}

Val split(Emitter &e, const Args &a) {
  Value *x = a.tensor("a");
  if (x->type.is_scalar() || x->type.shape.back() != 2)
    a.fail("split(): the last dimension must have size 2, got a tensor of shape " +
           shape_str(x->type.shape));
  ir::Shape s(x->type.shape.begin(), x->type.shape.end() - 1);
  Type r = x->type.with_shape(s);
  ir::Op *op = e.builder().create(OpKind::Split, {x}, {r, r}, {}, a.loc());
  return Val::tuple({Val::of(op->result(0)), Val::of(op->result(1))});
}

Val cat(Emitter &e, const Args &a) {
  Value *x = a.tensor("input"), *y = a.tensor("other");
  if (x->type.rank() != 1 || y->type != x->type)
    a.fail("cat(): both inputs must be 1-D tensors of one type, got " + tensor_str(x->type) +
           " and " + tensor_str(y->type));
  ir::Shape s = {x->type.shape[0] * 2};
  check_block_shape(a, s);
  return Val::of(emit(e, OpKind::Cat, {x, y}, x->type.with_shape(s), a.loc()));
}

// standard.py's interleave: join on a new minor dim, then merge it into the last one.
Val interleave(Emitter &e, const Args &a) {
  Val c = call(e, "join", {a["a"], a["b"]}, a.loc());
  const ir::Shape &s = c.tensor->type.shape;
  if (s.size() == 1)
    return c;
  ir::Shape merged(s.begin(), s.end() - 2);
  merged.push_back(2 * s[s.size() - 2]);
  return Val::of(reshape(e, c.tensor, merged, a.loc()));
}

Val item(Emitter &e, const Args &a) {
  Value *x = a.tensor("input");
  if (x->type.numel() != 1)
    a.fail("item(): can only convert a single-element tensor to a scalar, got " +
           tensor_str(x->type));
  return Val::of(unsplat(e, x, a.loc()));
}

Val cast(Emitter &e, const Args &a) {
  Value *x = a.tensor("input");
  Type dst = a.const_dtype("dtype");
  if (a.const_bool("bitcast"))
    return Val::of(bitcast_elem(e, x, dst, a.loc()));
  std::optional<std::string> rounding = a.const_str_or_none("fp_downcast_rounding");
  if (rounding) {
    const Type &src = x->type;
    bool truncating = !src.is_ptr() && !dst.is_ptr() && ir::is_float(src.elem) &&
                      ir::is_float(dst.elem) && ir::bits(dst.elem) < ir::bits(src.elem);
    if (!truncating)
      a.fail("fp_downcast_rounding should be set only for truncating fp conversions. Source "
             "scalar type is " +
             elem_name(src) + " and destination type is " + elem_name(dst));
    if (*rounding != "rtne" && *rounding != "rtz")
      a.fail("Invalid rounding mode: " + *rounding +
             ". Supported rounding modes are 'rtne' and 'rtz'.");
    // rtne is the default rounding: only rtz needs saying.
    if (*rounding == "rtne")
      rounding.reset();
  }
  return Val::of(cast_elem(e, x, dst, a.loc(), rounding.value_or("")));
}

} // namespace

void add_shape_builtins(std::vector<Def> &t) {
  t.insert(
      t.end(),
      {
          {"arange", "start, end", arange, kTl},
          {"full", "shape, value, dtype", full, kTl},
          {"zeros", "shape, dtype", zeros, kTl},
          {"zeros_like", "input", zeros_like, kTl},
          {"broadcast", "input, other", broadcast, kTl},
          {"broadcast_to", "input, *shape", broadcast_to_, kTl | kMethod},
          {"reshape", "input, *shape, can_reorder=False", reshape_impl, kTl | kMethod},
          {"view", "input, *shape", reshape_impl, kTl | kMethod},
          {"ravel", "input, can_reorder=False", ravel, kTl | kMethod},
          {"permute", "input, *dims", permute, kTl | kMethod},
          {"trans", "input, *dims", trans, kTl | kMethod},
          {"expand_dims", "input, axis", expand_dims_, kTl | kMethod},
          {"join", "a, b", join, kTl},
          {"split", "a", split, kTl | kMethod},
          {"cat", "input, other, can_reorder=False", cat, kTl},
          {"interleave", "a, b", interleave, kTl},
          {"item", "input", item, kMethod},
          {"cast", "input, dtype, fp_downcast_rounding=None, bitcast=False", cast, kTl | kMethod},
          {"to", "input, dtype, fp_downcast_rounding=None, bitcast=False", cast, kMethod},
      });
}

} // namespace tilec::sema::builtins
