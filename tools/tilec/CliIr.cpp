// `tilec ir FILE.py:KERNEL --signature ...`: a kernel's Tile IR after a pipeline stage.
#include <algorithm>
#include <cstdio>

#include "CliArgs.h"
#include "CliCommands.h"
#include "frontend/Parser.h"
#include "frontend/sema/ModuleResolver.h"
#include "ir/Printer.h"
#include "pipeline/GpuPipeline.h"
#include "pipeline/Pipeline.h"

namespace tilec::cli {

namespace {

// Triton looks for "constexpr" in the annotation: tl.constexpr, constexpr, or a string.
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
      kp.constexpr_annotated = is_constexpr_annotation(p.annotation.get());
      kp.default_value = literal(p.default_value.get());
      params.push_back(std::move(kp));
    }
    return params;
  }
  throw InternalError("tilec ir: the resolved source of '" + fs.name + "' has no such def");
}

int parse_count(const ParsedArgs &a, const std::string &name, int def) {
  if (!a.has(name))
    return def;
  std::string v = a.get(name);
  try {
    size_t used = 0;
    int n = std::stoi(v, &used);
    if (used == v.size() && n > 0)
      return n;
  } catch (const std::exception &) {
  }
  throw UsageError("--" + name + " needs a positive integer, got '" + v + "'");
}

int run_ir(const std::vector<std::string> &args) {
  ParsedArgs a = parse_args(args, {"signature", "constexpr", "stage", "num-warps", "num-stages"},
                            {"debug", "locations"});
  if (a.positional.size() != 1)
    throw UsageError("ir takes one FILE.py:KERNEL");
  const std::string &target = a.positional[0];
  size_t colon = target.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == target.size())
    throw UsageError("expected FILE.py:KERNEL, got '" + target + "'");
  std::string path = target.substr(0, colon), name = target.substr(colon + 1);

  pipeline::PipelineOptions opts;
  opts.verify = true;
  opts.compile.num_warps = parse_count(a, "num-warps", opts.compile.num_warps);
  opts.compile.num_stages = parse_count(a, "num-stages", opts.compile.num_stages);
  std::string bad = pipeline::launch_options_error(opts.compile.num_warps, opts.compile.num_stages, 0);
  if (!bad.empty())
    throw UsageError(bad);
  opts.compile.debug = a.has("debug");
  opts.stop_after = a.get("stage");
  if (!opts.stop_after.empty()) {
    auto names = pipeline::stage_names();
    if (std::find(names.begin(), names.end(), opts.stop_after) == names.end()) {
      std::string list;
      for (const auto &n : names)
        list += (list.empty() ? "" : ", ") + n;
      throw UsageError("unknown --stage '" + opts.stop_after + "' (stages: " + list + ")");
    }
  }
  std::vector<sema::ArgSpec> signature = parse_signature(a.get("signature"));
  std::vector<std::pair<std::string, std::string>> constexprs;
  for (const auto &[opt, value] : a.options) {
    if (opt != "constexpr")
      continue;
    size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--constexpr expects NAME=VALUE, got '" + value + "'");
    constexprs.emplace_back(value.substr(0, eq), value.substr(eq + 1));
  }

  auto sm = std::make_shared<SourceManager>();
  try {
    std::shared_ptr<const sema::FunctionSource> fs = sema::resolve_kernel(*sm, path, name);
    std::vector<sema::ArgSpec> specs =
        bind_arguments(name, kernel_params(*fs), signature, constexprs);
    pipeline::CompiledTileKernel k = pipeline::compile_to_tile_ir(fs, specs, opts, sm);
    if (!k.static_output.empty())
      std::fputs(k.static_output.c_str(), stderr);
    ir::PrintOptions po;
    po.locations = a.has("locations");
    po.sources = k.sources.get();
    std::fputs(ir::print(*k.module, po).c_str(), stdout);
    return 0;
  } catch (const CompileError &e) {
    std::fputs(sema::static_output_of(e).c_str(), stderr); // printed before the error
    std::fputs(render_diagnostic(*sm, e.loc(), "error", e.message()).c_str(), stderr);
    return 1;
  }
}

} // namespace tilec::cli
