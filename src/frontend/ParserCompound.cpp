// Compound statements: decorators, def and its parameters, blocks, if/for/while.
#include <set>

#include "frontend/ParserImpl.h"

namespace tilec::frontend {

using namespace ast;

std::vector<ExprPtr> ParserImpl::parse_decorators() {
  std::vector<ExprPtr> out;
  while (at_op("@")) {
    take();
    size_t begin = i_;
    try {
      ExprPtr e = parse_named_expression();
      if (cur().kind != TokKind::Newline)
        unexpected("end of line after decorator");
      take();
      out.push_back(std::move(e));
    } catch (const CompileError &first_error) {
      i_ = begin;
      try {
        out.push_back(parse_decorator_fallback());
      } catch (const CompileError &) {
        throw first_error;
      }
    }
  }
  return out;
}

// Decorators are host code: one whose arguments use syntax kernels may not (the dicts of
// @triton.autotune's configs) keeps its dotted name and drops its arguments. When even
// that fails, the original error is the one to report.
ExprPtr ParserImpl::parse_decorator_fallback() {
  const Token &first = cur();
  ExprPtr e = std::make_unique<NameExpr>(first.loc, expect_name("a decorator name"));
  SourceLoc at = first.loc;
  while (accept_op("."))
    e = std::make_unique<AttributeExpr>(at, std::move(e), expect_name("a name after '.'"));
  if (at_op("(")) {
    auto call = std::make_unique<CallExpr>(at);
    call->func = std::move(e);
    int depth = 0;
    do {
      const Token &t = toks_[i_];
      if (t.kind == TokKind::Newline || t.kind == TokKind::EndOfFile)
        error(t, "invalid syntax: unclosed decorator arguments");
      if (raw_is_op("(") || raw_is_op("[") || raw_is_op("{"))
        ++depth;
      else if (raw_is_op(")") || raw_is_op("]") || raw_is_op("}"))
        --depth;
      ++i_;
    } while (depth > 0);
    e = std::move(call);
  }
  if (cur().kind != TokKind::Newline)
    unexpected("end of line after decorator");
  take();
  return e;
}

StmtPtr ParserImpl::parse_def(std::vector<ExprPtr> decorators) {
  SourceLoc at = take().loc; // 'def'
  auto s = std::make_unique<FunctionDefStmt>(at);
  s->decorators = std::move(decorators);
  s->name = expect_name("a function name after 'def'");
  expect_op("(", "after the function name");
  parse_params(s->params);
  expect_op(")", "to close the parameter list");
  if (accept_op("->"))
    s->returns = parse_expression();
  expect_op(":", "after the function signature");
  s->body = parse_block("function definition on line " + std::to_string(at.line));
  return s;
}

// Parameters of a def, up to its ')'.
void ParserImpl::parse_params(std::vector<Param> &params) {
  const char *close = ")";
  bool kw_only = false, seen_default = false, seen_kwargs = false, seen_slash = false;
  std::set<std::string> names;
  while (!at_op(close)) {
    const Token &t = cur();
    if (seen_kwargs)
      error(t, "invalid syntax: arguments cannot follow var-keyword argument");
    Param p;
    p.loc = t.loc;
    if (accept_op("/")) {
      if (params.empty() || seen_slash || kw_only)
        error(t, "invalid syntax: '/' must follow at least one parameter, once, before '*'");
      seen_slash = true;
    } else {
      if (accept_op("**")) {
        p.kind = Param::Kind::KwArgs;
        seen_kwargs = true;
      } else if (accept_op("*")) {
        if (kw_only)
          error(t, "invalid syntax: * argument may appear only once");
        kw_only = true;
        if (at_op(",") || at_op(close)) {
          if (at_op(close) || ahead(1).is_op(close))
            error(t, "invalid syntax: named arguments must follow bare *");
          take();
          continue;
        }
        p.kind = Param::Kind::VarArgs;
      } else if (kw_only) {
        p.kind = Param::Kind::KwOnly;
      }
      p.loc = cur().loc;
      p.name = expect_name("a parameter name");
      if (!names.insert(p.name).second)
        error(p.loc, "duplicate argument '" + p.name + "' in function definition");
      if (accept_op(":"))
        p.annotation = parse_expression();
      if (at_op("=")) {
        if (p.kind == Param::Kind::VarArgs || p.kind == Param::Kind::KwArgs)
          error(cur(), "invalid syntax: var-positional/keyword arguments cannot have defaults");
        take();
        p.default_value = parse_expression();
        if (p.kind == Param::Kind::Normal)
          seen_default = true;
      } else if (p.kind == Param::Kind::Normal && seen_default) {
        error(p.loc, "parameter without a default follows parameter with a default");
      }
      params.push_back(std::move(p));
    }
    if (!accept_op(","))
      break;
  }
}

StmtList ParserImpl::parse_block(const std::string &owner) {
  StmtList body;
  if (cur().kind != TokKind::Newline) { // one-line body: `if x: y; z`
    if (cur().kind == TokKind::EndOfFile)
      error(cur(), "expected an indented block after " + owner);
    parse_simple_statements(body);
    return body;
  }
  take();
  if (cur().kind != TokKind::Indent)
    error(cur(), "expected an indented block after " + owner);
  take();
  while (cur().kind != TokKind::Dedent && cur().kind != TokKind::EndOfFile)
    parse_statement(body);
  if (cur().kind == TokKind::Dedent)
    take();
  return body;
}

StmtPtr ParserImpl::parse_if(bool is_elif) {
  SourceLoc at = take().loc; // 'if' / 'elif'
  auto s = std::make_unique<IfStmt>(at);
  const char *kw = is_elif ? "elif" : "if";
  s->test = parse_named_expression();
  expect_op(":", std::string("after ") + kw + " condition");
  s->body = parse_block(std::string("'") + kw + "' statement on line " + std::to_string(at.line));
  if (at_kw("elif")) {
    s->orelse.push_back(parse_if(true));
  } else if (at_kw("else")) {
    SourceLoc else_at = take().loc;
    expect_op(":", "after 'else'");
    s->orelse = parse_block("'else' statement on line " + std::to_string(else_at.line));
  }
  return s;
}

StmtPtr ParserImpl::parse_for() {
  SourceLoc at = take().loc;
  auto s = std::make_unique<ForStmt>(at);
  s->target = parse_target_list();
  check_target(*s->target, false);
  if (!accept_kw("in"))
    unexpected("'in' after the for loop variable");
  s->iter = parse_star_expressions();
  expect_op(":", "after the for loop header");
  s->body = parse_block("'for' statement on line " + std::to_string(at.line));
  if (at_kw("else")) {
    SourceLoc else_at = take().loc;
    expect_op(":", "after 'else'");
    s->orelse = parse_block("'else' statement on line " + std::to_string(else_at.line));
  }
  return s;
}

StmtPtr ParserImpl::parse_while() {
  SourceLoc at = take().loc;
  auto s = std::make_unique<WhileStmt>(at);
  s->test = parse_named_expression();
  expect_op(":", "after while condition");
  s->body = parse_block("'while' statement on line " + std::to_string(at.line));
  if (at_kw("else")) {
    SourceLoc else_at = take().loc;
    expect_op(":", "after 'else'");
    s->orelse = parse_block("'else' statement on line " + std::to_string(else_at.line));
  }
  return s;
}

} // namespace tilec::frontend
