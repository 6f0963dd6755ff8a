#include "aot/Signature.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

namespace tilec::aot {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::optional<ir::DType> dtype_named(std::string_view s) {
  for (std::string_view prefix : {"tl.", "triton.language.", "tilec.language."})
    if (s.substr(0, prefix.size()) == prefix) {
      s.remove_prefix(prefix.size());
      break;
    }
  if (auto d = ir::dtype_from_ir_name(s))
    return d;
  return ir::dtype_from_python_name(s);
}

const char *kSignatureHelp =
    "expected e.g. *fp32, *fp16:16, i32, i32:16, i64, fp32, i1, tensordesc<fp16[64, 64]>";

std::optional<int64_t> parse_int(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && std::strchr("xXoObB", s[1])) {
    base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
    s.remove_prefix(2);
  }
  std::string digits;
  for (char c : s)
    if (c != '_')
      digits += c;
  if (digits.empty())
    return std::nullopt;
  for (char c : digits) {
    int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : std::isxdigit(static_cast<unsigned char>(c))
                ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                : 99;
    if (v >= base)
      return std::nullopt;
  }
  errno = 0;
  unsigned long long u = std::strtoull(digits.c_str(), nullptr, base);
  uint64_t limit = neg ? uint64_t(1) << 63 : (uint64_t(1) << 63) - 1;
  if (errno == ERANGE || u > limit)
    throw UsageError("constexpr value " + std::string(neg ? "-" : "") + digits +
                     " does not fit in 64 bits");
  return neg ? static_cast<int64_t>(0 - static_cast<uint64_t>(u)) : static_cast<int64_t>(u);
}

