// Simple statements, entry points and error recovery. Compound statements:
// ParserCompound.cpp; expressions: ParserExpr.cpp.
#include "frontend/Parser.h"

#include <algorithm>

#include "frontend/Lexer.h"
#include "frontend/ParserImpl.h"

namespace tilec::frontend {

using namespace ast;

namespace {

bool is_aug_op(const Token &t, BinOp &op) {
  static const struct {
    const char *spelling;
    BinOp op;
  } table[] = {{"+=", BinOp::Add},     {"-=", BinOp::Sub},       {"*=", BinOp::Mul},
               {"/=", BinOp::Div},     {"//=", BinOp::FloorDiv}, {"%=", BinOp::Mod},
               {"**=", BinOp::Pow},    {"@=", BinOp::MatMul},    {"<<=", BinOp::LShift},
               {">>=", BinOp::RShift}, {"&=", BinOp::BitAnd},    {"|=", BinOp::BitOr},
               {"^=", BinOp::BitXor}};
  if (t.kind != TokKind::Op)
    return false;
  for (const auto &e : table)
    if (t.text == e.spelling) {
      op = e.op;
      return true;
    }
  return false;
}

const char *target_kind_name(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Call:
    return "function call";
  case ExprKind::Int:
  case ExprKind::Float:
  case ExprKind::Str:
  case ExprKind::Ellipsis:
    return "literal";
  case ExprKind::Bool:
    return static_cast<const BoolExpr &>(e).value ? "True" : "False";
  case ExprKind::None:
    return "None";
  case ExprKind::FString:
    return "f-string expression";
  case ExprKind::Compare:
    return "comparison";
  case ExprKind::IfExp:
    return "conditional expression";
  case ExprKind::Lambda:
    return "lambda";
  case ExprKind::ListComp:
    return "list comprehension";
  case ExprKind::Slice:
    return "slice";
  default:
    return "expression";
  }
}

} // namespace

// ---- tokens ----------------------------------------------------------------------

const Token &ParserImpl::cur() const {
  const Token &t = toks_[i_];
  if (t.kind == TokKind::Error)
    throw CompileError(t.loc, t.text);
  return t;
}

const Token &ParserImpl::ahead(size_t n) const {
  size_t j = std::min(i_ + n, toks_.size() - 1);
  return toks_[j];
}

const Token &ParserImpl::take() {
  const Token &t = cur();
  if (i_ + 1 < toks_.size())
    ++i_;
  return t;
}

bool ParserImpl::accept_op(const char *op) {
  if (!at_op(op))
    return false;
  take();
  return true;
}

bool ParserImpl::accept_kw(const char *kw) {
  if (!at_kw(kw))
    return false;
  take();
  return true;
}

void ParserImpl::expect_op(const char *op, const std::string &context) {
  if (!accept_op(op))
    error(cur(), std::string("invalid syntax: expected '") + op + "' " + context);
}

std::string ParserImpl::expect_name(const std::string &what) {
  if (cur().kind != TokKind::Name)
    error(cur(), "invalid syntax: expected " + what + ", found " + describe(cur()));
  return take().text;
}

void ParserImpl::error(const Token &at, const std::string &msg) const { error(at.loc, msg); }

void ParserImpl::error(SourceLoc at, const std::string &msg) const { throw CompileError(at, msg); }

void ParserImpl::unexpected(const std::string &expected) const {
  const Token &t = cur();
  if (t.kind == TokKind::Indent)
    error(t, "unexpected indent");
  std::string msg = "invalid syntax: ";
  if (!expected.empty())
    msg += "expected " + expected + ", found " + describe(t);
  else
    msg += "unexpected " + describe(t);
  error(t, msg);
}

// ---- entry points ------------------------------------------------------------------

Module ParserImpl::parse_file() {
  Module m;
  m.file = file_;
  while (cur().kind != TokKind::EndOfFile) {
    paren_start_.clear();
    size_t begin = i_;
    size_t before = m.body.size();
    parse_statement(m.body);
    for (size_t k = before; k < m.body.size(); ++k)
      spans_.emplace_back(begin, i_);
  }
  return m;
}

// Names the def (after any decorator lines) that starts at i_, so that a syntax error in
// the kernel the CLI asks for is reported instead of "no function".
void ParserImpl::record_skipped_def(Module &m, const CompileError &err) {
  size_t j = i_;
  while (toks_[j].kind == TokKind::Op && toks_[j].text == "@") {
    while (toks_[j].kind != TokKind::Newline && toks_[j].kind != TokKind::EndOfFile)
      ++j;
    if (toks_[j].kind == TokKind::Newline)
      ++j;
  }
  if (toks_[j].kind == TokKind::Keyword && toks_[j].text == "def" &&
      toks_[j + 1].kind == TokKind::Name)
    m.skipped_defs.push_back({toks_[j + 1].text, err.loc(), err.message()});
}

