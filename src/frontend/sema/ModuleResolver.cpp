#include "frontend/sema/ModuleResolver.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "frontend/Parser.h"
#include "frontend/sema/Builtins.h"
#include "support/Files.h"

namespace tilec::sema {

using namespace ast;

namespace {

// The module names Sema knows, after `triton` -> `tilec`; nullopt for any other.
std::optional<std::string> canonical_module(const std::string &name) {
  std::string n = name;
  if (n == "triton" || n.rfind("triton.", 0) == 0)
    n = "tilec" + n.substr(6);
  static const std::set<std::string> known = {"tilec",
                                              "tilec.language",
                                              "tilec.language.math",
                                              "tilec.language.random",
                                              "tilec.language.core",
                                              "tilec.language.standard",
                                              "tilec.language.extra",
                                              "tilec.language.extra.cuda",
                                              "tilec.language.extra.libdevice",
                                              "tilec.language.extra.cuda.libdevice"};
  if (known.count(n))
    return n;
  return std::nullopt;
}

const char *kHostValue = "value computed by host code (the tilec CLI does not run Python)";

// What a top-level name is bound to when the module has run.
struct Binding {
  enum class Kind { Module, Constexpr, JitDef, Unsupported } kind = Kind::Unsupported;
  std::string module;                   // Module: canonical name
  Val value;                            // Constexpr
  const FunctionDefStmt *def = nullptr; // JitDef
  size_t stmt = 0;                      // JitDef: index in the module body (for its extent)
  std::string what;                     // Unsupported: "function (not a @jit function)", ...
};

std::string read_whole_file(const std::string &path) {
  std::string text, error;
  if (!read_regular_file(path, text, error))
    throw CompileError(SourceLoc{}, "cannot read '" + path + "': " + error);
  return text;
}

} // namespace

struct ModuleResolver::Impl {
  SourceManager &sm;
  std::string path;
  int file = -1;
  Module module;
  std::vector<frontend::StmtExtent> extents;
  std::map<std::string, Binding> bindings;
  std::map<std::string, std::string> strings; // names bound to strings known statically
  std::vector<std::string> jit_order;
  std::map<const FunctionDefStmt *, std::shared_ptr<const FunctionSource>> built;
  std::set<const FunctionDefStmt *> in_progress;

  Impl(SourceManager &s, std::string p, std::string text) : sm(s), path(std::move(p)) {
    file = sm.add(path, std::move(text), 1);
    module = frontend::parse_module_lenient(sm, file, extents);
    for (size_t i = 0; i < module.body.size(); ++i)
      bind_statement(*module.body[i], i);
  }

  // ---- evaluation of the few host expressions the CLI understands ----

  std::optional<std::string> static_string(const Expr &e) const {
    switch (e.kind) {
    case ExprKind::Str:
      return static_cast<const StrExpr &>(e).value;
    case ExprKind::Name: {
      auto it = strings.find(static_cast<const NameExpr &>(e).id);
      if (it == strings.end())
        return std::nullopt;
      return it->second;
    }
    case ExprKind::BinOp: {
      const auto &b = static_cast<const BinOpExpr &>(e);
      if (b.op != BinOp::Add)
        return std::nullopt;
      auto l = static_string(*b.lhs), r = static_string(*b.rhs);
      if (!l || !r)
        return std::nullopt;
      return *l + *r;
    }
    case ExprKind::Call: {
      // os.environ.get(KEY, DEFAULT) / os.getenv(KEY, DEFAULT): the default
      const auto &c = static_cast<const CallExpr &>(e);
      std::string callee = dotted(*c.func);
      if ((callee == "os.environ.get" || callee == "os.getenv") && c.args.size() == 2 &&
          c.keywords.empty())
        return static_string(*c.args[1]);
      return std::nullopt;
    }
    default:
      return std::nullopt;
    }
  }

  // "a.b.c" for a chain of names and attributes, "" otherwise.
  static std::string dotted(const Expr &e) {
    if (e.kind == ExprKind::Name)
      return static_cast<const NameExpr &>(e).id;
    if (e.kind == ExprKind::Attribute) {
      const auto &a = static_cast<const AttributeExpr &>(e);
      std::string base = dotted(*a.value);
      return base.empty() ? "" : base + "." + a.attr;
    }
    return "";
  }

  // The canonical module an expression denotes, if any.
  std::optional<std::string> module_of(const Expr &e) const {
    if (e.kind == ExprKind::Name) {
      auto it = bindings.find(static_cast<const NameExpr &>(e).id);
      if (it != bindings.end() && it->second.kind == Binding::Kind::Module)
        return it->second.module;
      return std::nullopt;
    }
    if (e.kind == ExprKind::Attribute) {
      const auto &a = static_cast<const AttributeExpr &>(e);
      auto base = module_of(*a.value);
      if (!base)
        return std::nullopt;
      return canonical_module(*base + "." + a.attr);
    }
    if (e.kind == ExprKind::Call) {
      const auto &c = static_cast<const CallExpr &>(e);
      if (dotted(*c.func) == "importlib.import_module" && c.args.size() == 1 && c.keywords.empty())
        if (auto s = static_string(*c.args[0]))
          return canonical_module(*s);
    }
    return std::nullopt;
  }

