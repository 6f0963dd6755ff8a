// `tilec compile -g`: grid expressions over the kernel's integer arguments (and the shapes
// of its tensor descriptors), checked and translated to C (Aot.h).
#include <cctype>

#include "aot/Aot.h"

namespace tilec::aot {

namespace {

class GridParser {
public:
  GridParser(const std::string &text, const std::vector<AotParam> &params)
      : s_(text), params_(params) {}

  std::vector<std::string> parse_list() {
    std::vector<std::string> out{expr()};
    while (eat(","))
      out.push_back(expr());
    skip();
    if (pos_ != s_.size())
      fail("unexpected '" + s_.substr(pos_, 1) + "'");
    return out;
  }

private:
  [[noreturn]] void fail(const std::string &why) const {
    throw UsageError("bad grid '" + s_ + "' at column " + std::to_string(pos_ + 1) + ": " + why +
                     " (expected expressions such as \"cdiv(n, 1024), 1, 1\" over the integer "
                     "arguments, with + - * / // % cdiv min max)");
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
  }
  bool eat(const char *tok) {
    skip();
    std::string t(tok);
    if (s_.compare(pos_, t.size(), t) != 0)
      return false;
    if (t == "/" && s_.compare(pos_, 2, "//") == 0)
      return false; // leave "//" to its own check
    pos_ += t.size();
    return true;
  }
  std::string expr() {
    std::string e = term();
    while (true) {
      if (eat("+"))
        e = "(" + e + " + " + term() + ")";
      else if (eat("-"))
        e = "(" + e + " - " + term() + ")";
      else
        return e;
    }
  }
  std::string term() {
    std::string e = unary();
    while (true) {
      if (eat("//") || eat("/")) // integer division either way: grids are integers
        e = "(" + e + " / " + unary() + ")";
      else if (eat("*"))
        e = "(" + e + " * " + unary() + ")";
      else if (eat("%"))
        e = "(" + e + " % " + unary() + ")";
      else
        return e;
    }
  }
  std::string unary() {
    if (eat("-"))
      return "(-" + unary() + ")";
    if (eat("+"))
      return unary();
    return primary();
  }
  std::string primary() {
    skip();
    if (eat("(")) {
      std::string e = expr();
      if (!eat(")"))
        fail("missing ')'");
      return e;
    }
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      size_t start = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
        ++pos_;
      std::string digits = s_.substr(start, pos_ - start);
      if (digits.size() > 18)
        fail("integer too large");
      return "INT64_C(" + digits + ")";
    }
    if (pos_ < s_.size() &&
        (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      size_t start = pos_;
      while (pos_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
        ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      if (eat("("))
        return call(name, start);
      return variable(name, start);
    }
    fail(pos_ == s_.size() ? "unexpected end" : "unexpected '" + s_.substr(pos_, 1) + "'");
  }
  std::string call(const std::string &name, size_t at) {
    if (name != "cdiv" && name != "min" && name != "max") {
      pos_ = at;
      fail("unknown function '" + name + "' (cdiv, min and max are known)");
    }
    std::string a = expr();
    if (!eat(","))
      fail(name + " takes two arguments");
    std::string b = expr();
    if (!eat(")"))
      fail("missing ')' after the arguments of " + name);
    return "tilec_aot_" + name + "(" + a + ", " + b + ")";
  }
  std::string variable(const std::string &name, size_t at) {
    std::string known;
    for (const AotParam &p : params_) {
      if (p.spec.kind == sema::ArgSpec::Kind::TensorDesc && p.name == name)
        return descriptor_shape(p);
      if (p.spec.kind == sema::ArgSpec::Kind::TensorDesc)
        known += (known.empty() ? "" : ", ") + p.name + ".shape[i]";
      bool is_int = p.is_constexpr() ? p.spec.value.kind == sema::Val::Kind::Int
                                     : p.spec.kind == sema::ArgSpec::Kind::Int;
      if (!is_int)
        continue;
      if (p.name == name)
        return p.is_constexpr() ? "INT64_C(" + std::to_string(p.spec.value.i) + ")"
                                : "((int64_t)" + name + ")";
      known += (known.empty() ? "" : ", ") + p.name;
    }
    pos_ = at;
    fail("'" + name + "' is not an integer parameter of the kernel" +
         (known.empty() ? std::string(" (it has none)") : " (integer parameters: " + known + ")"));
  }

  // `d.shape[i]` of a tensor descriptor argument (the only part a grid may read).
  std::string descriptor_shape(const AotParam &p) {
    size_t rank = p.spec.desc_block_shape.size();
    if (!eat(".") || !eat("shape") || !eat("["))
      fail("a tensor descriptor is used as " + p.name + ".shape[i]");
    skip();
    size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
    std::string digits = s_.substr(start, pos_ - start);
    if (digits.empty() || digits.size() > 2 || std::stoul(digits) >= rank)
      fail(p.name + " has dimensions 0 to " + std::to_string(rank - 1));
    if (!eat("]"))
      fail("missing ']'");
    return "((int64_t)" + p.name + ".shape[" + digits + "])";
  }

  std::string s_;
  const std::vector<AotParam> &params_;
  size_t pos_ = 0;
};

} // namespace

std::array<std::string, 3> grid_to_c(const std::string &grid, const std::vector<AotParam> &params) {
  std::vector<std::string> dims = GridParser(grid, params).parse_list();
  if (dims.size() > 3)
    throw UsageError("bad grid '" + grid + "': at most 3 dimensions, got " +
                     std::to_string(dims.size()));
  std::array<std::string, 3> out{"INT64_C(1)", "INT64_C(1)", "INT64_C(1)"};
  for (size_t i = 0; i < dims.size(); ++i)
    out[i] = dims[i];
  return out;
}

} // namespace tilec::aot