Module ParserImpl::parse_file_lenient() {
  lenient_ = true;
  Module m;
  m.file = file_;
  while (toks_[i_].kind != TokKind::EndOfFile) {
    paren_start_.clear();
    size_t begin = i_;
    if (toks_[i_].kind == TokKind::Dedent || toks_[i_].kind == TokKind::Newline) {
      ++i_; // left over from a lexical error's recovery
      continue;
    }
    StmtList got;
    depth_ = 0;
    try {
      parse_statement(got);
    } catch (const CompileError &err) {
      i_ = begin;
      record_skipped_def(m, err);
      skip_statement();
      continue;
    }
    for (auto &s : got) {
      switch (s->kind) {
      case StmtKind::Import:
      case StmtKind::ImportFrom:
      case StmtKind::Assign:
      case StmtKind::AnnAssign:
      case StmtKind::FunctionDef:
        m.body.push_back(std::move(s));
        spans_.emplace_back(begin, i_);
        break;
      default:
        break; // host code the CLI has no use for
      }
    }
  }
  return m;
}

ExprPtr ParserImpl::parse_field_expression() {
  ExprPtr e = parse_star_expressions();
  if (at_op(":="))
    error(start_of(*e), "the walrus operator ':=' is not supported in tilec kernels");
  if (cur().kind != TokKind::EndOfFile)
    error(cur(), "invalid syntax: unexpected " + describe(cur()) + " in f-string expression");
  return e;
}

// ---- statements --------------------------------------------------------------------

void ParserImpl::parse_statement(StmtList &out) {
  DepthGuard guard(*this);
  const Token &t = cur();
  if (t.kind == TokKind::Indent)
    error(t, "unexpected indent");
  if (t.is_op("@")) {
    std::vector<ExprPtr> decorators = parse_decorators();
    if (at_kw("def")) {
      out.push_back(parse_def(std::move(decorators)));
      return;
    }
    if (at_kw("class")) {
      out.push_back(skip_unsupported_compound("class definition", {}));
      return;
    }
    if (at_kw("async")) {
      out.push_back(skip_unsupported_compound("async function definition", {}));
      return;
    }
    unexpected("'def' after decorator");
  }
  if (t.kind == TokKind::Keyword) {
    const std::string &k = t.text;
    if (k == "def") {
      out.push_back(parse_def({}));
      return;
    }
    if (k == "if") {
      out.push_back(parse_if(false));
      return;
    }
    if (k == "for") {
      out.push_back(parse_for());
      return;
    }
    if (k == "while") {
      out.push_back(parse_while());
      return;
    }
    if (k == "class") {
      out.push_back(skip_unsupported_compound("class definition", {}));
      return;
    }
    if (k == "with") {
      out.push_back(skip_unsupported_compound("with statement", {}));
      return;
    }
    if (k == "try") {
      out.push_back(skip_unsupported_compound("try statement", {"except", "else", "finally"}));
      return;
    }
    if (k == "async") {
      const Token &n = ahead(1);
      std::string what = n.is_keyword("def")    ? "async function definition"
                         : n.is_keyword("for")  ? "async for statement"
                         : n.is_keyword("with") ? "async with statement"
                                                : "async statement";
      out.push_back(skip_unsupported_compound(what, {"else"}));
      return;
    }
    if (k == "elif" || k == "else" || k == "except" || k == "finally")
      error(t, "invalid syntax: '" + k + "' without a matching statement");
  }
  if (starts_match_statement()) {
    out.push_back(skip_unsupported_compound("match statement", {}));
    return;
  }
  parse_simple_statements(out);
}

// `match` is a soft keyword: a statement `match <subject>:` followed by a block.
bool ParserImpl::starts_match_statement() const {
  const Token &t = toks_[i_];
  if (t.kind != TokKind::Name || t.text != "match")
    return false;
  const Token &n = ahead(1);
  if (n.kind == TokKind::Newline || n.kind == TokKind::EndOfFile ||
      (n.kind == TokKind::Op && n.text != "(" && n.text != "[" && n.text != "-" && n.text != "*" &&
       n.text != "{"))
    return false;
  size_t j = i_;
  while (toks_[j].kind != TokKind::Newline && toks_[j].kind != TokKind::EndOfFile)
    ++j;
  return j > i_ && toks_[j - 1].is_op(":") &&
         toks_[j + 1 < toks_.size() ? j + 1 : j].kind == TokKind::Indent;
}

void ParserImpl::parse_simple_statements(StmtList &out) {
  while (true) {
    out.push_back(parse_simple_statement());
    if (accept_op(";")) {
      if (cur().kind == TokKind::Newline || cur().kind == TokKind::EndOfFile)
        break;
      continue;
    }
    break;
  }
  if (cur().kind == TokKind::EndOfFile)
    return;
  if (cur().kind != TokKind::Newline)
    unexpected("");
  take();
}

