// Atoms: names, numbers, strings (implicit concatenation, f-strings refused), parenthesised
// expressions and tuples, lists and the one-`for` comprehensions kernels may use.
#include "frontend/Lexer.h"
#include "frontend/ParserImpl.h"

namespace tilec::frontend {

using namespace ast;

ExprPtr ParserImpl::parse_atom() {
  const Token &t = cur();
  switch (t.kind) {
  case TokKind::Name: {
    take();
    return std::make_unique<NameExpr>(t.loc, t.text);
  }
  case TokKind::Int: {
    take();
    auto e = std::make_unique<IntExpr>(t.loc);
    e->value = t.int_value;
    e->overflow = t.int_overflow;
    return e;
  }
  case TokKind::Float: {
    take();
    auto e = std::make_unique<FloatExpr>(t.loc);
    e->value = t.float_value;
    return e;
  }
  case TokKind::Imag:
    error(t, std::string("complex literal") + kNotSupported);
  case TokKind::String:
  case TokKind::FString:
    return parse_strings();
  case TokKind::Keyword:
    if (t.text == "True" || t.text == "False") {
      take();
      auto e = std::make_unique<BoolExpr>(t.loc);
      e->value = t.text == "True";
      return e;
    }
    if (t.text == "None") {
      take();
      return std::make_unique<NoneExpr>(t.loc);
    }
    if (t.text == "yield")
      error(t, std::string("yield expression") + kNotSupported);
    if (t.text == "lambda")
      return parse_lambda();
    break;
  case TokKind::Op:
    if (t.text == "(")
      return parse_paren();
    if (t.text == "[")
      return parse_list();
    if (t.text == "{")
      reject_braces();
    if (t.text == "...") {
      take();
      return std::make_unique<EllipsisExpr>(t.loc);
    }
    break;
  default:
    break;
  }
  unexpected("an expression");
}

ExprPtr ParserImpl::parse_paren() {
  SourceLoc open = take().loc;
  if (accept_op(")"))
    return std::make_unique<TupleExpr>(open);
  if (at_kw("yield"))
    error(cur(), std::string("yield expression") + kNotSupported);
  ExprPtr first = at_op("*") ? parse_star_expression() : parse_named_expression();
  if (at_kw("for") || at_kw("async"))
    error(open, std::string("generator expression") + kNotSupported);
  if (accept_op(")")) {
    paren_start_[first.get()] = open; // (a + b) * c starts at '('
    return first;
  }
  if (!at_op(","))
    unexpected("',' or ')' in parenthesised expression opened at line " +
               std::to_string(open.line));
  auto t = std::make_unique<TupleExpr>(open);
  t->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (at_op(")"))
      break;
    t->elts.push_back(at_op("*") ? parse_star_expression() : parse_named_expression());
  }
  if (!accept_op(")"))
    unexpected("',' or ')' in tuple opened at line " + std::to_string(open.line));
  return t;
}

ExprPtr ParserImpl::parse_list() {
  SourceLoc open = take().loc;
  auto l = std::make_unique<ListExpr>(open);
  if (accept_op("]"))
    return l;
  l->elts.push_back(at_op("*") ? parse_star_expression() : parse_named_expression());
  if (at_kw("async"))
    error(open, std::string("async comprehension") + kNotSupported);
  if (at_kw("for")) {
    auto c = std::make_unique<ListCompExpr>(open);
    c->elt = std::move(l->elts.front());
    take();
    c->target = parse_target_list();
    check_target(*c->target, false);
    if (!accept_kw("in"))
      unexpected("'in' after the comprehension's variable");
    c->iter = parse_disjunction();
    while (at_kw("if")) {
      take();
      c->ifs.push_back(parse_disjunction());
    }
    if (at_kw("for") || at_kw("async"))
      error(cur(), std::string("a comprehension with several 'for' clauses") + kNotSupported);
    if (!accept_op("]"))
      unexpected("']' closing the list comprehension opened at line " + std::to_string(open.line));
    return c;
  }
  while (accept_op(",")) {
    if (at_op("]"))
      break;
    l->elts.push_back(at_op("*") ? parse_star_expression() : parse_named_expression());
  }
  if (!accept_op("]"))
    unexpected("',' or ']' in list opened at line " + std::to_string(open.line));
  return l;
}

// Dicts, sets and their comprehensions have no place in a kernel: name which one.
void ParserImpl::reject_braces() {
  SourceLoc open = take().loc;
  const char *what = "dict literal";
  if (!at_op("}") && !at_op("**")) {
    ExprPtr first = at_op("*") ? parse_star_expression() : parse_named_expression();
    if (accept_op(":")) {
      ExprPtr value = parse_expression();
      what = at_kw("for") || at_kw("async") ? "dict comprehension" : "dict literal";
    } else {
      what = at_kw("for") || at_kw("async") ? "set comprehension" : "set literal";
    }
  }
  error(open, std::string(what) + kNotSupported);
}

// Adjacent literals concatenate; any f-string among them makes the whole an f-string.
ExprPtr ParserImpl::parse_strings() {
  SourceLoc at = cur().loc;
  bool any_fstring = false, any_bytes = false, any_str = false;
  size_t begin = i_;
  while (cur().kind == TokKind::String || cur().kind == TokKind::FString) {
    const Token &t = take();
    any_fstring |= t.kind == TokKind::FString;
    (t.is_bytes ? any_bytes : any_str) = true;
    if (any_bytes && any_str)
      error(t, "invalid syntax: cannot mix bytes and nonbytes literals");
  }
  size_t end = i_;
  if (any_bytes)
    error(at, std::string("bytes literal") + kNotSupported);
  if (!any_fstring) {
    auto s = std::make_unique<StrExpr>(at);
    for (size_t k = begin; k < end; ++k)
      s->value += toks_[k].str_value;
    return s;
  }
  auto f = std::make_unique<FStringExpr>(at);
  auto add_text = [&](const std::string &text) {
    if (text.empty())
      return;
    if (!f->parts.empty() && !f->parts.back().expr)
      f->parts.back().text += text;
    else
      f->parts.push_back(FStringPart{text, nullptr, 0, {}, false});
  };
  for (size_t k = begin; k < end; ++k) {
    const Token &t = toks_[k];
    if (t.kind == TokKind::String) {
      add_text(t.str_value);
      continue;
    }
    for (const FStringPiece &p : t.fstring_pieces) {
      if (!p.is_field) {
        add_text(p.text);
        continue;
      }
      add_text(p.self_doc_text); // f"{x=}" prints "x=" before the value, as CPython does
      Lexer sub(p.expr_text, file_, p.expr_loc.line, p.expr_loc.col);
      ParserImpl field_parser(sub.tokenize_expression(), file_);
      field_parser.depth_ = depth_; // f-strings nest (Python 3.12)
      FStringPart part;
      part.expr = field_parser.parse_field_expression();
      part.conversion = p.conversion;
      part.format_spec = p.format_spec;
      part.self_documenting = !p.self_doc_text.empty();
      f->parts.push_back(std::move(part));
    }
  }
  return f;
}

} // namespace tilec::frontend
