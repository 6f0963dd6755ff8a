// Calls: builtins, Python builtins, tensor and dtype methods, and @jit functions,
// which are inlined at the call site.
#include <optional>

#include "frontend/sema/EmitUtil.h"
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

// A short description of a non-callable value, for "'x' is not callable".
std::string describe(const Val &v) {
  if (v.is_tensor())
    return "a tensor";
  if (v.kind == Val::Kind::None)
    return "None";
  return "a constexpr " + py_type_name(v);
}

} // namespace

CallArgs Lowerer::eval_call_args(const ast::CallExpr &e) {
  CallArgs out;
  out.loc = e.loc;
  out.args = eval_elements(e.args);
  for (const ast::Keyword &k : e.keywords) {
    if (k.name.empty())
      throw CompileError(k.loc, "**kwargs in calls is not supported");
    for (const auto &[name, v] : out.kwargs)
      if (name == k.name)
        throw CompileError(k.loc, "keyword argument repeated: " + k.name);
    out.kwargs.emplace_back(k.name, eval(*k.value));
  }
  return out;
}

Val Lowerer::eval_call(const ast::CallExpr &e) {
  bool dropped = dropped_ == &e; // this call is an expression statement (not its arguments)
  dropped_ = nullptr;
  if (e.func->kind == ast::ExprKind::Name) { // clearer messages for what the caller could not pass
    const std::string &name = static_cast<const ast::NameExpr &>(*e.func).id;
    const auto &unsupported = frame().fn->src->unsupported_globals;
    auto it = unsupported.find(name);
    if (it != unsupported.end() && !frame().scope.count(name) &&
        !frame().fn->src->globals.count(name)) {
      if (it->second.rfind("function", 0) == 0)
        throw CompileError(e.func->loc, "calling non-@jit function '" + name +
                                            "' is not supported (decorate it with @jit)");
      if (it->second.rfind("recursive", 0) == 0)
        throw CompileError(e.loc, "recursive call to '" + name +
                                      "' is not supported (@jit functions are inlined)");
    }
  }
  Val f = eval(*e.func);
  if (dropped && f.kind == Val::Kind::Function && f.fn && f.fn->must_use_result)
    throw CompileError(e.loc, "The result of " + unparse(*e.func) + " is not being used." +
                                  (f.fn->must_use_note.empty() ? "" : " " + f.fn->must_use_note));
  CallArgs args = eval_call_args(e);
  return call_value(f, std::move(args), *e.func);
}

Val Lowerer::call_value(const Val &f, CallArgs args, const ast::Expr &callee) {
  switch (f.kind) {
  case Val::Kind::Builtin: {
    std::string_view name = f.str;
    if (name.substr(0, kPyBuiltinPrefix.size()) == kPyBuiltinPrefix) {
      std::string_view py = name.substr(kPyBuiltinPrefix.size());
      if (py == "range")
        throw CompileError(args.loc, "range() can only be used as the iterator of a for loop");
      return call_python_builtin(*this, py, std::move(args));
    }
    if (name == "range" || name == "static_range")
      throw CompileError(args.loc, "tl." + std::string(name) +
                                       "() can only be used as the iterator of a for loop");
    if (name == "constexpr") { // tl.constexpr(v) is v
      if (args.args.size() != 1 || !args.kwargs.empty())
        throw CompileError(args.loc, "tl.constexpr() takes exactly one argument");
      if (has_tensor(args.args[0]))
        throw CompileError(args.loc, "tl.constexpr() of a tensor: the value is not known at "
                                     "compile time");
      return args.args[0];
    }
    if (name == "tensor" || name == "dtype" || name == "tensor_descriptor" ||
        name == "tensor_descriptor_base")
      throw CompileError(args.loc, "calling tl." + std::string(name) + " is not supported");
    return call_builtin(*this, name, std::move(args));
  }
  case Val::Kind::Method: {
    const Val &self = f.elems.at(0);
    if (self.kind == Val::Kind::DType)
      return call_dtype_method(self, f.str, args);
    if (self.kind == Val::Kind::TensorDesc)
      return call_descriptor_method(*this, f.str, self, std::move(args));
    return call_tensor_method(*this, f.str, self, std::move(args));
  }
  case Val::Kind::Function:
    return inline_call(f, std::move(args));
  case Val::Kind::TupleClass:
    return construct_named_tuple(f, args);
  case Val::Kind::HostFunction:
    return call_host_function(*f.host, args);
  default:
    throw CompileError(callee.loc,
                       "'" + unparse(callee) + "' is not callable (it is " + describe(f) + ")");
  }
}

