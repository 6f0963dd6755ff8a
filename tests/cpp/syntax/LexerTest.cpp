#include <cmath>

#include "SyntaxTestUtil.h"

using namespace tilec;
using namespace tilec::frontend;
using tilec::test::kinds;
using tilec::test::lex;

namespace {

Token single(const std::string &text) {
  auto toks = lex(text);
  EXPECT_GE(toks.size(), 2u);
  return toks[0];
}

std::string lex_error(const std::string &text, int first_line = 1) {
  try {
    lex(text, first_line);
  } catch (const CompileError &e) {
    return std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " + e.message();
  }
  return "<no error>";
}

} // namespace

TEST(Lexer, SimpleLine) {
  EXPECT_EQ(kinds(lex("x = a + 1\n")), "Name:x = Name:a + Int:1 NL EOF");
  EXPECT_EQ(kinds(lex("x = 1")), "Name:x = Int:1 NL EOF"); // no trailing newline
  EXPECT_EQ(kinds(lex("")), "EOF");
  EXPECT_EQ(kinds(lex("\n\n# only a comment\n   \n")), "EOF");
}

TEST(Lexer, KeywordsAndSoftKeywords) {
  EXPECT_EQ(kinds(lex("if not x is None: pass")),
            "Kw:if Kw:not Name:x Kw:is Kw:None : Kw:pass NL EOF");
  EXPECT_EQ(kinds(lex("match = type")), "Name:match = Name:type NL EOF");
}

TEST(Lexer, Operators) {
  EXPECT_EQ(kinds(lex("a **= b // c >> d <<= e -> f := g ... != h @ i")),
            "Name:a **= Name:b // Name:c >> Name:d <<= Name:e -> Name:f := Name:g ... != "
            "Name:h @ Name:i NL EOF");
  EXPECT_EQ(kinds(lex("x[1:2, ...]; y@=z")),
            "Name:x [ Int:1 : Int:2 , ... ] ; Name:y @= Name:z NL EOF");
}

TEST(Lexer, IndentDedent) {
  std::string src = "def f(x):\n"
                    "    if x:\n"
                    "        return 1\n"
                    "\n"
                    "    # comment at another indent\n"
                    "  # and another\n"
                    "    return 2\n"
                    "y = 3\n";
  EXPECT_EQ(kinds(lex(src)), "Kw:def Name:f ( Name:x ) : NL IN Kw:if Name:x : NL IN Kw:return "
                             "Int:1 NL DE Kw:return Int:2 NL DE Name:y = Int:3 NL EOF");
}

TEST(Lexer, DedentsAtEndOfFile) {
  EXPECT_EQ(kinds(lex("if a:\n  if b:\n    c")), "Kw:if Name:a : NL IN Kw:if Name:b : NL IN "
                                                 "Name:c NL DE DE EOF");
}

TEST(Lexer, IndentedFirstLineIsTheBase) {
  std::string src = "    @jit\n"
                    "    def f(x):\n"
                    "        return x\n";
  EXPECT_EQ(kinds(lex(src)), "@ Name:jit NL Kw:def Name:f ( Name:x ) : NL IN Kw:return Name:x NL "
                             "DE EOF");
  // Leading blank lines do not set the base.
  EXPECT_EQ(kinds(lex("\n\n  x = 1\n  y = 2\n")), "Name:x = Int:1 NL Name:y = Int:2 NL EOF");
}

TEST(Lexer, TabsCountToMultiplesOfEight) {
  // A tab is 8 columns, the same as 8 spaces: no indentation change.
  EXPECT_EQ(kinds(lex("if a:\n\tb\n        c\n")),
            "Kw:if Name:a : NL IN Name:b NL Name:c NL DE EOF");
  // "  \t" is also 8 columns.
  EXPECT_EQ(kinds(lex("if a:\n  \tb\n\tc\n")), "Kw:if Name:a : NL IN Name:b NL Name:c NL DE EOF");
}

