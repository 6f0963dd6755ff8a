// Memory builtins: load, store and the atomics (semantic.py's _load_legacy,
// _store_legacy and atom_red_typechecking_impl, for tensors of pointers).
#include <cmath>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

Value *pointer_arg(const Args &a, std::string_view name) {
  const Val &v = a[name];
  if (!v.is_tensor() || !v.tensor->type.is_ptr())
    a.fail("Unsupported ptr type " +
           (v.is_tensor() ? tensor_str(v.tensor->type) : v.repr() + " (" + py_type_name(v) + ")") +
           " in `tl." + a.fn() +
           "`: the pointer argument must be a pointer or a tensor of "
           "pointers");
  return v.tensor;
}

// The pointer a store or an atomic writes through: never one to constant data.
Value *written_pointer_arg(const Args &a, std::string_view name) {
  Value *p = pointer_arg(a, name);
  if (p->type.is_const)
    a.fail("Cannot store to a constant pointer (the parameter it comes from is annotated "
           "tl.const)");
  return p;
}

void check_mask(const Args &a, Value *mask) {
  if (mask && (mask->type.is_ptr() || mask->type.elem != DType::I1))
    a.fail("Mask must have boolean scalar type, got " + tensor_str(mask->type));
}

void check_option(const Args &a, const std::string &v, std::initializer_list<const char *> ok,
                  const char *what) {
  for (const char *o : ok)
    if (v == o)
      return;
  a.fail(std::string(what) + " " + v + " not supported");
}

std::vector<ir::NamedAttr> cache_attrs(const Args &a, bool store) {
  std::string cache = a.const_str("cache_modifier");
  std::string evict = a.const_str("eviction_policy");
  if (store)
    check_option(a, cache, {"", ".wb", ".cg", ".cs", ".wt"}, "Cache modifier");
  else
    check_option(a, cache, {"", ".ca", ".cg", ".cv"}, "Cache modifier");
  check_option(a, evict, {"", "evict_last", "evict_first"}, "Eviction policy");
  std::vector<ir::NamedAttr> attrs;
  if (!cache.empty())
    attrs.push_back({"cache", cache});
  if (!evict.empty())
    attrs.push_back({"evict", evict});
  return attrs;
}

bool is_empty_option(const Val &v) {
  return v.kind == Val::Kind::None || (v.kind == Val::Kind::Tuple && v.elems.empty()) ||
         (v.kind == Val::Kind::Str && v.str.empty());
}

// tl.load(block_ptr, boundary_check=, padding_option=): the checked dims' outside reads
// as zero ("" or "zero") or NaN.
Val load_block(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  if (a["mask"].kind != Val::Kind::None || a["other"].kind != Val::Kind::None)
    a.fail("`mask` and `other` arguments cannot be specified for loading block pointers "
           "(use `boundary_check` and `padding_option`)");
  std::string padding = a["padding_option"].kind == Val::Kind::Str ? a["padding_option"].str : "";
  check_option(a, padding, {"", "zero", "nan"}, "Padding option");
  BlockAccess acc = block_access(e, a, a["pointer"], a["boundary_check"]);
  Type elem(acc.ptrs->type.elem);
  if (padding == "nan" && !ir::is_float(elem.elem))
    a.fail("Padding option `nan` is not supported for integer block pointers");
  std::vector<ir::NamedAttr> attrs = cache_attrs(a, false);
  if (a.const_bool("volatile"))
    attrs.push_back({"volatile", int64_t(1)});
  Type result = elem.with_shape(acc.ptrs->type.shape);
  std::vector<Value *> operands = {acc.ptrs};
  if (acc.mask) {
    operands.push_back(acc.mask);
    operands.push_back(padding == "nan"          ? make_float(e, result, std::nan(""), loc)
                       : ir::is_float(elem.elem) ? make_float(e, result, 0.0, loc)
                                                 : make_int(e, result, 0, loc));
  }
  return Val::of(emit(e, OpKind::Load, operands, result, loc, std::move(attrs)));
}

