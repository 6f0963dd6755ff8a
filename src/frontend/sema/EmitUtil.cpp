#include "frontend/sema/EmitUtil.h"

#include <cmath>

#include "frontend/sema/Promotion.h"

namespace tilec::sema {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

Value *emit(Emitter &e, OpKind k, const std::vector<Value *> &operands, const Type &result,
            SourceLoc loc, std::vector<ir::NamedAttr> attrs) {
  return e.builder().create(k, operands, {result}, std::move(attrs), loc)->result();
}

bool is_number(const Val &v) {
  return v.kind == Val::Kind::Bool || v.kind == Val::Kind::Int || v.kind == Val::Kind::Float;
}

DType literal_type(const Val &v) {
  switch (v.kind) {
  case Val::Kind::Bool:
    return DType::I1;
  case Val::Kind::Int:
    return v.u64 ? DType::U64 : literal_int_type(v.i);
  case Val::Kind::Float:
    return literal_float_type(v.f);
  default:
    TILEC_ASSERT(false, "literal_type of a non-number");
  }
  return DType::I32;
}

__int128 int_value(const Val &v) {
  if (v.kind == Val::Kind::Bool)
    return v.b ? 1 : 0;
  return v.u64 ? static_cast<__int128>(static_cast<uint64_t>(v.i)) : v.i;
}

bool int_fits(const Val &v, DType d) {
  __int128 x = int_value(v);
  int b = ir::bits(d);
  if (ir::is_unsigned_int(d) || ir::is_bool(d))
    return x >= 0 && x <= (static_cast<__int128>(1) << b) - 1;
  return x >= -(static_cast<__int128>(1) << (b - 1)) &&
         x <= (static_cast<__int128>(1) << (b - 1)) - 1;
}

std::string py_type_name(const Val &v) {
  switch (v.kind) {
  case Val::Kind::None:
    return "NoneType";
  case Val::Kind::Bool:
    return "bool";
  case Val::Kind::Int:
    return "int";
  case Val::Kind::Float:
    return "float";
  case Val::Kind::Str:
    return "str";
  case Val::Kind::DType:
    return "dtype";
  case Val::Kind::Tensor:
    return "tensor";
  case Val::Kind::Tuple:
    return v.named ? v.named->name : "tuple";
  case Val::Kind::TupleClass:
    return "type";
  case Val::Kind::Function:
    return "JITFunction";
  case Val::Kind::Module:
    return "module";
  case Val::Kind::Builtin:
    return "builtin_function";
  case Val::Kind::Method:
    return "method";
  case Val::Kind::Slice:
    return "slice";
  case Val::Kind::BlockPtr:
    return "block pointer";
  case Val::Kind::TensorDesc:
    return "tensor_descriptor";
  case Val::Kind::HostFunction:
    return "ConstexprFunction";
  }
  return "object";
}

Value *make_int(Emitter &e, const Type &t, int64_t v, SourceLoc loc) {
  return e.builder().constant_int(t, v, loc);
}

Value *make_float(Emitter &e, const Type &t, double v, SourceLoc loc) {
  return e.builder().constant_float(t, v, loc);
}

Value *constant_of(Emitter &e, const Val &v, const Type &t, SourceLoc loc) {
  TILEC_ASSERT(is_number(v), "constant_of a non-number");
  TILEC_ASSERT(!t.is_ptr(), "constant_of a pointer type");
  if (ir::is_float(t.elem)) {
    double d = v.kind == Val::Kind::Float ? v.f : static_cast<double>(int_value(v));
    return make_float(e, t, d, loc);
  }
  if (v.kind == Val::Kind::Float && v.f == 0.0) // Triton's full(): zero is the null value
    return make_int(e, t, 0, loc);
  if (v.kind == Val::Kind::Float)
    throw CompileError(loc, "cannot convert float " + v.repr() + " to integer type " +
                                dtype_name(t.elem));
  if (!int_fits(v, t.elem))
    throw CompileError(loc,
                       "Scalar " + v.repr() + " is out of range for type " + dtype_name(t.elem));
  return make_int(e, t, v.kind == Val::Kind::Int ? v.i : (v.b ? 1 : 0), loc); // u64: the bits
}

Value *as_tensor(Emitter &e, const Val &v, SourceLoc loc) {
  if (v.is_tensor())
    return v.tensor;
  if (is_number(v))
    return constant_of(e, v, Type(literal_type(v)), loc);
  throw CompileError(loc,
                     "cannot convert " + v.repr() + " of type " + py_type_name(v) + " to tensor");
}

Value *compare(Emitter &e, const char *pred, Value *a, Value *b, SourceLoc loc) {
  return emit(e, OpKind::Cmp, {a, b}, a->type.with_elem(DType::I1), loc, {{"pred", pred}});
}

Value *truth(Emitter &e, Value *v, SourceLoc loc) {
  const Type &t = v->type;
  if (!t.is_ptr() && t.elem == DType::I1)
    return v;
  if (t.is_ptr())
    v = bitcast_elem(e, v, Type(DType::I64), loc);
  Value *zero =
      ir::is_float(v->type.elem) ? make_float(e, v->type, 0.0, loc) : make_int(e, v->type, 0, loc);
  return compare(e, "ne", v, zero, loc);
}

Value *bitcast_elem(Emitter &e, Value *v, const Type &elem, SourceLoc loc) {
  const Type &src = v->type;
  if (src.element() == elem)
    return v;
  int sb = src.is_ptr() ? 64 : ir::bits(src.elem);
  int db = elem.is_ptr() ? 64 : ir::bits(elem.elem);
  if (sb != db)
    throw CompileError(loc, "Cannot bitcast data-type of size " + std::to_string(sb) +
                                " to data-type of size " + std::to_string(db));
  Type r = elem.with_shape(src.shape);
  return emit(e, OpKind::Bitcast, {v}, r, loc);
}

Value *cast_elem(Emitter &e, Value *v, const Type &elem, SourceLoc loc,
                 const std::string &rounding) {
  const Type &src = v->type;
  if (src.element() == elem)
    return v;
  Type r = elem.with_shape(src.shape);
  if (src.is_ptr() || elem.is_ptr()) {
    // Pointers convert to and from 64-bit integers by reinterpretation.
    if (src.is_ptr() && elem.is_ptr())
      return emit(e, OpKind::Bitcast, {v}, r, loc);
    if (src.is_ptr() && !ir::is_float(elem.elem)) {
      Value *i = emit(e, OpKind::Bitcast, {v}, src.with_elem(DType::I64), loc);
      if (elem.elem == DType::I1)
        return truth(e, i, loc);
      if (ir::bits(elem.elem) == 64)
        return elem.elem == DType::I64 ? i : emit(e, OpKind::Bitcast, {i}, r, loc);
    } else if (elem.is_ptr() && !ir::is_float(src.elem)) {
      Value *i = cast_elem(e, v, Type(DType::I64), loc);
      return emit(e, OpKind::Bitcast, {i}, r, loc);
    }
    throw CompileError(loc, "cannot cast " + tensor_str(src) + " to " + elem_name(elem));
  }
  std::vector<ir::NamedAttr> attrs;
  if (!rounding.empty())
    attrs.push_back({"rounding", rounding});
  return emit(e, OpKind::Cast, {v}, r, loc, std::move(attrs));
}

Value *cast_dtype(Emitter &e, Value *v, DType d, SourceLoc loc) {
  return cast_elem(e, v, Type(d), loc);
}

Value *splat_to(Emitter &e, Value *scalar, const ir::Shape &shape, SourceLoc loc) {
  TILEC_ASSERT(scalar->type.is_scalar(), "splat of a tile");
  if (shape.empty())
    return scalar;
  return emit(e, OpKind::Splat, {scalar}, scalar->type.with_shape(shape), loc);
}

Value *expand_dims(Emitter &e, Value *v, int axis, SourceLoc loc) {
  ir::Shape s = v->type.shape;
  TILEC_ASSERT(axis >= 0 && axis <= static_cast<int>(s.size()), "expand_dims axis out of range");
  s.insert(s.begin() + axis, 1);
  return emit(e, OpKind::ExpandDims, {v}, v->type.with_shape(s), loc,
              {{"axis", static_cast<int64_t>(axis)}});
}

Value *unsplat(Emitter &e, Value *v, SourceLoc loc) {
  if (v->type.is_scalar())
    return v;
  TILEC_ASSERT(v->type.numel() == 1, "unsplat of a tile with more than one element");
  if (v->type.rank() > 1)
    v = emit(e, OpKind::Reshape, {v}, v->type.with_shape({1}), loc);
  // There is no op that extracts an element: reduce with a combiner that keeps its first input.
  ir::Op *r = make_reduce(
      e, {v}, 0, [](const std::vector<Value *> &args) { return std::vector<Value *>{args[0]}; },
      loc);
  return r->result(0);
}

Value *reshape(Emitter &e, Value *v, const ir::Shape &shape, SourceLoc loc) {
  const Type &t = v->type;
  if (t.shape == shape)
    return v;
  ir::Shape target = shape;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  if (n != t.numel())
    throw CompileError(loc, "reshape() cannot change total number of elements in tensor (" +
                                shape_str(t.shape) + " to " + shape_str(shape) + ")");
  if (shape.empty())
    return unsplat(e, v, loc);
  if (t.is_scalar())
    return splat_to(e, v, shape, loc);
  return emit(e, OpKind::Reshape, {v}, t.with_shape(shape), loc);
}

ir::Shape broadcast_shape(const ir::Shape &a, const ir::Shape &b, SourceLoc loc) {
  size_t n = std::max(a.size(), b.size());
  ir::Shape r(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i + a.size() >= n ? a[i + a.size() - n] : 1;
    int64_t y = i + b.size() >= n ? b[i + b.size() - n] : 1;
    if (x != y && x != 1 && y != 1)
      throw CompileError(loc, "incompatible shapes for broadcasting: " + shape_str(a) + " and " +
                                  shape_str(b));
    r[i] = x == 1 ? y : x;
  }
  return r;
}

Value *broadcast_to(Emitter &e, Value *v, const ir::Shape &shape, SourceLoc loc) {
  const ir::Shape &s = v->type.shape;
  if (s == shape)
    return v;
  if (broadcast_shape(s, shape, loc) != shape)
    throw CompileError(loc, "cannot broadcast shape " + shape_str(s) + " to " + shape_str(shape));
  if (v->type.is_scalar())
    return splat_to(e, v, shape, loc);
  while (v->type.rank() < static_cast<int>(shape.size()))
    v = expand_dims(e, v, 0, loc);
  if (v->type.shape == shape)
    return v;
  return emit(e, OpKind::Broadcast, {v}, v->type.with_shape(shape), loc);
}

std::pair<Value *, Value *> broadcast_pair(Emitter &e, Value *a, Value *b, SourceLoc loc) {
  ir::Shape s = broadcast_shape(a->type.shape, b->type.shape, loc);
  return {broadcast_to(e, a, s, loc), broadcast_to(e, b, s, loc)};
}

namespace {

ir::Op *make_combiner_op(Emitter &e, OpKind kind, const std::vector<Value *> &inputs,
                         std::vector<Type> results, std::vector<ir::NamedAttr> attrs,
                         const CombineFn &combine, SourceLoc loc) {
  ir::Op *op = e.builder().create(kind, inputs, results, std::move(attrs), loc, 1);
  ir::Block *b = op->region(0)->block();
  std::vector<Value *> args;
  for (int pass = 0; pass < 2; ++pass)
    for (Value *in : inputs)
      args.push_back(b->add_arg(in->type.element()));
  try {
    InsertionGuard guard(e.builder());
    e.builder().set_insertion_point_to_end(b);
    std::vector<Value *> ys = combine(args);
    TILEC_ASSERT(ys.size() == inputs.size(), "combiner yields the wrong number of values");
    e.builder().create(OpKind::Yield, ys, {}, {}, loc);
  } catch (...) {
    op->erase(); // leave no half-built region behind
    throw;
  }
  return op;
}
} // namespace

ir::Op *make_reduce(Emitter &e, const std::vector<Value *> &inputs, int axis,
                    const CombineFn &combine, SourceLoc loc) {
  std::vector<Type> results;
  for (Value *in : inputs) {
    ir::Shape s = in->type.shape;
    s.erase(s.begin() + axis);
    results.push_back(in->type.with_shape(s));
  }
  return make_combiner_op(e, OpKind::Reduce, inputs, results,
                          {{"axis", static_cast<int64_t>(axis)}}, combine, loc);
}

ir::Op *make_scan(Emitter &e, const std::vector<Value *> &inputs, int axis, bool reverse,
                  const CombineFn &combine, SourceLoc loc) {
  std::vector<Type> results;
  for (Value *in : inputs)
    results.push_back(in->type);
  return make_combiner_op(
      e, OpKind::Scan, inputs, results,
      {{"axis", static_cast<int64_t>(axis)}, {"reverse", static_cast<int64_t>(reverse)}}, combine,
      loc);
}

} // namespace tilec::sema
