// The recursive-descent parser behind Parser.h (private to src/frontend).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/Ast.h"
#include "frontend/Token.h"

namespace tilec::frontend {

class ParserImpl {
public:
  ParserImpl(std::vector<Token> toks, int file) : toks_(std::move(toks)), file_(file) {}

  ast::Module parse_file();
  // Keeps the top-level imports, assignments and defs; skips statements that fail.
  ast::Module parse_file_lenient();
  // An f-string field's expression (tokens from Lexer::tokenize_expression).
  ast::ExprPtr parse_field_expression();

  // The token index range [begin, end) of each top-level statement the last parse
  // kept, in order (parallel to Module::body); lets callers find source extents.
  const std::vector<std::pair<size_t, size_t>> &statement_spans() const { return spans_; }
  const std::vector<Token> &tokens() const { return toks_; }

private:
  // Tokens. cur() throws the message of an Error token (recovery-mode lexing).
  const Token &cur() const;
  const Token &ahead(size_t n) const;
  const Token &take();
  bool at_op(const char *op) const { return cur().is_op(op); }
  bool at_kw(const char *kw) const { return cur().is_keyword(kw); }
  bool accept_op(const char *op);
  bool accept_kw(const char *kw);
  void expect_op(const char *op, const std::string &context);
  std::string expect_name(const std::string &what);
  [[noreturn]] void error(const Token &at, const std::string &msg) const;
  [[noreturn]] void error(SourceLoc at, const std::string &msg) const;
  [[noreturn]] void unexpected(const std::string &expected) const;

  // Statements (Parser.cpp).
  void parse_statement(ast::StmtList &out);
  void parse_simple_statements(ast::StmtList &out);
  ast::StmtPtr parse_simple_statement();
  ast::StmtPtr parse_expression_statement();
  ast::StmtPtr parse_import();
  ast::StmtPtr parse_from_import();
  ast::StmtPtr parse_def(std::vector<ast::ExprPtr> decorators);
  void parse_params(std::vector<ast::Param> &params);
  ast::StmtPtr parse_if(bool is_elif);
  ast::StmtPtr parse_for();
  ast::StmtPtr parse_while();
  ast::StmtList parse_block(const std::string &owner);
  std::vector<ast::ExprPtr> parse_decorators();
  ast::ExprPtr parse_decorator_fallback();
  ast::StmtPtr skip_unsupported_compound(const std::string &what,
                                         std::vector<const char *> continuations);
  ast::StmtPtr skip_unsupported_simple(const std::string &what);
  void check_target(const ast::Expr &e, bool augmented) const;
  bool starts_match_statement() const;

  // Raw skipping (never throws on Error tokens).
  void skip_line();
  void skip_block();
  void skip_statement();
  void record_skipped_def(ast::Module &m, const CompileError &err);
  bool raw_is_op(const char *op) const;

  // Expressions (ParserExpr.cpp).
  bool starts_expression(const Token &t) const;
  ast::ExprPtr parse_star_expressions();
  ast::ExprPtr parse_star_expression();
  ast::ExprPtr parse_named_expression();
  ast::ExprPtr parse_expression();
  ast::ExprPtr parse_lambda();
  ast::ExprPtr parse_disjunction();
  ast::ExprPtr parse_conjunction();
  ast::ExprPtr parse_inversion();
  ast::ExprPtr parse_comparison();
  ast::ExprPtr parse_bitor();
  ast::ExprPtr parse_bitxor();
  ast::ExprPtr parse_bitand();
  ast::ExprPtr parse_shift();
  ast::ExprPtr parse_sum();
  ast::ExprPtr parse_term();
  ast::ExprPtr parse_factor();
  ast::ExprPtr parse_power();
  ast::ExprPtr parse_primary();
  ast::ExprPtr parse_atom();
  ast::ExprPtr parse_call(ast::ExprPtr func);
  ast::ExprPtr parse_subscript(ast::ExprPtr value);
  ast::ExprPtr parse_slice_item();
  ast::ExprPtr parse_strings();
  ast::ExprPtr parse_paren();
  ast::ExprPtr parse_list();
  [[noreturn]] void reject_braces();
  ast::ExprPtr parse_target_list();

  // Where an expression starts: the '(' of a parenthesised expression, else its loc.
  SourceLoc start_of(const ast::Expr &e) const;

  // Bounds recursion so that pathological nesting is an error, not a stack overflow.
  class DepthGuard {
  public:
    explicit DepthGuard(ParserImpl &p);
    ~DepthGuard() { --p_.depth_; }
    DepthGuard(const DepthGuard &) = delete;
    DepthGuard &operator=(const DepthGuard &) = delete;

  private:
    ParserImpl &p_;
  };
  static constexpr int kMaxDepth = 300;  // ~100 nested brackets (3 levels each), blocks
  static constexpr int kMaxChain = 2000; // operands of one operator chain: a + b + ...
  // The tail of "X is not supported" errors of the expression parser.
  static constexpr const char *kNotSupported = " is not supported in tilec kernels";
  void check_chain(int length) const;

  std::vector<Token> toks_;
  int file_;
  int depth_ = 0;
  size_t i_ = 0;
  bool lenient_ = false;
  // Keyed by node address; cleared per top-level statement (nodes of a failed
  // statement are gone by then).
  std::unordered_map<const ast::Expr *, SourceLoc> paren_start_;
  std::vector<std::pair<size_t, size_t>> spans_;
};

} // namespace tilec::frontend