Val load(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  if (is_block_ptr(a["pointer"]))
    return load_block(e, a);
  Value *ptr = pointer_arg(a, "pointer");
  Value *mask = a.tensor_or_null("mask");
  Value *other = a.tensor_or_null("other");
  if (!mask && other)
    a.fail("`other` cannot be provided without `mask`");
  std::string padding = a["padding_option"].kind == Val::Kind::Str ? a["padding_option"].str : "";
  check_option(a, padding, {"", "zero", "nan"}, "Padding option");
  if (!is_empty_option(a["boundary_check"]) || !padding.empty())
    a.fail("`padding_option` or `boundary_check` argument is not supported for loading a "
           "tensor of pointers or loading a scalar (only for block pointers)");
  std::vector<ir::NamedAttr> attrs = cache_attrs(a, false);
  if (a.const_bool("volatile"))
    attrs.push_back({"volatile", int64_t(1)});
  if (ptr->type.is_scalar()) {
    if (mask && mask->type.is_tile())
      a.fail("Mask argument cannot be block type if pointer argument is not a block");
    if (other && other->type.is_tile())
      a.fail("Other argument cannot be block type if pointer argument is not a block");
  } else {
    // mask and other broadcast with the pointer (numpy rules: each may widen the others).
    ir::Shape s = ptr->type.shape;
    if (mask)
      s = broadcast_shape(s, mask->type.shape, loc);
    if (other)
      s = broadcast_shape(s, other->type.shape, loc);
    ptr = broadcast_to(e, ptr, s, loc);
    if (mask)
      mask = broadcast_to(e, mask, s, loc);
    if (other)
      other = broadcast_to(e, other, s, loc);
  }
  check_mask(a, mask);
  Type elem(ptr->type.elem);
  std::vector<Value *> operands = {ptr};
  if (mask)
    operands.push_back(mask);
  if (other)
    operands.push_back(cast_elem(e, other, elem, loc));
  return Val::of(
      emit(e, OpKind::Load, operands, elem.with_shape(ptr->type.shape), loc, std::move(attrs)));
}

// tl.store(block_ptr, value, boundary_check=): the value broadcast to the block; the
// checked dims' outside is not written.
Val store_block(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  if (a["mask"].kind != Val::Kind::None)
    a.fail("`mask` argument cannot be specified for storing block pointers (use "
           "`boundary_check`)");
  BlockAccess acc = block_access(e, a, a["pointer"], a["boundary_check"]);
  const ir::Shape &s = acc.ptrs->type.shape;
  Value *val = a.tensor("value");
  if (broadcast_shape(s, val->type.shape, loc) != s)
    a.fail("Value argument of shape " + shape_str(val->type.shape) +
           " does not broadcast to the block pointer's block " + shape_str(s));
  val = cast_elem(e, broadcast_to(e, val, s, loc), Type(acc.ptrs->type.elem), loc);
  std::vector<Value *> operands = {acc.ptrs, val};
  if (acc.mask)
    operands.push_back(acc.mask);
  e.builder().create(OpKind::Store, operands, {}, cache_attrs(a, true), loc);
  return Val::none();
}

Val store(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  if (is_block_ptr(a["pointer"]))
    return store_block(e, a);
  Value *ptr = written_pointer_arg(a, "pointer");
  Value *val = a.tensor("value");
  Value *mask = a.tensor_or_null("mask");
  if (!is_empty_option(a["boundary_check"]))
    a.fail("`boundary_check` argument is not supported for storing a tensor of pointers or "
           "storing a scalar (only for block pointers)");
  std::vector<ir::NamedAttr> attrs = cache_attrs(a, true);
  if (ptr->type.is_scalar()) {
    if (val->type.is_tile())
      a.fail("Value argument cannot be block type if pointer argument is not a block");
    if (mask && mask->type.is_tile())
      a.fail("Mask argument cannot be block type if pointer argument is not a block");
  } else {
    const ir::Shape &s = ptr->type.shape;
    ir::Shape all = broadcast_shape(s, val->type.shape, loc);
    if (mask)
      all = broadcast_shape(all, mask->type.shape, loc);
    if (all != s)
      a.fail("Expected pointer argument to have shape " + shape_str(all) + " but got " +
             shape_str(s) + " (the value and mask must broadcast to the pointer's shape)");
    val = broadcast_to(e, val, s, loc);
    if (mask)
      mask = broadcast_to(e, mask, s, loc);
  }
  check_mask(a, mask);
  val = cast_elem(e, val, Type(ptr->type.elem), loc);
  std::vector<Value *> operands = {ptr, val};
  if (mask)
    operands.push_back(mask);
  e.builder().create(OpKind::Store, operands, {}, std::move(attrs), loc);
  return Val::none();
}

std::vector<ir::NamedAttr> sem_scope(const Args &a) {
  std::string sem = a.const_str_or_none("sem").value_or("acq_rel");
  std::string scope = a.const_str_or_none("scope").value_or("gpu");
  check_option(a, sem, {"acquire", "release", "acq_rel", "relaxed"}, "Memory semantic");
  check_option(a, scope, {"gpu", "cta", "sys"}, "Memory scope");
  return {{"sem", sem}, {"scope", scope}};
}

