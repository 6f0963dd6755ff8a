// Python's str(), repr() and format() of compile-time values, for f-strings; and a
// small unparser that names expressions in messages.
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "frontend/sema/EmitUtil.h"
#include "frontend/sema/Promotion.h"
#include "frontend/sema/SemaImpl.h"

namespace tilec::sema::detail {

std::string py_float_repr(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  if (v == 0)
    return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  // Shortest round-trip digits, then Python's layout: fixed for 1e-4 <= |v| < 1e16.
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  std::string sign;
  if (s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  size_t epos = s.find('e');
  int exp = std::stoi(s.substr(epos + 1));
  std::string digits;
  for (char c : s.substr(0, epos))
    if (c != '.')
      digits += c;
  int decpt = exp + 1;
  int n = static_cast<int>(digits.size());
  std::string out;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0)
      out = "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
    else if (decpt >= n)
      out = digits + std::string(static_cast<size_t>(decpt - n), '0') + ".0";
    else
      out = digits.substr(0, static_cast<size_t>(decpt)) + "." +
            digits.substr(static_cast<size_t>(decpt));
  } else {
    out = digits.substr(0, 1);
    if (n > 1)
      out += "." + digits.substr(1);
    int e = decpt - 1;
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    out += eb;
  }
  return sign + out;
}

std::string py_str_repr(const std::string &s) {
  char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string out(1, q);
  for (unsigned char c : s) {
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c == static_cast<unsigned char>(q)) {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20 || c == 0x7f) {
        char b[8];
        std::snprintf(b, sizeof b, "\\x%02x", c);
        out += b;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + q;
}

std::string py_str(const Val &v) {
  switch (v.kind) {
  case Val::Kind::None:
    return "None";
  case Val::Kind::Bool:
    return v.b ? "True" : "False";
  case Val::Kind::Int:
    return v.u64 ? std::to_string(static_cast<uint64_t>(v.i)) : std::to_string(v.i);
  case Val::Kind::Float:
    return py_float_repr(v.f);
  case Val::Kind::Str:
    return v.str;
  case Val::Kind::DType:
    return v.repr(); // "fp32", "pointer<fp32>", a block type "<(16, 32), fp32>"
  case Val::Kind::Tensor:
    return v.tensor ? value_type_str(v) : "tensor";
  case Val::Kind::Tuple: {
    std::string s = "(";
    for (size_t i = 0; i < v.elems.size(); ++i)
      s += (i ? ", " : "") + py_repr(v.elems[i]);
    return s + (v.elems.size() == 1 ? ",)" : ")");
  }
  default:
    return v.repr();
  }
}

std::string py_repr(const Val &v) {
  return v.kind == Val::Kind::Str ? py_str_repr(v.str) : py_str(v);
}

namespace {

struct Spec {
  char fill = ' ';
  char align = 0; // '<', '>', '^', '='
  char sign = '-';
  bool alt = false;
  char grouping = 0; // ',' or '_'
  int width = 0;
  int precision = -1;
  char type = 0;
};

Spec parse_spec(const std::string &s, const std::string &tname, SourceLoc loc) {
  Spec sp;
  size_t i = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  auto bad = [&]() {
    return CompileError(loc,
                        "Invalid format specifier '" + s + "' for object of type '" + tname + "'");
  };
  if (s.size() >= 2 && is_align(s[1])) {
    sp.fill = s[0];
    sp.align = s[1];
    i = 2;
  } else if (!s.empty() && is_align(s[0])) {
    sp.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' '))
    sp.sign = s[i++];
  if (i < s.size() && s[i] == 'z')
    ++i; // negative zero coercion: rare; accepted
  if (i < s.size() && s[i] == '#') {
    sp.alt = true;
    ++i;
  }
  if (i < s.size() && s[i] == '0') {
    if (!sp.align) {
      sp.fill = '0';
      sp.align = '=';
    }
    ++i;
  }
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    sp.width = sp.width * 10 + (s[i++] - '0');
    if (sp.width > 4096)
      throw bad();
  }
  if (i < s.size() && (s[i] == ',' || s[i] == '_'))
    sp.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
      throw CompileError(loc, "Format specifier missing precision");
    sp.precision = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      sp.precision = sp.precision * 10 + (s[i++] - '0');
      if (sp.precision > 1000)
        throw bad();
    }
  }
  if (i < s.size())
    sp.type = s[i++];
  if (i != s.size())
    throw bad();
  return sp;
}