  // A literal constant (a sign allowed on numbers), as a constexpr Val.
  static std::optional<Val> literal(const Expr &e, bool negate = false) {
    switch (e.kind) {
    case ExprKind::Int: {
      const auto &x = static_cast<const IntExpr &>(e);
      const uint64_t limit = negate ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
      if (x.overflow || x.value > limit)
        return std::nullopt;
      if (negate)
        return Val::integer(x.value == (uint64_t{1} << 63) ? INT64_MIN
                                                           : -static_cast<int64_t>(x.value));
      return Val::integer(static_cast<int64_t>(x.value));
    }
    case ExprKind::Float: {
      double v = static_cast<const FloatExpr &>(e).value;
      return Val::floating(negate ? -v : v);
    }
    case ExprKind::UnaryOp: {
      const auto &u = static_cast<const UnaryOpExpr &>(e);
      if (negate || (u.op != UnaryOp::Neg && u.op != UnaryOp::Pos))
        return std::nullopt;
      if (u.operand->kind != ExprKind::Int && u.operand->kind != ExprKind::Float)
        return std::nullopt;
      return literal(*u.operand, u.op == UnaryOp::Neg);
    }
    default:
      break;
    }
    if (negate)
      return std::nullopt;
    if (e.kind == ExprKind::Bool)
      return Val::boolean(static_cast<const BoolExpr &>(e).value);
    if (e.kind == ExprKind::Str)
      return Val::string(static_cast<const StrExpr &>(e).value);
    if (e.kind == ExprKind::None)
      return Val::none();
    return std::nullopt;
  }

  // `tl.constexpr(<literal>)` (any spelling of the language module).
  std::optional<Val> constexpr_call(const Expr &e) const {
    if (e.kind != ExprKind::Call)
      return std::nullopt;
    const auto &c = static_cast<const CallExpr &>(e);
    if (c.func->kind != ExprKind::Attribute || c.args.size() != 1 || !c.keywords.empty())
      return std::nullopt;
    const auto &a = static_cast<const AttributeExpr &>(*c.func);
    if (a.attr != "constexpr" ||
        module_of(*a.value) != std::optional<std::string>("tilec.language"))
      return std::nullopt;
    return literal(*c.args[0]);
  }

  // @jit, @triton.jit, @tilec.jit, and the same called: @triton.jit(noinline=True).
  bool is_jit_decorator(const Expr &d, bool *noinline = nullptr) const {
    const Expr *e = &d;
    const CallExpr *call = nullptr;
    if (e->kind == ExprKind::Call) {
      call = static_cast<const CallExpr *>(e);
      e = call->func.get();
    }
    bool jit = false;
    if (e->kind == ExprKind::Name) {
      jit = static_cast<const NameExpr &>(*e).id == "jit";
    } else if (e->kind == ExprKind::Attribute) {
      const auto &a = static_cast<const AttributeExpr &>(*e);
      std::string base = dotted(*a.value);
      jit = a.attr == "jit" && (base == "triton" || base == "tilec" ||
                                module_of(*a.value) == std::optional<std::string>("tilec"));
    }
    if (jit && call && noinline)
      for (const auto &k : call->keywords)
        if (k.name == "noinline" && k.value->kind == ExprKind::Bool)
          *noinline = static_cast<const BoolExpr &>(*k.value).value;
    return jit;
  }

  // ---- the module's top level, in order ----

  void bind(const std::string &name, Binding b) { bindings[name] = std::move(b); }

  void bind_unsupported(const std::string &name, std::string what) {
    Binding b;
    b.what = std::move(what);
    bind(name, std::move(b));
  }

  void bind_module(const std::string &name, const std::string &canonical) {
    Binding b;
    b.kind = Binding::Kind::Module;
    b.module = canonical;
    bind(name, std::move(b));
  }

  void bind_value(const std::string &name, const Expr &value) {
    strings.erase(name);
    if (auto s = static_string(value))
      strings[name] = *s;
    std::optional<Val> v = literal(value);
    if (!v)
      v = constexpr_call(value);
    if (v) {
      Binding b;
      b.kind = Binding::Kind::Constexpr;
      b.value = *v;
      bind(name, std::move(b));
      return;
    }
    if (auto m = module_of(value)) {
      bind_module(name, *m);
      return;
    }
    if (value.kind == ExprKind::Name) { // an alias of another global
      auto it = bindings.find(static_cast<const NameExpr &>(value).id);
      if (it != bindings.end()) {
        Binding copy = it->second;
        bind(name, std::move(copy));
        return;
      }
    }
    bind_unsupported(name, kHostValue);
  }

