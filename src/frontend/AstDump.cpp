#include "frontend/AstDump.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace tilec::ast {

namespace {

std::string loc_suffix(SourceLoc l, bool locs) {
  if (!locs)
    return {};
  return "@" + std::to_string(l.line) + ":" + std::to_string(l.col);
}

std::string quote(const std::string &s) {
  std::string out = "'";
  for (char c : s) {
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '\'':
      out += "\\'";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "'";
}

std::string float_text(double v) {
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  if (std::isnan(v))
    return "nan";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

std::string opt(const ExprPtr &e, bool locs) { return e ? dump(*e, locs) : "_"; }

std::string list(const char *head, SourceLoc l, const std::vector<ExprPtr> &elts, bool locs) {
  std::string out = std::string("(") + head + loc_suffix(l, locs);
  for (const auto &e : elts)
    out += " " + dump(*e, locs);
  return out + ")";
}

std::string param_text(const Param &p, bool locs) {
  std::string out;
  switch (p.kind) {
  case Param::Kind::Normal:
    break;
  case Param::Kind::VarArgs:
    out += "*";
    break;
  case Param::Kind::KwArgs:
    out += "**";
    break;
  case Param::Kind::KwOnly:
    out += "kwonly ";
    break;
  }
  out += p.name + loc_suffix(p.loc, locs);
  if (p.annotation)
    out += ": " + dump(*p.annotation, locs);
  if (p.default_value)
    out += " = " + dump(*p.default_value, locs);
  return out;
}

std::string aliases(const std::vector<ImportAlias> &names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i ? ", " : "") + names[i].name;
    if (!names[i].asname.empty())
      out += " as " + names[i].asname;
  }
  return out;
}

} // namespace

std::string dump(const Expr &e, bool locs) {
  std::string at = loc_suffix(e.loc, locs);
  switch (e.kind) {
  case ExprKind::Name:
    return static_cast<const NameExpr &>(e).id + at;
  case ExprKind::Int: {
    const auto &x = static_cast<const IntExpr &>(e);
    return (x.overflow ? std::string("<int overflow>") : std::to_string(x.value)) + at;
  }
  case ExprKind::Float:
    return float_text(static_cast<const FloatExpr &>(e).value) + at;
  case ExprKind::Str:
    return quote(static_cast<const StrExpr &>(e).value) + at;
  case ExprKind::Bool:
    return (static_cast<const BoolExpr &>(e).value ? "True" : "False") + at;
  case ExprKind::None:
    return "None" + at;
  case ExprKind::Ellipsis:
    return "..." + at;
  case ExprKind::FString: {
    std::string out = "(f" + at;
    for (const auto &p : static_cast<const FStringExpr &>(e).parts) {
      if (!p.expr) {
        out += " " + quote(p.text);
        continue;
      }
      out += " {" + dump(*p.expr, locs);
      if (p.self_documenting)
        out += "=";
      if (p.conversion)
        out += std::string("!") + p.conversion;
      if (!p.format_spec.empty())
        out += ":" + p.format_spec;
      out += "}";
    }
    return out + ")";
  }
  case ExprKind::Attribute: {
    const auto &x = static_cast<const AttributeExpr &>(e);
    return "(." + at + " " + dump(*x.value, locs) + " " + x.attr + ")";
  }
  case ExprKind::Subscript: {
    const auto &x = static_cast<const SubscriptExpr &>(e);
    return "(sub" + at + " " + dump(*x.value, locs) + " " + dump(*x.index, locs) + ")";
  }
  case ExprKind::Slice: {
    const auto &x = static_cast<const SliceExpr &>(e);
    return "(slice" + at + " " + opt(x.lower, locs) + " " + opt(x.upper, locs) + " " +
           opt(x.step, locs) + ")";
  }
  case ExprKind::Call: {
    const auto &x = static_cast<const CallExpr &>(e);
    std::string out = "(call" + at + " " + dump(*x.func, locs);
    for (const auto &a : x.args)
      out += " " + dump(*a, locs);
    for (const auto &k : x.keywords)
      out += " " + (k.name.empty() ? std::string("**") : k.name + "=") + dump(*k.value, locs);
    return out + ")";
  }
  case ExprKind::BinOp: {
    const auto &x = static_cast<const BinOpExpr &>(e);
    return std::string("(") + binop_symbol(x.op) + at + " " + dump(*x.lhs, locs) + " " +
           dump(*x.rhs, locs) + ")";
  }
  case ExprKind::UnaryOp: {
    const auto &x = static_cast<const UnaryOpExpr &>(e);
    const char *head = x.op == UnaryOp::Neg   ? "neg"
                       : x.op == UnaryOp::Pos ? "pos"
                                              : unaryop_symbol(x.op);
    return std::string("(") + head + at + " " + dump(*x.operand, locs) + ")";
  }
  case ExprKind::BoolOp: {
    const auto &x = static_cast<const BoolOpExpr &>(e);
    return list(x.is_and ? "and" : "or", e.loc, x.values, locs);
  }
  case ExprKind::Compare: {
    const auto &x = static_cast<const CompareExpr &>(e);
    std::string out = "(cmp" + at + " " + dump(*x.left, locs);
    for (size_t i = 0; i < x.ops.size(); ++i)
      out += std::string(" ") + cmpop_symbol(x.ops[i]) + " " + dump(*x.comparators[i], locs);
    return out + ")";
  }
  case ExprKind::IfExp: {
    const auto &x = static_cast<const IfExpExpr &>(e);
    return "(ifexp" + at + " " + dump(*x.test, locs) + " " + dump(*x.body, locs) + " " +
           dump(*x.orelse, locs) + ")";
  }
  case ExprKind::Tuple:
    return list("tuple", e.loc, static_cast<const TupleExpr &>(e).elts, locs);
  case ExprKind::List:
    return list("list", e.loc, static_cast<const ListExpr &>(e).elts, locs);
  case ExprKind::ListComp: {
    const auto &x = static_cast<const ListCompExpr &>(e);
    std::string s = "(listcomp" + at + " " + dump(*x.elt, locs) + " for " +
                    dump(*x.target, locs) + " in " + dump(*x.iter, locs);
    for (const auto &c : x.ifs)
      s += " if " + dump(*c, locs);
    return s + ")";
  }
  case ExprKind::Starred:
    return "(*" + at + " " + dump(*static_cast<const StarredExpr &>(e).value, locs) + ")";
  case ExprKind::Lambda:
    return "(lambda" + at + ")";
  }
  return "<?>";
}