StmtPtr ParserImpl::parse_simple_statement() {
  const Token &t = cur();
  SourceLoc at = t.loc;
  if (t.kind == TokKind::Keyword) {
    const std::string &k = t.text;
    if (k == "pass" || k == "break" || k == "continue") {
      take();
      StmtKind kind = k == "pass"    ? StmtKind::Pass
                      : k == "break" ? StmtKind::Break
                                     : StmtKind::Continue;
      return std::make_unique<SimpleStmt>(kind, at);
    }
    if (k == "return") {
      take();
      auto s = std::make_unique<ReturnStmt>(at);
      if (starts_expression(cur()))
        s->value = parse_star_expressions();
      return s;
    }
    if (k == "assert") {
      take();
      auto s = std::make_unique<AssertStmt>(at);
      s->test = parse_expression();
      if (accept_op(","))
        s->msg = parse_expression();
      return s;
    }
    if (k == "import")
      return parse_import();
    if (k == "from")
      return parse_from_import();
    if (k == "del" || k == "global" || k == "nonlocal" || k == "raise")
      return skip_unsupported_simple(k + " statement");
    if (k == "yield")
      return skip_unsupported_simple("yield expression");
  }
  return parse_expression_statement();
}

StmtPtr ParserImpl::parse_expression_statement() {
  SourceLoc at = cur().loc;
  ExprPtr first = parse_star_expressions();
  BinOp aug = BinOp::Add;
  if (at_op("=")) {
    auto s = std::make_unique<AssignStmt>(at);
    s->targets.push_back(std::move(first));
    while (accept_op("=")) {
      if (at_kw("yield"))
        error(cur(), "yield expression is not supported in tilec kernels");
      s->targets.push_back(parse_star_expressions());
    }
    s->value = std::move(s->targets.back());
    s->targets.pop_back();
    for (const auto &t : s->targets)
      check_target(*t, false);
    return s;
  }
  if (is_aug_op(cur(), aug)) {
    take();
    check_target(*first, true);
    auto s = std::make_unique<AugAssignStmt>(at);
    s->target = std::move(first);
    s->op = aug;
    if (at_kw("yield"))
      error(cur(), "yield expression is not supported in tilec kernels");
    s->value = parse_star_expressions();
    return s;
  }
  if (at_op(":")) {
    take();
    if (first->kind == ExprKind::Tuple || first->kind == ExprKind::List)
      error(start_of(*first),
            "invalid syntax: only a single target (not a tuple) can be annotated");
    check_target(*first, true);
    auto s = std::make_unique<AnnAssignStmt>(at);
    s->target = std::move(first);
    s->annotation = parse_expression();
    if (accept_op("="))
      s->value = parse_star_expressions();
    return s;
  }
  if (at_op(":="))
    error(start_of(*first), "the walrus operator ':=' is not supported in tilec kernels");
  auto s = std::make_unique<ExprStmt>(at);
  s->value = std::move(first);
  return s;
}

void ParserImpl::check_target(const Expr &e, bool augmented) const {
  switch (e.kind) {
  case ExprKind::Name:
  case ExprKind::Attribute:
  case ExprKind::Subscript:
    return;
  case ExprKind::Tuple:
  case ExprKind::List:
    if (augmented)
      error(start_of(e), std::string("invalid syntax: '") +
                             (e.kind == ExprKind::Tuple ? "tuple" : "list") +
                             "' is an illegal expression for augmented assignment");
    for (const auto &x : e.kind == ExprKind::Tuple ? static_cast<const TupleExpr &>(e).elts
                                                   : static_cast<const ListExpr &>(e).elts)
      check_target(*x, false);
    return;
  case ExprKind::Starred:
    if (augmented)
      error(start_of(e), "invalid syntax: a starred expression cannot be augmented");
    check_target(*static_cast<const StarredExpr &>(e).value, false);
    return;
  default:
    error(start_of(e), std::string("invalid syntax: cannot assign to ") + target_kind_name(e));
  }
}

StmtPtr ParserImpl::parse_import() {
  auto s = std::make_unique<ImportStmt>(take().loc);
  do {
    ImportAlias a;
    a.name = expect_name("a module name after 'import'");
    while (accept_op("."))
      a.name += "." + expect_name("a name after '.'");
    if (accept_kw("as"))
      a.asname = expect_name("a name after 'as'");
    s->names.push_back(std::move(a));
  } while (accept_op(","));
  return s;
}

