// Block pointers: tl.make_block_ptr and tl.advance, and what tl.load / tl.store make of
// one. A block pointer is a compile-time block shape and order over run-time parts (base,
// shape, strides, offsets); a load or store through it becomes an ordinary one over a
// tile of element pointers, base + sum((offset_d + arange(block_d)) * stride_d), masked
// to [0, shape_d) in the dims of `boundary_check` (Triton's RewriteTensorPointer does
// the same for targets without TMA). Addresses are computed in 64 bits, as Triton's are.
#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::Type;
using ir::Value;

namespace {

std::vector<Val> items_of(const Args &a, std::string_view name) {
  const Val &v = a[name];
  return v.kind == Val::Kind::Tuple ? v.elems : std::vector<Val>{v};
}

// Whether an (int32) offset is known to be >= 0: a constant, or built from program ids,
// aranges, constants and induction variables of loops from a lower bound >= 0 by a step
// >= 0, by + * // % max and value-preserving casts (a wrap-around of an offset is a wrong
// address anyway).
bool known_nonneg(const Value *v, int depth = 0) {
  const ir::Op *op = v->def;
  if (depth > 8)
    return false;
  if (!op) { // a block argument: the induction variable of a `for` (lb, ub, step, ...)?
    const ir::Region *r = v->index == 0 && v->owner ? v->owner->parent() : nullptr;
    const ir::Op *loop = r ? r->parent() : nullptr;
    return loop && loop->kind() == ir::OpKind::For && loop->num_operands() >= 3 &&
           known_nonneg(loop->operand(0), depth + 1) && known_nonneg(loop->operand(2), depth + 1);
  }
  auto nn = [&](size_t i) { return known_nonneg(op->operand(i), depth + 1); };
  switch (op->kind()) {
  case ir::OpKind::Constant: {
    const ir::AttrValue *c = op->attr("value");
    return c && std::holds_alternative<int64_t>(*c) && std::get<int64_t>(*c) >= 0;
  }
  case ir::OpKind::ProgramId:
  case ir::OpKind::NumPrograms:
    return true;
  case ir::OpKind::Arange:
    return op->int_attr("start") >= 0;
  case ir::OpKind::Add:
  case ir::OpKind::Mul:
  case ir::OpKind::Div:
  case ir::OpKind::Rem:
  case ir::OpKind::Min:
    return nn(0) && nn(1);
  case ir::OpKind::Max:
    return nn(0) || nn(1);
  case ir::OpKind::Splat:
  case ir::OpKind::Broadcast:
  case ir::OpKind::ExpandDims:
    return nn(0);
  case ir::OpKind::Cast: { // widening, or between signed types of one width
    const Type &from = op->operand(0)->type;
    DType to = v->type.elem;
    if (from.is_ptr() || ir::is_float(from.elem) || ir::is_float(to))
      return false;
    if (ir::bits(from.elem) < ir::bits(to))
      return ir::is_unsigned_int(from.elem) || nn(0);
    return ir::bits(from.elem) == ir::bits(to) && !ir::is_unsigned_int(from.elem) &&
           !ir::is_unsigned_int(to) && nn(0);
  }
  default:
    return false;
  }
}

// A shape held in 32 bits keeps its bounds checks in 32 bits: signed ints up to 32 bits,
// unsigned below 32.
bool fits_i32(const Value *v) {
  DType d = v->type.elem;
  return ir::bits(d) < 32 || (ir::bits(d) == 32 && !ir::is_unsigned_int(d));
}

// One shape / stride / offset entry as an integer scalar, as given.
Value *int_scalar(Emitter &e, const Args &a, const Val &v, std::string_view what) {
  if (!v.is_tensor() && v.kind != Val::Kind::Int && v.kind != Val::Kind::Bool)
    a.fail(a.fn() + "(): " + std::string(what) + " must hold integers, got " + describe(v));
  Value *t = to_tensor(e, v, a.loc());
  if (t->type.is_tile() || t->type.is_ptr() || ir::is_float(t->type.elem))
    a.fail(a.fn() + "(): " + std::string(what) + " must hold integer scalars, got " +
           describe(Val::of(t)));
  return t;
}

// The same as type `d`; offsets (d = i32) must not be 64-bit, as in Triton.
Value *index_scalar(Emitter &e, const Args &a, const Val &v, std::string_view what, DType d) {
  Value *t = int_scalar(e, a, v, what);
  if (d == DType::I32 && ir::bits(t->type.elem) == 64)
    a.fail(a.fn() + "(): block pointers only support 32-bit `" + std::string(what) +
           "`: add a `.to(tl.int32)` or use a tensor of pointers for 64-bit offsets");
  return cast_dtype(e, t, d, a.loc());
}

const Val &block_ptr_arg(const Args &a, std::string_view name) {
  const Val &v = a[name];
  if (v.kind != Val::Kind::BlockPtr)
    a.fail(a.fn() + "(): expected a block pointer (tl.make_block_ptr), got " + describe(v));
  return v;
}

// A 1-D value along dim i of a rank-`rank` block (all other dims 1; expand_dims keeps the
// axis info that vectorises the access).
Value *along(Emitter &e, Value *v, size_t i, size_t rank, SourceLoc loc) {
  for (size_t j = 0; j < rank; ++j)
    if (j != i)
      v = expand_dims(e, v, static_cast<int>(j), loc);
  return v;
}

Value *arange_of(Emitter &e, int64_t n, SourceLoc loc) {
  return call(e, "arange", {Val::integer(0), Val::integer(n)}, loc).tensor;
}

// sum(x_d * stride_d) over the dims, x_d an i32 scalar (nullptr: 0) -- an i64 scalar, or
// an empty Val when every x_d is 0.
Val moved_by(Emitter &e, const std::vector<Value *> &x, const Val *strides, SourceLoc loc) {
  Val sum;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!x[i])
      continue;
    Val term = binary_op(e, ast::BinOp::Mul, Val::of(cast_dtype(e, x[i], DType::I64, loc)),
                         strides[i], loc);
    sum = sum.is_tensor() ? binary_op(e, ast::BinOp::Add, sum, term, loc) : term;
  }
  return sum;
}

