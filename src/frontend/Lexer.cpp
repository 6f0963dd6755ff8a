#include "frontend/Lexer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tilec::frontend {

namespace {

constexpr std::array<const char *, 35> kKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

bool is_keyword(std::string_view s) {
  for (const char *k : kKeywords)
    if (s == k)
      return true;
  return false;
}

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80; // Unicode identifiers (UTF-8 bytes)
}
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Longest first, so that maximal munch is a linear scan.
constexpr std::array<const char *, 48> kOperators = {
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "==", "!=", "<=", ">=", "**",
    "//",  "<<",  ">>",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "@=",
    "+",   "-",   "*",   "/",   "%",   "@",  "&",  "|",  "^",  "~",  "<",  ">",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ";",  ".",  "=",  "!"};

bool is_string_prefix(std::string_view s) {
  if (s.empty() || s.size() > 2)
    return false;
  bool r = false, b = false, u = false, f = false;
  for (char c : s) {
    switch (c) {
    case 'r':
    case 'R':
      if (r)
        return false;
      r = true;
      break;
    case 'b':
    case 'B':
      if (b)
        return false;
      b = true;
      break;
    case 'u':
    case 'U':
      if (u)
        return false;
      u = true;
      break;
    case 'f':
    case 'F':
      if (f)
        return false;
      f = true;
      break;
    default:
      return false;
    }
  }
  if (u && s.size() > 1)
    return false; // u cannot combine
  return !(b && f);
}

std::string char_name(char c) {
  auto u = static_cast<unsigned char>(c);
  char buf[16];
  if (u >= 0x20 && u < 0x7f)
    std::snprintf(buf, sizeof buf, "'%c'", c);
  else
    std::snprintf(buf, sizeof buf, "U+%04X", u);
  return buf;
}

} // namespace

std::string describe(const Token &t) {
  switch (t.kind) {
  case TokKind::Name:
    return "name '" + t.text + "'";
  case TokKind::Keyword:
    return "keyword '" + t.text + "'";
  case TokKind::Int:
  case TokKind::Float:
  case TokKind::Imag:
    return "number '" + t.text + "'";
  case TokKind::String:
    return "string literal";
  case TokKind::FString:
    return "f-string";
  case TokKind::Op:
    return "'" + t.text + "'";
  case TokKind::Newline:
    return "end of line";
  case TokKind::Indent:
    return "indent";
  case TokKind::Dedent:
    return "dedent";
  case TokKind::EndOfFile:
    return "end of input";
  case TokKind::Error:
    return t.text;
  }
  return "token";
}

Lexer::Lexer(std::string_view text, int file, int line, int col)
    : text_(text), file_(file), line_(line), col_(col) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") // UTF-8 byte order mark
    pos_ = 3;
}

bool Lexer::at_newline() const { return peek() == '\n' || (peek() == '\r' && peek(1) == '\n'); }