TEST(Lexer, ImplicitLineJoining) {
  std::string src = "x = f(a,\n"
                    "      b,  # comment\n"
                    "\n"
                    "  c)\n"
                    "y = [1,\n2]\n";
  EXPECT_EQ(kinds(lex(src)), "Name:x = Name:f ( Name:a , Name:b , Name:c ) NL Name:y = [ Int:1 , "
                             "Int:2 ] NL EOF");
}

TEST(Lexer, BackslashContinuation) {
  EXPECT_EQ(kinds(lex("x = a + \\\n    b\ny = 1\n")),
            "Name:x = Name:a + Name:b NL Name:y = Int:1 NL EOF");
  EXPECT_EQ(kinds(lex("x = a + \\\r\n    b\r\n")), "Name:x = Name:a + Name:b NL EOF");
}

TEST(Lexer, CrLfLineEndings) {
  EXPECT_EQ(kinds(lex("if a:\r\n    b\r\n")), "Kw:if Name:a : NL IN Name:b NL DE EOF");
}

TEST(Lexer, Locations) {
  auto toks = lex("x = 1\nif y:\n    zz  +  3\n", 10);
  // x
  EXPECT_EQ(toks[0].loc.line, 10);
  EXPECT_EQ(toks[0].loc.col, 1);
  // zz is on absolute line 12, col 5; '+' at col 9
  size_t zz = 0;
  while (toks[zz].text != "zz")
    ++zz;
  EXPECT_EQ(toks[zz].loc.line, 12);
  EXPECT_EQ(toks[zz].loc.col, 5);
  EXPECT_EQ(toks[zz].end.col, 7);
  EXPECT_EQ(toks[zz + 1].loc.col, 9);
  EXPECT_EQ(toks[zz].loc.file, 0);
}

TEST(Lexer, DecimalIntegers) {
  EXPECT_EQ(single("0").int_value, 0u);
  EXPECT_EQ(single("00").int_value, 0u);
  EXPECT_EQ(single("1234567").int_value, 1234567u);
  EXPECT_EQ(single("1_000_000").int_value, 1000000u);
  EXPECT_EQ(single("18446744073709551615").int_value, 18446744073709551615ull);
  EXPECT_FALSE(single("18446744073709551615").int_overflow);
  EXPECT_TRUE(single("18446744073709551616").int_overflow);
  EXPECT_TRUE(single("123456789012345678901234567890").int_overflow);
}

TEST(Lexer, PrefixedIntegers) {
  EXPECT_EQ(single("0xff").int_value, 255u);
  EXPECT_EQ(single("0XFF_FF").int_value, 65535u);
  EXPECT_EQ(single("0x_1").int_value, 1u);
  EXPECT_EQ(single("0o17").int_value, 15u);
  EXPECT_EQ(single("0O7_7").int_value, 63u);
  EXPECT_EQ(single("0b1011").int_value, 11u);
  EXPECT_EQ(single("0B1_0").int_value, 2u);
  EXPECT_EQ(single("0xFFFFFFFFFFFFFFFF").int_value, UINT64_MAX);
  EXPECT_TRUE(single("0x1FFFFFFFFFFFFFFFF").int_overflow);
}

TEST(Lexer, Floats) {
  EXPECT_EQ(single("1.5").kind, TokKind::Float);
  EXPECT_DOUBLE_EQ(single("1.5").float_value, 1.5);
  EXPECT_DOUBLE_EQ(single("1.").float_value, 1.0);
  EXPECT_DOUBLE_EQ(single(".5").float_value, 0.5);
  EXPECT_DOUBLE_EQ(single("1e3").float_value, 1000.0);
  EXPECT_DOUBLE_EQ(single("1E-3").float_value, 0.001);
  EXPECT_DOUBLE_EQ(single("2.5e+2").float_value, 250.0);
  EXPECT_DOUBLE_EQ(single("1_0.2_5").float_value, 10.25);
  EXPECT_DOUBLE_EQ(single("0.044715").float_value, 0.044715);
  EXPECT_DOUBLE_EQ(single("1.e2").float_value, 100.0);
  EXPECT_DOUBLE_EQ(single("09.5").float_value, 9.5);
  EXPECT_TRUE(std::isinf(single("1e400").float_value));
  EXPECT_EQ(single("1e-400").float_value, 0.0);
  EXPECT_EQ(single("1e5").kind, TokKind::Float);
  EXPECT_EQ(single("3j").kind, TokKind::Imag);
  EXPECT_EQ(single("1.5e3J").kind, TokKind::Imag);
}

