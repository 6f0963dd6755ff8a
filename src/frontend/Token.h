// Tokens of the Python subset, as the Lexer produces them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/Diagnostics.h"

namespace tilec::frontend {

enum class TokKind {
  Name,    // identifiers and soft keywords (match, case, type, _)
  Keyword, // hard keywords: if, def, True, None, lambda, ...
  Int,     // int_value (int_overflow when it does not fit in 64 bits)
  Float,   // float_value
  Imag,    // 1j: lexed so the parser can reject it clearly
  String,  // str_value (escapes decoded); is_bytes for b"..."
  FString, // fstring_pieces
  Op,      // operators and delimiters: text is the spelling
  Newline, // end of a logical line
  Indent,
  Dedent,
  EndOfFile,
  Error, // only in recovery mode: text is the message, loc its position
};

// One piece of an f-string: literal text, or a replacement field whose expression is
// kept as source text (a verbatim slice of the file, starting at expr_loc) for the
// parser to lex and parse.
struct FStringPiece {
  bool is_field = false;
  std::string text;          // literal text ({{ and }} already halved, escapes decoded)
  std::string expr_text;     // the field's expression, without '=', '!conv' or ':spec'
  SourceLoc expr_loc;        // position of expr_text's first character
  std::string self_doc_text; // for {x = }: the text "x = " that Python prints
  char conversion = 0;       // 0, 's', 'r' or 'a'
  std::string format_spec;
};

struct Token {
  TokKind kind = TokKind::EndOfFile;
  std::string text; // spelling (names, keywords, ops); the message for Error
  SourceLoc loc;
  SourceLoc end; // one past the last character (same line unless multi-line)
  uint64_t int_value = 0;
  bool int_overflow = false;
  double float_value = 0;
  std::string str_value;
  bool is_bytes = false;
  std::vector<FStringPiece> fstring_pieces;

  bool is(TokKind k) const { return kind == k; }
  bool is_op(const char *s) const { return kind == TokKind::Op && text == s; }
  bool is_keyword(const char *s) const { return kind == TokKind::Keyword && text == s; }
};

// "'+'", "name 'x'", "end of line", ...: how error messages name a token.
std::string describe(const Token &t);

} // namespace tilec::frontend
