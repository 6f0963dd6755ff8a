// Tensor descriptors: tl.make_tensor_descriptor, host TensorDescriptor parameters, and what
// desc.load / store / atomic_* / gather / scatter make of one. A descriptor is a
// compile-time block shape and padding over run-time parts (base, shape, strides; the last
// dimension is contiguous). An access at `offsets` is a block pointer over those parts,
// every dimension bounds-checked, so it lowers as block pointers do (64-bit addresses,
// masks). Outside the tensor a load reads 0 (or NaN), a store or atomic writes nothing,
// as TMA does. A descriptor compiled with CompileOptions::tma also carries its tensor map
// (a host descriptor's parameter, or one made in the kernel: make_tmap), and its block
// loads the map and offsets: "pipeline-loops" may turn them into TMA copies
// (docs/ARCHITECTURE.md, "TMA").
#include <cmath>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::Type;
using ir::Value;

namespace {

constexpr size_t kMaxRank = 5; // as Triton (and TMA)

std::vector<Val> items_of(const Val &v) {
  return v.kind == Val::Kind::Tuple ? v.elems : std::vector<Val>{v};
}

std::string dims_str(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// "tensor_descriptor.load()" for a method, "make_tensor_descriptor()" for a function.
std::string fn_name(const Args &a) {
  return (is_descriptor_method(a.fn()) ? "tensor_descriptor." : "") + a.fn() + "()";
}

const Val &desc_arg(const Args &a, std::string_view name) {
  const Val &v = a[name];
  if (v.kind != Val::Kind::TensorDesc)
    a.fail(fn_name(a) +
           ": expected a tensor descriptor (tl.make_tensor_descriptor or a host "
           "TensorDescriptor), got " +
           describe(v));
  return v;
}

DType elem_of(const Val &desc) { return desc.elems[TensorDescInfo::base_at()].tensor->type.elem; }

ir::Shape block_of(const Val &desc) {
  return ir::Shape(desc.desc->block_shape.begin(), desc.desc->block_shape.end());
}

// An integer scalar (a number, a scalar tensor or a one-element tile) as dtype `d`. A
// 64-bit offset is an error, as in Triton; a number must fit `d`.
Value *scalar_as(Emitter &e, const Args &a, const Val &v, DType d, const char *what) {
  Value *t = nullptr;
  if (v.kind == Val::Kind::Int || v.kind == Val::Kind::Bool) {
    if (!int_fits(v, d))
      a.fail(fn_name(a) + ": " + what + " " + v.repr() + " does not fit in " + dtype_name(d));
    return constant_of(e, v, Type(d), a.loc());
  }
  if (v.is_tensor())
    t = v.tensor->type.numel() == 1 ? unsplat(e, v.tensor, a.loc()) : v.tensor;
  if (!t || t->type.is_tile() || t->type.is_ptr() || ir::is_float(t->type.elem))
    a.fail(fn_name(a) + ": " + what + " must be integer scalars, got " + describe(v));
  if (d == DType::I32 && ir::bits(t->type.elem) == 64)
    a.fail(fn_name(a) + ": tensor descriptors only support 32-bit " + what +
           ": add a `.to(tl.int32)` (or use a tensor of pointers for 64-bit offsets)");
  return cast_dtype(e, t, d, a.loc());
}

// The element pointers of the block at `offsets` and its mask: a block pointer over the
// descriptor's parts with every dimension checked (block_access keeps the checks in 32
// bits where the offset is known to be >= 0).
BlockAccess access(Emitter &e, const Args &a, const Val &desc,
                   std::vector<Value *> *offset_values = nullptr) {
  const TensorDescInfo &info = *desc.desc;
  size_t rank = info.rank();
  std::vector<Val> offsets = items_of(a["offsets"]);
  if (offsets.size() != rank)
    a.fail(fn_name(a) + ": expected " + std::to_string(rank) +
           " offsets (the descriptor's rank), " + "but got " + std::to_string(offsets.size()));
  BlockPtrInfo bp;
  bp.block_shape = info.block_shape;
  for (size_t i = rank; i-- > 0;)
    bp.order.push_back(static_cast<int64_t>(i));
  std::vector<Val> parts = {desc.elems[info.base_at()]};
  for (size_t i = 0; i < rank; ++i)
    parts.push_back(desc.elems[info.shape_at(i)]);
  for (size_t i = 0; i + 1 < rank; ++i)
    parts.push_back(desc.elems[info.stride_at(i)]);
  parts.push_back(Val::of(make_int(e, Type(DType::I64), 1, a.loc())));
  for (const Val &o : offsets) {
    parts.push_back(Val::of(scalar_as(e, a, o, DType::I32, "offsets")));
    if (offset_values)
      offset_values->push_back(parts.back().tensor);
  }
  Val ptr = block_ptr_of(e, std::move(parts), std::move(bp), a.loc());
  std::vector<Val> all;
  for (size_t i = 0; i < rank; ++i)
    all.push_back(Val::integer(static_cast<int64_t>(i)));
  return block_access(e, a, ptr, Val::tuple(std::move(all)));
}

// What a masked-off element of a load reads: 0, or NaN with padding "nan".
Value *padding_value(Emitter &e, const Val &desc, const ir::Shape &shape, SourceLoc loc) {
  Type t(elem_of(desc), false, shape);
  if (!ir::is_float(t.elem))
    return make_int(e, t, 0, loc);
  return make_float(e, t, desc.desc->nan_padding ? std::nan("") : 0.0, loc);
}

// With `offsets` (a host descriptor's block load, its descriptor carrying a tensor map),
// the load also takes the map and the offsets, marked `tma` (Ops.def).
Value *masked_load(Emitter &e, const Val &desc, Value *ptrs, Value *mask, SourceLoc loc,
                   const std::vector<Value *> &offsets = {}) {
  const ir::Shape &s = ptrs->type.shape;
  std::vector<Value *> operands = {ptrs, mask, padding_value(e, desc, s, loc)};
  std::vector<ir::NamedAttr> attrs;
  if (!offsets.empty() && desc.desc->tmap) {
    operands.push_back(desc.elems[desc.desc->tmap_at()].tensor);
    operands.insert(operands.end(), offsets.begin(), offsets.end());
    attrs.push_back({"tma", int64_t{1}});
  }
  return emit(e, ir::OpKind::Load, operands, Type(elem_of(desc), false, s), loc, std::move(attrs));
}

// The value of a store or atomic: a tensor of exactly `shape` (Triton asserts it), cast
// to the descriptor's dtype.
Value *block_value(Emitter &e, const Args &a, const Val &desc, const ir::Shape &shape) {
  const Val &v = a["value"];
  if (!v.is_tensor() || v.tensor->type.shape != shape)
    a.fail(fn_name(a) + ": expected a value of shape " + shape_str(shape) +
           (shape == block_of(desc) ? " (the descriptor's block shape)" : "") + ", got " +
           describe(v));
  return cast_elem(e, v.tensor, Type(elem_of(desc)), a.loc());
}

Val make_tensor_descriptor(Emitter &e, const Args &a) {
  const Val &base = a["base"];
  if (!base.is_tensor() || !base.tensor->type.is_ptr() || base.tensor->type.is_tile())
    a.fail("make_tensor_descriptor(): expected `base` to be a scalar pointer, got " +
           describe(base));
  DType el = base.tensor->type.elem;
  if (ir::is_bool(el))
    a.fail("make_tensor_descriptor(): int1 elements are not supported (pass the memory as "
           "int8)");
  std::vector<Val> shape = items_of(a["shape"]), strides = items_of(a["strides"]);
  size_t rank = shape.size();
  if (rank < 1 || rank > kMaxRank)
    a.fail("make_tensor_descriptor(): expected 1 <= ndim <= 5 but got " + std::to_string(rank) +
           " dimensions");
  if (strides.size() != rank)
    a.fail("make_tensor_descriptor(): expected " + std::to_string(rank) + " strides but got " +
           std::to_string(strides.size()));
  TensorDescInfo info;
  info.block_shape = int_list(a, a["block_shape"], "block_shape");
  if (info.block_shape.size() != rank)
    a.fail("make_tensor_descriptor(): expected block_shape to have " + std::to_string(rank) +
           " dimensions but got " + std::to_string(info.block_shape.size()));
  check_block_shape(a, info.block_shape);
  int64_t bytes = info.block_shape.back() * ir::byte_size(el);
  if (bytes < 16)
    a.fail("Descriptor block shape must have at least 16 bytes in the last dimension, but got " +
           std::to_string(info.block_shape.back()) + " * " + std::to_string(ir::byte_size(el)) +
           " = " + std::to_string(bytes) + " bytes");
  const Val &last = strides.back();
  if (!((last.kind == Val::Kind::Int && last.i == 1) || (last.kind == Val::Kind::Bool && last.b)))
    a.fail("make_tensor_descriptor(): the last stride must be the constant 1 (the last "
           "dimension is contiguous), got " +
           (last.is_constexpr() ? last.repr() : describe(last)));
  std::string padding =
      a["padding_option"].kind == Val::Kind::None ? std::string() : a.const_str("padding_option");
  if (!padding.empty() && padding != "zero" && padding != "nan")
    a.fail("make_tensor_descriptor(): padding option '" + padding +
           "' is not supported (expected 'zero' or 'nan')");
  info.nan_padding = padding == "nan";
  if (info.nan_padding && !ir::is_float(el))
    a.fail("make_tensor_descriptor(): padding option `nan` is not supported for integer "
           "blocks");
  std::vector<Val> parts = {base};
  for (const Val &v : shape)
    parts.push_back(Val::of(scalar_as(e, a, v, DType::I32, "shape")));
  for (size_t i = 0; i + 1 < rank; ++i)
    parts.push_back(Val::of(scalar_as(e, a, strides[i], DType::I64, "strides")));
  // With TMA, the descriptor also has its tensor map (built in the kernel, Ops.def
  // make_tmap) for pipeline-loops' copies; TMA rings are 2-D
  if (e.options().tma && rank == 2) {
    std::vector<Value *> ops;
    for (const Val &p : parts)
      ops.push_back(p.tensor);
    std::vector<ir::NamedAttr> attrs = {{"file", e.file_path(a.loc())},
                                        {"line", static_cast<int64_t>(a.loc().line)},
                                        {"func", e.function_name()}};
    if (info.nan_padding)
      attrs.push_back({"nan", int64_t{1}});
    parts.push_back(Val::of(emit(e, ir::OpKind::MakeTmap, ops, Type::pointer_to(DType::U8), a.loc(),
                                 std::move(attrs))));
    info.tmap = true;
  }
  return Val::tensor_desc(std::move(parts), std::move(info));
}

// A load of the elements at `ptrs` (the padding where `mask` is off), or a store of the
// call's `value` there.
Val transfer(Emitter &e, const Args &a, const Val &desc, const BlockAccess &acc, bool store,
             const std::vector<Value *> &offsets = {}) {
  if (!store)
    return Val::of(masked_load(e, desc, acc.ptrs, acc.mask, a.loc(), offsets));
  Value *v = block_value(e, a, desc, acc.ptrs->type.shape);
  std::vector<Value *> operands = {acc.ptrs, v, acc.mask};
  std::vector<ir::NamedAttr> attrs;
  if (!offsets.empty() && desc.desc->tmap) { // as masked_load's: a TMA store candidate
    operands.push_back(desc.elems[desc.desc->tmap_at()].tensor);
    operands.push_back(desc.elems[offsets.size()].tensor); // the inner extent (Ops.def)
    operands.insert(operands.end(), offsets.begin(), offsets.end());
    attrs.push_back({"tma", int64_t{1}});
  }
  e.builder().create(ir::OpKind::Store, operands, {}, std::move(attrs), a.loc());
  return Val::none();
}

// desc.atomic_<op>(offsets, value): the dtypes Triton's descriptor reductions take. fp16 and
// bf16 min/max, which tl.atomic_min/max refuse (Triton runs them only as TMA reductions), are
// emitted directly: the GPU lowering makes them a compare-and-swap loop.
Val desc_atomic(Emitter &e, const Args &a, const char *op) {
  const Val &desc = desc_arg(a, "self");
  DType el = elem_of(desc);
  std::string o = op;
  bool half = el == DType::F16 || el == DType::BF16;
  bool ok = el == DType::I32 || el == DType::U32 || el == DType::U64;
  if (o == "add")
    ok = ok || el == DType::F32 || half;
  else if (o == "min" || o == "max")
    ok = ok || el == DType::I64 || half;
  else
    ok = ok || el == DType::I64;
  if (!ok)
    a.fail(fn_name(a) + ": a tensor descriptor of " + dtype_name(el) + " does not support atomic " +
           o +
           (o == "add"                 ? " (int32, uint32, uint64, fp32, fp16, bf16 do)"
            : o == "min" || o == "max" ? " (int32, uint32, int64, uint64, fp16, bf16 do)"
                                       : " (int32, uint32, int64, uint64 do)"));
  Value *v = block_value(e, a, desc, block_of(desc));
  BlockAccess acc = access(e, a, desc);
  if (half && o != "add") {
    std::vector<ir::NamedAttr> attrs = {{"op", o}, {"sem", "acq_rel"}, {"scope", "gpu"}};
    emit(e, ir::OpKind::AtomicRmw, {acc.ptrs, v, acc.mask}, v->type, a.loc(), std::move(attrs));
    return Val::none();
  }
  call(e, std::string("atomic_") + op, {Val::of(acc.ptrs), Val::of(v), Val::of(acc.mask)}, a.loc());
  return Val::none();
}

// gather / scatter: rows x_offsets (a 1-D int32 tile) of a descriptor whose block is one
// row, columns y_offset + arange(block[1]); Triton's limits (TMA gather4) are kept.
BlockAccess rows_access(Emitter &e, const Args &a, const Val &desc) {
  SourceLoc loc = a.loc();
  const TensorDescInfo &info = *desc.desc;
  const std::vector<Val> &rest = a.rest();
  if (rest.size() != 2)
    a.fail(fn_name(a) + ": expected 2 offsets (x_offsets, y_offset), got " +
           std::to_string(rest.size()));
  if (info.rank() != 2 || info.block_shape[0] != 1)
    a.fail(fn_name(a) + ": the descriptor must be 2-D with a block of one row, but its block is " +
           dims_str(info.block_shape));
  const Val &xv = rest[0];
  if (!xv.is_tensor() || xv.tensor->type.rank() != 1 || xv.tensor->type.is_ptr() ||
      ir::is_float(xv.tensor->type.elem) || ir::bits(xv.tensor->type.elem) > 32)
    a.fail(fn_name(a) + ": x_offsets must be a 1-D tile of int32, got " + describe(xv));
  int64_t rows = xv.tensor->type.shape[0], cols = info.block_shape[1];
  if (rows < 8)
    a.fail(fn_name(a) + ": x_offsets must have at least 8 rows, got " + std::to_string(rows));
  DType el = elem_of(desc);
  int64_t min_cols = 32 / ir::bits(el) * 8;
  if (cols < min_cols)
    a.fail(fn_name(a) + ": a " + dtype_name(el) + " descriptor must have at least " +
           std::to_string(min_cols) + " columns, got " + std::to_string(cols));
  auto op = [&](ast::BinOp o, const Val &x, const Val &y) { return binary_op(e, o, x, y, loc); };
  auto inside = [&](const Val &i, const Val &n) { // 0 <= i < n
    return op(ast::BinOp::BitAnd, compare_op(e, ast::CmpOp::GtE, i, Val::integer(0), loc),
              compare_op(e, ast::CmpOp::Lt, i, n, loc));
  };
  Val x = Val::of(expand_dims(e, cast_dtype(e, xv.tensor, DType::I32, loc), 1, loc));
  Value *ar = call(e, "arange", {Val::integer(0), Val::integer(cols)}, loc).tensor;
  Val y = op(ast::BinOp::Add, Val::of(scalar_as(e, a, rest[1], DType::I32, "y_offset")),
             Val::of(expand_dims(e, ar, 0, loc)));
  Val row_off = op(ast::BinOp::Mul, Val::of(cast_dtype(e, x.tensor, DType::I64, loc)),
                   desc.elems[info.stride_at(0)]);
  Val addr = op(ast::BinOp::Add, desc.elems[info.base_at()],
                op(ast::BinOp::Add, row_off, Val::of(cast_dtype(e, y.tensor, DType::I64, loc))));
  Val mask = op(ast::BinOp::BitAnd, inside(x, desc.elems[info.shape_at(0)]),
                inside(y, desc.elems[info.shape_at(1)]));
  ir::Shape s = {rows, cols};
  return {broadcast_to(e, addr.tensor, s, loc), broadcast_to(e, mask.tensor, s, loc)};
}

// desc.load / store (a block at `offsets`) and gather / scatter (rows).
Val desc_transfer(Emitter &e, const Args &a, bool rows, bool store) {
  const Val &desc = desc_arg(a, "self");
  if (rows)
    return transfer(e, a, desc, rows_access(e, a, desc), store);
  std::vector<Value *> offsets;
  BlockAccess acc = access(e, a, desc, &offsets);
  return transfer(e, a, desc, acc, store, offsets);
}

// tl.load_tensor_descriptor(desc, offsets) / tl.store_tensor_descriptor(desc, offsets,
// value): the methods by another name.
Val load_tensor_descriptor(Emitter &e, const Args &a) {
  const Val &desc = desc_arg(a, "desc");
  return call_descriptor_method(e, "load", desc, CallArgs{{a["offsets"]}, {}, a.loc()});
}

Val store_tensor_descriptor(Emitter &e, const Args &a) {
  const Val &desc = desc_arg(a, "desc");
  return call_descriptor_method(e, "store", desc,
                                CallArgs{{a["offsets"], a["value"]}, {}, a.loc()});
}

} // namespace

void add_tensor_desc_builtins(std::vector<Def> &t) {
  const char *rmw = "self, offsets, value";
  t.insert(
      t.end(),
      {
          {"make_tensor_descriptor", "base, shape, strides, block_shape, padding_option='zero'",
           make_tensor_descriptor, kTl},
          {"load_tensor_descriptor", "desc, offsets", load_tensor_descriptor, kTl},
          {"store_tensor_descriptor", "desc, offsets, value", store_tensor_descriptor, kTl},
          {"load", "self, offsets",
           [](Emitter &e, const Args &a) { return desc_transfer(e, a, false, false); },
           kDescriptor},
          {"store", "self, offsets, value",
           [](Emitter &e, const Args &a) { return desc_transfer(e, a, false, true); }, kDescriptor},
          {"atomic_add", rmw, [](Emitter &e, const Args &a) { return desc_atomic(e, a, "add"); },
           kDescriptor},
          {"atomic_min", rmw, [](Emitter &e, const Args &a) { return desc_atomic(e, a, "min"); },
           kDescriptor},
          {"atomic_max", rmw, [](Emitter &e, const Args &a) { return desc_atomic(e, a, "max"); },
           kDescriptor},
          {"atomic_and", rmw, [](Emitter &e, const Args &a) { return desc_atomic(e, a, "and"); },
           kDescriptor},
          {"atomic_or", rmw, [](Emitter &e, const Args &a) { return desc_atomic(e, a, "or"); },
           kDescriptor},
          {"atomic_xor", rmw, [](Emitter &e, const Args &a) { return desc_atomic(e, a, "xor"); },
           kDescriptor},
          {"gather", "self, *args",
           [](Emitter &e, const Args &a) { return desc_transfer(e, a, true, false); }, kDescriptor},
          {"scatter", "self, value, *args",
           [](Emitter &e, const Args &a) { return desc_transfer(e, a, true, true); }, kDescriptor},
      });
}

} // namespace tilec::sema::builtins