// A @constexpr_function: the host runs it on the constexpr arguments at compile time.
Val Lowerer::call_host_function(const HostFunction &h, const CallArgs &args) {
  auto check = [&](const Val &v, const std::string &what) {
    if (v.is_constexpr())
      return;
    std::string why = what + " (" + value_type_str(v) + ") is known only at run time";
    throw CompileError(args.loc, "constexpr_function '" + h.name +
                                     "' takes constexpr arguments only, but " + why);
  };
  for (size_t i = 0; i < args.args.size(); ++i)
    check(args.args[i], "argument " + std::to_string(i + 1));
  for (const auto &[key, v] : args.kwargs)
    check(v, "argument '" + key + "'");
  try {
    return h.call(args.args, args.kwargs);
  } catch (const std::runtime_error &e) {
    throw CompileError(args.loc, e.what());
  }
}

// `Point(x, y=2)` of a NamedTuple class: arguments bound to the fields as Python binds
// them, the class's defaults for the last fields.
Val Lowerer::construct_named_tuple(const Val &cls, const CallArgs &args) {
  const NamedTupleInfo &nt = *cls.named;
  size_t n = nt.fields.size();
  if (args.args.size() > n)
    throw CompileError(args.loc, nt.name + "() takes " + std::to_string(n) +
                                     " positional arguments but " +
                                     std::to_string(args.args.size()) + " were given");
  std::vector<std::optional<Val>> bound(n);
  for (size_t i = 0; i < args.args.size(); ++i)
    bound[i] = args.args[i];
  for (const auto &[key, v] : args.kwargs) {
    size_t i = 0;
    while (i < n && nt.fields[i] != key)
      ++i;
    if (i == n)
      throw CompileError(args.loc, nt.name + "() got an unexpected keyword argument '" + key + "'");
    if (bound[i])
      throw CompileError(args.loc, nt.name + "() got multiple values for argument '" + key + "'");
    bound[i] = v;
  }
  std::vector<Val> elems;
  for (size_t i = 0; i < n; ++i) {
    size_t first_default = n - nt.defaults.size();
    if (!bound[i] && i >= first_default)
      bound[i] = nt.defaults[i - first_default];
    if (!bound[i])
      throw CompileError(args.loc,
                         nt.name + "() missing required argument: '" + nt.fields[i] + "'");
    elems.push_back(std::move(*bound[i]));
  }
  Val t = Val::tuple(std::move(elems));
  t.named = cls.named;
  return t;
}

Val Lowerer::call_dtype_method(const Val &self, const std::string &name, const CallArgs &args) {
  if (!args.args.empty() || !args.kwargs.empty())
    throw CompileError(args.loc, "dtype." + name + "() takes no arguments");
  const ir::Type &t = self.type;
  if (t.is_tile()) { // a block_type: of the dtype predicates only is_block() holds
    if (name == "get_block_shapes")
      return Val::int_tuple(t.shape);
    call_dtype_method(Val::dtype(t.element()), name, args); // rejects unknown names
    return Val::boolean(name == "is_block");
  }
  ir::DType d = t.elem;
  bool ptr = t.is_ptr();
  auto is = [&](ir::DType x) { return !ptr && d == x; };
  bool r;
  if (name == "is_ptr")
    r = ptr;
  else if (name == "is_floating")
    r = !ptr && ir::is_float(d);
  else if (name == "is_standard_floating")
    r = is(ir::DType::F16) || is(ir::DType::BF16) || is(ir::DType::F32) || is(ir::DType::F64);
  else if (name == "is_int") // Triton counts int1 as an (unsigned) integer
    r = !ptr && ir::is_int(d);
  else if (name == "is_int_signed")
    r = !ptr && ir::is_signed_int(d);
  else if (name == "is_int_unsigned")
    r = !ptr && (ir::is_unsigned_int(d) || ir::is_bool(d));
  else if (name == "is_bool" || name == "is_int1")
    r = is(ir::DType::I1);
  else if (name == "is_fp8")
    r = !ptr && ir::is_fp8(d);
  else if (name == "is_fp8e4nv")
    r = is(ir::DType::F8E4NV);
  else if (name == "is_fp8e5")
    r = is(ir::DType::F8E5);
  else if (name == "is_fp8e4b15")
    r = is(ir::DType::F8E4B15);
  else if (name == "is_fp16")
    r = is(ir::DType::F16);
  else if (name == "is_bf16")
    r = is(ir::DType::BF16);
  else if (name == "is_fp32")
    r = is(ir::DType::F32);
  else if (name == "is_fp64")
    r = is(ir::DType::F64);
  else if (name == "is_int8" || name == "is_int16" || name == "is_int32" || name == "is_int64" ||
           name == "is_uint8" || name == "is_uint16" || name == "is_uint32" || name == "is_uint64")
    r = !ptr && ir::python_name(d) == std::string_view(name).substr(3);
  else if (name == "is_block" || name == "is_void" || name == "is_fp8e4b8" ||
           name == "is_fp8e5b16") // AMD's fp8 types: no tilec tensor has them
    r = false;
  else
    throw CompileError(args.loc, "'dtype' object has no attribute '" + name + "'");
  return Val::boolean(r);
}

