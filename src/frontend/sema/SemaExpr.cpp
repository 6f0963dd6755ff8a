// Expressions: names, literals, attributes, operators, conditional expressions and
// f-strings.
#include <cstdint>

#include "frontend/sema/EmitUtil.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/Promotion.h"
#include "frontend/sema/SemaImpl.h"

namespace tilec::sema::detail {

namespace {

bool has_tensor(const Val &v) {
  if (v.is_tensor())
    return true;
  for (const Val &e : v.elems)
    if (has_tensor(e))
      return true;
  return false;
}

// libdevice's modules: their attributes are the libdevice builtins (their own namespace:
// libdevice.exp is accurate where tl.exp is approximate).
bool is_libdevice_module(const std::string &m) {
  return m == "tilec.language.extra.libdevice" || m == "tilec.language.extra.cuda.libdevice";
}

// A tile's .type: Triton's block_type (element_ty, shape, numel, name, scalar).
Val block_type_attribute(const Val &d, const std::string &attr, SourceLoc loc) {
  const ir::Type &t = d.type;
  if (attr == "element_ty" || attr == "scalar")
    return Val::dtype(t.element());
  if (attr == "shape")
    return Val::int_tuple(t.shape);
  if (attr == "numel")
    return Val::integer(t.numel());
  if (attr == "name")
    return Val::string(py_str(d));
  if (attr.rfind("is_", 0) == 0 || attr == "get_block_shapes")
    return Val::method(attr, d);
  throw CompileError(loc, "'block_type' object has no attribute '" + attr + "'");
}

Val dtype_attribute(const Val &d, const std::string &attr, SourceLoc loc) {
  const ir::Type &t = d.type;
  if (t.is_tile())
    return block_type_attribute(d, attr, loc);
  if (attr == "element_ty") {
    if (!t.is_ptr())
      throw CompileError(loc, "dtype " + elem_name(t) +
                                  " has no attribute 'element_ty' (only "
                                  "pointer types have one)");
    return Val::dtype(ir::Type(t.elem));
  }
  if (attr == "primitive_bitwidth")
    return Val::integer(t.is_ptr() ? 64 : ir::bits(t.elem));
  if (attr == "int_bitwidth" && !t.is_ptr() && ir::is_int(t.elem))
    return Val::integer(ir::bits(t.elem));
  if (attr == "fp_mantissa_width" && !t.is_ptr() && ir::is_float(t.elem))
    return Val::integer(ir::mantissa_bits(t.elem));
  if (attr == "name")
    return Val::string(elem_name(t));
  if (attr == "scalar")
    return d;
  if (attr.rfind("is_", 0) == 0)
    return Val::method(attr, d);
  throw CompileError(loc, "'dtype' object has no attribute '" + attr + "'");
}

} // namespace

Val Lowerer::lookup(const std::string &name, SourceLoc loc) {
  const Scope &sc = frame().scope;
  if (auto it = sc.find(name); it != sc.end())
    return it->second;
  return lookup_global(name, loc);
}

Val Lowerer::lookup_global(const std::string &name, SourceLoc loc) {
  const auto &globals = frame().fn->src->globals;
  if (auto it = globals.find(name); it != globals.end())
    return it->second;
  const auto &unsupported = frame().fn->src->unsupported_globals;
  if (auto it = unsupported.find(name); it != unsupported.end())
    throw CompileError(loc, "global '" + name + "' is a " + it->second +
                                " and cannot be used in a kernel");
  if (name == "range" || is_python_builtin(name))
    return Val::builtin(std::string(kPyBuiltinPrefix) + name);
  throw CompileError(loc, "name '" + name + "' is not defined");
}

Val Lowerer::eval(const ast::Expr &e) {
  switch (e.kind) {
  case ast::ExprKind::Name:
    return lookup(static_cast<const ast::NameExpr &>(e).id, e.loc);
  case ast::ExprKind::Int: {
    auto &x = static_cast<const ast::IntExpr &>(e);
    if (x.overflow) // Triton: "Nonrepresentable integer" once it becomes a tensor
      throw CompileError(e.loc, "integer literal is too large (at most 2**64 - 1)");
    return Val::uint64(x.value); // 2**63 and above: Triton's uint64 literals
  }
  case ast::ExprKind::Float:
    return Val::floating(static_cast<const ast::FloatExpr &>(e).value);
  case ast::ExprKind::Str:
    return Val::string(static_cast<const ast::StrExpr &>(e).value);
  case ast::ExprKind::Bool:
    return Val::boolean(static_cast<const ast::BoolExpr &>(e).value);
  case ast::ExprKind::None:
    return Val::none();
  case ast::ExprKind::Ellipsis:
    throw CompileError(e.loc, "Ellipsis (...) is not supported");
  case ast::ExprKind::FString:
    return eval_fstring(static_cast<const ast::FStringExpr &>(e));
  case ast::ExprKind::Attribute:
    return eval_attribute(static_cast<const ast::AttributeExpr &>(e));
  case ast::ExprKind::Subscript: {
    auto &x = static_cast<const ast::SubscriptExpr &>(e);
    Val base = eval(*x.value);
    Val index = eval(*x.index);
    return subscript(*this, base, index, e.loc);
  }
  case ast::ExprKind::Slice: {
    auto &x = static_cast<const ast::SliceExpr &>(e);
    Val s;
    s.kind = Val::Kind::Slice;
    for (const ast::ExprPtr *p : {&x.lower, &x.upper, &x.step})
      s.elems.push_back(*p ? eval(**p) : Val::none());
    return s;
  }
  case ast::ExprKind::Call:
    return eval_call(static_cast<const ast::CallExpr &>(e));
  case ast::ExprKind::BinOp: {
    auto &x = static_cast<const ast::BinOpExpr &>(e);
    Val a = eval(*x.lhs);
    Val b = eval(*x.rhs);
    return binary_op(*this, x.op, a, b, e.loc);
  }
  case ast::ExprKind::UnaryOp: {
    auto &x = static_cast<const ast::UnaryOpExpr &>(e);
    return unary_op(*this, x.op, eval(*x.operand), e.loc);
  }
  case ast::ExprKind::BoolOp:
    return eval_bool_op(static_cast<const ast::BoolOpExpr &>(e));
  case ast::ExprKind::Compare:
    return eval_compare(static_cast<const ast::CompareExpr &>(e));
  case ast::ExprKind::IfExp:
    return eval_if_exp(static_cast<const ast::IfExpExpr &>(e));
  case ast::ExprKind::Tuple:
    return Val::tuple(eval_elements(static_cast<const ast::TupleExpr &>(e).elts));
  case ast::ExprKind::List: // lists are tuples in kernels, as in Triton
    return Val::tuple(eval_elements(static_cast<const ast::ListExpr &>(e).elts));
  case ast::ExprKind::ListComp:
    return eval_list_comp(static_cast<const ast::ListCompExpr &>(e));
  case ast::ExprKind::Starred:
    throw CompileError(e.loc, "a starred expression is not allowed here");
  case ast::ExprKind::Lambda:
    throw CompileError(e.loc, "lambda is not supported");
  }
  throw CompileError(e.loc, "unsupported expression");
}

std::vector<Val> Lowerer::eval_elements(const std::vector<ast::ExprPtr> &elts) {
  std::vector<Val> out;
  for (const ast::ExprPtr &x : elts) {
    if (x->kind != ast::ExprKind::Starred) {
      out.push_back(eval(*x));
      continue;
    }
    Val v = eval(*static_cast<const ast::StarredExpr &>(*x).value);
    if (v.kind != Val::Kind::Tuple)
      throw CompileError(x->loc, "only a tuple can be unpacked with *, not " + py_type_name(v));
    out.insert(out.end(), v.elems.begin(), v.elems.end());
  }
  return out;
}

// --- attributes ---

Val Lowerer::eval_attribute(const ast::AttributeExpr &e) {
  return attribute_of(eval(*e.value), e.attr, e.loc);
}

Val Lowerer::attribute_of(const Val &base, const std::string &attr, SourceLoc loc) {
  switch (base.kind) {
  case Val::Kind::Module: {
    const std::string &m = base.str;
    auto missing = [&]() {
      return CompileError(loc, "module '" + m + "' has no attribute '" + attr + "'");
    };
    if (!m.empty() && m[0] == '@') { // a user's module: its attributes are dotted globals
      const std::string path = m.substr(1) + "." + attr;
      const FunctionSource &src = *frame().fn->src;
      if (!src.globals.count(path) && !src.unsupported_globals.count(path))
        throw CompileError(loc, "module '" + m.substr(1) + "' has no attribute '" + attr +
                                    "' (or it names nothing a kernel can use)");
      return lookup_global(path, loc);
    }
    if (m == "tilec.language" || m == "triton.language") {
      if (attr == "math")
        return Val::module("tilec.language.math");
      if (attr == "extra")
        return Val::module("tilec.language.extra");
      if (attr == "random" || attr == "core" || attr == "standard")
        return Val::module("tilec.language." + attr);
      // constexpr functions in Python: the host hands over what the body reads of it under
      // this dotted path (_sources.py), as for a user's module
      if (attr == "target_info")
        return Val::module("@tilec.language.target_info");
      Val out;
      if (language_attribute(attr, out))
        return out;
      // Names Sema itself interprets: loop forms and the types used in annotations.
      if (attr == "constexpr" || attr == "tensor" || attr == "dtype" || attr == "range" ||
          attr == "static_range" || attr == "tensor_descriptor" || attr == "block_type" ||
          attr == "tensor_descriptor_base" || is_builtin(attr))
        return Val::builtin(attr);
      throw missing();
    }
    // Triton defines the builtins in these submodules (tl.random.rand, tl.core.load,
    // tl.standard.sum): each is a view of the one language namespace here.
    if (m == "tilec.language.random" || m == "tilec.language.core" ||
        m == "tilec.language.standard") {
      Val out;
      if (language_attribute(attr, out))
        return out;
      if (is_builtin(attr) ||
          (m == "tilec.language.core" &&
           (attr == "constexpr" || attr == "tensor" || attr == "dtype" || attr == "block_type")))
        return Val::builtin(attr);
      throw missing();
    }
    if (m == "pdb") { // `import pdb` in the kernel: pdb.set_trace() is breakpoint()
      if (attr == "set_trace")
        return Val::builtin(std::string(kPyBuiltinPrefix) + "breakpoint");
      throw missing();
    }
    if (m == "tilec" || m == "triton") {
      if (attr == "language")
        return Val::module("tilec.language");
      if (is_builtin(attr))
        return Val::builtin(attr);
      throw missing();
    }
    if (m == "tilec.language.extra") {
      if (attr == "cuda" || attr == "libdevice")
        return Val::module(m + "." + attr);
      throw missing();
    }
    if (m == "tilec.language.PropagateNan") { // an enum class: NONE / ALL
      Val out;
      if (language_attribute("PropagateNan." + attr, out))
        return out;
      throw CompileError(loc, "type object 'PropagateNan' has no attribute '" + attr + "'");
    }
    if (m == "tilec.language.extra.cuda" && attr == "libdevice")
      return Val::module(m + "." + attr);
    if (m == "tilec.language.extra.cuda" && is_builtin("cuda." + attr))
      return Val::builtin("cuda." + attr);
    if (m == "tilec.language.math" && (is_builtin("math." + attr) || is_builtin(attr)))
      return Val::builtin(attr);
    if (is_libdevice_module(m) && is_builtin("libdevice." + attr))
      return Val::builtin("libdevice." + attr);
    throw missing();
  }
  case Val::Kind::Tensor: {
    const ir::Type &t = base.tensor->type;
    if (attr == "dtype")
      return Val::dtype(t.element());
    if (attr == "type") // Triton: the dtype of a scalar, a block_type for a tile
      return Val::dtype(ir::Type(t.elem, t.ptr, t.shape));
    if (attr == "shape")
      return Val::int_tuple(t.shape);
    if (attr == "numel")
      return Val::integer(t.numel());
    if (attr == "T") {
      CallArgs a;
      a.args.push_back(base);
      a.loc = loc;
      return call_builtin(*this, "trans", std::move(a));
    }
    if (is_tensor_method(attr))
      return Val::method(attr, base);
    throw CompileError(loc, "'tensor' object has no attribute '" + attr + "'");
  }
  case Val::Kind::DType:
    return dtype_attribute(base, attr, loc);
  case Val::Kind::TensorDesc:
    return descriptor_attribute(*this, base, attr, loc);
  case Val::Kind::Tuple:
    if (attr == "type" && !base.named && base.is_constexpr()) // a constexpr tuple's type
      return constexpr_type_of(base);
    if (base.named) { // a NamedTuple's fields
      const std::vector<std::string> &f = base.named->fields;
      for (size_t i = 0; i < f.size() && i < base.elems.size(); ++i)
        if (f[i] == attr)
          return base.elems[i];
      if (attr == "_fields") {
        std::vector<Val> names;
        for (const std::string &n : f)
          names.push_back(Val::string(n));
        return Val::tuple(std::move(names));
      }
    }
    throw CompileError(loc, "'" + py_type_name(base) + "' object has no attribute '" + attr + "'");
  case Val::Kind::Bool:
  case Val::Kind::Int:
  case Val::Kind::Float:
  case Val::Kind::Str:
    if (attr == "value") // tl.constexpr's .value
      return base;
    if (attr == "type") // a constexpr's type: tl.constexpr_type(value)
      return constexpr_type_of(base);
    [[fallthrough]];
  default:
    throw CompileError(loc, "'" + py_type_name(base) + "' object has no attribute '" + attr + "'");
  }
}

// --- operators ---

Val Lowerer::eval_compare(const ast::CompareExpr &e) {
  if (e.ops.size() != 1 || e.comparators.size() != 1)
    throw CompileError(e.loc, "simultaneous multiple comparison is not supported");
  Val a = eval(*e.left);
  Val b = eval(*e.comparators[0]);
  return compare_op(*this, e.ops[0], a, b, e.loc);
}

namespace {

// Python's bool() of a compile-time value.
bool py_truth(const Val &v) {
  switch (v.kind) {
  case Val::Kind::None:
    return false;
  case Val::Kind::Bool:
    return v.b;
  case Val::Kind::Int:
    return v.i != 0;
  case Val::Kind::Float:
    return v.f != 0.0;
  case Val::Kind::Str:
    return !v.str.empty();
  case Val::Kind::Tuple:
    return !v.elems.empty();
  default:
    return true;
  }
}

} // namespace

// `a and b or c` as Triton 3.6 does it: operands are evaluated left to right; a
// compile-time operand that decides the result (falsy for `and`, truthy for `or`) is the
// result and the rest is not evaluated, one that does not is dropped; the tensors left are
// combined pairwise from the right. With no tensor the result is the last operand, as in
// Python (`(3, 4) and (5, 6)` is `(5, 6)`).
Val Lowerer::eval_bool_op(const ast::BoolOpExpr &e) {
  TILEC_ASSERT(!e.values.empty(), "empty boolean operation");
  std::vector<Val> tensors;
  Val last;
  for (const ast::ExprPtr &x : e.values) {
    last = eval(*x);
    if (last.is_tensor()) {
      tensors.push_back(last);
      continue;
    }
    bool truth = py_truth(last);
    if (truth != e.is_and)
      return last;
  }
  if (tensors.empty())
    return last;
  while (tensors.size() >= 2) {
    Val rhs = std::move(tensors.back());
    tensors.pop_back();
    Val lhs = std::move(tensors.back());
    tensors.pop_back();
    tensors.push_back(logical_op(*this, e.is_and, lhs, rhs, e.loc));
  }
  return tensors[0];
}

// [elt for target in iter if c]: unrolled at compile time over a tuple, as Triton does;
// the loop variable is the comprehension's own (Python 3 scoping).
Val Lowerer::eval_list_comp(const ast::ListCompExpr &e) {
  if (e.iter->kind == ast::ExprKind::Call) {
    std::string f = unparse(*static_cast<const ast::CallExpr &>(*e.iter).func);
    if (f == "range" || f == "tl.range" || f == "tl.static_range")
      throw CompileError(e.iter->loc, "a list comprehension over " + f +
                                          "() is not supported: comprehensions run over "
                                          "tuples at compile time (use a for loop)");
  }
  Val it = eval(*e.iter);
  if (it.kind != Val::Kind::Tuple)
    throw CompileError(e.iter->loc,
                       "only comprehensions over tuples are supported (they are "
                       "unrolled at compile time), not over " +
                           (it.is_tensor() ? std::string("a tensor") : py_type_name(it)));
  Scope outer = frame().scope;
  std::vector<Val> out;
  for (const Val &item : it.elems) {
    assign_target(*e.target, item);
    bool keep = true;
    for (const ast::ExprPtr &cond : e.ifs) {
      Val c = eval(*cond);
      if (c.is_tensor())
        throw CompileError(cond->loc, "a comprehension's condition must be known at compile "
                                      "time, but it is a tensor");
      if (!py_truth(c)) {
        keep = false;
        break;
      }
    }
    if (keep)
      out.push_back(eval(*e.elt));
  }
  frame().scope = std::move(outer);
  return Val::tuple(std::move(out));
}

// `a if c else b`: a constexpr c picks one side (the other is not evaluated); a run-time
// c evaluates each side in a branch of an `if` op (so side effects stay conditional).
Val Lowerer::eval_if_exp(const ast::IfExpExpr &e) {
  Val c = eval(*e.test);
  if (!c.is_tensor())
    return constexpr_truth(c, e.test->loc) ? eval(*e.body) : eval(*e.orelse);
  ir::Value *cond = emit_condition(c, e.test->loc);
  ir::Builder after = b_;
  ir::Op *op = b_.create(ir::OpKind::If, {cond}, {}, {}, e.loc, 2);
  Val vals[2];
  for (int k = 0; k < 2; ++k) {
    b_.set_insertion_point_to_end(op->region(static_cast<size_t>(k))->block());
    vals[k] = eval(k == 0 ? *e.body : *e.orelse);
  }
  // Both sides None: a statement in expression form (`tl.store(...) if c else
  // tl.store(...)`), an `if` without results.
  bool is_void = vals[0].kind == Val::Kind::None && vals[1].kind == Val::Kind::None;
  ir::Value *side[2] = {nullptr, nullptr};
  for (int k = 0; k < 2 && !is_void; ++k) {
    const ast::Expr &x = k == 0 ? *e.body : *e.orelse;
    b_.set_insertion_point_to_end(op->region(static_cast<size_t>(k))->block());
    if (!vals[k].is_tensor() && !is_py_number(vals[k]))
      throw CompileError(x.loc, "a conditional expression with a run-time condition must give "
                                "a tensor or a number on both sides (or None on both), not " +
                                    py_type_name(vals[k]));
    side[k] = leaf_value(vals[k], x.loc);
  }
  if (!is_void && side[0]->type != side[1]->type)
    throw CompileError(e.loc, "Ternary expression with dynamic condition has inconsistent "
                              "types " +
                                  ir_type_str(side[0]->type) + " and " +
                                  ir_type_str(side[1]->type));
  for (int k = 0; k < 2; ++k) {
    b_.set_insertion_point_to_end(op->region(static_cast<size_t>(k))->block());
    std::vector<ir::Value *> yielded;
    if (!is_void)
      yielded.push_back(side[k]);
    b_.create(ir::OpKind::Yield, yielded, {}, {}, e.loc);
  }
  b_ = after;
  if (is_void)
    return Val::none();
  return Val::of(op->add_result(side[0]->type));
}

// --- f-strings ---

Val Lowerer::eval_fstring(const ast::FStringExpr &e) {
  std::string out;
  for (const ast::FStringPart &p : e.parts) {
    if (!p.expr) {
      out += p.text;
      continue;
    }
    Val v = eval(*p.expr);
    if (has_tensor(v)) // Triton's rule, in static_print too (whose plain arguments may be tensors)
      throw CompileError(p.expr->loc,
                         "an f-string can only format compile-time values, but '" +
                             unparse(*p.expr) + "' is a tensor of type " + value_type_str(v) +
                             " (pass it to tl.static_print as an argument to see its type, or "
                             "use tl.device_print to print its values at run time)");
    char conv = p.conversion;
    if (!conv && p.self_documenting && p.format_spec.empty())
      conv = 'r'; // f"{x=}" shows repr(x) (the parser emitted the "x=" text)
    if (conv == 'r' || conv == 'a')
      out += format_value(Val::string(py_repr(v)), p.format_spec, p.expr->loc);
    else if (conv == 's')
      out += format_value(Val::string(py_str(v)), p.format_spec, p.expr->loc);
    else
      out += format_value(v, p.format_spec, p.expr->loc);
  }
  return Val::string(std::move(out));
}

} // namespace tilec::sema::detail
