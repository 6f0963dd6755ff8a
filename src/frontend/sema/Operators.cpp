// Python operators on tensors with Triton's semantics (triton/language/semantic.py:
// binary_op_type_checking_impl and the arithmetic, bitwise and comparison ops).
#include "frontend/sema/Operators.h"

#include <algorithm>
#include <tuple>

#include "frontend/sema/ConstFold.h"
#include "frontend/sema/EmitUtil.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema {

using ast::BinOp;
using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

std::string operand_name(const Val &v) {
  if (v.is_tensor())
    return elem_name(v.tensor->type);
  return dtype_name(literal_type(v));
}

[[noreturn]] void invalid_operands(const Type &a, const Type &b, SourceLoc loc) {
  throw CompileError(loc, "invalid operands of type " + elem_name(a) + " and " + elem_name(b));
}

// check_ptr_type_impl: may `a` (a pointer) meet `b` here?
void check_ptr(const Type &a, const Type &b, bool allow_ptr_a, SourceLoc loc) {
  if (!a.is_ptr())
    return;
  if (!allow_ptr_a)
    invalid_operands(a, b, loc);
  if (b.is_ptr() && a.element() != b.element())
    invalid_operands(a, b, loc);
  if (!b.is_ptr() && ir::is_float(b.elem))
    invalid_operands(a, b, loc);
}

} // namespace

// binary_op_type_checking_impl: literal typing of Python numbers, the promotion to one
// computation dtype (with the scalar rule), range checks of the numbers, broadcasting.
std::pair<Value *, Value *> binary_operands(Emitter &e, const Val &a, const Val &b,
                                            bool allow_a_ptr, bool allow_b_ptr, bool arithmetic,
                                            bool div_or_mod, SourceLoc loc) {
  bool a_num = is_number(a), b_num = is_number(b);
  if ((!a_num && !a.is_tensor()) || (!b_num && !b.is_tensor()))
    throw CompileError(loc, "unsupported operand types: '" + py_type_name(a) + "' and '" +
                                py_type_name(b) + "'");
  Type at = a_num ? Type(literal_type(a)) : a.tensor->type.element();
  Type bt = b_num ? Type(literal_type(b)) : b.tensor->type.element();
  check_ptr(at, bt, allow_a_ptr, loc);
  check_ptr(bt, at, allow_b_ptr, loc);
  Value *x = nullptr, *y = nullptr;
  if (arithmetic && !at.is_ptr() && !bt.is_ptr()) {
    DType r = computation_type(at.elem, a_num, bt.elem, b_num, div_or_mod, loc);
    for (const Val *n : {&a, &b}) {
      if (!is_number(*n) || !ir::is_int(r))
        continue;
      if (n->kind == Val::Kind::Float)
        continue;
      if (int_value(*n) < 0 && ir::is_unsigned_int(r))
        throw CompileError(loc, "Cannot perform a binary operation between an unsigned tensor "
                                "and a negative scalar. Perform a explicit cast on one of them.");
      if (!int_fits(*n, r))
        throw CompileError(loc,
                           "Scalar " + n->repr() + " is out of range for type " + dtype_name(r));
    }
    x = a_num ? constant_of(e, a, Type(r), loc) : cast_dtype(e, a.tensor, r, loc);
    y = b_num ? constant_of(e, b, Type(r), loc) : cast_dtype(e, b.tensor, r, loc);
  } else {
    x = as_tensor(e, a, loc);
    y = as_tensor(e, b, loc);
  }
  return broadcast_pair(e, x, y, loc);
}