TEST(Lexer, NumberFollowedByKeyword) {
  // `1if x else 2` is valid (deprecated) Python.
  EXPECT_EQ(kinds(lex("1if x else 2")), "Int:1 Kw:if Name:x Kw:else Int:2 NL EOF");
  EXPECT_EQ(kinds(lex("0x1or 2")), "Int:1 Kw:or Int:2 NL EOF");
}

TEST(Lexer, NumberErrors) {
  EXPECT_EQ(lex_error("x = 012"), "1:5: leading zeros in decimal integer literals are not "
                                  "permitted; use an 0o prefix for octal integers");
  EXPECT_EQ(lex_error("x = 1__0"), "1:5: invalid decimal literal");
  EXPECT_EQ(lex_error("x = 10_"), "1:5: invalid decimal literal");
  EXPECT_EQ(lex_error("x = 0x"), "1:5: invalid hexadecimal literal");
  EXPECT_EQ(lex_error("x = 0b102"), "1:5: invalid binary literal");
  EXPECT_EQ(lex_error("x = 0o8"), "1:5: invalid octal literal");
  EXPECT_EQ(lex_error("x = 12abc"), "1:5: invalid decimal literal");
  EXPECT_EQ(lex_error("x = 0xfg"), "1:5: invalid hexadecimal literal");
}

TEST(Lexer, Strings) {
  EXPECT_EQ(single("'abc'").str_value, "abc");
  EXPECT_EQ(single("\"abc\"").str_value, "abc");
  EXPECT_EQ(single("'a\"b'").str_value, "a\"b");
  EXPECT_EQ(single("''").str_value, "");
  EXPECT_EQ(single("'''a\nb'''").str_value, "a\nb");
  EXPECT_EQ(single("\"\"\"x\"y\"\"z\"\"\"").str_value, "x\"y\"\"z");
  EXPECT_EQ(single("u'abc'").str_value, "abc");
  EXPECT_EQ(single("U'abc'").str_value, "abc");
  EXPECT_TRUE(single("b'abc'").is_bytes);
  EXPECT_TRUE(single("Rb'abc'").is_bytes);
  EXPECT_EQ(single("'abc'").text, "'abc'");
}

TEST(Lexer, Escapes) {
  EXPECT_EQ(single(R"('a\nb\tc')").str_value, "a\nb\tc");
  EXPECT_EQ(single(R"('\\ \' \" \a\b\f\r\v')").str_value, "\\ ' \" \a\b\f\r\v");
  EXPECT_EQ(single(R"('\x41\101\0')").str_value, std::string("AA\0", 3));
  EXPECT_EQ(single(R"('\u00e9')").str_value, "\xC3\xA9");
  EXPECT_EQ(single(R"('\U0001F600')").str_value, "\xF0\x9F\x98\x80");
  EXPECT_EQ(single(R"('\xff')").str_value, "\xC3\xBF"); // a code point in str
  EXPECT_EQ(single(R"(b'\xff')").str_value, "\xFF");    // a byte in bytes
  EXPECT_EQ(single(R"('\q')").str_value, "\\q");        // unknown escapes stay
  EXPECT_EQ(single("'a\\\nb'").str_value, "ab");        // backslash-newline
  EXPECT_EQ(single(R"(b'\u00e9')").str_value, "\\u00e9");
}

TEST(Lexer, RawStrings) {
  EXPECT_EQ(single(R"(r'a\nb')").str_value, R"(a\nb)");
  EXPECT_EQ(single(R"(r'\'')").str_value, R"(\')");
  EXPECT_EQ(single(R"(R"\\")").str_value, R"(\\)");
  EXPECT_EQ(single(R"(br'\x41')").str_value, R"(\x41)");
}

TEST(Lexer, AdjacentStringsAreSeparateTokens) {
  EXPECT_EQ(kinds(lex("'a' \"b\"\n")), "Str Str NL EOF");
}