  static const std::vector<ExprPtr> &elements(const Expr &e) {
    return e.kind == ExprKind::Tuple ? static_cast<const TupleExpr &>(e).elts
                                     : static_cast<const ListExpr &>(e).elts;
  }

  // Every name bound by an assignment target (tuples unpack host values).
  void bind_target(const Expr &target, const Expr *value) {
    if (target.kind == ExprKind::Name) {
      const std::string &name = static_cast<const NameExpr &>(target).id;
      if (value) {
        bind_value(name, *value);
      } else {
        strings.erase(name);
        bind_unsupported(name, kHostValue);
      }
      return;
    }
    if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List) {
      const auto &elts = elements(target);
      // `A, B = 1, 2` pairs up; anything else unpacks a host value.
      const std::vector<ExprPtr> *values = nullptr;
      if (value && (value->kind == ExprKind::Tuple || value->kind == ExprKind::List))
        values = &elements(*value);
      bool pairs = values && values->size() == elts.size();
      for (size_t i = 0; pairs && i < elts.size(); ++i)
        pairs = elts[i]->kind != ExprKind::Starred && (*values)[i]->kind != ExprKind::Starred;
      for (size_t i = 0; i < elts.size(); ++i)
        bind_target(*elts[i], pairs ? (*values)[i].get() : nullptr);
    } else if (target.kind == ExprKind::Starred) {
      bind_target(*static_cast<const StarredExpr &>(target).value, nullptr);
    }
    // x.attr = ... / x[i] = ...: binds no name
  }

  void bind_statement(const Stmt &s, size_t index) {
    switch (s.kind) {
    case StmtKind::Import:
      for (const auto &a : static_cast<const ImportStmt &>(s).names) {
        // `import a.b` binds `a`; `import a.b as c` binds c to a.b
        std::string mod = a.asname.empty() ? a.name.substr(0, a.name.find('.')) : a.name;
        std::string name = a.asname.empty() ? mod : a.asname;
        strings.erase(name);
        if (auto c = canonical_module(mod))
          bind_module(name, *c);
        else
          bind_unsupported(name, "module '" + mod + "'");
      }
      return;
    case StmtKind::ImportFrom: {
      const auto &x = static_cast<const ImportFromStmt &>(s);
      for (const auto &a : x.names) {
        if (a.name == "*")
          continue;
        std::string name = a.asname.empty() ? a.name : a.asname;
        strings.erase(name);
        if (x.level == 0)
          if (auto c = canonical_module(x.module + "." + a.name)) {
            bind_module(name, *c);
            continue;
          }
        auto mod = x.level == 0 ? canonical_module(x.module) : std::nullopt;
        if (mod && (*mod == "tilec.language.extra.libdevice" ||
                    *mod == "tilec.language.extra.cuda.libdevice")) {
          // `from ...libdevice import tanh`: libdevice's names are their own builtins
          if (is_builtin("libdevice." + a.name)) {
            Binding b;
            b.kind = Binding::Kind::Constexpr;
            b.value = Val::builtin("libdevice." + a.name);
            bind(name, std::move(b));
          } else {
            bind_unsupported(name, "name '" + a.name + "' (not a libdevice function)");
          }
        } else if (mod && *mod == "tilec.language.extra.cuda" && is_builtin("cuda." + a.name)) {
          Binding b;
          b.kind = Binding::Kind::Constexpr;
          b.value = Val::builtin("cuda." + a.name);
          bind(name, std::move(b));
        } else if (mod)
          bindings.erase(name); // a language object (dtype, builtin): Python resolves those
        else
          bind_unsupported(name, "name imported from module '" +
                                     std::string(static_cast<size_t>(x.level), '.') + x.module +
                                     "'");
      }
      return;
    }
    case StmtKind::Assign: {
      const auto &x = static_cast<const AssignStmt &>(s);
      for (const auto &t : x.targets)
        bind_target(*t, x.value.get());
      return;
    }
    case StmtKind::AnnAssign: {
      const auto &x = static_cast<const AnnAssignStmt &>(s);
      if (x.value)
        bind_target(*x.target, x.value.get());
      return;
    }
    case StmtKind::FunctionDef: {
      const auto &x = static_cast<const FunctionDefStmt &>(s);
      strings.erase(x.name);
      bool jit = false;
      for (const auto &d : x.decorators)
        jit |= is_jit_decorator(*d);
      if (!jit) {
        bind_unsupported(x.name, "function (not a @jit function)");
        return;
      }
      Binding b;
      b.kind = Binding::Kind::JitDef;
      b.def = &x;
      b.stmt = index;
      bind(x.name, std::move(b));
      jit_order.push_back(x.name);
      return;
    }
    default:
      return; // the lenient parse keeps nothing else
    }
  }