namespace {

Value *same_op(Emitter &e, OpKind k, Value *x, Value *y, SourceLoc loc,
               std::vector<ir::NamedAttr> attrs = {}) {
  return emit(e, k, {x, y}, x->type, loc, std::move(attrs));
}

Value *add_ptr(Emitter &e, Value *ptr, Value *off, SourceLoc loc) {
  // addptr treats offsets as signed: zero-extend narrower unsigned ones first.
  if ((ir::is_unsigned_int(off->type.elem) || ir::is_bool(off->type.elem)) &&
      ir::bits(off->type.elem) < 64)
    off = cast_dtype(e, off, DType::I64, loc);
  return emit(e, OpKind::AddPtr, {ptr, off}, ptr->type, loc);
}

Value *tensor_add(Emitter &e, const Val &a, const Val &b, SourceLoc loc) {
  auto [x, y] = binary_operands(e, a, b, true, true, true, false, loc);
  if (x->type.is_ptr() && y->type.is_ptr())
    throw CompileError(loc, "cannot add pointers together");
  if (y->type.is_ptr())
    std::swap(x, y);
  if (x->type.is_ptr())
    return add_ptr(e, x, y, loc);
  return same_op(e, OpKind::Add, x, y, loc);
}

Value *tensor_sub(Emitter &e, const Val &a, const Val &b, SourceLoc loc) {
  auto [x, y] = binary_operands(e, a, b, true, false, true, false, loc);
  if (x->type.is_ptr())
    return add_ptr(e, x, emit(e, OpKind::Neg, {y}, y->type, loc), loc);
  return same_op(e, OpKind::Sub, x, y, loc);
}

Value *tensor_truediv(Emitter &e, const Val &a, const Val &b, SourceLoc loc) {
  auto [x, y] = binary_operands(e, a, b, false, false, true, true, loc);
  if (ir::is_int(x->type.elem)) {
    x = cast_dtype(e, x, DType::F32, loc);
    y = cast_dtype(e, y, DType::F32, loc);
  }
  return same_op(e, OpKind::Div, x, y, loc);
}

Value *tensor_floordiv(Emitter &e, const Val &a, const Val &b, SourceLoc loc) {
  auto [x, y] = binary_operands(e, a, b, false, false, true, true, loc);
  if (!ir::is_int(x->type.elem))
    throw CompileError(loc, "unexpected type " + dtype_name(x->type.elem) +
                                ": floor division (//) needs integer operands");
  return same_op(e, OpKind::Div, x, y, loc);
}

Value *tensor_bitwise(Emitter &e, BinOp op, const Val &a, const Val &b, SourceLoc loc) {
  auto [x, y] = binary_operands(e, a, b, false, false, true, false, loc);
  if (ir::is_float(x->type.elem))
    throw CompileError(loc, "invalid operands of type " + operand_name(a) + " and " +
                                operand_name(b) + " for " + ast::binop_symbol(op) +
                                " (bitwise operations take integers)");
  OpKind k = op == BinOp::BitAnd   ? OpKind::And
             : op == BinOp::BitOr  ? OpKind::Or
             : op == BinOp::BitXor ? OpKind::Xor
             : op == BinOp::LShift ? OpKind::Shl
                                   : OpKind::Shr;
  // Triton picks the arithmetic or the logical right shift by the signedness of the
  // tensor operand before promotion (the left one, or the right one under a constant:
  // `3 >> t`), then shifts the promoted values: int8 >> uint8 is an arithmetic shift of
  // uint8s. Shr follows its type's signedness, so shift in the twin type.
  const Val &self = a.is_tensor() ? a : b;
  bool want_signed = ir::is_signed_int(self.tensor->type.elem);
  DType t = x->type.elem;
  if (k == OpKind::Shr && !ir::is_bool(t) && ir::is_signed_int(t) != want_signed) {
    std::optional<DType> twin =
        ir::dtype_from_ir_name(std::string(want_signed ? "i" : "u") + std::to_string(ir::bits(t)));
    TILEC_ASSERT(twin, "no integer twin of " + std::string(ir::ir_name(t)));
    Value *xs = bitcast_elem(e, x, ir::Type(*twin), loc);
    Value *ys = bitcast_elem(e, y, ir::Type(*twin), loc);
    return bitcast_elem(e, same_op(e, k, xs, ys, loc), ir::Type(t), loc);
  }
  return same_op(e, k, x, y, loc);
}

} // namespace

Val binary_op(Emitter &e, BinOp op, const Val &a, const Val &b, SourceLoc loc) {
  if (!a.is_tensor() && !b.is_tensor())
    return fold_binary(op, a, b, loc);
  switch (op) {
  case BinOp::Add:
    return Val::of(tensor_add(e, a, b, loc));
  case BinOp::Sub:
    return Val::of(tensor_sub(e, a, b, loc));
  case BinOp::Mul: {
    auto [x, y] = binary_operands(e, a, b, false, false, true, false, loc);
    return Val::of(same_op(e, OpKind::Mul, x, y, loc));
  }
  case BinOp::Div:
    return Val::of(tensor_truediv(e, a, b, loc));
  case BinOp::FloorDiv:
    return Val::of(tensor_floordiv(e, a, b, loc));
  case BinOp::Mod: {
    auto [x, y] = binary_operands(e, a, b, false, false, true, true, loc);
    return Val::of(same_op(e, OpKind::Rem, x, y, loc));
  }
  case BinOp::BitAnd:
  case BinOp::BitOr:
  case BinOp::BitXor:
  case BinOp::LShift:
  case BinOp::RShift:
    return Val::of(tensor_bitwise(e, op, a, b, loc));
  case BinOp::Pow:
    throw CompileError(loc, "operator ** is not supported on tensors");
  case BinOp::MatMul:
    throw CompileError(loc, "operator @ is not supported on tensors; use tl.dot");
  }
  return Val();
}

