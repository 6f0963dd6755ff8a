// String literals: prefixes, escapes, triple quotes, and f-strings split into pieces.
#include <cctype>
#include <cstring>

#include "frontend/Lexer.h"

namespace tilec::frontend {

namespace {

void append_utf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool has_prefix_char(std::string_view prefix, char c) {
  for (char p : prefix)
    if (std::tolower(static_cast<unsigned char>(p)) == c)
      return true;
  return false;
}

} // namespace

bool Lexer::at_string_end(char quote, bool triple) const {
  if (triple)
    return peek() == quote && peek(1) == quote && peek(2) == quote;
  return peek() == quote;
}

void Lexer::check_string_char(SourceLoc start, char quote, bool triple) {
  (void)quote;
  if (at_end() || (!triple && at_newline()))
    fail(start, std::string(triple ? "unterminated triple-quoted string literal"
                                   : "unterminated string literal") +
                    " (detected at line " + std::to_string(line_) + ")");
}

// At a backslash in a non-raw literal: appends the decoded character(s).
void Lexer::decode_escape(std::string &out, bool allow_unicode) {
  SourceLoc at = loc();
  advance(); // the backslash
  if (at_end())
    return; // the caller reports the unterminated literal
  if (at_newline()) {
    skip_newline(); // backslash-newline continues the literal
    return;
  }
  char c = peek();
  auto hex_digits = [&](int n, const char *what) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) {
      char h = peek();
      if (!std::isxdigit(static_cast<unsigned char>(h)))
        fail(at, std::string("truncated ") + what + " escape in string literal");
      v = v * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h))
                                             ? h - '0'
                                             : std::tolower(h) - 'a' + 10);
      advance();
    }
    return v;
  };
  switch (c) {
  case '\\':
  case '\'':
  case '"':
    out += c;
    advance();
    return;
  case 'a':
    out += '\a';
    advance();
    return;
  case 'b':
    out += '\b';
    advance();
    return;
  case 'f':
    out += '\f';
    advance();
    return;
  case 'n':
    out += '\n';
    advance();
    return;
  case 'r':
    out += '\r';
    advance();
    return;
  case 't':
    out += '\t';
    advance();
    return;
  case 'v':
    out += '\v';
    advance();
    return;
  default:
    break;
  }
  if (c >= '0' && c <= '7') {
    uint32_t v = 0;
    for (int i = 0; i < 3 && peek() >= '0' && peek() <= '7'; ++i) {
      v = v * 8 + static_cast<uint32_t>(peek() - '0');
      advance();
    }
    if (allow_unicode)
      append_utf8(out, v);
    else
      out += static_cast<char>(v & 0xFF);
    return;
  }
  if (c == 'x') {
    advance();
    uint32_t v = hex_digits(2, "\\xXX");
    if (allow_unicode)
      append_utf8(out, v);
    else
      out += static_cast<char>(v);
    return;
  }
  if (allow_unicode && (c == 'u' || c == 'U')) {
    advance();
    uint32_t v = c == 'u' ? hex_digits(4, "\\uXXXX") : hex_digits(8, "\\UXXXXXXXX");
    if (v > 0x10FFFF)
      fail(at, "illegal Unicode character in \\U escape");
    append_utf8(out, v);
    return;
  }
  if (allow_unicode && c == 'N')
    fail(at, "\\N{...} escapes are not supported in tilec kernels");
  out += '\\'; // an unknown escape keeps its backslash, as Python does
}

void Lexer::lex_string(std::string_view prefix, SourceLoc start) {
  size_t begin = pos_ - prefix.size();
  bool raw = has_prefix_char(prefix, 'r');
  bool bytes = has_prefix_char(prefix, 'b');
  bool fstr = has_prefix_char(prefix, 'f');
  char quote = peek();
  bool triple = peek(1) == quote && peek(2) == quote;
  for (int i = 0; i < (triple ? 3 : 1); ++i)
    advance();

  Token tok;
  tok.loc = start;
  if (fstr) {
    tok.kind = TokKind::FString;
    lex_fstring_body(tok, quote, triple, raw);
  } else {
    tok.kind = TokKind::String;
    tok.is_bytes = bytes;
    while (!at_string_end(quote, triple)) {
      check_string_char(start, quote, triple);
      if (peek() != '\\') {
        if (bytes && static_cast<unsigned char>(peek()) >= 0x80)
          fail(loc(), "bytes can only contain ASCII literal characters");
        tok.str_value += peek();
        advance();
      } else if (!raw) {
        decode_escape(tok.str_value, !bytes);
      } else { // raw: the backslash stays, and the next character cannot end the literal
        tok.str_value += '\\';
        advance();
        if (at_newline()) {
          tok.str_value += '\n';
          skip_newline();
        } else if (!at_end()) {
          tok.str_value += peek();
          advance();
        }
      }
    }
  }
  for (int i = 0; i < (triple ? 3 : 1); ++i)
    advance();
  Token &t = emit(tok.kind, start, std::string(text_.substr(begin, pos_ - begin)));
  t.str_value = std::move(tok.str_value);
  t.is_bytes = tok.is_bytes;
  t.fstring_pieces = std::move(tok.fstring_pieces);
}