// The block's element pointers: base + sum(arange_d * stride_d), a tile fixed for the
// block pointer's life, then moved by sum(offset_d * stride_d). tl.advance moves the tile
// by a scalar, so a loop carries it and adds one scaled scalar to each pointer, as a
// tensor-of-pointers loop does (recomputing base + pattern + shift would scale every
// 64-bit offset on every iteration).
Value *element_pointers(Emitter &e, const BlockPtrInfo &info, const std::vector<Val> &parts,
                        SourceLoc loc) {
  size_t rank = info.rank();
  Val pattern;
  for (size_t i = 0; i < rank; ++i) {
    Value *ar = along(e, cast_dtype(e, arange_of(e, info.block_shape[i], loc), DType::I64, loc), i,
                      rank, loc);
    Val term = binary_op(e, ast::BinOp::Mul, Val::of(ar), parts[info.stride_at(i)], loc);
    pattern = pattern.is_tensor() ? binary_op(e, ast::BinOp::Add, pattern, term, loc) : term;
  }
  ir::Shape full(info.block_shape.begin(), info.block_shape.end());
  Val tile = Val::of(broadcast_to(
      e, binary_op(e, ast::BinOp::Add, parts[info.base_at()], pattern, loc).tensor, full, loc));
  std::vector<Value *> offsets;
  for (size_t i = 0; i < rank; ++i)
    offsets.push_back(parts[info.offset_at(i)].tensor);
  Val shift = moved_by(e, offsets, &parts[info.stride_at(0)], loc);
  return shift.is_tensor() ? binary_op(e, ast::BinOp::Add, tile, shift, loc).tensor : tile.tensor;
}

