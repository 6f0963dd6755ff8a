// Expressions, with Python's precedence (lowest first):
//   lambda < if-else < or < and < not < comparisons < | < ^ < & < shifts < + - <
//   * / // % @ < unary - + ~ < ** < await / primary (calls, subscripts, attributes)
#include <set>

#include "frontend/Lexer.h"
#include "frontend/ParserImpl.h"

namespace tilec::frontend {

using namespace ast;

ParserImpl::DepthGuard::DepthGuard(ParserImpl &p) : p_(p) {
  if (++p_.depth_ > kMaxDepth) {
    --p_.depth_;
    p_.error(p_.toks_[p_.i_].loc,
             "too many nested expressions or blocks (more than " + std::to_string(kMaxDepth) + ")");
  }
}

void ParserImpl::check_chain(int length) const {
  if (length > kMaxChain)
    error(toks_[i_].loc, "expression is too long (more than " + std::to_string(kMaxChain) +
                             " chained operations)");
}

SourceLoc ParserImpl::start_of(const Expr &e) const {
  auto it = paren_start_.find(&e);
  return it == paren_start_.end() ? e.loc : it->second;
}

bool ParserImpl::starts_expression(const Token &t) const {
  switch (t.kind) {
  case TokKind::Name:
  case TokKind::Int:
  case TokKind::Float:
  case TokKind::Imag:
  case TokKind::String:
  case TokKind::FString:
    return true;
  case TokKind::Keyword:
    return t.text == "None" || t.text == "True" || t.text == "False" || t.text == "not" ||
           t.text == "lambda" || t.text == "await" || t.text == "yield";
  case TokKind::Op:
    return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" ||
           t.text == "~" || t.text == "..." || t.text == "*";
  default:
    return false;
  }
}

// a, *b, c  (a tuple when there is a comma; a trailing comma is allowed)
ExprPtr ParserImpl::parse_star_expressions() {
  ExprPtr first = parse_star_expression();
  if (!at_op(","))
    return first;
  auto t = std::make_unique<TupleExpr>(start_of(*first));
  t->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (!starts_expression(cur()))
      break;
    t->elts.push_back(parse_star_expression());
  }
  return t;
}

ExprPtr ParserImpl::parse_star_expression() {
  if (at_op("*")) {
    SourceLoc at = take().loc;
    return std::make_unique<StarredExpr>(at, parse_bitor());
  }
  return parse_expression();
}

ExprPtr ParserImpl::parse_named_expression() {
  ExprPtr e = parse_expression();
  if (at_op(":="))
    error(start_of(*e), std::string("the walrus operator ':='") + kNotSupported);
  return e;
}

ExprPtr ParserImpl::parse_expression() {
  DepthGuard guard(*this);
  if (at_kw("lambda"))
    return parse_lambda();
  ExprPtr body = parse_disjunction();
  if (!at_kw("if"))
    return body;
  take();
  auto e = std::make_unique<IfExpExpr>(start_of(*body));
  e->body = std::move(body);
  e->test = parse_disjunction();
  if (!accept_kw("else"))
    unexpected("'else' in conditional expression");
  e->orelse = parse_expression();
  return e;
}

// Kept only as a marker (Sema rejects it): its parameters and body are skipped up to
// the first token at its own bracket depth that cannot continue an expression, so a
// host-side lambda may use any syntax (dicts in a grid lambda, ...).
ExprPtr ParserImpl::parse_lambda() {
  SourceLoc at = take().loc;
  int depth = 0;
  bool in_body = false;
  while (true) {
    const Token &t = toks_[i_];
    if (t.kind == TokKind::Newline || t.kind == TokKind::EndOfFile || t.kind == TokKind::Indent ||
        t.kind == TokKind::Dedent)
      break;
    if (t.kind == TokKind::Error)
      cur(); // throws its message
    if (depth == 0 && t.kind == TokKind::Op) {
      if (!in_body && t.text == ":") {
        in_body = true;
        ++i_;
        continue;
      }
      if ((in_body && (t.text == "," || t.text == ":" || t.text == "=")) || t.text == ")" ||
          t.text == "]" || t.text == "}" || t.text == ";")
        break;
    }
    if (depth == 0 && in_body && (t.is_keyword("for") || t.is_keyword("async")))
      break;
    if (t.is_op("(") || t.is_op("[") || t.is_op("{"))
      ++depth;
    else if (t.is_op(")") || t.is_op("]") || t.is_op("}"))
      --depth;
    ++i_;
  }
  if (!in_body)
    unexpected("':' after lambda parameters");
  return std::make_unique<LambdaExpr>(at);
}

ExprPtr ParserImpl::parse_disjunction() {
  ExprPtr first = parse_conjunction();
  if (!at_kw("or"))
    return first;
  auto e = std::make_unique<BoolOpExpr>(start_of(*first));
  e->is_and = false;
  e->values.push_back(std::move(first));
  while (accept_kw("or"))
    e->values.push_back(parse_conjunction());
  return e;
}

