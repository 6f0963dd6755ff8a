// A kernel's parameters as the signature binding sees them, read from its def.
#include "aot/Signature.h"
#include "frontend/Parser.h"
#include "frontend/sema/SemaImpl.h" // is_constexpr_annotation: Sema's own rule

namespace tilec::aot {

namespace {

// A literal default (`= 4`, `= -1.5`, `= "x"`, `= None`, `= True`) as a constexpr value.
std::optional<sema::Val> literal(const ast::Expr *e) {
  if (!e)
    return std::nullopt;
  switch (e->kind) {
  case ast::ExprKind::Int: {
    auto *i = static_cast<const ast::IntExpr *>(e);
    if (i->overflow || i->value > uint64_t(INT64_MAX))
      return std::nullopt;
    return sema::Val::integer(static_cast<int64_t>(i->value));
  }
  case ast::ExprKind::Float:
    return sema::Val::floating(static_cast<const ast::FloatExpr *>(e)->value);
  case ast::ExprKind::Str:
    return sema::Val::string(static_cast<const ast::StrExpr *>(e)->value);
  case ast::ExprKind::Bool:
    return sema::Val::boolean(static_cast<const ast::BoolExpr *>(e)->value);
  case ast::ExprKind::None:
    return sema::Val::none();
  case ast::ExprKind::UnaryOp: {
    auto *u = static_cast<const ast::UnaryOpExpr *>(e);
    auto v = literal(u->operand.get());
    if (u->op != ast::UnaryOp::Neg || !v)
      return std::nullopt;
    if (v->kind == sema::Val::Kind::Int)
      return sema::Val::integer(-v->i);
    if (v->kind == sema::Val::Kind::Float)
      return sema::Val::floating(-v->f);
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

} // namespace

// The kernel's parameters, read from its def (parse errors surface as CompileErrors).
std::vector<KernelParam> kernel_params(const sema::FunctionSource &fs) {
  SourceManager scratch;
  int id = scratch.add(fs.file, fs.source, fs.first_line);
  ast::Module m = frontend::parse(scratch, id);
  for (const auto &s : m.body) {
    if (s->kind != ast::StmtKind::FunctionDef)
      continue;
    auto *def = static_cast<const ast::FunctionDefStmt *>(s.get());
    if (def->name != fs.name)
      continue;
    std::vector<KernelParam> params;
    for (const ast::Param &p : def->params) {
      if (p.kind == ast::Param::Kind::VarArgs || p.kind == ast::Param::Kind::KwArgs)
        continue; // Sema reports these
      KernelParam kp;
      kp.name = p.name;
      kp.constexpr_annotated = sema::detail::is_constexpr_annotation(p.annotation.get());
      kp.default_value = literal(p.default_value.get());
      params.push_back(std::move(kp));
    }
    return params;
  }
  throw InternalError("kernel_params: the resolved source of '" + fs.name + "' has no such def");
}

} // namespace tilec::aot