void Lexer::lex_fstring_body(Token &tok, char quote, bool triple, bool raw) {
  std::string lit;
  auto flush = [&] {
    if (lit.empty())
      return;
    if (!tok.fstring_pieces.empty() && !tok.fstring_pieces.back().is_field)
      tok.fstring_pieces.back().text += lit;
    else
      tok.fstring_pieces.push_back(FStringPiece{false, lit, {}, {}, {}, 0, {}});
    lit.clear();
  };
  while (!at_string_end(quote, triple)) {
    check_string_char(tok.loc, quote, triple);
    char c = peek();
    if (c == '{' && peek(1) == '{') {
      lit += '{';
      advance();
      advance();
    } else if (c == '{') {
      flush();
      SourceLoc open = loc();
      advance();
      lex_fstring_field(tok, open, quote, triple, raw);
    } else if (c == '}') {
      if (peek(1) != '}')
        fail(loc(), "f-string: single '}' is not allowed");
      lit += '}';
      advance();
      advance();
    } else if (c == '\\' && !raw) {
      decode_escape(lit, true);
    } else if (c == '\\') {
      lit += '\\';
      advance();
      if (peek() == quote || peek() == '\\') {
        lit += peek();
        advance();
      }
    } else {
      lit += c;
      advance();
    }
  }
  flush();
}

// Skips a string literal nested in an f-string field (Python 3.12 allows any quote).
void Lexer::skip_nested_string(char quote, bool outer_triple) {
  SourceLoc start = loc();
  bool triple = peek(1) == quote && peek(2) == quote;
  for (int i = 0; i < (triple ? 3 : 1); ++i)
    advance();
  while (!at_string_end(quote, triple)) {
    check_string_char(start, quote, triple || outer_triple);
    if (peek() == '\\')
      advance();
    advance();
  }
  for (int i = 0; i < (triple ? 3 : 1); ++i)
    advance();
}

// After the '{' of a replacement field: expression, optional '=', '!conv', ':spec', '}'.
void Lexer::lex_fstring_field(Token &tok, SourceLoc open, char quote, bool triple, bool raw) {
  FStringPiece piece;
  piece.is_field = true;
  piece.expr_loc = loc();
  size_t begin = pos_;
  int depth = 0;
  auto unterminated = [&] {
    // A quote inside a field starts a nested string (Python 3.12), so only the end
    // of the line or file ends an unclosed field.
    if (at_end() || (!triple && at_newline()))
      fail(open, "f-string: expecting '}'");
  };
  size_t expr_end = std::string::npos;
  while (true) {
    unterminated();
    char c = peek();
    if (c == '\'' || c == '"') {
      try {
        skip_nested_string(c, triple);
      } catch (const CompileError &) {
        if (c == quote) // more likely the f-string's own end: f'{x'
          fail(open, "f-string: expecting '}'");
        throw;
      }
      continue;
    }
    if (depth == 0) {
      if (c == '}' || (c == '!' && peek(1) != '=') || c == ':') {
        expr_end = pos_;
        break;
      }
      char prev = pos_ > begin ? text_[pos_ - 1] : '\0';
      if (c == '=' && peek(1) != '=' && !std::strchr("=!<>", prev)) {
        size_t p = pos_ + 1;
        while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t'))
          ++p;
        if (p < text_.size() && std::strchr("}!:", text_[p])) {
          expr_end = pos_;
          while (pos_ < p)
            advance();
          piece.self_doc_text = std::string(text_.substr(begin, pos_ - begin));
          break;
        }
      }
    }
    if (c == '#')
      fail(loc(), "f-string expression part cannot include '#'");
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
    advance();
  }
  piece.expr_text = std::string(text_.substr(begin, expr_end - begin));
  if (piece.expr_text.find_first_not_of(" \t\r\n") == std::string::npos)
    fail(open, "f-string: valid expression required before '" + std::string(1, peek()) + "'");

  if (peek() == '!') {
    advance();
    char conv = peek();
    if (conv != 's' && conv != 'r' && conv != 'a')
      fail(loc(), "f-string: invalid conversion character: expected 's', 'r', or 'a'");
    piece.conversion = conv;
    advance();
    if (peek() != ':' && peek() != '}')
      fail(loc(), "f-string: expecting '}'");
  }
  if (peek() == ':') {
    advance();
    while (peek() != '}') {
      unterminated();
      if (peek() == '{')
        fail(loc(), "nested replacement fields in f-string format specs are not supported");
      if (peek() == '\\' && !raw) {
        decode_escape(piece.format_spec, true);
        continue;
      }
      piece.format_spec += peek();
      advance();
    }
  }
  unterminated();
  advance(); // '}'
  if (!piece.self_doc_text.empty() && piece.conversion == 0 && piece.format_spec.empty())
    piece.conversion = 'r'; // f"{x=}" shows repr(x) unless a format spec is given
  tok.fstring_pieces.push_back(std::move(piece));
}

} // namespace tilec::frontend
