// The AST of the Python subset that kernels are written in. Produced by the Parser,
// consumed by Sema. Every node carries the SourceLoc of its first token.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/Diagnostics.h"

namespace tilec::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, LShift, RShift, BitAnd, BitOr, BitXor };
enum class UnaryOp { Neg, Pos, Invert, Not };
enum class CmpOp { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

const char *binop_symbol(BinOp op);   // "+", "//", ...
const char *unaryop_symbol(UnaryOp op);
const char *cmpop_symbol(CmpOp op);

enum class ExprKind {
  Name, Int, Float, Str, Bool, None, Ellipsis, FString, Attribute, Subscript, Slice, Call,
  BinOp, UnaryOp, BoolOp, Compare, IfExp, Tuple, List, ListComp, Starred,
  Lambda, // parsed only so Sema can reject it with a clear message
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  explicit Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~Expr() = default;
};

struct NameExpr : Expr {
  std::string id;
  NameExpr(SourceLoc l, std::string i) : Expr(ExprKind::Name, l), id(std::move(i)) {}
};
// Integer literal (always non-negative; `-1` is UnaryOp(Neg, 1)). `overflow` is set
// when the literal does not fit in 64 unsigned bits.
struct IntExpr : Expr {
  uint64_t value = 0;
  bool overflow = false;
  explicit IntExpr(SourceLoc l) : Expr(ExprKind::Int, l) {}
};
struct FloatExpr : Expr {
  double value = 0;
  explicit FloatExpr(SourceLoc l) : Expr(ExprKind::Float, l) {}
};
struct StrExpr : Expr { // adjacent literals already concatenated; escapes decoded
  std::string value;
  explicit StrExpr(SourceLoc l) : Expr(ExprKind::Str, l) {}
};
struct BoolExpr : Expr {
  bool value = false;
  explicit BoolExpr(SourceLoc l) : Expr(ExprKind::Bool, l) {}
};
struct NoneExpr : Expr {
  explicit NoneExpr(SourceLoc l) : Expr(ExprKind::None, l) {}
};
struct EllipsisExpr : Expr {
  explicit EllipsisExpr(SourceLoc l) : Expr(ExprKind::Ellipsis, l) {}
};
// f"a{x!r:>10}b": parts are literal text or a replacement field.
struct FStringPart {
  std::string text;        // literal text (when expr is null)
  ExprPtr expr;            // the replacement field's expression
  char conversion = 0;     // 0, 's', 'r' or 'a'
  std::string format_spec; // text after ':' (nested fields are not supported)
  bool self_documenting = false; // f"{x=}"
};
struct FStringExpr : Expr {
  std::vector<FStringPart> parts;
  explicit FStringExpr(SourceLoc l) : Expr(ExprKind::FString, l) {}
};
struct AttributeExpr : Expr {
  ExprPtr value;
  std::string attr;
  AttributeExpr(SourceLoc l, ExprPtr v, std::string a)
      : Expr(ExprKind::Attribute, l), value(std::move(v)), attr(std::move(a)) {}
};
// x[i], x[:, None], x[a, b] (index is then a TupleExpr)
struct SubscriptExpr : Expr {
  ExprPtr value;
  ExprPtr index;
  SubscriptExpr(SourceLoc l, ExprPtr v, ExprPtr i)
      : Expr(ExprKind::Subscript, l), value(std::move(v)), index(std::move(i)) {}
};
struct SliceExpr : Expr { // lower:upper:step, each may be null
  ExprPtr lower, upper, step;
  explicit SliceExpr(SourceLoc l) : Expr(ExprKind::Slice, l) {}
};
struct Keyword {
  std::string name; // empty for **kwargs
  ExprPtr value;
  SourceLoc loc;
};
struct CallExpr : Expr {
  ExprPtr func;
  std::vector<ExprPtr> args; // may contain StarredExpr for *args
  std::vector<Keyword> keywords;
  explicit CallExpr(SourceLoc l) : Expr(ExprKind::Call, l) {}
};
struct BinOpExpr : Expr {
  BinOp op;
  ExprPtr lhs, rhs;
  BinOpExpr(SourceLoc l, BinOp o, ExprPtr a, ExprPtr b)
      : Expr(ExprKind::BinOp, l), op(o), lhs(std::move(a)), rhs(std::move(b)) {}
};
struct UnaryOpExpr : Expr {
  UnaryOp op;
  ExprPtr operand;
  UnaryOpExpr(SourceLoc l, UnaryOp o, ExprPtr e)
      : Expr(ExprKind::UnaryOp, l), op(o), operand(std::move(e)) {}
};
struct BoolOpExpr : Expr { // a and b and c: values has every operand
  bool is_and = true;
  std::vector<ExprPtr> values;
  explicit BoolOpExpr(SourceLoc l) : Expr(ExprKind::BoolOp, l) {}
};
struct CompareExpr : Expr { // a < b < c: ops.size() == comparators.size() >= 1
  ExprPtr left;
  std::vector<CmpOp> ops;
  std::vector<ExprPtr> comparators;
  explicit CompareExpr(SourceLoc l) : Expr(ExprKind::Compare, l) {}
};
struct IfExpExpr : Expr { // body if test else orelse
  ExprPtr test, body, orelse;
  explicit IfExpExpr(SourceLoc l) : Expr(ExprKind::IfExp, l) {}
};
struct TupleExpr : Expr {
  std::vector<ExprPtr> elts;
  explicit TupleExpr(SourceLoc l) : Expr(ExprKind::Tuple, l) {}
};
struct ListExpr : Expr {
  std::vector<ExprPtr> elts;
  explicit ListExpr(SourceLoc l) : Expr(ExprKind::List, l) {}
};
// [elt for target in iter if cond ...]: one generator (Triton evaluates it at compile time
// over a tuple).
struct ListCompExpr : Expr {
  ExprPtr elt, target, iter;
  std::vector<ExprPtr> ifs;
  explicit ListCompExpr(SourceLoc l) : Expr(ExprKind::ListComp, l) {}
};
struct StarredExpr : Expr {
  ExprPtr value;
  StarredExpr(SourceLoc l, ExprPtr v) : Expr(ExprKind::Starred, l), value(std::move(v)) {}
};
struct LambdaExpr : Expr {
  explicit LambdaExpr(SourceLoc l) : Expr(ExprKind::Lambda, l) {}
};

enum class StmtKind {
  FunctionDef, Assign, AugAssign, AnnAssign, Expr, If, For, While, Return, Assert, Pass,
  Break, Continue, Import, ImportFrom,
  Unsupported, // with, try, raise, del, global, nonlocal, class, ...: Sema reports `what`
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  explicit Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~Stmt() = default;
};

struct Param {
  std::string name;
  ExprPtr annotation; // may be null
  ExprPtr default_value; // may be null
  SourceLoc loc;
  enum class Kind { Normal, VarArgs, KwArgs, KwOnly } kind = Kind::Normal;
};
struct FunctionDefStmt : Stmt {
  std::string name;
  std::vector<ExprPtr> decorators;
  std::vector<Param> params;
  ExprPtr returns; // may be null
  StmtList body;
  explicit FunctionDefStmt(SourceLoc l) : Stmt(StmtKind::FunctionDef, l) {}
};
struct AssignStmt : Stmt { // t1 = t2 = value
  std::vector<ExprPtr> targets;
  ExprPtr value;
  explicit AssignStmt(SourceLoc l) : Stmt(StmtKind::Assign, l) {}
};
struct AugAssignStmt : Stmt {
  ExprPtr target;
  BinOp op;
  ExprPtr value;
  explicit AugAssignStmt(SourceLoc l) : Stmt(StmtKind::AugAssign, l), op(BinOp::Add) {}
};
struct AnnAssignStmt : Stmt {
  ExprPtr target, annotation, value; // value may be null
  explicit AnnAssignStmt(SourceLoc l) : Stmt(StmtKind::AnnAssign, l) {}
};
struct ExprStmt : Stmt {
  ExprPtr value;
  explicit ExprStmt(SourceLoc l) : Stmt(StmtKind::Expr, l) {}
};
struct IfStmt : Stmt { // elif chains are nested IfStmt in orelse
  ExprPtr test;
  StmtList body, orelse;
  explicit IfStmt(SourceLoc l) : Stmt(StmtKind::If, l) {}
};
struct ForStmt : Stmt {
  ExprPtr target, iter;
  StmtList body, orelse;
  explicit ForStmt(SourceLoc l) : Stmt(StmtKind::For, l) {}
};
struct WhileStmt : Stmt {
  ExprPtr test;
  StmtList body, orelse;
  explicit WhileStmt(SourceLoc l) : Stmt(StmtKind::While, l) {}
};
struct ReturnStmt : Stmt {
  ExprPtr value; // may be null
  explicit ReturnStmt(SourceLoc l) : Stmt(StmtKind::Return, l) {}
};
struct AssertStmt : Stmt {
  ExprPtr test, msg; // msg may be null
  explicit AssertStmt(SourceLoc l) : Stmt(StmtKind::Assert, l) {}
};
struct SimpleStmt : Stmt { // pass, break, continue
  explicit SimpleStmt(StmtKind k, SourceLoc l) : Stmt(k, l) {}
};
struct ImportAlias {
  std::string name;   // dotted: "tilec.language"
  std::string asname; // empty when absent
};
struct ImportStmt : Stmt { // import a.b as c, d
  std::vector<ImportAlias> names;
  explicit ImportStmt(SourceLoc l) : Stmt(StmtKind::Import, l) {}
};
struct ImportFromStmt : Stmt { // from module import a as b, c
  std::string module;
  int level = 0; // leading dots
  std::vector<ImportAlias> names;
  explicit ImportFromStmt(SourceLoc l) : Stmt(StmtKind::ImportFrom, l) {}
};
struct UnsupportedStmt : Stmt {
  std::string what; // "with statement", "try statement", ...
  UnsupportedStmt(SourceLoc l, std::string w) : Stmt(StmtKind::Unsupported, l), what(std::move(w)) {}
};

// A top-level def that parse_module_lenient skipped because of a syntax error: the CLI
// reports that error when the def is the kernel asked for.
struct SkippedDef {
  std::string name;
  SourceLoc loc;
  std::string message;
};

// A parsed file or function source: its top-level statements.
struct Module {
  int file = -1;
  StmtList body;
  std::vector<SkippedDef> skipped_defs; // parse_module_lenient only
};

} // namespace tilec::ast
