// sema::lower_kernel: the kernel's parameters, the Emitter services, shared helpers.
#include "frontend/sema/Sema.h"
#include "frontend/sema/EmitUtil.h"

#include <atomic>
#include <cstdio>
#include <cstring>

#include "frontend/Parser.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/Promotion.h"
#include "frontend/sema/SemaImpl.h"

namespace tilec::sema {

namespace detail {

void drop_all_uses(ir::Block *b) {
  if (!b)
    return;
  ir::walk(b, [](ir::Op *op) { op->drop_operands(); });
}

std::string ir_type_str(const ir::Type &t) { return t.is_tile() ? tensor_str(t) : elem_name(t); }

std::string value_type_str(const Val &v) {
  if (v.kind == Val::Kind::Tensor && v.tensor)
    return ir_type_str(v.tensor->type);
  if (v.kind == Val::Kind::Tuple) {
    std::string s = "(";
    for (size_t i = 0; i < v.elems.size(); ++i)
      s += (i ? ", " : "") + value_type_str(v.elems[i]);
    return s + (v.elems.size() == 1 ? ",)" : ")");
  }
  if (v.kind == Val::Kind::None)
    return "None";
  if (v.kind == Val::Kind::BlockPtr) {
    std::string s = "block pointer to " +
                    elem_name(ir::Type(v.elems[BlockPtrInfo::base_at()].tensor->type.elem)) + " [";
    for (size_t i = 0; i < v.block->rank(); ++i)
      s += (i ? ", " : "") + std::to_string(v.block->block_shape[i]);
    return s + "]";
  }
  if (v.kind == Val::Kind::TensorDesc)
    return tensor_desc_str(v);
  return "constexpr " + py_type_name(v);
}

bool is_py_number(const Val &v) {
  return v.kind == Val::Kind::Bool || v.kind == Val::Kind::Int || v.kind == Val::Kind::Float;
}

bool same_val(const Val &a, const Val &b) {
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Val::Kind::None:
    return true;
  case Val::Kind::Bool:
    return a.b == b.b;
  case Val::Kind::Int:
    return a.i == b.i && a.u64 == b.u64;
  case Val::Kind::Float: // bitwise: a NaN is the same as itself, -0.0 differs from 0.0
    return std::memcmp(&a.f, &b.f, sizeof(double)) == 0;
  case Val::Kind::Str:
    return a.str == b.str;
  case Val::Kind::DType:
    return a.type == b.type;
  case Val::Kind::Tensor:
    return a.tensor == b.tensor;
  case Val::Kind::Function:
    return a.fn == b.fn;
  case Val::Kind::HostFunction:
    return a.host == b.host;
  case Val::Kind::Module:
  case Val::Kind::Builtin:
    return a.str == b.str;
  case Val::Kind::TupleClass:
    return a.named == b.named;
  case Val::Kind::BlockPtr:
  case Val::Kind::TensorDesc:
    if (!a.same_structure(b) || (a.block && !(*a.block == *b.block)))
      return false;
    [[fallthrough]];
  case Val::Kind::Method:
  case Val::Kind::Tuple:
  case Val::Kind::Slice:
    if (a.str != b.str || a.elems.size() != b.elems.size() ||
        (a.named ? !b.named || a.named->name != b.named->name : bool(b.named)))
      return false;
    for (size_t i = 0; i < a.elems.size(); ++i)
      if (!same_val(a.elems[i], b.elems[i]))
        return false;
    return true;
  }
  return false;
}

// `tl.const` (or `const`): a pointer parameter to constant data.
bool is_const_annotation(const ast::Expr *a) {
  if (!a)
    return false;
  if (a->kind == ast::ExprKind::Name)
    return static_cast<const ast::NameExpr *>(a)->id == "const";
  return a->kind == ast::ExprKind::Attribute &&
         static_cast<const ast::AttributeExpr *>(a)->attr == "const";
}

// Constness is a front-end typing rule (stores, joins): later stages never see it.
void clear_const(ir::Function &fn) {
  auto clear_block_args = [](ir::Block *b) {
    for (size_t i = 0; i < b->num_args(); ++i)
      b->arg(i)->type.is_const = false;
  };
  clear_block_args(fn.entry());
  ir::walk(fn.entry(), [&](ir::Op *op) {
    for (size_t i = 0; i < op->num_results(); ++i)
      op->result(i)->type.is_const = false;
    for (size_t i = 0; i < op->num_regions(); ++i)
      if (ir::Block *b = op->region(i)->block())
        clear_block_args(b);
  });
}

// Triton tests the annotation's text for "constexpr": `tl.constexpr`, `constexpr`,
// `triton.language.constexpr` and the string forms all count.
bool is_constexpr_annotation(const ast::Expr *a) {
  if (!a)
    return false;
  switch (a->kind) {
  case ast::ExprKind::Name:
    return static_cast<const ast::NameExpr *>(a)->id == "constexpr";
  case ast::ExprKind::Attribute:
    return static_cast<const ast::AttributeExpr *>(a)->attr == "constexpr";
  case ast::ExprKind::Str:
    return static_cast<const ast::StrExpr *>(a)->value.find("constexpr") != std::string::npos;
  default:
    return false;
  }
}

static bool stmt_contains_return(const ast::Stmt &s) {
  switch (s.kind) {
  case ast::StmtKind::Return:
    return true;
  case ast::StmtKind::If: {
    auto &i = static_cast<const ast::IfStmt &>(s);
    return contains_return(i.body) || contains_return(i.orelse);
  }
  case ast::StmtKind::For: {
    auto &f = static_cast<const ast::ForStmt &>(s);
    return contains_return(f.body) || contains_return(f.orelse);
  }
  case ast::StmtKind::While: {
    auto &w = static_cast<const ast::WhileStmt &>(s);
    return contains_return(w.body) || contains_return(w.orelse);
  }
  default:
    return false;
  }
}

// Syntactic, and not into callees: an inlined callee's `return` ends only the callee.
bool contains_return(const ast::StmtList &stmts) {
  for (const ast::StmtPtr &s : stmts)
    if (stmt_contains_return(*s))
      return true;
  return false;
}

Val Lowerer::sanitize_assigned(const Val &v, SourceLoc loc) {
  if (is_py_number(v))
    return Val::of(to_tensor(*this, v, loc));
  if (v.kind == Val::Kind::Tuple) {
    Val t = v;
    for (Val &e : t.elems)
      e = sanitize_assigned(e, loc);
    return t;
  }
  return v;
}

bool Lowerer::constexpr_truth(const Val &cond, SourceLoc loc) {
  switch (cond.kind) {
  case Val::Kind::Bool:
    return cond.b;
  case Val::Kind::Int:
    return cond.i != 0;
  case Val::Kind::None:
    return false;
  default:
    throw CompileError(loc, "`if` conditionals can only accept values of type {bool, int, "
                            "NoneType}, not objects of type " +
                                py_type_name(cond));
  }
}

ir::Value *Lowerer::emit_condition(const Val &cond, SourceLoc loc) {
  if (cond.is_tensor())
    return to_condition(*this, cond, loc);
  bool truth = constexpr_truth(cond, loc);
  return b_.constant_int(ir::Type(ir::DType::I1), truth ? 1 : 0, loc);
}

// --- Emitter ---

Val Lowerer::call_function(const Val &fn, std::vector<Val> args, SourceLoc loc) {
  CallArgs ca;
  ca.args = std::move(args);
  ca.loc = loc;
  ++no_stops_; // a combiner region runs per element pair: no debugger stops in it
  struct Restore {
    int &n;
    ~Restore() { --n; }
  } restore{no_stops_};
  return inline_call(fn, std::move(ca));
}

void Lowerer::warn(SourceLoc loc, const std::string &msg) {
  if (dry_run_depth_ > 0 || quiet_ > 0) // trial runs and copies must not warn twice
    return;
  warnings_.push_back(file_path(loc) + ":" + std::to_string(loc.line) + ": " + msg);
}

void Lowerer::static_print(const std::string &text) {
  if (dry_run_depth_ > 0 || quiet_ > 0) // trial runs and copies must not print twice
    return;
  static_out_ += text;
  static_out_ += '\n';
}

std::string Lowerer::file_path(SourceLoc loc) const {
  if (loc.file >= 0 && static_cast<size_t>(loc.file) < sm_.num_files())
    return sm_.file(loc.file).path;
  return frames_.empty() ? std::string() : frame().fn->src->file;
}

std::string Lowerer::function_name() const {
  return frames_.empty() ? std::string() : frame().fn->def->name;
}

const ParsedFunction &Lowerer::parsed(const std::shared_ptr<const FunctionSource> &src,
                                      SourceLoc loc) {
  TILEC_ASSERT(src, "a @jit function value without its source");
  auto it = parsed_.find(src.get());
  if (it != parsed_.end())
    return *it->second;
  auto p = std::make_unique<ParsedFunction>();
  p->src = src;
  p->file = sm_.add(src->file, src->source, src->first_line);
  p->module = frontend::parse(sm_, p->file);
  for (const ast::StmtPtr &s : p->module.body) {
    if (s->kind != ast::StmtKind::FunctionDef)
      continue;
    auto *def = static_cast<const ast::FunctionDefStmt *>(s.get());
    if (!p->def || def->name == src->name)
      p->def = def;
  }
  if (!p->def)
    throw CompileError(loc.valid() ? loc : SourceLoc{p->file, src->first_line, 1},
                       "no function definition found in the source of '" + src->name + "'");
  return *parsed_.emplace(src.get(), std::move(p)).first->second;
}

// --- the kernel ---

// The value a kernel parameter (or a part of a tuple parameter, named by its path) has in
// the body: a constexpr, or run-time arguments added to `fn`.
Val Lowerer::parameter_value(ir::Function &fn, const std::string &name, const ArgSpec &spec,
                             std::vector<int64_t> &divisibility, SourceLoc loc) {
  switch (spec.kind) {
  case ArgSpec::Kind::Constexpr:
    return spec.value;
  case ArgSpec::Kind::None:
    return Val::none();
  case ArgSpec::Kind::TensorDesc:
    return descriptor_parameter(fn, name, spec, divisibility, loc, opts_.tma);
  case ArgSpec::Kind::Tuple: {
    std::vector<Val> elems;
    for (size_t i = 0; i < spec.elems.size(); ++i)
      elems.push_back(
          parameter_value(fn, name + "." + std::to_string(i), spec.elems[i], divisibility, loc));
    Val t = Val::tuple(std::move(elems));
    t.named = spec.named;
    return t;
  }
  case ArgSpec::Kind::Int:
    if (spec.equal_to_1) // specialised away, as Triton does
      return Val::integer(1);
    [[fallthrough]];
  case ArgSpec::Kind::Pointer:
  case ArgSpec::Kind::Float:
  case ArgSpec::Kind::Bool: {
    ir::Type t = spec.kind == ArgSpec::Kind::Pointer ? ir::Type::pointer_to(spec.dtype)
                 : spec.kind == ArgSpec::Kind::Bool  ? ir::Type(ir::DType::I1)
                                                     : ir::Type(spec.dtype);
    Val v = Val::of(fn.entry()->add_arg(t));
    fn.arg_names.push_back(name);
    divisibility.push_back(spec.divisible_by_16 ? 16 : 1);
    return v;
  }
  }
  throw_internal(__FILE__, __LINE__, "unknown argument spec kind");
}

SemaResult Lowerer::run(const std::shared_ptr<const FunctionSource> &kernel,
                        const std::vector<ArgSpec> &args) {
  const ParsedFunction &pf = parsed(kernel, {});
  const ast::FunctionDefStmt &def = *pf.def;
  TILEC_ASSERT(def.params.size() == args.size(),
               "kernel '" + def.name + "' has " + std::to_string(def.params.size()) +
                   " parameters but " + std::to_string(args.size()) + " argument specs");

  SemaResult result;
  result.module = std::make_unique<ir::Module>();
  const std::string &name = kernel->name.empty() ? def.name : kernel->name;
  ir::Function *fn =
      result.module->add_function(kernel->entry_name.empty() ? name : kernel->entry_name);
  fn->loc = def.loc;
  b_.set_insertion_point_to_end(fn->entry());

  Frame top;
  top.fn = &pf;
  top.is_kernel = true;
  FrameGuard guard(*this, top);

  std::vector<int64_t> divisibility;
  for (size_t i = 0; i < def.params.size(); ++i) {
    const ast::Param &p = def.params[i];
    const ArgSpec &spec = args[i];
    if (p.kind == ast::Param::Kind::VarArgs || p.kind == ast::Param::Kind::KwArgs)
      throw CompileError(p.loc, "a kernel cannot have *args or **kwargs parameters");
    if (is_constexpr_annotation(p.annotation.get()) && spec.kind != ArgSpec::Kind::Constexpr)
      throw CompileError(p.loc, "parameter '" + p.name +
                                    "' is annotated tl.constexpr but was not given a "
                                    "compile-time value");
    Val v = parameter_value(*fn, p.name, spec, divisibility, p.loc);
    if (is_const_annotation(p.annotation.get()) && v.is_tensor() && v.tensor->type.is_ptr())
      v.tensor->type.is_const = true;
    set_var(p.name, v);
  }
  // Facts the GPU back end uses (Triton's tt.divisibility), one per body argument.
  result.module->attrs.push_back({"tt.divisibility", divisibility});
  result.module->attrs.push_back({"num_warps", int64_t{opts_.num_warps}});
  result.module->attrs.push_back({"num_stages", int64_t{opts_.num_stages}});

  lower_seq(def.body, 0, nullptr);
  b_.set_insertion_point_to_end(fn->entry());
  b_.create(ir::OpKind::Return, {}, {}, {}, def.loc);
  clear_const(*fn);
  result.static_output = std::move(static_out_);
  return result;
}

} // namespace detail