Val make_block_ptr(Emitter &e, const Args &a) {
  const Val &bv = a["base"];
  if (!bv.is_tensor() || !bv.tensor->type.is_ptr() || bv.tensor->type.is_tile())
    a.fail("make_block_ptr(): expected `base` to be a scalar pointer, got " + describe(bv));
  BlockPtrInfo info;
  info.block_shape = int_list(a, a["block_shape"], "block_shape");
  info.order = int_list(a, a["order"], "order");
  check_block_shape(a, info.block_shape);
  size_t rank = info.rank();
  std::vector<Val> shape = items_of(a, "shape"), strides = items_of(a, "strides"),
                   offsets = items_of(a, "offsets");
  if (rank == 0 || shape.size() != rank || strides.size() != rank || offsets.size() != rank ||
      info.order.size() != rank)
    a.fail("make_block_ptr(): expected shape (" + std::to_string(shape.size()) + "), strides (" +
           std::to_string(strides.size()) + "), offsets (" + std::to_string(offsets.size()) +
           "), block_shape (" + std::to_string(rank) + ") and order (" +
           std::to_string(info.order.size()) + ") to have the same length, at least 1");
  std::vector<bool> seen(rank, false);
  for (int64_t o : info.order) {
    if (o < 0 || o >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(o)])
      a.fail("make_block_ptr(): expected `order` to be a permutation of (0, ..., " +
             std::to_string(rank - 1) + ")");
    seen[static_cast<size_t>(o)] = true;
  }
  std::vector<Val> parts = {bv};
  for (const Val &v : shape) { // int32 when it fits (see BlockPtrInfo::shape_i32)
    Value *t = int_scalar(e, a, v, "shape");
    parts.push_back(Val::of(cast_dtype(e, t, fits_i32(t) ? DType::I32 : DType::I64, a.loc())));
  }
  for (const Val &v : strides)
    parts.push_back(Val::of(index_scalar(e, a, v, "strides", DType::I64)));
  for (const Val &v : offsets)
    parts.push_back(Val::of(index_scalar(e, a, v, "offsets", DType::I32)));
  return block_ptr_of(e, std::move(parts), std::move(info), a.loc());
}

Val advance(Emitter &e, const Args &a) {
  Val bp = block_ptr_arg(a, "base");
  size_t rank = bp.block->rank();
  std::vector<Val> deltas = items_of(a, "offsets");
  if (deltas.size() != rank)
    a.fail("advance(): expected " + std::to_string(rank) +
           " offsets (the block pointer's rank), "
           "got " +
           std::to_string(deltas.size()));
  BlockPtrInfo info = *bp.block;
  std::vector<Value *> moves(rank, nullptr);
  for (size_t i = 0; i < rank; ++i) {
    if (deltas[i].kind == Val::Kind::Int && deltas[i].i == 0)
      continue;
    Value *d = moves[i] = index_scalar(e, a, deltas[i], "offsets", DType::I32);
    Val &off = bp.elems[info.offset_at(i)];
    off = Val::of(emit(e, ir::OpKind::Add, {off.tensor, d}, off.tensor->type, a.loc()));
    info.offset_nonneg[i] = info.offset_nonneg[i] && known_nonneg(d);
  }
  Val shift = moved_by(e, moves, &bp.elems[info.stride_at(0)], a.loc());
  Val &tile = bp.elems[info.tile_at()];
  if (shift.is_tensor())
    tile = binary_op(e, ast::BinOp::Add, tile, shift, a.loc());
  if (!(info == *bp.block))
    bp.block = std::make_shared<const BlockPtrInfo>(std::move(info));
  return bp;
}

} // namespace

bool is_block_ptr(const Val &v) { return v.kind == Val::Kind::BlockPtr; }