void Lexer::advance() {
  if (at_end())
    return;
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::skip_newline() {
  if (peek() == '\r')
    advance();
  advance();
}

void Lexer::fail(SourceLoc at, const std::string &message) const {
  throw CompileError(at, message);
}

Token &Lexer::emit(TokKind kind, SourceLoc at, std::string text) {
  Token t;
  t.kind = kind;
  t.loc = at;
  t.end = loc();
  t.text = std::move(text);
  toks_.push_back(std::move(t));
  if (kind != TokKind::Newline && kind != TokKind::Indent && kind != TokKind::Dedent)
    line_has_tokens_ = true;
  return toks_.back();
}

std::vector<Token> Lexer::tokenize() {
  run(true);
  return std::move(toks_);
}

std::vector<Token> Lexer::tokenize_expression() {
  run(false);
  return std::move(toks_);
}

void Lexer::run(bool file_mode) {
  while (true) {
    if (file_mode && at_line_start_ && parens_.empty()) {
      at_line_start_ = false;
      try {
        if (!handle_line_start()) {
          at_line_start_ = true;
          continue;
        }
      } catch (const CompileError &e) {
        if (!recover_)
          throw;
        emit(TokKind::Error, e.loc(), e.message());
      }
    }
    while (peek() == ' ' || peek() == '\t' || peek() == '\f' ||
           (peek() == '\r' && peek(1) != '\n') || (!file_mode && at_newline()))
      advance();
    if (at_end())
      break;
    if (peek() == '#') {
      while (!at_end() && !at_newline())
        advance();
      continue;
    }
    if (file_mode && at_newline()) {
      if (parens_.empty() && line_has_tokens_) {
        emit(TokKind::Newline, loc(), "\n");
        line_has_tokens_ = false;
      }
      skip_newline();
      at_line_start_ = parens_.empty();
      continue;
    }
    try {
      lex_token(file_mode);
    } catch (const CompileError &e) {
      if (!recover_)
        throw;
      emit(TokKind::Error, e.loc(), e.message());
      while (!at_end() && !at_newline())
        advance();
      parens_.clear();
    }
  }
  if (file_mode) {
    if (!parens_.empty()) {
      auto [c, at] = parens_.back();
      std::string msg = std::string("'") + c + "' was never closed";
      if (!recover_)
        fail(at, msg);
      emit(TokKind::Error, at, msg);
      parens_.clear();
    }
    if (line_has_tokens_)
      emit(TokKind::Newline, loc(), "\n");
    for (size_t i = 1; i < indents_.size(); ++i)
      emit(TokKind::Dedent, loc());
    indents_.resize(indents_.empty() ? 0 : 1);
  }
  emit(TokKind::EndOfFile, loc());
}

// Measures the indentation of a new logical line and emits INDENT/DEDENT. Blank and
// comment-only lines are consumed without tokens.
bool Lexer::handle_line_start() {
  int width = 0;
  while (true) {
    char c = peek();
    if (c == ' ')
      ++width;
    else if (c == '\t')
      width = (width / 8 + 1) * 8;
    else if (c == '\f')
      width = 0;
    else if (c == '\r' && peek(1) != '\n')
      ;
    else
      break;
    advance();
  }
  if (at_end())
    return true;
  if (at_newline() || peek() == '#') {
    while (!at_end() && !at_newline())
      advance();
    if (!at_end())
      skip_newline();
    return false;
  }
  SourceLoc here = loc();
  if (indents_.empty()) {
    indents_.push_back(width); // the base: the source may start indented
    return true;
  }
  if (width > indents_.back()) {
    indents_.push_back(width);
    emit(TokKind::Indent, here);
    return true;
  }
  while (width < indents_.back() && indents_.size() > 1) {
    indents_.pop_back();
    emit(TokKind::Dedent, here);
  }
  if (width != indents_.back()) {
    if (!recover_)
      fail(here, "unindent does not match any outer indentation level");
    emit(TokKind::Error, here, "unindent does not match any outer indentation level");
    indents_.push_back(width); // keep INDENT/DEDENT balanced for the recovering parser
    emit(TokKind::Indent, here);
  }
  return true;
}

void Lexer::lex_token(bool file_mode) {
  char c = peek();
  SourceLoc start = loc();
  if (c == '\\' && file_mode) {
    advance();
    if (at_newline()) {
      skip_newline();
      if (at_end())
        fail(start, "unexpected end of file after line continuation character");
      return;
    }
    if (at_end())
      fail(start, "unexpected end of file after line continuation character");
    fail(start, "unexpected character after line continuation character");
  }
  if (c == '"' || c == '\'') {
    lex_string("", start);
    return;
  }
  if (is_ident_start(c)) {
    lex_name();
    return;
  }
  if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
    lex_number();
    return;
  }
  lex_operator();
}

void Lexer::lex_name() {
  SourceLoc start = loc();
  size_t begin = pos_;
  while (!at_end() && is_ident_char(peek()))
    advance();
  std::string_view word = text_.substr(begin, pos_ - begin);
  if ((peek() == '"' || peek() == '\'') && is_string_prefix(word)) {
    lex_string(word, start);
    return;
  }
  emit(is_keyword(word) ? TokKind::Keyword : TokKind::Name, start, std::string(word));
}

