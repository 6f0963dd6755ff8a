// Python tokenizer: INDENT/DEDENT/NEWLINE, implicit and explicit line joining,
// every literal form, f-strings split into literal text and replacement fields.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/Token.h"

namespace tilec::frontend {

class Lexer {
public:
  // `text` starts at absolute `line`, column `col` of `file` (col > 1 only for the
  // expression of an f-string field, which is a slice of a line).
  Lexer(std::string_view text, int file, int line, int col = 1);

  // In recovery mode a lexical error becomes an Error token (the rest of its line is
  // skipped) instead of a thrown CompileError, so a lenient parse can skip the
  // statement and go on.
  void set_recover(bool recover) { recover_ = recover; }

  // A whole source: NEWLINE/INDENT/DEDENT tokens, ending with EndOfFile. The first
  // non-blank line's indentation is the base level.
  std::vector<Token> tokenize();
  // An expression inside an f-string field: newlines are plain whitespace, no
  // layout tokens; ends with EndOfFile.
  std::vector<Token> tokenize_expression();

private:
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool at_end(size_t ahead = 0) const { return pos_ + ahead >= text_.size(); }
  bool at_newline() const; // "\n" or "\r\n"
  void advance();          // one byte; keeps line/col
  void skip_newline();     // consumes "\n" or "\r\n"
  SourceLoc loc() const { return SourceLoc{file_, line_, col_}; }
  [[noreturn]] void fail(SourceLoc at, const std::string &message) const;

  void run(bool file_mode);
  bool handle_line_start(); // false: the line is blank (consumed)
  void lex_token(bool file_mode);
  void lex_name();
  void lex_number();
  void lex_operator();
  void lex_string(std::string_view prefix, SourceLoc start);
  // String pieces (LexerStrings.cpp).
  void decode_escape(std::string &out, bool allow_unicode);
  void lex_fstring_body(Token &tok, char quote, bool triple, bool raw);
  void lex_fstring_field(Token &tok, SourceLoc open, char quote, bool triple, bool raw);
  void skip_nested_string(char quote_end, bool outer_triple);
  bool at_string_end(char quote, bool triple) const;
  void check_string_char(SourceLoc start, char quote, bool triple);

  Token &emit(TokKind kind, SourceLoc at, std::string text = {});

  std::string_view text_;
  int file_;
  int line_;
  int col_;
  size_t pos_ = 0;
  bool recover_ = false;
  std::vector<Token> toks_;
  std::vector<int> indents_; // empty until the first non-blank line sets the base
  std::vector<std::pair<char, SourceLoc>> parens_;
  bool line_has_tokens_ = false;
  bool at_line_start_ = true;
};

} // namespace tilec::frontend