  // ---- FunctionSources ----

  std::string def_text(size_t stmt) const {
    const frontend::StmtExtent &e = extents[stmt];
    std::string out;
    for (int line = e.begin.line; line <= e.end.line; ++line) {
      out += sm.line_text(file, line);
      out += "\n";
    }
    return out;
  }

  std::shared_ptr<const FunctionSource> build(const Binding &b) {
    auto it = built.find(b.def);
    if (it != built.end())
      return it->second;
    in_progress.insert(b.def);
    auto fs = std::make_shared<FunctionSource>();
    fs->name = b.def->name;
    fs->file = path;
    fs->source = def_text(b.stmt);
    fs->first_line = extents[b.stmt].begin.line;
    for (const auto &d : b.def->decorators)
      is_jit_decorator(*d, &fs->noinline);
    for (const std::string &name : frontend::referenced_names(*b.def)) {
      auto g = bindings.find(name);
      if (g == bindings.end())
        continue; // a local, a Python builtin, or unknown: Sema decides
      const Binding &gb = g->second;
      switch (gb.kind) {
      case Binding::Kind::Module:
        fs->globals[name] = Val::module(gb.module);
        break;
      case Binding::Kind::Constexpr:
        fs->globals[name] = gb.value;
        break;
      case Binding::Kind::JitDef:
        if (in_progress.count(gb.def)) {
          fs->unsupported_globals[name] = "recursive @jit function '" + gb.def->name + "'";
        } else {
          Val v;
          v.kind = Val::Kind::Function;
          v.fn = build(gb);
          fs->globals[name] = std::move(v);
        }
        break;
      case Binding::Kind::Unsupported:
        fs->unsupported_globals[name] = gb.what;
        break;
      }
    }
    in_progress.erase(b.def);
    built[b.def] = fs;
    return fs;
  }

  std::shared_ptr<const FunctionSource> kernel(const std::string &name) {
    // The last def of that name, even if a later statement rebinds the name.
    const FunctionDefStmt *def = nullptr;
    size_t index = 0;
    for (size_t i = 0; i < module.body.size(); ++i) {
      const Stmt &s = *module.body[i];
      if (s.kind == StmtKind::FunctionDef && static_cast<const FunctionDefStmt &>(s).name == name) {
        def = static_cast<const FunctionDefStmt *>(&s);
        index = i;
      }
    }
    if (!def) {
      for (const auto &skipped : module.skipped_defs)
        if (skipped.name == name)
          throw CompileError(skipped.loc, skipped.message);
      std::string found;
      for (const auto &n : jit_order)
        if (found.find("'" + n + "'") == std::string::npos)
          found += (found.empty() ? "'" : ", '") + n + "'";
      throw CompileError(SourceLoc{}, "no function '" + name + "' in '" + path + "'; " +
                                          (found.empty() ? "it defines no @jit functions"
                                                         : "its @jit functions are: " + found));
    }
    auto b = bindings.find(name);
    if (b != bindings.end() && b->second.kind == Binding::Kind::JitDef && b->second.def == def)
      return build(b->second);
    bool jit = false;
    for (const auto &d : def->decorators)
      jit |= is_jit_decorator(*d);
    if (!jit)
      throw CompileError(def->loc, "function '" + name +
                                       "' is not a kernel: it is not decorated with @jit "
                                       "(@triton.jit or @tilec.jit)");
    Binding own; // a jit def whose name a later statement rebinds
    own.kind = Binding::Kind::JitDef;
    own.def = def;
    own.stmt = index;
    return build(own);
  }
};

ModuleResolver::ModuleResolver(SourceManager &sm, const std::string &path)
    : ModuleResolver(sm, path, read_whole_file(path)) {}

ModuleResolver::ModuleResolver(SourceManager &sm, const std::string &path, std::string text)
    : impl_(std::make_unique<Impl>(sm, path, std::move(text))) {}

ModuleResolver::~ModuleResolver() = default;

std::vector<std::string> ModuleResolver::jit_functions() const {
  std::vector<std::string> out;
  for (const auto &n : impl_->jit_order)
    if (std::find(out.begin(), out.end(), n) == out.end())
      out.push_back(n);
  return out;
}

std::shared_ptr<const FunctionSource> ModuleResolver::kernel(const std::string &name) {
  return impl_->kernel(name);
}

int ModuleResolver::file_id() const { return impl_->file; }

std::shared_ptr<const FunctionSource> resolve_kernel(SourceManager &sm, const std::string &path,
                                                     const std::string &name) {
  return ModuleResolver(sm, path).kernel(name);
}

} // namespace tilec::sema