ExprPtr ParserImpl::parse_conjunction() {
  ExprPtr first = parse_inversion();
  if (!at_kw("and"))
    return first;
  auto e = std::make_unique<BoolOpExpr>(start_of(*first));
  e->is_and = true;
  e->values.push_back(std::move(first));
  while (accept_kw("and"))
    e->values.push_back(parse_inversion());
  return e;
}

ExprPtr ParserImpl::parse_inversion() {
  DepthGuard guard(*this);
  if (at_kw("not")) {
    SourceLoc at = take().loc;
    return std::make_unique<UnaryOpExpr>(at, UnaryOp::Not, parse_inversion());
  }
  return parse_comparison();
}

ExprPtr ParserImpl::parse_comparison() {
  ExprPtr left = parse_bitor();
  std::unique_ptr<CompareExpr> cmp;
  while (true) {
    const Token &t = cur();
    CmpOp op;
    if (t.is_op("=="))
      op = CmpOp::Eq;
    else if (t.is_op("!="))
      op = CmpOp::NotEq;
    else if (t.is_op("<"))
      op = CmpOp::Lt;
    else if (t.is_op("<="))
      op = CmpOp::LtE;
    else if (t.is_op(">"))
      op = CmpOp::Gt;
    else if (t.is_op(">="))
      op = CmpOp::GtE;
    else if (t.is_keyword("in"))
      op = CmpOp::In;
    else if (t.is_keyword("not") && ahead(1).is_keyword("in"))
      op = CmpOp::NotIn;
    else if (t.is_keyword("is"))
      op = ahead(1).is_keyword("not") ? CmpOp::IsNot : CmpOp::Is;
    else
      break;
    take();
    if (op == CmpOp::NotIn || op == CmpOp::IsNot)
      take();
    if (!cmp) {
      cmp = std::make_unique<CompareExpr>(start_of(*left));
      cmp->left = std::move(left);
    }
    cmp->ops.push_back(op);
    cmp->comparators.push_back(parse_bitor());
  }
  if (cmp)
    return cmp;
  return left;
}

// One left-associative binary level per precedence tier.
#define TILEC_BINARY_LEVEL(NAME, NEXT, ...)                                                        \
  ExprPtr ParserImpl::NAME() {                                                                     \
    ExprPtr lhs = NEXT();                                                                          \
    static const struct {                                                                          \
      const char *spelling;                                                                        \
      BinOp op;                                                                                    \
    } ops[] = {__VA_ARGS__};                                                                       \
    for (int length = 1;; ++length) {                                                              \
      check_chain(length);                                                                         \
      const Token &t = cur();                                                                      \
      const BinOp *found = nullptr;                                                                \
      for (const auto &o : ops)                                                                    \
        if (t.is_op(o.spelling))                                                                   \
          found = &o.op;                                                                           \
      if (!found)                                                                                  \
        return lhs;                                                                                \
      take();                                                                                      \
      SourceLoc at = start_of(*lhs);                                                               \
      lhs = std::make_unique<BinOpExpr>(at, *found, std::move(lhs), NEXT());                       \
    }                                                                                              \
  }

TILEC_BINARY_LEVEL(parse_bitor, parse_bitxor, {"|", BinOp::BitOr})
TILEC_BINARY_LEVEL(parse_bitxor, parse_bitand, {"^", BinOp::BitXor})
TILEC_BINARY_LEVEL(parse_bitand, parse_shift, {"&", BinOp::BitAnd})
TILEC_BINARY_LEVEL(parse_shift, parse_sum, {"<<", BinOp::LShift}, {">>", BinOp::RShift})
TILEC_BINARY_LEVEL(parse_sum, parse_term, {"+", BinOp::Add}, {"-", BinOp::Sub})
TILEC_BINARY_LEVEL(parse_term, parse_factor, {"*", BinOp::Mul}, {"/", BinOp::Div},
                   {"//", BinOp::FloorDiv}, {"%", BinOp::Mod}, {"@", BinOp::MatMul})
#undef TILEC_BINARY_LEVEL

ExprPtr ParserImpl::parse_factor() {
  DepthGuard guard(*this);
  const Token &t = cur();
  UnaryOp op;
  if (t.is_op("-"))
    op = UnaryOp::Neg;
  else if (t.is_op("+"))
    op = UnaryOp::Pos;
  else if (t.is_op("~"))
    op = UnaryOp::Invert;
  else
    return parse_power();
  SourceLoc at = take().loc;
  return std::make_unique<UnaryOpExpr>(at, op, parse_factor());
}