namespace {
void warn_to_stderr(const std::string &message) {
  std::fputs(("tilec: warning: " + message + "\n").c_str(), stderr);
}
std::atomic<WarningHandler> g_warning_handler{warn_to_stderr};
} // namespace

void set_warning_handler(WarningHandler h) { g_warning_handler = h ? h : warn_to_stderr; }

void report_warning(const std::string &message) { g_warning_handler.load()(message); }

SemaResult lower_kernel(const std::shared_ptr<const FunctionSource> &kernel,
                        const std::vector<ArgSpec> &args, const CompileOptions &opts,
                        SourceManager &sm) {
  TILEC_ASSERT(kernel, "lower_kernel without a kernel");
  auto lower = [&](bool debug_stops) {
    detail::Lowerer l(opts, sm, debug_stops);
    try {
      SemaResult r = l.run(kernel, args);
      r.warnings = std::move(l.warnings_);
      return std::make_pair(std::move(r), l.saw_breakpoint());
    } catch (const CompileError &e) {
      if (l.static_out_.empty())
        throw;
      throw CompileErrorWithOutput(e, std::move(l.static_out_));
    }
  };
  auto [result, saw_breakpoint] = lower(false);
  if (saw_breakpoint) // breakpoint() was met: lower again with a stop before every statement
    result = std::move(lower(true).first);
  for (const std::string &w : result.warnings)
    report_warning(w);
  return std::move(result);
}

} // namespace tilec::sema