TEST(Lexer, StringErrors) {
  EXPECT_EQ(lex_error("x = 'abc\ny = 2\n"),
            "1:5: unterminated string literal (detected at line 1)");
  EXPECT_EQ(lex_error("x = 1\ny = \"\"\"abc\n\n", 7),
            "8:5: unterminated triple-quoted string literal (detected at line 10)");
  EXPECT_EQ(lex_error("x = '\\x4'"), "1:6: truncated \\xXX escape in string literal");
  EXPECT_EQ(lex_error("x = b'\xC3\xA9'"), "1:7: bytes can only contain ASCII literal characters");
}

TEST(Lexer, FStringPieces) {
  Token t = single("f'a{x}b{{c}}{y!r:>10}'");
  ASSERT_EQ(t.kind, TokKind::FString);
  ASSERT_EQ(t.fstring_pieces.size(), 4u);
  EXPECT_FALSE(t.fstring_pieces[0].is_field);
  EXPECT_EQ(t.fstring_pieces[0].text, "a");
  EXPECT_TRUE(t.fstring_pieces[1].is_field);
  EXPECT_EQ(t.fstring_pieces[1].expr_text, "x");
  EXPECT_EQ(t.fstring_pieces[1].expr_loc.col, 5);
  EXPECT_EQ(t.fstring_pieces[2].text, "b{c}");
  EXPECT_EQ(t.fstring_pieces[3].expr_text, "y");
  EXPECT_EQ(t.fstring_pieces[3].conversion, 'r');
  EXPECT_EQ(t.fstring_pieces[3].format_spec, ">10");
}

TEST(Lexer, FStringSelfDocumenting) {
  Token t = single("f'{x = }{y=:.2f}{z=!s}{a==b}{c!=d}'");
  ASSERT_EQ(t.fstring_pieces.size(), 5u);
  EXPECT_EQ(t.fstring_pieces[0].expr_text, "x ");
  EXPECT_EQ(t.fstring_pieces[0].self_doc_text, "x = ");
  EXPECT_EQ(t.fstring_pieces[0].conversion, 'r');
  EXPECT_EQ(t.fstring_pieces[1].self_doc_text, "y=");
  EXPECT_EQ(t.fstring_pieces[1].conversion, 0); // a spec means format(), not repr
  EXPECT_EQ(t.fstring_pieces[1].format_spec, ".2f");
  EXPECT_EQ(t.fstring_pieces[2].conversion, 's');
  EXPECT_EQ(t.fstring_pieces[3].expr_text, "a==b");
  EXPECT_TRUE(t.fstring_pieces[3].self_doc_text.empty());
  EXPECT_EQ(t.fstring_pieces[4].expr_text, "c!=d");
  EXPECT_EQ(t.fstring_pieces[4].conversion, 0);
}

TEST(Lexer, FStringNestedBracketsAndStrings) {
  Token t = single("f\"{d['k']}{f(a, b=1)!a}{x[1:2]}{'}'}\"");
  ASSERT_EQ(t.fstring_pieces.size(), 4u);
  EXPECT_EQ(t.fstring_pieces[0].expr_text, "d['k']");
  EXPECT_EQ(t.fstring_pieces[1].expr_text, "f(a, b=1)");
  EXPECT_EQ(t.fstring_pieces[1].conversion, 'a');
  EXPECT_EQ(t.fstring_pieces[2].expr_text, "x[1:2]");
  EXPECT_EQ(t.fstring_pieces[3].expr_text, "'}'");
  // Python 3.12: the same quote may appear inside a field.
  Token u = single("f\"{d[\"k\"]}\"");
  ASSERT_EQ(u.fstring_pieces.size(), 1u);
  EXPECT_EQ(u.fstring_pieces[0].expr_text, "d[\"k\"]");
}