void Lexer::lex_number() {
  SourceLoc start = loc();
  size_t begin = pos_;
  // Digits of `base` with single '_' separators between digits.
  auto digits = [&](int base, const char *what, bool required) -> std::string {
    std::string out;
    auto ok = [&](char ch) {
      if (base == 16)
        return std::isxdigit(static_cast<unsigned char>(ch)) != 0;
      return ch >= '0' && ch < static_cast<char>('0' + base);
    };
    if (!ok(peek())) {
      if (required || peek() == '_')
        fail(start, std::string("invalid ") + what + " literal");
      return out;
    }
    while (true) {
      if (ok(peek())) {
        out += peek();
        advance();
      } else if (peek() == '_' && ok(peek(1))) {
        advance();
      } else if (peek() == '_' || (base < 10 && is_digit(peek()))) {
        fail(start, std::string("invalid ") + what + " literal");
      } else {
        break;
      }
    }
    return out;
  };
  auto finish_int = [&](const std::string &ds, int base) {
    Token &t = emit(TokKind::Int, start, std::string(text_.substr(begin, pos_ - begin)));
    uint64_t v = 0;
    for (char ch : ds) {
      uint64_t d = is_digit(ch) ? static_cast<uint64_t>(ch - '0')
                                : static_cast<uint64_t>(std::tolower(ch) - 'a' + 10);
      if (v > (UINT64_MAX - d) / static_cast<uint64_t>(base)) {
        t.int_overflow = true;
        v = 0;
        break;
      }
      v = v * static_cast<uint64_t>(base) + d;
    }
    t.int_value = t.int_overflow ? 0 : v;
  };
  auto check_suffix = [&](const char *what) {
    // `1if x else y` is (deprecated but) valid Python; `1abc` is not.
    if (!is_ident_start(peek()))
      return;
    size_t p = pos_;
    while (p < text_.size() && is_ident_char(text_[p]))
      ++p;
    std::string_view word = text_.substr(pos_, p - pos_);
    for (const char *kw : {"and", "or", "if", "else", "in", "is", "not", "for"})
      if (word.substr(0, std::strlen(kw)) == kw)
        return;
    fail(start, std::string("invalid ") + what + " literal");
  };

  if (peek() == '0' && std::strchr("xXoObB", peek(1)) && peek(1) != '\0') {
    char p = static_cast<char>(std::tolower(peek(1)));
    advance();
    advance();
    if (peek() == '_')
      advance(); // 0x_ff is allowed
    int base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
    const char *what = p == 'x' ? "hexadecimal" : p == 'o' ? "octal" : "binary";
    std::string ds = digits(base, what, true);
    check_suffix(what);
    finish_int(ds, base);
    return;
  }

  std::string mantissa = digits(10, "decimal", false);
  bool is_float = false;
  if (peek() == '.') {
    is_float = true;
    mantissa += '.';
    advance();
    mantissa += digits(10, "decimal", false);
  }
  if (peek() == 'e' || peek() == 'E') {
    size_t save_pos = pos_;
    int save_line = line_, save_col = col_;
    std::string exp = "e";
    advance();
    if (peek() == '+' || peek() == '-') {
      exp += peek();
      advance();
    }
    if (is_digit(peek())) {
      exp += digits(10, "decimal", true);
      mantissa += exp;
      is_float = true;
    } else { // `1else` / `1e` : let the suffix check decide
      pos_ = save_pos;
      line_ = save_line;
      col_ = save_col;
    }
  }
  if (peek() == 'j' || peek() == 'J') {
    advance();
    check_suffix("decimal");
    emit(TokKind::Imag, start, std::string(text_.substr(begin, pos_ - begin)));
    return;
  }
  check_suffix("decimal");
  if (!is_float) {
    if (mantissa.size() > 1 && mantissa[0] == '0' &&
        mantissa.find_first_not_of('0') != std::string::npos)
      fail(start, "leading zeros in decimal integer literals are not permitted; use an 0o "
                  "prefix for octal integers");
    finish_int(mantissa, 10);
    return;
  }
  Token &t = emit(TokKind::Float, start, std::string(text_.substr(begin, pos_ - begin)));
  double v = 0;
  auto res = std::from_chars(mantissa.data(), mantissa.data() + mantissa.size(), v);
  if (res.ec == std::errc::result_out_of_range)
    v = std::strtod(mantissa.c_str(), nullptr); // inf or 0, as Python rounds
  t.float_value = v;
}

void Lexer::lex_operator() {
  SourceLoc start = loc();
  for (const char *op : kOperators) {
    size_t n = std::strlen(op);
    if (text_.substr(pos_, n) != op)
      continue;
    if (n == 1 && op[0] == '!')
      break; // '!' alone is not an operator
    for (size_t i = 0; i < n; ++i)
      advance();
    char c = op[0];
    if (n == 1 && (c == '(' || c == '[' || c == '{')) {
      parens_.emplace_back(c, start);
    } else if (n == 1 && (c == ')' || c == ']' || c == '}')) {
      if (parens_.empty())
        fail(start, std::string("unmatched '") + c + "'");
      char open = parens_.back().first;
      char want = open == '(' ? ')' : open == '[' ? ']' : '}';
      if (c != want)
        fail(start, std::string("closing parenthesis '") + c +
                        "' does not match opening parenthesis '" + open + "'");
      parens_.pop_back();
    }
    emit(TokKind::Op, start, op);
    return;
  }
  fail(start, "invalid character " + char_name(peek()) + " in source");
}

} // namespace tilec::frontend