// `**` is right-associative and its right operand may carry a unary sign (2 ** -1),
// while a sign on its left applies to the whole power (-2 ** 2 == -(2 ** 2)).
ExprPtr ParserImpl::parse_power() {
  if (at_kw("await"))
    error(cur(), std::string("await") + kNotSupported);
  ExprPtr base = parse_primary();
  if (!at_op("**"))
    return base;
  take();
  SourceLoc at = start_of(*base);
  return std::make_unique<BinOpExpr>(at, BinOp::Pow, std::move(base), parse_factor());
}

ExprPtr ParserImpl::parse_primary() {
  ExprPtr e = parse_atom();
  for (int length = 1;; ++length) {
    check_chain(length);
    if (at_op(".")) {
      take();
      SourceLoc at = start_of(*e);
      e = std::make_unique<AttributeExpr>(at, std::move(e),
                                          expect_name("an attribute name after '.'"));
    } else if (at_op("(")) {
      e = parse_call(std::move(e));
    } else if (at_op("[")) {
      e = parse_subscript(std::move(e));
    } else {
      return e;
    }
  }
}

ExprPtr ParserImpl::parse_call(ExprPtr func) {
  take(); // '('
  auto call = std::make_unique<CallExpr>(start_of(*func));
  call->func = std::move(func);
  std::set<std::string> seen_keywords;
  bool seen_keyword = false, seen_kwargs = false;
  while (!at_op(")")) {
    const Token &t = cur();
    if (t.is_op("*")) {
      take();
      if (seen_kwargs)
        error(t, "invalid syntax: iterable argument unpacking follows keyword argument "
                 "unpacking");
      call->args.push_back(std::make_unique<StarredExpr>(t.loc, parse_expression()));
    } else if (t.is_op("**")) {
      SourceLoc at = take().loc;
      call->keywords.push_back(Keyword{"", parse_expression(), at});
      seen_kwargs = true;
    } else if (t.kind == TokKind::Name && ahead(1).is_op("=")) {
      SourceLoc at = t.loc;
      std::string name = take().text;
      take(); // '='
      if (!seen_keywords.insert(name).second)
        error(at, "keyword argument repeated: " + name);
      call->keywords.push_back(Keyword{name, parse_expression(), at});
      seen_keyword = true;
    } else {
      ExprPtr arg = parse_named_expression();
      if (at_kw("for") || at_kw("async"))
        error(start_of(*arg), std::string("generator expression") + kNotSupported);
      if (seen_kwargs)
        error(start_of(*arg), "positional argument follows keyword argument unpacking");
      if (seen_keyword)
        error(start_of(*arg), "positional argument follows keyword argument");
      call->args.push_back(std::move(arg));
    }
    if (!accept_op(","))
      break;
  }
  if (!at_op(")"))
    unexpected("',' or ')' after call argument");
  take();
  return call;
}

ExprPtr ParserImpl::parse_subscript(ExprPtr value) {
  SourceLoc open = take().loc; // '['
  if (at_op("]"))
    error(cur(), "invalid syntax: expected an index or slice");
  ExprPtr first = parse_slice_item();
  ExprPtr index;
  if (at_op(",")) {
    auto t = std::make_unique<TupleExpr>(start_of(*first));
    t->elts.push_back(std::move(first));
    while (accept_op(",")) {
      if (at_op("]"))
        break;
      t->elts.push_back(parse_slice_item());
    }
    index = std::move(t);
  } else {
    index = std::move(first);
  }
  if (!at_op("]"))
    unexpected("',' or ']' in subscript opened at line " + std::to_string(open.line));
  take();
  auto e = std::make_unique<SubscriptExpr>(start_of(*value), std::move(value), std::move(index));
  return e;
}

// lower:upper:step (each part optional), or a plain index.
ExprPtr ParserImpl::parse_slice_item() {
  SourceLoc at = cur().loc;
  if (at_op("*")) {
    take();
    return std::make_unique<StarredExpr>(at, parse_bitor());
  }
  ExprPtr lower;
  if (!at_op(":")) {
    lower = parse_named_expression();
    if (!at_op(":"))
      return lower;
  }
  auto s = std::make_unique<SliceExpr>(at);
  s->lower = std::move(lower);
  take(); // ':'
  auto part_ends = [&] { return at_op(":") || at_op(",") || at_op("]"); };
  if (!part_ends())
    s->upper = parse_expression();
  if (accept_op(":") && !part_ends())
    s->step = parse_expression();
  return s;
}

// Loop targets: `a`, `a, b`, `(a, b)`, `a.b`, `*rest` (no comparisons: `in` ends them).
ExprPtr ParserImpl::parse_target_list() {
  auto one = [&]() -> ExprPtr {
    if (at_op("*")) {
      SourceLoc at = take().loc;
      return std::make_unique<StarredExpr>(at, parse_bitor());
    }
    return parse_bitor();
  };
  ExprPtr first = one();
  if (!at_op(","))
    return first;
  auto t = std::make_unique<TupleExpr>(start_of(*first));
  t->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (at_kw("in"))
      break;
    t->elts.push_back(one());
  }
  return t;
}

} // namespace tilec::frontend