Val unary_op(Emitter &e, ast::UnaryOp op, const Val &a, SourceLoc loc) {
  if (!a.is_tensor())
    return fold_unary(op, a, loc);
  Value *x = a.tensor;
  const Type &t = x->type;
  switch (op) {
  case ast::UnaryOp::Pos:
    return a;
  case ast::UnaryOp::Neg:
    if (t.is_ptr())
      throw CompileError(loc, "wrong type argument to unary minus (" + elem_name(t) + ")");
    return Val::of(emit(e, OpKind::Neg, {x}, t, loc));
  case ast::UnaryOp::Invert:
    if (t.is_ptr() || ir::is_float(t.elem))
      throw CompileError(loc, "wrong type argument to unary invert (" + elem_name(t) + ")");
    return Val::of(emit(e, OpKind::Not, {x}, t, loc));
  case ast::UnaryOp::Not:
    if (t.is_ptr())
      throw CompileError(loc, "wrong type argument to `not` (" + elem_name(t) + ")");
    if (t.elem == DType::I1)
      return Val::of(emit(e, OpKind::Not, {x}, t, loc));
    return Val::of(
        compare(e, "eq", x,
                ir::is_float(t.elem) ? make_float(e, t, 0.0, loc) : make_int(e, t, 0, loc), loc));
  }
  return a;
}

Val compare_op(Emitter &e, ast::CmpOp op, const Val &a, const Val &b, SourceLoc loc) {
  if (op == ast::CmpOp::Is || op == ast::CmpOp::IsNot || (!a.is_tensor() && !b.is_tensor()))
    return fold_compare(op, a, b, loc);
  if (op == ast::CmpOp::In || op == ast::CmpOp::NotIn)
    throw CompileError(loc, std::string("operator '") + ast::cmpop_symbol(op) +
                                "' is not supported on tensors");
  // Triton converts both sides to tensors first: no scalar rule for comparisons.
  Val x = Val::of(as_tensor(e, a, loc)), y = Val::of(as_tensor(e, b, loc));
  auto [l, r] = binary_operands(e, x, y, false, false, true, false, loc);
  const char *pred = op == ast::CmpOp::Eq      ? "eq"
                     : op == ast::CmpOp::NotEq ? "ne"
                     : op == ast::CmpOp::Lt    ? "lt"
                     : op == ast::CmpOp::LtE   ? "le"
                     : op == ast::CmpOp::Gt    ? "gt"
                                               : "ge";
  return Val::of(compare(e, pred, l, r, loc));
}

Val logical_op(Emitter &e, bool is_and, const Val &a, const Val &b, SourceLoc loc) {
  // A constexpr operand either decides the result (Python's short circuit, returning
  // that operand) or has no effect on it.
  if (!a.is_tensor()) {
    if (truthy(a) != is_and)
      return a;
    return b;
  }
  if (!b.is_tensor()) {
    if (truthy(b) != is_and)
      return b;
    return a;
  }
  Value *x = truth(e, a.tensor, loc), *y = truth(e, b.tensor, loc);
  std::tie(x, y) = broadcast_pair(e, x, y, loc);
  return Val::of(emit(e, is_and ? OpKind::And : OpKind::Or, {x, y}, x->type, loc));
}

