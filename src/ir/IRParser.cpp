#include "ir/IRParser.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace tilec::ir {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
}

class IRParser {
public:
  IRParser(std::string_view text, SourceManager *sm, int file, int first_line)
      : text_(text), sm_(sm), file_(file), first_line_(first_line) {}

  std::unique_ptr<Module> parse() {
    auto m = std::make_unique<Module>();
    skip_ws();
    if (peek_word("module")) {
      pos_ += 6;
      skip_ws();
      expect('{', "'{' after `module`");
      parse_attr_body(m->attrs);
    }
    skip_ws();
    while (!at_end()) {
      parse_function(*m);
      skip_ws();
    }
    return m;
  }

private:
  using Scope = std::unordered_map<std::string, std::vector<Value *>>;

  // ---- characters ----------------------------------------------------------------
  bool at_end() const { return pos_ >= text_.size(); }
  char cur() const { return at_end() ? '\0' : text_[pos_]; }
  char at(size_t off) const { return pos_ + off < text_.size() ? text_[pos_ + off] : '\0'; }

  // Skips spaces and comments; newlines too unless `same_line`.
  void skip_ws(bool same_line = false) {
    while (!at_end()) {
      char c = cur();
      if (c == '\n' && same_line)
        return;
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++pos_;
      } else if (c == '/' && at(1) == '/') {
        while (!at_end() && cur() != '\n')
          ++pos_;
      } else {
        return;
      }
    }
  }
  bool at_line_end() {
    skip_ws(true);
    return at_end() || cur() == '\n';
  }

  bool peek_word(std::string_view w) const {
    return text_.substr(pos_, w.size()) == w && !ident_char(at(w.size()));
  }

  [[noreturn]] void error(const std::string &msg, size_t at_pos = SIZE_MAX) const {
    size_t p = at_pos == SIZE_MAX ? pos_ : at_pos;
    int line = 0, col = 1;
    for (size_t i = 0; i < p && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw CompileError(SourceLoc{file_, first_line_ + line, col}, msg);
  }

  void expect(char c, const char *what) {
    skip_ws(true);
    if (cur() != c)
      error(std::string("expected ") + what);
    ++pos_;
  }
  bool accept(char c) {
    skip_ws(true);
    if (cur() != c)
      return false;
    ++pos_;
    return true;
  }
  bool accept_arrow() {
    skip_ws(true);
    if (cur() == '-' && at(1) == '>') {
      pos_ += 2;
      return true;
    }
    return false;
  }

  std::string ident(const char *what) {
    skip_ws(true);
    if (!ident_start(cur()))
      error(std::string("expected ") + what);
    size_t s = pos_;
    while (ident_char(cur()))
      ++pos_;
    return std::string(text_.substr(s, pos_ - s));
  }

  std::string string_lit() {
    skip_ws(true);
    if (cur() != '"')
      error("expected a string");
    size_t start = pos_++;
    std::string out;
    while (true) {
      if (at_end() || cur() == '\n')
        error("unterminated string", start);
      char c = text_[pos_++];
      if (c == '"')
        return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      char e = cur();
      ++pos_;
      if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else if (e == '"' || e == '\\') {
        out += e;
      } else if (std::isxdigit(static_cast<unsigned char>(e)) &&
                 std::isxdigit(static_cast<unsigned char>(cur()))) {
        out += static_cast<char>(std::stoi(std::string{e, cur()}, nullptr, 16));
        ++pos_;
      } else {
        error("bad escape in string", pos_ - 2);
      }
    }
  }

  int64_t int_lit() {
    skip_ws(true);
    size_t s = pos_;
    if (cur() == '-')
      ++pos_;
    while (std::isdigit(static_cast<unsigned char>(cur())))
      ++pos_;
    int64_t v = 0;
    auto r = std::from_chars(text_.data() + s, text_.data() + pos_, v);
    if (r.ec != std::errc() || r.ptr != text_.data() + pos_)
      error("expected an integer", s);
    return v;
  }

  // An int or a float (a float has '.', an exponent, or is inf/nan).
  AttrValue number() {
    skip_ws(true);
    size_t s = pos_;
    bool neg = cur() == '-';
    if (neg)
      ++pos_;
    if (peek_word("inf") || peek_word("nan")) {
      bool is_nan = cur() == 'n';
      pos_ += 3;
      double d = is_nan ? std::numeric_limits<double>::quiet_NaN()
                        : std::numeric_limits<double>::infinity();
      return neg ? -d : d;
    }
    bool is_float = false;
    while (std::isalnum(static_cast<unsigned char>(cur())) || cur() == '.' ||
           ((cur() == '+' || cur() == '-') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))) {
      if (cur() == '.' || cur() == 'e' || cur() == 'E')
        is_float = true;
      ++pos_;
    }
    const char *b = text_.data() + s, *e = text_.data() + pos_;
    if (is_float) {
      double d = 0;
      auto r = std::from_chars(b, e, d);
      if (r.ec != std::errc() || r.ptr != e)
        error("malformed number", s);
      return d;
    }
    int64_t v = 0;
    auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e)
      error(r.ec == std::errc::result_out_of_range ? "integer out of range" : "malformed number",
            s);
    return v;
  }

  Type type() {
    skip_ws(true);
    size_t s = pos_;
    int depth = 0;
    while (!at_end()) {
      char c = cur();
      if (c == '<') {
        ++depth;
      } else if (c == '>') {
        if (depth == 0)
          break;
        --depth;
      } else if (depth == 0 && !std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
        break; // inside <...> anything goes: a layout attribute has ',', '#', '[', '='
      } else if (c == '\n') {
        break;
      }
      ++pos_;
      if (depth == 0 && c == '>')
        break;
    }
    std::string_view t = text_.substr(s, pos_ - s);
    auto parsed = t.empty() ? std::nullopt : parse_type(t);
    if (!parsed)
      error("expected a type, got '" + std::string(t) + "'", s);
    return *parsed;
  }

  std::vector<Type> type_list() {
    std::vector<Type> ts;
    skip_ws(true);
    if (cur() == '(' && at(1) == ')') {
      pos_ += 2;
      return ts;
    }
    do
      ts.push_back(type());
    while (accept(','));
    return ts;
  }

  // ---- attributes ----------------------------------------------------------------
  // After '{': `name = value, ...}`.
  void parse_attr_body(std::vector<NamedAttr> &attrs) {
    if (accept('}'))
      return;
    do {
      skip_ws(true);
      std::string name = cur() == '"' ? string_lit() : ident("an attribute name");
      expect('=', "'=' after the attribute name");
      attrs.push_back({std::move(name), attr_value()});
    } while (accept(','));
    expect('}', "',' or '}' in attributes");
  }

  AttrValue attr_value() {
    skip_ws(true);
    if (cur() == '"')
      return string_lit();
    if (cur() == '[') {
      ++pos_;
      std::vector<int64_t> xs;
      if (!accept(']')) {
        do
          xs.push_back(int_lit());
        while (accept(','));
        expect(']', "',' or ']' in a list");
      }
      return xs;
    }
    return number();
  }

  // Is the '{' at pos_ an attribute dict (rather than a region)?
  bool brace_is_attrs() const {
    size_t p = pos_ + 1;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t'))
      ++p;
    if (p >= text_.size() || text_[p] == '\n' || text_[p] == '\r')
      return false;
    if (text_[p] == '}' || text_[p] == '"')
      return true;
    if (!ident_start(text_[p]))
      return false;
    while (p < text_.size() && ident_char(text_[p]))
      ++p;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t'))
      ++p;
    return p < text_.size() && text_[p] == '=';
  }

  // ---- values ------------------------------------------------------------------
  std::string value_name() {
    skip_ws(true);
    if (cur() != '%')
      error("expected a value (%name)");
    ++pos_;
    size_t s = pos_;
    while (ident_char(cur()))
      ++pos_;
    if (s == pos_)
      error("expected a value name after '%'");
    return std::string(text_.substr(s, pos_ - s));
  }

  void define(const std::string &name, std::vector<Value *> vals, size_t at_pos) {
    for (const Scope &sc : scopes_)
      if (sc.count(name))
        error("value %" + name + " is defined twice", at_pos);
    scopes_.back()[name] = std::move(vals);
  }

  Value *use() {
    size_t s = pos_;
    std::string name = value_name();
    const std::vector<Value *> *vals = nullptr;
    for (auto it = scopes_.rbegin(); it != scopes_.rend() && !vals; ++it) {
      auto f = it->find(name);
      if (f != it->end())
        vals = &f->second;
    }
    if (!vals)
      error("use of undefined value %" + name, s);
    if (cur() == '#') {
      ++pos_;
      int64_t i = int_lit();
      if (i < 0 || static_cast<size_t>(i) >= vals->size())
        error("%" + name + " has no result #" + std::to_string(i), s);
      return (*vals)[static_cast<size_t>(i)];
    }
    if (vals->size() != 1)
      error("%" + name + " has " + std::to_string(vals->size()) + " results: use %" + name + "#i",
            s);
    return (*vals)[0];
  }

  // `%a: T, %b: T` up to ')', defining the block arguments.
  void block_args(Block &b, std::vector<std::string> *names) {
    if (accept(')'))
      return;
    do {
      size_t s = (skip_ws(true), pos_);
      std::string n = value_name();
      expect(':', "':' after the argument name");
      Value *v = b.add_arg(type());
      define(n, {v}, s);
      if (names)
        names->push_back(n);
    } while (accept(','));
    expect(')', "',' or ')' after the arguments");
  }

  SourceLoc maybe_loc() {
    skip_ws(true);
    if (!peek_word("loc"))
      return {};
    pos_ += 3;
    expect('(', "'(' after loc");
    skip_ws(true);
    int file = -1;
    if (cur() == '"') {
      std::string path = string_lit();
      if (sm_) {
        for (size_t i = 0; i < sm_->num_files() && file < 0; ++i)
          if (sm_->file(static_cast<int>(i)).path == path)
            file = static_cast<int>(i);
        if (file < 0)
          file = sm_->add(path, "");
      }
    } else {
      int64_t f = int_lit();
      if (sm_ && f >= 0 && static_cast<size_t>(f) < sm_->num_files())
        file = static_cast<int>(f);
    }
    expect(':', "':' in loc");
    int64_t line = int_lit();
    expect(':', "':' in loc");
    int64_t col = int_lit();
    expect(')', "')' after loc");
    if (file < 0)
      return {};
    return SourceLoc{file, static_cast<int>(line), static_cast<int>(col)};
  }

  // ---- structure ---------------------------------------------------------------
  void parse_function(Module &m) {
    skip_ws();
    if (!peek_word("tt.func"))
      error("expected `tt.func`");
    pos_ += 7;
    expect('@', "'@' and the function name");
    std::string name = cur() == '"' ? string_lit() : ident("a function name");
    if (m.lookup(name))
      error("function @" + name + " is defined twice");
    Function *f = m.add_function(name);
    expect('(', "'(' after the function name");
    scopes_.assign(1, Scope{});
    block_args(*f->entry(), &f->arg_names);
    f->loc = maybe_loc();
    expect('{', "'{' before the function body");
    parse_ops(*f->entry());
  }

  // Ops up to the closing '}'.
  void parse_ops(Block &b) {
    while (true) {
      skip_ws();
      if (at_end())
        error("missing '}'");
      if (accept('}'))
        return;
      parse_op(b);
    }
  }

  void parse_op(Block &b) {
    // results
    std::vector<std::pair<std::string, size_t>> defs; // name, position
    size_t multi = 0;
    if (cur() == '%') {
      do {
        skip_ws(true);
        size_t s = pos_;
        defs.push_back({value_name(), s});
      } while (accept(','));
      if (defs.size() == 1 && accept(':'))
        multi = static_cast<size_t>(int_lit());
      expect('=', "'=' after the results");
    }
    size_t num_results = multi ? multi : defs.size();
    size_t name_pos = (skip_ws(true), pos_);
    std::string opname = ident("an op name");
    OpKind kind;
    if (!op_kind_from_name(opname, kind))
      error("unknown op '" + opname + "'", name_pos);
    auto op = std::make_unique<Op>(kind, SourceLoc{});
    // operands (on the op's line)
    if (!at_line_end() && cur() == '%') {
      do
        op->add_operand(use());
      while (accept(','));
    }
    std::vector<NamedAttr> attrs;
    if (!at_line_end() && cur() == '{' && brace_is_attrs()) {
      ++pos_;
      parse_attr_body(attrs);
    }
    for (NamedAttr &a : attrs)
      op->set_attr(std::move(a.name), std::move(a.value));
    parse_types(*op, num_results, name_pos);
    // The results are visible after the op, not inside its regions.
    while (!at_line_end() && cur() == '{') {
      ++pos_;
      Region *r = op->add_region();
      scopes_.emplace_back();
      skip_ws();
      if (cur() == '^') {
        ++pos_;
        while (ident_char(cur()))
          ++pos_;
        expect('(', "'(' after the block label");
        block_args(*r->block(), nullptr);
        expect(':', "':' after the block arguments");
      }
      parse_ops(*r->block());
      scopes_.pop_back();
    }
    op->set_loc(maybe_loc());
    if (!at_line_end())
      error("unexpected text after the op");
    Op *placed = b.append(std::move(op));
    if (multi) {
      std::vector<Value *> vals;
      for (size_t i = 0; i < placed->num_results(); ++i)
        vals.push_back(placed->result(i));
      define(defs[0].first, vals, defs[0].second);
    } else {
      for (size_t i = 0; i < defs.size(); ++i)
        define(defs[i].first, {placed->result(i)}, defs[i].second);
    }
  }

  void parse_types(Op &op, size_t num_results, size_t name_pos) {
    if (at_line_end() || cur() != ':') {
      if (num_results)
        error("missing result types (': T')", name_pos);
      return;
    }
    ++pos_;
    size_t list_pos = (skip_ws(true), pos_);
    std::vector<Type> first = type_list();
    std::vector<Type> operand_types, results;
    if (accept_arrow()) {
      operand_types = first;
      results = type_list();
      if (results.size() != num_results)
        error(std::to_string(num_results) + " results but " + std::to_string(results.size()) +
                  " result types",
              list_pos);
    } else {
      if (first.size() == 1) {
        results.assign(num_results, first[0]);
        operand_types = first;
      } else if (first.size() == num_results) {
        results = first;
      } else {
        error(std::to_string(num_results) + " results but " + std::to_string(first.size()) +
                  " result types",
              list_pos);
      }
    }
    if (!operand_types.empty() && op.num_operands() > 0) {
      if (operand_types.size() != 1 && operand_types.size() != op.num_operands())
        error(std::to_string(op.num_operands()) + " operands but " +
                  std::to_string(operand_types.size()) + " operand types",
              list_pos);
      for (size_t i = 0; i < op.num_operands(); ++i) {
        const Type &t = operand_types[operand_types.size() == 1 ? 0 : i];
        if (op.operand(i)->type != t)
          error("operand " + std::to_string(i) + " has type " + op.operand(i)->type.str() +
                    ", not " + t.str(),
                list_pos);
      }
    }
    for (const Type &t : results)
      op.add_result(t);
  }

  std::string_view text_;
  SourceManager *sm_;
  int file_;
  int first_line_;
  size_t pos_ = 0;
  std::vector<Scope> scopes_;
};

} // namespace

std::unique_ptr<Module> parse_module(SourceManager &sm, int file) {
  const SourceFile &f = sm.file(file);
  std::string text = f.text; // sm may grow (loc paths) while parsing
  return IRParser(text, &sm, file, f.first_line).parse();
}

std::unique_ptr<Module> parse_module(std::string_view text) {
  try {
    return IRParser(text, nullptr, 0, 1).parse();
  } catch (const CompileError &e) {
    throw CompileError(e.loc(), std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) +
                                    ": " + e.message());
  }
}

} // namespace tilec::ir