namespace tilec::sema {

using namespace builtins;
using ir::DType;
using ir::Type;

Val descriptor_attribute(Emitter &e, const Val &desc, const std::string &attr, SourceLoc loc) {
  const TensorDescInfo &info = *desc.desc;
  if (attr == "block_shape")
    return Val::int_tuple(info.block_shape);
  if (attr == "dtype")
    return Val::dtype(Type(elem_of(desc)));
  if (attr == "block_type")
    return Val::dtype(Type(elem_of(desc), false, block_of(desc)));
  if (attr == "shape" || attr == "strides") {
    std::vector<Val> parts;
    for (size_t i = 0; i < info.rank(); ++i) {
      if (attr == "shape")
        parts.push_back(desc.elems[info.shape_at(i)]);
      else if (i + 1 < info.rank())
        parts.push_back(desc.elems[info.stride_at(i)]);
      else
        parts.push_back(Val::of(make_int(e, Type(DType::I64), 1, loc)));
    }
    return Val::tuple(std::move(parts));
  }
  if (is_descriptor_method(attr))
    return Val::method(attr, desc);
  throw CompileError(loc, "'tensor_descriptor' object has no attribute '" + attr + "'");
}

Val descriptor_parameter(ir::Function &fn, const std::string &name, const ArgSpec &spec,
                         std::vector<int64_t> &divisibility, SourceLoc loc, bool tma) {
  const std::vector<int64_t> &block = spec.desc_block_shape;
  size_t rank = block.size();
  auto fail = [&](const std::string &msg) {
    throw CompileError(loc, "parameter '" + name + "' (a tensor descriptor): " + msg);
  };
  if (rank < 1 || rank > kMaxRank)
    fail("expected 1 <= ndim <= 5 but got " + std::to_string(rank) + " dimensions");
  int64_t numel = 1;
  for (int64_t n : block) {
    if (!ir::is_power_of_two(n))
      fail("the block shape " + dims_str(block) + " must have powers of 2");
    numel *= n;
  }
  if (numel > ir::kMaxTensorNumel)
    fail("the block shape " + dims_str(block) + " exceeds " +
         std::to_string(ir::kMaxTensorNumel) + " elements");
  if (ir::is_bool(spec.dtype))
    fail("int1 elements are not supported");
  if (spec.desc_nan_padding && !ir::is_float(spec.dtype))
    fail("padding option `nan` is not supported for integer blocks");
  TILEC_ASSERT(spec.desc_shape_div16.size() == rank && spec.desc_stride_div16.size() + 1 == rank,
               "tensor descriptor spec with inconsistent divisibility facts");
  ir::Block &entry = *fn.entry();
  auto arg = [&](const Type &t, const std::string &part, int64_t div) {
    fn.arg_names.push_back(name + "." + part);
    divisibility.push_back(div);
    return Val::of(entry.add_arg(t));
  };
  // The host checks what Triton's TensorDescriptor asserts: a 16-byte aligned base, strides
  // of whole 16-byte units (so the element count divides by 16 / element bytes).
  std::vector<Val> parts = {arg(Type::pointer_to(spec.dtype), "base", 16)};
  for (size_t i = 0; i < rank; ++i)
    parts.push_back(
        arg(Type(DType::I32), "shape." + std::to_string(i), spec.desc_shape_div16[i] ? 16 : 1));
  int64_t unit = std::max<int64_t>(1, 16 / ir::byte_size(spec.dtype));
  for (size_t i = 0; i + 1 < rank; ++i)
    parts.push_back(arg(Type(DType::I64), "stride." + std::to_string(i),
                        spec.desc_stride_div16[i] ? 16 : unit));
  TensorDescInfo info;
  info.block_shape = block;
  info.nan_padding = spec.desc_nan_padding;
  if (tma) { // the map's generic address (lower: cvta.param), 64-byte aligned
    parts.push_back(arg(Type::pointer_to(DType::U8), "tmap", 64));
    info.tmap = true;
  }
  return Val::tensor_desc(std::move(parts), std::move(info));
}

} // namespace tilec::sema