// Inserts `sep` every `every` digits into the integer part of `body` (all of it when
// `whole`, e.g. hex digits).
std::string group_digits(const std::string &body, char sep, int every, bool whole) {
  size_t end = whole ? body.size() : 0;
  while (end < body.size() && std::isdigit(static_cast<unsigned char>(body[end])))
    ++end;
  std::string head = body.substr(0, end), out;
  int count = 0;
  for (size_t k = head.size(); k-- > 0;) {
    out.insert(out.begin(), head[k]);
    if (++count % every == 0 && k > 0)
      out.insert(out.begin(), sep);
  }
  return out + body.substr(end);
}

std::string pad(const std::string &sign, const std::string &body, const Spec &sp,
                char default_align) {
  size_t len = sign.size() + body.size();
  if (static_cast<size_t>(sp.width) <= len)
    return sign + body;
  size_t n = static_cast<size_t>(sp.width) - len;
  std::string fill(n, sp.fill);
  switch (sp.align ? sp.align : default_align) {
  case '<':
    return sign + body + fill;
  case '^':
    return std::string(n / 2, sp.fill) + sign + body + std::string(n - n / 2, sp.fill);
  case '=':
    return sign + fill + body;
  default:
    return fill + sign + body;
  }
}

std::string format_float(double v, const Spec &sp) {
  double a = std::fabs(v);
  bool neg = std::signbit(v) && !std::isnan(v);
  std::string body;
  char t = sp.type;
  int prec = sp.precision < 0 ? 6 : sp.precision;
  char buf[1200];
  if (std::isinf(a) || std::isnan(a)) {
    body = std::isnan(a) ? "nan" : "inf";
    if (t == 'F' || t == 'E' || t == 'G')
      body = std::isnan(a) ? "NAN" : "INF";
    if (t == '%')
      body += '%';
  } else if (t == 'f' || t == 'F') {
    std::snprintf(buf, sizeof buf, sp.alt ? "%#.*f" : "%.*f", prec, a);
    body = buf;
  } else if (t == 'e' || t == 'E') {
    std::snprintf(buf, sizeof buf,
                  sp.alt ? (t == 'e' ? "%#.*e" : "%#.*E") : (t == 'e' ? "%.*e" : "%.*E"), prec, a);
    body = buf;
  } else if (t == 'g' || t == 'G' || t == 'n') {
    std::snprintf(buf, sizeof buf,
                  sp.alt ? (t == 'G' ? "%#.*G" : "%#.*g") : (t == 'G' ? "%.*G" : "%.*g"),
                  prec == 0 ? 1 : prec, a);
    body = buf;
  } else if (t == '%') {
    std::snprintf(buf, sizeof buf, "%.*f", prec, a * 100);
    body = std::string(buf) + "%";
  } else { // no type: repr, or like 'g' keeping a decimal point
    if (sp.precision < 0) {
      body = py_float_repr(a);
    } else {
      std::snprintf(buf, sizeof buf, "%.*g", prec == 0 ? 1 : prec, a);
      body = buf;
      if (body.find_first_of(".e") == std::string::npos)
        body += ".0";
    }
  }
  if (sp.grouping)
    body = group_digits(body, sp.grouping, 3, false);
  std::string sign = neg ? "-" : sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "";
  return pad(sign, body, sp, '>');
}