StmtPtr ParserImpl::parse_from_import() {
  auto s = std::make_unique<ImportFromStmt>(take().loc);
  while (at_op(".") || at_op("...")) {
    s->level += at_op(".") ? 1 : 3;
    take();
  }
  if (cur().kind == TokKind::Name) {
    s->module = take().text;
    while (accept_op("."))
      s->module += "." + expect_name("a name after '.'");
  } else if (s->level == 0) {
    unexpected("a module name after 'from'");
  }
  if (!accept_kw("import"))
    unexpected("'import'");
  if (accept_op("*")) {
    s->names.push_back(ImportAlias{"*", ""});
    return s;
  }
  bool paren = accept_op("(");
  do {
    if (paren && at_op(")"))
      break; // trailing comma
    ImportAlias a;
    a.name = expect_name("a name to import");
    if (accept_kw("as"))
      a.asname = expect_name("a name after 'as'");
    s->names.push_back(std::move(a));
  } while (accept_op(","));
  if (paren)
    expect_op(")", "to close the import list");
  return s;
}

// ---- unsupported statements and recovery -------------------------------------------

bool ParserImpl::raw_is_op(const char *op) const { return toks_[i_].is_op(op); }

void ParserImpl::skip_line() {
  while (toks_[i_].kind != TokKind::Newline && toks_[i_].kind != TokKind::EndOfFile)
    ++i_;
  if (toks_[i_].kind == TokKind::Newline)
    ++i_;
}

void ParserImpl::skip_block() {
  int depth = 0;
  while (toks_[i_].kind != TokKind::EndOfFile) {
    TokKind k = toks_[i_++].kind;
    if (k == TokKind::Indent)
      ++depth;
    else if (k == TokKind::Dedent && --depth <= 0)
      return;
  }
}

// Skips one statement with its decorators, block and continuation clauses.
void ParserImpl::skip_statement() {
  if (toks_[i_].kind == TokKind::Indent) {
    skip_block();
    return;
  }
  while (raw_is_op("@"))
    skip_line();
  skip_line();
  if (toks_[i_].kind == TokKind::Indent)
    skip_block();
  while (toks_[i_].is_keyword("elif") || toks_[i_].is_keyword("else") ||
         toks_[i_].is_keyword("except") || toks_[i_].is_keyword("finally")) {
    skip_line();
    if (toks_[i_].kind == TokKind::Indent)
      skip_block();
  }
}

StmtPtr ParserImpl::skip_unsupported_compound(const std::string &what,
                                              std::vector<const char *> continuations) {
  SourceLoc at = cur().loc;
  skip_line();
  if (toks_[i_].kind == TokKind::Indent)
    skip_block();
  auto is_continuation = [&] {
    for (const char *kw : continuations)
      if (toks_[i_].is_keyword(kw))
        return true;
    return false;
  };
  while (is_continuation()) {
    skip_line();
    if (toks_[i_].kind == TokKind::Indent)
      skip_block();
  }
  return std::make_unique<UnsupportedStmt>(at, what);
}

StmtPtr ParserImpl::skip_unsupported_simple(const std::string &what) {
  SourceLoc at = cur().loc;
  while (toks_[i_].kind != TokKind::Newline && toks_[i_].kind != TokKind::EndOfFile &&
         !raw_is_op(";"))
    ++i_;
  return std::make_unique<UnsupportedStmt>(at, what);
}

// ---- public API --------------------------------------------------------------------

namespace {

std::vector<Token> lex_file(const SourceManager &sm, int file, bool recover) {
  const SourceFile &f = sm.file(file);
  Lexer lexer(f.text, file, f.first_line);
  lexer.set_recover(recover);
  return lexer.tokenize();
}

} // namespace

Module parse(const SourceManager &sm, int file) {
  ParserImpl p(lex_file(sm, file, false), file);
  return p.parse_file();
}

Module parse_module_lenient(const SourceManager &sm, int file) {
  ParserImpl p(lex_file(sm, file, true), file);
  return p.parse_file_lenient();
}

Module parse_module_lenient(const SourceManager &sm, int file, std::vector<StmtExtent> &extents) {
  ParserImpl p(lex_file(sm, file, true), file);
  Module m = p.parse_file_lenient();
  const std::vector<Token> &toks = p.tokens();
  extents.clear();
  for (auto [begin, end] : p.statement_spans()) {
    size_t last = end;
    while (last > begin) { // the last token with text, before NEWLINE/DEDENT
      TokKind k = toks[last - 1].kind;
      if (k != TokKind::Newline && k != TokKind::Indent && k != TokKind::Dedent &&
          k != TokKind::EndOfFile)
        break;
      --last;
    }
    TILEC_ASSERT(last > begin, "a kept statement has tokens");
    extents.push_back(StmtExtent{toks[begin].loc, toks[last - 1].end});
  }
  return m;
}

} // namespace tilec::frontend