TEST(Lexer, FStringPrefixesAndEscapes) {
  Token t = single("rf'\\n{x}'");
  ASSERT_EQ(t.fstring_pieces.size(), 2u);
  EXPECT_EQ(t.fstring_pieces[0].text, "\\n");
  Token u = single("F'\\t{x}\\n'");
  EXPECT_EQ(u.fstring_pieces[0].text, "\t");
  EXPECT_EQ(u.fstring_pieces[2].text, "\n");
  Token v = single("f'''a\n{x\n + 1}'''");
  ASSERT_EQ(v.fstring_pieces.size(), 2u);
  EXPECT_EQ(v.fstring_pieces[1].expr_text, "x\n + 1");
  EXPECT_EQ(v.fstring_pieces[1].expr_loc.line, 2);
  EXPECT_EQ(v.fstring_pieces[1].expr_loc.col, 2);
}

TEST(Lexer, FStringErrors) {
  EXPECT_EQ(lex_error("f'{x'"), "1:3: f-string: expecting '}'");
  EXPECT_EQ(lex_error("f'a}b'"), "1:4: f-string: single '}' is not allowed");
  EXPECT_EQ(lex_error("f'{}'"), "1:3: f-string: valid expression required before '}'");
  EXPECT_EQ(lex_error("f'{x!z}'"),
            "1:6: f-string: invalid conversion character: expected 's', 'r', or 'a'");
  EXPECT_EQ(lex_error("f'{x:{w}}'"),
            "1:6: nested replacement fields in f-string format specs are not supported");
  EXPECT_EQ(lex_error("f'{x # c}'"), "1:6: f-string expression part cannot include '#'");
}

TEST(Lexer, LayoutErrors) {
  EXPECT_EQ(lex_error("if a:\n    b\n  c\n"),
            "3:3: unindent does not match any outer indentation level");
  // An indented source: a line left of the base is an error too.
  EXPECT_EQ(lex_error("    x = 1\n  y = 2\n", 20),
            "21:3: unindent does not match any outer indentation level");
  EXPECT_EQ(lex_error("x = (1,\n2\n"), "1:5: '(' was never closed");
  EXPECT_EQ(lex_error("x = 1)\n"), "1:6: unmatched ')'");
  EXPECT_EQ(lex_error("x = [1)\n"),
            "1:7: closing parenthesis ')' does not match opening parenthesis '['");
  EXPECT_EQ(lex_error("x = a \\ b\n"), "1:7: unexpected character after line continuation "
                                       "character");
  EXPECT_EQ(lex_error("x = a \\"), "1:7: unexpected end of file after line continuation "
                                   "character");
}

TEST(Lexer, BadCharacters) {
  EXPECT_EQ(lex_error("x = a $ b\n"), "1:7: invalid character '$' in source");
  EXPECT_EQ(lex_error("x = 1\ny = a ? b\n", 5), "6:7: invalid character '?' in source");
  EXPECT_EQ(lex_error("x = !a\n"), "1:5: invalid character '!' in source");
  EXPECT_EQ(lex_error("x = `a`\n"), "1:5: invalid character '`' in source");
}

TEST(Lexer, RecoveryModeTurnsErrorsIntoTokens) {
  Lexer lexer("x = $\ny = 1\n", 0, 1);
  lexer.set_recover(true);
  auto toks = lexer.tokenize();
  EXPECT_EQ(kinds(toks), "Name:x = ERR NL Name:y = Int:1 NL EOF");
  EXPECT_EQ(toks[2].text, "invalid character '$' in source");
  EXPECT_EQ(toks[2].loc.col, 5);
}

TEST(Lexer, ExpressionMode) {
  Lexer lexer("a +\n  b", 0, 7, 12);
  auto toks = lexer.tokenize_expression();
  EXPECT_EQ(kinds(toks), "Name:a + Name:b EOF");
  EXPECT_EQ(toks[0].loc.line, 7);
  EXPECT_EQ(toks[0].loc.col, 12);
  EXPECT_EQ(toks[2].loc.line, 8);
  EXPECT_EQ(toks[2].loc.col, 3);
}

TEST(Lexer, DescribeTokens) {
  auto toks = lex("x + 'a'\n");
  EXPECT_EQ(describe(toks[0]), "name 'x'");
  EXPECT_EQ(describe(toks[1]), "'+'");
  EXPECT_EQ(describe(toks[2]), "string literal");
  EXPECT_EQ(describe(toks[3]), "end of line");
  EXPECT_EQ(describe(toks[4]), "end of input");
}
