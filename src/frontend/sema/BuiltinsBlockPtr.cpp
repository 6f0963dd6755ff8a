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

// One shape / stride / offset entry as a scalar integer of type `d`; offsets (d = i32)
// must not be 64-bit, as in Triton.
Value *index_scalar(Emitter &e, const Args &a, const Val &v, std::string_view what, DType d) {
  if (!v.is_tensor() && v.kind != Val::Kind::Int && v.kind != Val::Kind::Bool)
    a.fail(a.fn() + "(): " + std::string(what) + " must hold integers, got " + describe(v));
  Value *t = to_tensor(e, v, a.loc());
  if (t->type.is_tile() || t->type.is_ptr() || ir::is_float(t->type.elem))
    a.fail(a.fn() + "(): " + std::string(what) + " must hold integer scalars, got " +
           describe(Val::of(t)));
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
  for (const Val &v : shape)
    parts.push_back(Val::of(index_scalar(e, a, v, "shape", DType::I64)));
  for (const Val &v : strides)
    parts.push_back(Val::of(index_scalar(e, a, v, "strides", DType::I64)));
  for (const Val &v : offsets)
    parts.push_back(Val::of(index_scalar(e, a, v, "offsets", DType::I32)));
  return Val::block_ptr(std::move(parts), std::move(info));
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
  for (size_t i = 0; i < rank; ++i) {
    if (deltas[i].kind == Val::Kind::Int && deltas[i].i == 0)
      continue;
    Value *d = index_scalar(e, a, deltas[i], "offsets", DType::I32);
    Val &off = bp.elems[1 + 2 * rank + i];
    off = Val::of(emit(e, ir::OpKind::Add, {off.tensor, d}, off.tensor->type, a.loc()));
  }
  return bp;
}

} // namespace

bool is_block_ptr(const Val &v) { return v.kind == Val::Kind::BlockPtr; }

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
  // The block's corner is a scalar, base + sum(offset_d * stride_d), and the tile a
  // fixed pattern added to it, sum(arange_d * stride_d): a loop that advances the block
  // pointer moves one address, and the pattern is hoisted out of it. The bounds are
  // checked on the 32-bit arange: 0 <= offset_d + arange_d < shape_d is
  // lo_d <= arange_d < hi_d with lo_d = min(-offset_d, block_d) and
  // hi_d = min(max(shape_d, 0) - offset_d, block_d), both in int32 range (offsets are
  // int32), computed once per access in 64 bits.
  auto expanded = [&](Value *v, size_t i) { // to rank dims, all 1 but dim i (expand_dims
    for (size_t j = 0; j < rank; ++j)       // keeps the axis info that vectorises)
      if (j != i)
        v = expand_dims(e, v, static_cast<int>(j), loc);
    return Val::of(v);
  };
  Val corner = bp.elems[0], sum, mask;
  for (size_t i = 0; i < rank; ++i) {
    int64_t n = info.block_shape[i];
    const Val &shape = bp.elems[1 + i], &stride = bp.elems[1 + rank + i];
    Val off = Val::of(cast_dtype(e, bp.elems[1 + 2 * rank + i].tensor, DType::I64, loc));
    corner = op(ast::BinOp::Add, corner, op(ast::BinOp::Mul, off, stride));
    Value *ar = call(e, "arange", {Val::integer(0), Val::integer(n)}, loc).tensor;
    Val term = op(ast::BinOp::Mul, expanded(cast_dtype(e, ar, DType::I64, loc), i), stride);
    sum = sum.is_tensor() ? op(ast::BinOp::Add, sum, term) : term;
    if (checked[i]) {
      auto clamped = [&](const Val &v) {
        Val c = call(e, "minimum", {v, Val::integer(n)}, loc);
        return Val::of(cast_dtype(e, c.tensor, DType::I32, loc));
      };
      Val lo = clamped(unary_op(e, ast::UnaryOp::Neg, off, loc));
      Val hi = clamped(op(ast::BinOp::Sub, call(e, "maximum", {shape, Val::integer(0)}, loc), off));
      Val a32 = expanded(ar, i);
      Val inside = op(ast::BinOp::BitAnd, compare_op(e, ast::CmpOp::GtE, a32, lo, loc),
                      compare_op(e, ast::CmpOp::Lt, a32, hi, loc));
      mask = mask.is_tensor() ? op(ast::BinOp::BitAnd, mask, inside) : inside;
    }
  }
  Value *ptrs = broadcast_to(e, op(ast::BinOp::Add, corner, sum).tensor, full, loc);
  Value *m = mask.is_tensor() ? broadcast_to(e, mask.tensor, full, loc) : nullptr;
  return {ptrs, m};
}

void add_block_ptr_builtins(std::vector<Def> &t) {
  t.insert(t.end(), {
                        {"make_block_ptr", "base, shape, strides, offsets, block_shape, order",
                         make_block_ptr, kTl},
                        {"advance", "base, offsets", advance, kTl},
                    });
}

} // namespace tilec::sema::builtins