// `u64`: v's bits are an unsigned value in [2**63, 2**64) (Val::u64).
std::string format_int(int64_t v, bool u64, const Spec &sp, SourceLoc loc,
                       const std::string &tname) {
  char t = sp.type;
  bool neg = !u64 && v < 0;
  if (t == 'e' || t == 'E' || t == 'f' || t == 'F' || t == 'g' || t == 'G' || t == '%')
    return format_float(
        u64 ? static_cast<double>(static_cast<uint64_t>(v)) : static_cast<double>(v), sp);
  if (sp.precision >= 0)
    throw CompileError(loc, "Precision not allowed in integer format specifier");
  uint64_t a = neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  std::string body, prefix;
  int group = 3;
  if (t == 0 || t == 'd' || t == 'n') {
    body = std::to_string(a);
  } else if (t == 'x' || t == 'X' || t == 'o' || t == 'b') {
    int base = t == 'o' ? 8 : t == 'b' ? 2 : 16;
    const char *digs = t == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
      body.insert(body.begin(), digs[a % static_cast<uint64_t>(base)]);
      a /= static_cast<uint64_t>(base);
    } while (a);
    if (sp.alt)
      prefix = std::string("0") + (t == 'o' ? 'o' : t == 'b' ? 'b' : t);
    group = 4;
  } else if (t == 'c') {
    if (neg || u64 || v > 127)
      throw CompileError(loc, "%c arg not in range(0x80) (tilec formats ASCII only)");
    body = std::string(1, static_cast<char>(v));
    return pad("", body, sp, '<');
  } else {
    throw CompileError(loc, std::string("Unknown format code '") + t + "' for object of type '" +
                                tname + "'");
  }
  if (sp.grouping)
    body = group_digits(body, sp.grouping, sp.grouping == '_' ? group : 3, true);
  std::string sign = neg ? "-" : sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "";
  return pad(sign + prefix, body, sp, '>');
}

} // namespace

std::string format_value(const Val &v, const std::string &spec, SourceLoc loc) {
  if (spec.empty())
    return py_str(v);
  std::string tname = py_type_name(v);
  Spec sp = parse_spec(spec, tname, loc);
  switch (v.kind) {
  case Val::Kind::Str: {
    if (sp.type && sp.type != 's')
      throw CompileError(loc, std::string("Unknown format code '") + sp.type +
                                  "' for object of type 'str'");
    if (sp.sign != '-')
      throw CompileError(loc, "Sign not allowed in string format specifier");
    if (sp.align == '=')
      throw CompileError(loc, "'=' alignment not allowed in string format specifier");
    std::string body = v.str;
    if (sp.precision >= 0 && body.size() > static_cast<size_t>(sp.precision))
      body.resize(static_cast<size_t>(sp.precision));
    return pad("", body, sp, '<');
  }
  case Val::Kind::Bool:
  case Val::Kind::Int:
    return format_int(v.kind == Val::Kind::Bool ? v.b : v.i, v.u64, sp, loc, tname);
  case Val::Kind::Float: {
    char t = sp.type;
    if (t && t != 'e' && t != 'E' && t != 'f' && t != 'F' && t != 'g' && t != 'G' && t != 'n' &&
        t != '%')
      throw CompileError(loc,
                         std::string("Unknown format code '") + t + "' for object of type 'float'");
    return format_float(v.f, sp);
  }
  default:
    throw CompileError(loc, "unsupported format string passed to " + tname + ".__format__");
  }
}

// --- unparse ---