Val atomic_rmw(Emitter &e, const Args &a, const char *op) {
  SourceLoc loc = a.loc();
  Value *ptr = written_pointer_arg(a, "pointer");
  Value *val = a.tensor("val");
  Value *mask = a.tensor_or_null("mask");
  DType el = ptr->type.elem;
  std::string name = std::string("atomic_") + op;
  std::string o = op;
  if ((el == DType::F16 || el == DType::BF16) && o != "add")
    a.fail(name + " does not support " + dtype_name(el));
  if (el == DType::I16 || el == DType::U16 || ir::bits(el) < 16)
    a.fail(name + " does not support " + dtype_name(el));
  if (ir::is_float(el) && (o == "and" || o == "or" || o == "xor"))
    a.fail(name + " does not support floating point type " + dtype_name(el));
  if (ir::is_float(el) && (o == "max" || o == "min") && el != DType::F32 && el != DType::F64)
    a.fail(name + " not supported for dtype " + dtype_name(el));
  const ir::Shape &s = ptr->type.shape;
  if (ptr->type.is_scalar() && (val->type.is_tile() || (mask && mask->type.is_tile())))
    a.fail(name + ": the value and mask of a scalar pointer must be scalars");
  val = broadcast_to(e, val, s, loc);
  if (mask)
    mask = broadcast_to(e, mask, s, loc);
  check_mask(a, mask);
  val = cast_elem(e, val, Type(el), loc);
  std::vector<Value *> operands = {ptr, val};
  if (mask)
    operands.push_back(mask);
  std::vector<ir::NamedAttr> attrs = sem_scope(a);
  attrs.insert(attrs.begin(), {"op", o});
  return Val::of(emit(e, OpKind::AtomicRmw, operands, Type(el, false, s), loc, std::move(attrs)));
}

Val atomic_add(Emitter &e, const Args &a) { return atomic_rmw(e, a, "add"); }
Val atomic_max(Emitter &e, const Args &a) { return atomic_rmw(e, a, "max"); }
Val atomic_min(Emitter &e, const Args &a) { return atomic_rmw(e, a, "min"); }
Val atomic_and(Emitter &e, const Args &a) { return atomic_rmw(e, a, "and"); }
Val atomic_or(Emitter &e, const Args &a) { return atomic_rmw(e, a, "or"); }
Val atomic_xor(Emitter &e, const Args &a) { return atomic_rmw(e, a, "xor"); }
Val atomic_xchg(Emitter &e, const Args &a) { return atomic_rmw(e, a, "xchg"); }

Val atomic_cas(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  Value *ptr = written_pointer_arg(a, "pointer");
  DType el = ptr->type.elem;
  int b = ir::bits(el);
  if (b != 16 && b != 32 && b != 64)
    a.fail("atomic_cas only supports elements with width {16, 32, 64}, got " + dtype_name(el));
  const ir::Shape &s = ptr->type.shape;
  Value *cmp = cast_elem(e, broadcast_to(e, a.tensor("cmp"), s, loc), Type(el), loc);
  Value *val = cast_elem(e, broadcast_to(e, a.tensor("val"), s, loc), Type(el), loc);
  return Val::of(
      emit(e, OpKind::AtomicCas, {ptr, cmp, val}, Type(el, false, s), loc, sem_scope(a)));
}

} // namespace

void add_memory_builtins(std::vector<Def> &t) {
  const char *rmw = "pointer, val, mask=None, sem=None, scope=None";
  t.insert(
      t.end(),
      {
          {"load",
           "pointer, mask=None, other=None, boundary_check=(), padding_option='', "
           "cache_modifier='', eviction_policy='', volatile=False",
           load, kTl},
          {"store",
           "pointer, value, mask=None, boundary_check=(), cache_modifier='', eviction_policy=''",
           store, kTl | kMethod},
          {"atomic_add", rmw, atomic_add, kTl | kMethod},
          {"atomic_max", rmw, atomic_max, kTl | kMethod},
          {"atomic_min", rmw, atomic_min, kTl | kMethod},
          {"atomic_and", rmw, atomic_and, kTl | kMethod},
          {"atomic_or", rmw, atomic_or, kTl | kMethod},
          {"atomic_xor", rmw, atomic_xor, kTl | kMethod},
          {"atomic_xchg", rmw, atomic_xchg, kTl | kMethod},
          {"atomic_cas", "pointer, cmp, val, sem=None, scope=None", atomic_cas, kTl | kMethod},
      });
}

} // namespace tilec::sema::builtins