namespace {

bool is_full_slice(const Val &v) {
  if (v.kind != Val::Kind::Slice)
    return false;
  for (const Val &x : v.elems)
    if (x.kind != Val::Kind::None)
      return false;
  return true;
}

int64_t index_int(const Val &v, const char *what, SourceLoc loc) {
  if (v.kind == Val::Kind::Int)
    return v.i;
  if (v.kind == Val::Kind::Bool)
    return v.b;
  throw CompileError(loc, std::string(what) + " must be constexpr integers, not " +
                              (v.is_tensor() ? tensor_str(v.tensor->type) : py_type_name(v)));
}

Val slice_tuple(const Val &base, const Val &sl, SourceLoc loc) {
  int64_t n = static_cast<int64_t>(base.elems.size());
  auto part = [&](size_t i) -> const Val * {
    return i < sl.elems.size() && sl.elems[i].kind != Val::Kind::None ? &sl.elems[i] : nullptr;
  };
  int64_t step = part(2) ? index_int(*part(2), "slice indices", loc) : 1;
  if (step == 0)
    throw CompileError(loc, "slice step cannot be zero");
  auto clamp = [&](const Val *p, int64_t def) {
    if (!p)
      return def;
    int64_t v = index_int(*p, "slice indices", loc);
    if (v < 0)
      v += n;
    if (step > 0)
      return std::clamp<int64_t>(v, 0, n);
    return std::clamp<int64_t>(v, -1, n - 1);
  };
  int64_t lo = clamp(part(0), step > 0 ? 0 : n - 1);
  int64_t hi = clamp(part(1), step > 0 ? n : -1);
  std::vector<Val> out;
  for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step)
    out.push_back(base.elems[static_cast<size_t>(i)]);
  return Val::tuple(std::move(out));
}

} // namespace

Val subscript(Emitter &e, const Val &base, const Val &index, SourceLoc loc) {
  if (base.kind == Val::Kind::Tuple) {
    if (index.kind == Val::Kind::Slice)
      return slice_tuple(base, index, loc);
    int64_t i = index_int(index, "tuple indices", loc);
    int64_t n = static_cast<int64_t>(base.elems.size());
    if (i < -n || i >= n)
      throw CompileError(loc, "tuple index " + std::to_string(i) + " out of range (size " +
                                  std::to_string(n) + ")");
    return base.elems[static_cast<size_t>(i < 0 ? i + n : i)];
  }
  if (!base.is_tensor())
    throw CompileError(loc, "'" + py_type_name(base) + "' object is not subscriptable");
  // Triton's rule: the i-th index is None (a new axis at position i of the result so
  // far) or ':' (skipped, whatever the rank: scalar[None, None, :] has shape [1, 1]).
  std::vector<Val> idx = index.kind == Val::Kind::Tuple ? index.elems : std::vector<Val>{index};
  Value *r = base.tensor;
  for (size_t dim = 0; dim < idx.size(); ++dim) {
    const Val &sl = idx[dim];
    if (sl.kind == Val::Kind::None) {
      if (static_cast<int>(dim) > r->type.rank())
        throw CompileError(loc, "too many indices: None at position " + std::to_string(dim) +
                                    " of a tensor of rank " + std::to_string(r->type.rank()) +
                                    " (a new axis goes at most after the last one)");
      r = expand_dims(e, r, static_cast<int>(dim), loc);
    } else if (!is_full_slice(sl)) {
      throw CompileError(loc, "unsupported tensor index: " + sl.repr() +
                                  " (only None and ':' are supported)");
    }
  }
  return Val::of(r);
}

ir::Value *to_tensor(Emitter &e, const Val &v, SourceLoc loc) { return as_tensor(e, v, loc); }

ir::Value *to_condition(Emitter &e, const Val &v, SourceLoc loc) {
  if (!v.is_tensor()) {
    if (!v.is_constexpr())
      throw CompileError(loc, "cannot use a " + py_type_name(v) + " as a condition");
    return make_int(e, Type(DType::I1), truthy(v) ? 1 : 0, loc);
  }
  Value *x = v.tensor;
  if (x->type.is_tile()) {
    if (x->type.numel() != 1)
      throw CompileError(loc, "a condition must be a scalar, got a tensor of type " +
                                  tensor_str(x->type));
    x = unsplat(e, x, loc);
  }
  return truth(e, x, loc);
}

ir::Value *cast_to(Emitter &e, const Val &v, const ir::Type &t, SourceLoc loc) {
  if (v.is_tensor())
    return v.tensor->type == t ? v.tensor : nullptr;
  if (!is_number(v) || t.is_ptr())
    return nullptr;
  if (!ir::is_float(t.elem)) {
    if (v.kind == Val::Kind::Float)
      return nullptr;
    if (!int_fits(v, t.elem))
      return nullptr;
  }
  return constant_of(e, v, t, loc);
}

} // namespace tilec::sema