// tensordesc<DTYPE[D0, D1, ...]> with an optional ", nan" / ", zero" padding and ":16".
sema::ArgSpec parse_tensordesc(std::string_view e, const std::string &shown) {
  auto bad = [&](const std::string &why) {
    return UsageError("bad --signature entry '" + shown + "': " + why +
                      " (expected e.g. tensordesc<fp16[64, 64]>)");
  };
  e.remove_prefix(std::string_view("tensordesc<").size());
  size_t end = e.rfind('>');
  if (end == std::string_view::npos)
    throw bad("no closing '>'");
  std::string_view hint = trim(e.substr(end + 1));
  if (!hint.empty() && hint != ":16")
    throw bad("a descriptor's hint must be ':16' (every shape entry and stride but the last "
              "divisible by 16), got '" +
              std::string(hint) + "'");
  e = e.substr(0, end);
  size_t open = e.find('['), close = e.find(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    throw bad("no block shape in [...]");
  sema::ArgSpec a;
  a.kind = sema::ArgSpec::Kind::TensorDesc;
  auto d = dtype_named(trim(e.substr(0, open)));
  if (!d)
    throw bad("unknown dtype '" + std::string(trim(e.substr(0, open))) + "'");
  a.dtype = *d;
  a.divisible_by_16 = true;
  std::string_view dims = e.substr(open + 1, close - open - 1);
  for (size_t start = 0; start <= dims.size();) {
    size_t comma = dims.find(',', start);
    std::string_view item = trim(dims.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    auto n = parse_int(item);
    if (!n || *n <= 0)
      throw bad("block dimension '" + std::string(item) + "' is not a positive integer");
    a.desc_block_shape.push_back(*n);
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  std::string_view rest = trim(e.substr(close + 1));
  if (!rest.empty()) {
    if (rest[0] != ',')
      throw bad("unexpected '" + std::string(rest) + "'");
    rest = trim(rest.substr(1));
    if (rest != "nan" && rest != "zero")
      throw bad("unknown padding '" + std::string(rest) + "' (zero or nan)");
    a.desc_nan_padding = rest == "nan";
  }
  size_t rank = a.desc_block_shape.size();
  a.desc_shape_div16.assign(rank, !hint.empty());
  a.desc_stride_div16.assign(rank - 1, !hint.empty());
  return a;
}

} // namespace

size_t entry_comma(std::string_view sig, size_t from) {
  int depth = 0;
  for (size_t i = from; i < sig.size(); ++i) {
    char c = sig[i];
    depth += (c == '<' || c == '[') - (c == '>' || c == ']');
    if (c == ',' && depth <= 0)
      return i;
  }
  return std::string_view::npos;
}

sema::ArgSpec parse_signature_entry(std::string_view entry) {
  std::string_view e = trim(entry);
  std::string shown(e);
  if (e.substr(0, std::string_view("tensordesc<").size()) == "tensordesc<")
    return parse_tensordesc(e, shown);
  sema::ArgSpec a;
  bool pointer = !e.empty() && e[0] == '*';
  if (pointer)
    e.remove_prefix(1);
  std::string_view hint;
  size_t colon = e.find(':');
  if (colon != std::string_view::npos) {
    hint = e.substr(colon + 1);
    e = e.substr(0, colon);
  }
  auto d = dtype_named(trim(e));
  if (!d)
    throw UsageError("bad --signature entry '" + shown + "': unknown dtype '" + std::string(e) +
                     "' (" + kSignatureHelp + ")");
  a.dtype = *d;
  if (pointer) {
    a.kind = sema::ArgSpec::Kind::Pointer;
    if (!hint.empty() && hint != "16")
      throw UsageError("bad --signature entry '" + shown +
                       "': a pointer's alignment hint must be ':16'");
    a.divisible_by_16 = hint == "16";
    return a;
  }
  if (ir::is_bool(*d)) {
    a.kind = sema::ArgSpec::Kind::Bool;
  } else if (ir::is_float(*d)) {
    a.kind = sema::ArgSpec::Kind::Float;
  } else {
    a.kind = sema::ArgSpec::Kind::Int;
    if (!hint.empty() && hint != "16" && hint != "1")
      throw UsageError("bad --signature entry '" + shown +
                       "': an integer's hint must be ':16' (divisible by 16) or ':1' (equal to 1)");
    a.divisible_by_16 = hint == "16";
    a.equal_to_1 = hint == "1";
    return a;
  }
  if (!hint.empty())
    throw UsageError("bad --signature entry '" + shown +
                     "': only pointers and integers take a ':' hint");
  return a;
}

std::vector<sema::ArgSpec> parse_signature(std::string_view sig) {
  std::vector<sema::ArgSpec> out;
  if (trim(sig).empty())
    return out;
  size_t start = 0;
  while (true) {
    size_t comma = entry_comma(sig, start);
    std::string_view entry =
        sig.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (trim(entry).empty())
      throw UsageError("bad --signature '" + std::string(sig) + "': empty entry");
    out.push_back(parse_signature_entry(entry));
    if (comma == std::string_view::npos)
      return out;
    start = comma + 1;
  }
}

sema::Val parse_constexpr_value(std::string_view text) {
  std::string_view t = trim(text);
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front())
    return sema::Val::string(std::string(t.substr(1, t.size() - 2)));
  if (t == "True")
    return sema::Val::boolean(true);
  if (t == "False")
    return sema::Val::boolean(false);
  if (t == "None")
    return sema::Val::none();
  if (auto i = parse_int(t))
    return sema::Val::integer(*i);
  if (!t.empty()) {
    std::string s(t);
    char *end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    bool numeric = std::isdigit(static_cast<unsigned char>(s.back())) || s.back() == '.' ||
                   s.find("inf") != std::string::npos || s.find("nan") != std::string::npos;
    if (end == s.c_str() + s.size() && numeric)
      return sema::Val::floating(d);
  }
  if (auto d = dtype_named(t))
    return sema::Val::dtype(ir::Type(*d));
  return sema::Val::string(std::string(t));
}

std::vector<sema::ArgSpec>
bind_arguments(const std::string &kernel, const std::vector<KernelParam> &params,
               const std::vector<sema::ArgSpec> &signature,
               const std::vector<std::pair<std::string, std::string>> &constexprs) {
  std::map<std::string, sema::Val> given;
  std::string names;
  for (const KernelParam &p : params)
    names += (names.empty() ? "" : ", ") + p.name;
  for (const auto &[name, value] : constexprs) {
    bool known = false;
    for (const KernelParam &p : params)
      known = known || p.name == name;
    if (!known)
      throw UsageError("--constexpr " + name + ": kernel '" + kernel + "' has no parameter '" +
                       name + "' (parameters: " + names + ")");
    if (given.count(name))
      throw UsageError("--constexpr " + name + " is given twice");
    given[name] = parse_constexpr_value(value);
  }
  // The run-time parameters, which the signature describes in order.
  std::vector<const KernelParam *> runtime;
  std::string runtime_names;
  for (const KernelParam &p : params) {
    if (given.count(p.name) || p.constexpr_annotated)
      continue;
    runtime.push_back(&p);
    runtime_names += (runtime_names.empty() ? "" : ", ") + p.name;
  }
  if (runtime.size() != signature.size())
    throw UsageError("--signature has " + std::to_string(signature.size()) + " entries, but '" +
                     kernel + "' has " + std::to_string(runtime.size()) +
                     " non-constexpr parameters" +
                     (runtime.empty() ? std::string() : " (" + runtime_names + ")"));
  std::vector<sema::ArgSpec> out;
  size_t next = 0;
  for (const KernelParam &p : params) {
    sema::ArgSpec a;
    if (auto g = given.find(p.name); g != given.end()) {
      a.kind = sema::ArgSpec::Kind::Constexpr;
      a.value = g->second;
    } else if (p.constexpr_annotated) {
      if (!p.default_value)
        throw UsageError("constexpr parameter '" + p.name + "' of '" + kernel +
                         "' needs a value: --constexpr " + p.name + "=VALUE");
      a.kind = sema::ArgSpec::Kind::Constexpr;
      a.value = *p.default_value;
    } else {
      a = signature[next++];
    }
    out.push_back(std::move(a));
  }
  return out;
}

} // namespace tilec::aot
