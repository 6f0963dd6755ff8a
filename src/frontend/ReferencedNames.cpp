// referenced_names: the names a function reads, for the caller to resolve as globals.
#include <set>

#include "frontend/Parser.h"

namespace tilec::frontend {

using namespace ast;

namespace {

class NameCollector {
public:
  std::vector<std::string> names;

  void expr(const Expr &e) {
    switch (e.kind) {
    case ExprKind::Name:
      add(static_cast<const NameExpr &>(e).id);
      return;
    case ExprKind::FString:
      for (const auto &p : static_cast<const FStringExpr &>(e).parts)
        if (p.expr)
          expr(*p.expr);
      return;
    case ExprKind::Attribute:
      expr(*static_cast<const AttributeExpr &>(e).value);
      return;
    case ExprKind::Subscript: {
      const auto &x = static_cast<const SubscriptExpr &>(e);
      expr(*x.value);
      expr(*x.index);
      return;
    }
    case ExprKind::Slice: {
      const auto &x = static_cast<const SliceExpr &>(e);
      opt(x.lower);
      opt(x.upper);
      opt(x.step);
      return;
    }
    case ExprKind::Call: {
      const auto &x = static_cast<const CallExpr &>(e);
      expr(*x.func);
      for (const auto &a : x.args)
        expr(*a);
      for (const auto &k : x.keywords)
        expr(*k.value);
      return;
    }
    case ExprKind::BinOp: {
      const auto &x = static_cast<const BinOpExpr &>(e);
      expr(*x.lhs);
      expr(*x.rhs);
      return;
    }
    case ExprKind::UnaryOp:
      expr(*static_cast<const UnaryOpExpr &>(e).operand);
      return;
    case ExprKind::BoolOp:
      for (const auto &v : static_cast<const BoolOpExpr &>(e).values)
        expr(*v);
      return;
    case ExprKind::Compare: {
      const auto &x = static_cast<const CompareExpr &>(e);
      expr(*x.left);
      for (const auto &c : x.comparators)
        expr(*c);
      return;
    }
    case ExprKind::IfExp: {
      const auto &x = static_cast<const IfExpExpr &>(e);
      expr(*x.test);
      expr(*x.body);
      expr(*x.orelse);
      return;
    }
    case ExprKind::Tuple:
      for (const auto &v : static_cast<const TupleExpr &>(e).elts)
        expr(*v);
      return;
    case ExprKind::List:
      for (const auto &v : static_cast<const ListExpr &>(e).elts)
        expr(*v);
      return;
    case ExprKind::Starred:
      expr(*static_cast<const StarredExpr &>(e).value);
      return;
    case ExprKind::ListComp: {
      const auto &x = static_cast<const ListCompExpr &>(e);
      expr(*x.iter);
      target(*x.target);
      expr(*x.elt);
      for (const auto &c : x.ifs)
        expr(*c);
      return;
    }
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Str:
    case ExprKind::Bool:
    case ExprKind::None:
    case ExprKind::Ellipsis:
    case ExprKind::Lambda:
      return; // a lambda's body is not kept
    }
  }

  // An assignment target binds names; only what it indexes or dereferences is read.
  void target(const Expr &e) {
    switch (e.kind) {
    case ExprKind::Name:
      return;
    case ExprKind::Tuple:
      for (const auto &v : static_cast<const TupleExpr &>(e).elts)
        target(*v);
      return;
    case ExprKind::List:
      for (const auto &v : static_cast<const ListExpr &>(e).elts)
        target(*v);
      return;
    case ExprKind::Starred:
      target(*static_cast<const StarredExpr &>(e).value);
      return;
    default:
      expr(e);
      return;
    }
  }

  void function(const FunctionDefStmt &fn) {
    for (const auto &p : fn.params) {
      opt(p.annotation);
      opt(p.default_value);
    }
    opt(fn.returns);
    body(fn.body);
  }

  void body(const StmtList &list) {
    for (const auto &s : list)
      stmt(*s);
  }

  void stmt(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::FunctionDef: {
      const auto &x = static_cast<const FunctionDefStmt &>(s);
      for (const auto &d : x.decorators)
        expr(*d);
      function(x);
      return;
    }
    case StmtKind::Assign: {
      const auto &x = static_cast<const AssignStmt &>(s);
      expr(*x.value);
      for (const auto &t : x.targets)
        target(*t);
      return;
    }
    case StmtKind::AugAssign: {
      const auto &x = static_cast<const AugAssignStmt &>(s);
      expr(*x.target); // `x += 1` reads x
      expr(*x.value);
      return;
    }
    case StmtKind::AnnAssign: {
      const auto &x = static_cast<const AnnAssignStmt &>(s);
      expr(*x.annotation); // `x: tl.constexpr = 3` names tl
      opt(x.value);
      target(*x.target);
      return;
    }
    case StmtKind::Expr:
      expr(*static_cast<const ExprStmt &>(s).value);
      return;
    case StmtKind::If: {
      const auto &x = static_cast<const IfStmt &>(s);
      expr(*x.test);
      body(x.body);
      body(x.orelse);
      return;
    }
    case StmtKind::For: {
      const auto &x = static_cast<const ForStmt &>(s);
      expr(*x.iter);
      target(*x.target);
      body(x.body);
      body(x.orelse);
      return;
    }
    case StmtKind::While: {
      const auto &x = static_cast<const WhileStmt &>(s);
      expr(*x.test);
      body(x.body);
      body(x.orelse);
      return;
    }
    case StmtKind::Return:
      opt(static_cast<const ReturnStmt &>(s).value);
      return;
    case StmtKind::Assert: {
      const auto &x = static_cast<const AssertStmt &>(s);
      expr(*x.test);
      opt(x.msg);
      return;
    }
    case StmtKind::Pass:
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Import:
    case StmtKind::ImportFrom:
    case StmtKind::Unsupported:
      return;
    }
  }

private:
  std::set<std::string> seen_;

  void add(const std::string &name) {
    if (seen_.insert(name).second)
      names.push_back(name);
  }
  void opt(const ExprPtr &e) {
    if (e)
      expr(*e);
  }
};

} // namespace

std::vector<std::string> referenced_names(const FunctionDefStmt &fn) {
  NameCollector c;
  c.function(fn);
  return std::move(c.names);
}

} // namespace tilec::frontend