// Inlines a @jit function: binds arguments as Python does, evaluates defaults in the
// callee's globals, then lowers its body at the insertion point in a fresh scope.
Val Lowerer::inline_call(const Val &fn, CallArgs args) {
  TILEC_ASSERT(fn.kind == Val::Kind::Function && fn.fn, "inlining a non-function value");
  const ParsedFunction &pf = parsed(fn.fn, args.loc);
  const ast::FunctionDefStmt &def = *pf.def;
  const std::string &fname = def.name;
  for (const Frame *fr : frames_)
    if (fr->fn == &pf)
      throw CompileError(args.loc, "recursive call to '" + fname +
                                       "' is not supported (@jit functions are inlined)");

  std::vector<std::optional<Val>> bound(def.params.size());
  size_t n_positional = 0;
  std::optional<size_t> varargs;
  for (size_t i = 0; i < def.params.size(); ++i) {
    const ast::Param &p = def.params[i];
    if (p.kind == ast::Param::Kind::KwArgs)
      throw CompileError(p.loc, "**kwargs parameters are not supported in @jit functions");
    if (p.kind == ast::Param::Kind::VarArgs)
      varargs = i;
    else if (p.kind == ast::Param::Kind::Normal && !varargs)
      ++n_positional;
  }
  std::vector<Val> extra;
  for (size_t i = 0; i < args.args.size(); ++i) {
    if (i < n_positional)
      bound[i] = args.args[i];
    else if (varargs)
      extra.push_back(args.args[i]);
    else
      throw CompileError(args.loc, fname + "() takes " + std::to_string(n_positional) +
                                       " positional argument" + (n_positional == 1 ? "" : "s") +
                                       " but " + std::to_string(args.args.size()) +
                                       (args.args.size() == 1 ? " was" : " were") + " given");
  }
  if (varargs)
    bound[*varargs] = Val::tuple(std::move(extra));
  for (auto &[key, v] : args.kwargs) {
    size_t i = 0;
    while (i < def.params.size() &&
           (def.params[i].name != key || def.params[i].kind == ast::Param::Kind::VarArgs))
      ++i;
    if (i == def.params.size())
      throw CompileError(args.loc, fname + "() got an unexpected keyword argument '" + key + "'");
    if (bound[i])
      throw CompileError(args.loc, fname + "() got multiple values for argument '" + key + "'");
    bound[i] = std::move(v);
  }

  Frame callee;
  callee.fn = &pf;
  FrameGuard guard(*this, callee); // defaults see the callee's globals only
  std::vector<std::string> missing;
  for (size_t i = 0; i < def.params.size(); ++i) {
    const ast::Param &p = def.params[i];
    if (!bound[i]) {
      if (p.default_value)
        bound[i] = eval(*p.default_value);
      else
        missing.push_back("'" + p.name + "'");
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size(); ++i)
      list += (i == 0 ? "" : i + 1 == missing.size() ? " and " : ", ") + missing[i];
    throw CompileError(args.loc, fname + "() missing " + std::to_string(missing.size()) +
                                     " required argument" + (missing.size() == 1 ? "" : "s") +
                                     ": " + list);
  }
  // A callee parameter annotated tl.constexpr takes whatever it is given, tensors and
  // run-time values included, as in Triton (tutorial 06's _attn_fwd_inner passes offs_m to
  // one): the annotation only matters for the kernel's own parameters.
  for (size_t i = 0; i < def.params.size(); ++i)
    callee.scope[def.params[i].name] = std::move(*bound[i]);
  try {
    return lower_seq(def.body, 0, nullptr).value;
  } catch (CompileError &e) {
    e.add_call(args.loc); // the error's call chain (Triton reports each call as a cause)
    throw;
  }
}

} // namespace tilec::sema::detail