std::string unparse(const ast::Expr &e) {
  switch (e.kind) {
  case ast::ExprKind::Name:
    return static_cast<const ast::NameExpr &>(e).id;
  case ast::ExprKind::Int:
    return std::to_string(static_cast<const ast::IntExpr &>(e).value);
  case ast::ExprKind::Float:
    return py_float_repr(static_cast<const ast::FloatExpr &>(e).value);
  case ast::ExprKind::Str:
    return py_str_repr(static_cast<const ast::StrExpr &>(e).value);
  case ast::ExprKind::Bool:
    return static_cast<const ast::BoolExpr &>(e).value ? "True" : "False";
  case ast::ExprKind::None:
    return "None";
  case ast::ExprKind::Attribute: {
    auto &x = static_cast<const ast::AttributeExpr &>(e);
    return unparse(*x.value) + "." + x.attr;
  }
  case ast::ExprKind::Subscript: {
    auto &x = static_cast<const ast::SubscriptExpr &>(e);
    std::string idx = unparse(*x.index);
    if (x.index->kind == ast::ExprKind::Tuple && idx.size() >= 2)
      idx = idx.substr(1, idx.size() - 2);
    return unparse(*x.value) + "[" + idx + "]";
  }
  case ast::ExprKind::Slice: {
    auto &x = static_cast<const ast::SliceExpr &>(e);
    std::string s = (x.lower ? unparse(*x.lower) : "") + ":" + (x.upper ? unparse(*x.upper) : "");
    return x.step ? s + ":" + unparse(*x.step) : s;
  }
  case ast::ExprKind::Call: {
    auto &x = static_cast<const ast::CallExpr &>(e);
    std::string s = unparse(*x.func) + "(";
    bool first = true;
    for (const ast::ExprPtr &a : x.args) {
      s += (first ? "" : ", ") + unparse(*a);
      first = false;
    }
    for (const ast::Keyword &k : x.keywords) {
      s += (first ? "" : ", ") + (k.name.empty() ? "**" : k.name + "=") + unparse(*k.value);
      first = false;
    }
    return s + ")";
  }
  case ast::ExprKind::BinOp: {
    auto &x = static_cast<const ast::BinOpExpr &>(e);
    return unparse(*x.lhs) + " " + ast::binop_symbol(x.op) + " " + unparse(*x.rhs);
  }
  case ast::ExprKind::UnaryOp: {
    auto &x = static_cast<const ast::UnaryOpExpr &>(e);
    std::string op = ast::unaryop_symbol(x.op);
    return op + (x.op == ast::UnaryOp::Not ? " " : "") + unparse(*x.operand);
  }
  case ast::ExprKind::Compare: {
    auto &x = static_cast<const ast::CompareExpr &>(e);
    std::string s = unparse(*x.left);
    for (size_t i = 0; i < x.ops.size() && i < x.comparators.size(); ++i)
      s += std::string(" ") + ast::cmpop_symbol(x.ops[i]) + " " + unparse(*x.comparators[i]);
    return s;
  }
  case ast::ExprKind::ListComp: {
    auto &x = static_cast<const ast::ListCompExpr &>(e);
    std::string s =
        "[" + unparse(*x.elt) + " for " + unparse(*x.target) + " in " + unparse(*x.iter);
    for (const auto &c : x.ifs)
      s += " if " + unparse(*c);
    return s + "]";
  }
  case ast::ExprKind::Tuple:
  case ast::ExprKind::List: {
    const auto &elts = e.kind == ast::ExprKind::Tuple ? static_cast<const ast::TupleExpr &>(e).elts
                                                      : static_cast<const ast::ListExpr &>(e).elts;
    std::string s = e.kind == ast::ExprKind::Tuple ? "(" : "[";
    for (size_t i = 0; i < elts.size(); ++i)
      s += (i ? ", " : "") + unparse(*elts[i]);
    if (e.kind == ast::ExprKind::Tuple && elts.size() == 1)
      s += ",";
    return s + (e.kind == ast::ExprKind::Tuple ? ")" : "]");
  }
  case ast::ExprKind::Starred:
    return "*" + unparse(*static_cast<const ast::StarredExpr &>(e).value);
  default:
    return "...";
  }
}

} // namespace tilec::sema::detail