Val block_ptr_of(Emitter &e, std::vector<Val> parts, BlockPtrInfo info, SourceLoc loc) {
  info.shape_i32.clear();
  info.offset_nonneg.clear();
  for (size_t i = 0; i < info.rank(); ++i) {
    info.shape_i32.push_back(parts[info.shape_at(i)].tensor->type.elem == DType::I32);
    info.offset_nonneg.push_back(known_nonneg(parts[info.offset_at(i)].tensor));
  }
  parts.push_back(Val::of(element_pointers(e, info, parts, loc)));
  return Val::block_ptr(std::move(parts), std::move(info));
}

BlockAccess block_access(Emitter &e, const Args &a, const Val &bp, const Val &boundary_check) {
  SourceLoc loc = a.loc();
  const BlockPtrInfo &info = *bp.block;
  size_t rank = info.rank();
  std::vector<bool> checked(rank, false);
  for (int64_t d : int_list(a, boundary_check, "boundary_check")) {
    if (d < 0 || d >= static_cast<int64_t>(rank))
      a.fail(a.fn() + "(): boundary_check dimension " + std::to_string(d) +
             " is out of range for a block pointer of rank " + std::to_string(rank));
    checked[static_cast<size_t>(d)] = true;
  }
  ir::Shape full(info.block_shape.begin(), info.block_shape.end());
  auto op = [&](ast::BinOp o, const Val &x, const Val &y) { return binary_op(e, o, x, y, loc); };
  // The bounds are checked on the 32-bit arange: 0 <= offset_d + arange_d < shape_d is
  // lo_d <= arange_d < hi_d with hi_d = max(shape_d, 0) - offset_d (clamped to block_d
  // when computed in 64 bits) and lo_d = min(-offset_d, block_d), left out when the offset
  // is known to be >= 0: then, with an int32 shape, one 32-bit compare, as a
  // tensor-of-pointers kernel's `offs < n - k` mask.
  Val mask;
  for (size_t i = 0; i < rank; ++i) {
    if (!checked[i])
      continue;
    int64_t n = info.block_shape[i];
    const Val &shape = bp.elems[info.shape_at(i)], &off32 = bp.elems[info.offset_at(i)];
    Val off = Val::of(cast_dtype(e, off32.tensor, DType::I64, loc));
    auto clamped = [&](const Val &v) { // an i64 scalar to i32, at most n
      Val c = call(e, "minimum", {v, Val::integer(n)}, loc);
      return Val::of(cast_dtype(e, c.tensor, DType::I32, loc));
    };
    bool nonneg = info.offset_nonneg[i];
    Val room = call(e, "maximum", {shape, Val::integer(0)}, loc);
    Val hi = info.shape_i32[i] && nonneg ? op(ast::BinOp::Sub, room, off32)
                                         : clamped(op(ast::BinOp::Sub, room, off));
    Val a32 = Val::of(along(e, arange_of(e, n, loc), i, rank, loc));
    Val inside = compare_op(e, ast::CmpOp::Lt, a32, hi, loc);
    if (!nonneg) {
      Val lo = clamped(unary_op(e, ast::UnaryOp::Neg, off, loc));
      inside = op(ast::BinOp::BitAnd, compare_op(e, ast::CmpOp::GtE, a32, lo, loc), inside);
    }
    mask = mask.is_tensor() ? op(ast::BinOp::BitAnd, mask, inside) : inside;
  }
  Value *m = mask.is_tensor() ? broadcast_to(e, mask.tensor, full, loc) : nullptr;
  return {bp.elems[info.tile_at()].tensor, m};
}

void add_block_ptr_builtins(std::vector<Def> &t) {
  t.insert(t.end(), {
                        {"make_block_ptr", "base, shape, strides, offsets, block_shape, order",
                         make_block_ptr, kTl},
                        {"advance", "base, offsets", advance, kTl},
                    });
}

} // namespace tilec::sema::builtins
