#include "frontend/sema/Value.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "frontend/sema/Promotion.h"
#include "frontend/sema/Sema.h"

namespace tilec::sema {

namespace {

// Python's repr(float): the shortest digits that round-trip, fixed notation for decimal
// exponents in [-4, 16), scientific otherwise, and always a '.0' on integral values.
std::string float_repr(double x) {
  if (std::isnan(x))
    return "nan";
  if (std::isinf(x))
    return x < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  bool neg = s[0] == '-';
  if (neg)
    s.erase(0, 1);
  size_t e = s.find('e');
  std::string digits = s.substr(0, e);
  int exp10 = std::stoi(s.substr(e + 1));
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  int decpt = exp10 + 1; // digits d1 d2 ... with the point after `decpt` digits
  std::string out;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out = "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
    } else if (static_cast<size_t>(decpt) >= digits.size()) {
      out = digits + std::string(static_cast<size_t>(decpt) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(decpt)) + "." +
            digits.substr(static_cast<size_t>(decpt));
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1)
      out += "." + digits.substr(1);
    int ex = decpt - 1;
    std::string es = std::to_string(std::abs(ex));
    if (es.size() < 2)
      es = "0" + es;
    out += std::string(ex < 0 ? "e-" : "e+") + es;
  }
  return neg ? "-" + out : out;
}

std::string quoted(const std::string &s) {
  // Python prefers single quotes unless the text contains one and no double quote.
  char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string r(1, q);
  for (unsigned char c : s) {
    switch (c) {
    case '\\':
      r += "\\\\";
      break;
    case '\n':
      r += "\\n";
      break;
    case '\r':
      r += "\\r";
      break;
    case '\t':
      r += "\\t";
      break;
    default:
      if (c == q) {
        r += '\\';
        r += static_cast<char>(c);
      } else if (c < 0x20 || c == 0x7f) {
        static const char *hex = "0123456789abcdef";
        r += "\\x";
        r += hex[c >> 4];
        r += hex[c & 15];
      } else {
        r += static_cast<char>(c);
      }
    }
  }
  return r + q;
}

std::string spell(const Val &v, bool quote_strings) {
  using K = Val::Kind;
  switch (v.kind) {
  case K::None:
    return "None";
  case K::Bool:
    return v.b ? "True" : "False";
  case K::Int:
    return v.u64 ? std::to_string(static_cast<uint64_t>(v.i)) : std::to_string(v.i);
  case K::Float:
    return float_repr(v.f);
  case K::Str:
    return quote_strings ? quoted(v.str) : v.str;
  case K::DType: {
    if (!v.type.is_tile())
      return elem_name(v.type);
    std::string dims; // a tensor's .type: Triton's block_type, "<(16, 32), fp32>"
    for (int64_t n : v.type.shape)
      dims += (dims.empty() ? "" : ", ") + std::to_string(n);
    return "<(" + dims + (v.type.rank() == 1 ? ",)" : ")") + ", " + elem_name(v.type) + ">";
  }
  case K::Tensor:
    return v.tensor ? tensor_str(v.tensor->type) : "tensor";
  case K::Tuple: {
    if (v.named) { // repr of a NamedTuple: Name(f=v, ...)
      std::string s = v.named->name + "(";
      for (size_t i = 0; i < v.elems.size(); ++i)
        s += (i ? ", " : "") + (i < v.named->fields.size() ? v.named->fields[i] : "?") + "=" +
             spell(v.elems[i], true);
      return s + ")";
    }
    std::string s = "(";
    for (size_t i = 0; i < v.elems.size(); ++i)
      s += (i ? ", " : "") + spell(v.elems[i], true);
    return s + (v.elems.size() == 1 ? ",)" : ")");
  }
  case K::Function:
    return "JITFunction(" + (v.fn ? v.fn->name : std::string("?")) + ")";
  case K::Module:
    return "<module '" + v.str + "'>";
  case K::Builtin:
    return "<built-in function " + v.str + ">";
  case K::Method:
    return "<bound method " + v.str + ">";
  case K::BlockPtr: {
    std::string s = "<block pointer [";
    for (size_t i = 0; i < v.block->rank(); ++i)
      s += (i ? ", " : "") + std::to_string(v.block->block_shape[i]);
    return s + "]>";
  }
  case K::TensorDesc: // as Triton's signatures spell it: tensordesc<fp16[64, 64]>
    return tensor_desc_str(v);
  case K::TupleClass:
    return "<class '" + v.named->name + "'>";
  case K::HostFunction:
    return "ConstexprFunction(" + v.host->name + ")";
  case K::Slice: {
    std::string s = "slice(";
    for (size_t i = 0; i < 3; ++i)
      s += (i ? ", " : "") + (i < v.elems.size() ? spell(v.elems[i], true) : "None");
    return s + ")";
  }
  }
  return "?";
}

} // namespace

std::string tensor_desc_str(const Val &v) {
  std::string s = "tensordesc<" +
                  elem_name(ir::Type(v.elems[TensorDescInfo::base_at()].tensor->type.elem)) + "[";
  for (size_t i = 0; i < v.desc->rank(); ++i)
    s += (i ? ", " : "") + std::to_string(v.desc->block_shape[i]);
  return s + (v.desc->nan_padding ? "], nan>" : "]>");
}

bool Val::is_constexpr() const {
  switch (kind) {
  case Kind::None:
  case Kind::Bool:
  case Kind::Int:
  case Kind::Float:
  case Kind::Str:
  case Kind::DType:
  case Kind::Function: // a @jit function passed as a value (combine_fn) is compile-time
  case Kind::TupleClass:
  case Kind::HostFunction:
    return true;
  case Kind::Tuple:
    for (const Val &e : elems)
      if (!e.is_constexpr())
        return false;
    return true;
  default:
    return false;
  }
}

namespace {
const std::shared_ptr<const NamedTupleInfo> &constexpr_type_class() {
  static const auto info =
      std::make_shared<const NamedTupleInfo>(NamedTupleInfo{"constexpr_type", {"value"}, {}});
  return info;
}
} // namespace

Val constexpr_type_of(const Val &v) {
  Val t = Val::tuple({v});
  t.named = constexpr_type_class();
  return t;
}

bool is_constexpr_type(const Val &v) {
  return v.kind == Val::Kind::Tuple && v.named == constexpr_type_class();
}

std::string Val::repr() const { return spell(*this, false); }

std::string Val::py_repr() const { return spell(*this, true); }

} // namespace tilec::sema