std::string dump(const Stmt &s, bool locs, int indent) {
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  std::string head =
      pad + (locs ? "[" + std::to_string(s.loc.line) + ":" + std::to_string(s.loc.col) + "] " : "");
  auto block = [&](const StmtList &body) {
    std::string out;
    for (const auto &b : body)
      out += dump(*b, locs, indent + 1);
    return out;
  };
  switch (s.kind) {
  case StmtKind::FunctionDef: {
    const auto &x = static_cast<const FunctionDefStmt &>(s);
    std::string out;
    for (const auto &d : x.decorators)
      out += pad + "@" + dump(*d, locs) + "\n";
    out += head + "def " + x.name + "(";
    for (size_t i = 0; i < x.params.size(); ++i)
      out += (i ? ", " : "") + param_text(x.params[i], locs);
    out += ")";
    if (x.returns)
      out += " -> " + dump(*x.returns, locs);
    return out + ":\n" + block(x.body);
  }
  case StmtKind::Assign: {
    const auto &x = static_cast<const AssignStmt &>(s);
    std::string out = head;
    for (const auto &t : x.targets)
      out += dump(*t, locs) + " = ";
    return out + dump(*x.value, locs) + "\n";
  }
  case StmtKind::AugAssign: {
    const auto &x = static_cast<const AugAssignStmt &>(s);
    return head + dump(*x.target, locs) + " " + binop_symbol(x.op) + "= " + dump(*x.value, locs) +
           "\n";
  }
  case StmtKind::AnnAssign: {
    const auto &x = static_cast<const AnnAssignStmt &>(s);
    return head + dump(*x.target, locs) + ": " + dump(*x.annotation, locs) +
           (x.value ? " = " + dump(*x.value, locs) : "") + "\n";
  }
  case StmtKind::Expr:
    return head + "expr " + dump(*static_cast<const ExprStmt &>(s).value, locs) + "\n";
  case StmtKind::If: {
    const auto &x = static_cast<const IfStmt &>(s);
    std::string out = head + "if " + dump(*x.test, locs) + ":\n" + block(x.body);
    if (!x.orelse.empty())
      out += pad + "else:\n" + block(x.orelse);
    return out;
  }
  case StmtKind::For: {
    const auto &x = static_cast<const ForStmt &>(s);
    std::string out = head + "for " + dump(*x.target, locs) + " in " + dump(*x.iter, locs) + ":\n" +
                      block(x.body);
    if (!x.orelse.empty())
      out += pad + "else:\n" + block(x.orelse);
    return out;
  }
  case StmtKind::While: {
    const auto &x = static_cast<const WhileStmt &>(s);
    std::string out = head + "while " + dump(*x.test, locs) + ":\n" + block(x.body);
    if (!x.orelse.empty())
      out += pad + "else:\n" + block(x.orelse);
    return out;
  }
  case StmtKind::Return: {
    const auto &x = static_cast<const ReturnStmt &>(s);
    return head + "return" + (x.value ? " " + dump(*x.value, locs) : "") + "\n";
  }
  case StmtKind::Assert: {
    const auto &x = static_cast<const AssertStmt &>(s);
    return head + "assert " + dump(*x.test, locs) + (x.msg ? ", " + dump(*x.msg, locs) : "") + "\n";
  }
  case StmtKind::Pass:
    return head + "pass\n";
  case StmtKind::Break:
    return head + "break\n";
  case StmtKind::Continue:
    return head + "continue\n";
  case StmtKind::Import:
    return head + "import " + aliases(static_cast<const ImportStmt &>(s).names) + "\n";
  case StmtKind::ImportFrom: {
    const auto &x = static_cast<const ImportFromStmt &>(s);
    return head + "from " + std::string(static_cast<size_t>(x.level), '.') + x.module + " import " +
           aliases(x.names) + "\n";
  }
  case StmtKind::Unsupported:
    return head + "unsupported " + static_cast<const UnsupportedStmt &>(s).what + "\n";
  }
  return head + "<?>\n";
}

std::string dump(const Module &m, bool locs) {
  std::string out;
  for (const auto &s : m.body)
    out += dump(*s, locs, 0);
  return out;
}

} // namespace tilec::ast
