#include "SyntaxTestUtil.h"

using namespace tilec;
using tilec::test::parse_error;

TEST(ParserError, MissingColons) {
  EXPECT_EQ(parse_error("if x\n  pass\n"), "1:5: invalid syntax: expected ':' after if condition");
  EXPECT_EQ(parse_error("if x:\n  pass\nelif y\n  pass\n"),
            "3:7: invalid syntax: expected ':' after elif condition");
  EXPECT_EQ(parse_error("if x:\n  pass\nelse\n  pass\n"),
            "3:5: invalid syntax: expected ':' after 'else'");
  EXPECT_EQ(parse_error("for i in range(3)\n  pass\n"),
            "1:18: invalid syntax: expected ':' after the for loop header");
  EXPECT_EQ(parse_error("while x y:\n  pass\n"),
            "1:9: invalid syntax: expected ':' after while condition");
  EXPECT_EQ(parse_error("def f(x) pass\n"),
            "1:10: invalid syntax: expected ':' after the function signature");
}

TEST(ParserError, Blocks) {
  EXPECT_EQ(parse_error("if x:\npass\n"),
            "2:1: expected an indented block after 'if' statement on line 1");
  EXPECT_EQ(parse_error("def f():\n", 7),
            "8:1: expected an indented block after function definition on line 7");
  EXPECT_EQ(parse_error("x = 1\n    y = 2\n"), "2:5: unexpected indent");
  EXPECT_EQ(parse_error("else:\n  pass\n"),
            "1:1: invalid syntax: 'else' without a matching statement");
  EXPECT_EQ(parse_error("for x in y:\n  pass\n else:\n  pass\n"),
            "3:2: unindent does not match any outer indentation level");
}

TEST(ParserError, Definitions) {
  EXPECT_EQ(parse_error("def (x):\n  pass\n"),
            "1:5: invalid syntax: expected a function name after 'def', found '('");
  EXPECT_EQ(parse_error("def f(a, a):\n  pass\n"),
            "1:10: duplicate argument 'a' in function definition");
  EXPECT_EQ(parse_error("def f(a=1, b):\n  pass\n"),
            "1:12: parameter without a default follows parameter with a default");
  EXPECT_EQ(parse_error("def f(*):\n  pass\n"),
            "1:7: invalid syntax: named arguments must follow bare *");
  EXPECT_EQ(parse_error("def f(**kw, a):\n  pass\n"),
            "1:13: invalid syntax: arguments cannot follow var-keyword argument");
  EXPECT_EQ(parse_error("@jit\nx = 1\n"),
            "2:1: invalid syntax: expected 'def' after decorator, found name 'x'");
}

TEST(ParserError, Assignments) {
  EXPECT_EQ(parse_error("f(x) = 1\n"), "1:1: invalid syntax: cannot assign to function call");
  EXPECT_EQ(parse_error("x = 1 = y\n"), "1:5: invalid syntax: cannot assign to literal");
  EXPECT_EQ(parse_error("a + b = c\n"), "1:1: invalid syntax: cannot assign to expression");
  EXPECT_EQ(parse_error("a, f() = c\n"), "1:4: invalid syntax: cannot assign to function call");
  EXPECT_EQ(parse_error("None = 1\n"), "1:1: invalid syntax: cannot assign to None");
  EXPECT_EQ(parse_error("a, b += 1\n"),
            "1:1: invalid syntax: 'tuple' is an illegal expression for augmented assignment");
  EXPECT_EQ(parse_error("a, b: int\n"),
            "1:1: invalid syntax: only a single target (not a tuple) can be annotated");
  EXPECT_EQ(parse_error("for f() in x:\n  pass\n"),
            "1:5: invalid syntax: cannot assign to function call");
  EXPECT_EQ(parse_error("x = (a < b) = 2\n"), "1:5: invalid syntax: cannot assign to comparison");
}

TEST(ParserError, Expressions) {
  EXPECT_EQ(parse_error("x = \n"),
            "1:5: invalid syntax: expected an expression, found end of line");
  EXPECT_EQ(parse_error("x = a +\n"),
            "1:8: invalid syntax: expected an expression, found end of line");
  EXPECT_EQ(parse_error("x = a b\n"), "1:7: invalid syntax: unexpected name 'b'");
  EXPECT_EQ(parse_error("x = (a b)\n"),
            "1:8: invalid syntax: expected ',' or ')' in parenthesised expression opened at "
            "line 1, found name 'b'");
  EXPECT_EQ(parse_error("f(a b)\n"),
            "1:5: invalid syntax: expected ',' or ')' after call argument, found name 'b'");
  EXPECT_EQ(parse_error("x[]\n"), "1:3: invalid syntax: expected an index or slice");
  EXPECT_EQ(parse_error("x = a if b\n"),
            "1:11: invalid syntax: expected 'else' in conditional expression, found end of line");
  EXPECT_EQ(parse_error("x = a.\n"),
            "1:7: invalid syntax: expected an attribute name after '.', found end of line");
  EXPECT_EQ(parse_error("f(a=1, b)\n"), "1:8: positional argument follows keyword argument");
  EXPECT_EQ(parse_error("f(**k, b)\n"),
            "1:8: positional argument follows keyword argument unpacking");
  EXPECT_EQ(parse_error("f(a=1, a=2)\n"), "1:8: keyword argument repeated: a");
  EXPECT_EQ(parse_error("x = 'a' b'c'\n"),
            "1:9: invalid syntax: cannot mix bytes and nonbytes literals");
  EXPECT_EQ(parse_error("x = lambda x\n"),
            "1:13: invalid syntax: expected ':' after lambda parameters, found end of line");
}

TEST(ParserError, UnsupportedExpressions) {
  EXPECT_EQ(parse_error("x = {}\n"), "1:5: dict literal is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = {'a': 1}\n"), "1:5: dict literal is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = {**a}\n"), "1:5: dict literal is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = {1, 2}\n"), "1:5: set literal is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = {k: v for k in a}\n"),
            "1:5: dict comprehension is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = {k for k in a}\n"),
            "1:5: set comprehension is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = [i * j for i in a for j in b]\n"),
            "1:23: a comprehension with several 'for' clauses is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = (i for i in a)\n"),
            "1:5: generator expression is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = sum(i for i in a)\n"),
            "1:9: generator expression is not supported in tilec kernels");
  EXPECT_EQ(parse_error("if (n := 10) > 5:\n  pass\n"),
            "1:5: the walrus operator ':=' is not supported in tilec kernels");
  EXPECT_EQ(parse_error("f(y := 1)\n"),
            "1:3: the walrus operator ':=' is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = await f()\n"), "1:5: await is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = yield 1\n"),
            "1:5: yield expression is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = 1j\n"), "1:5: complex literal is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = b'ab'\n"), "1:5: bytes literal is not supported in tilec kernels");
  EXPECT_EQ(parse_error("x = f'{ {1: 2} }'\n"),
            "1:9: dict literal is not supported in tilec kernels");
}

TEST(ParserError, FStringFieldErrorsPointIntoTheString) {
  EXPECT_EQ(parse_error("x = 1\ny = f'ab{a +}'\n", 3),
            "4:13: invalid syntax: expected an expression, found end of input");
  EXPECT_EQ(parse_error("y = f'{a b}'\n"),
            "1:10: invalid syntax: unexpected name 'b' in f-string expression");
}

TEST(ParserError, LexerErrorsSurfaceFromParse) {
  EXPECT_EQ(parse_error("def f():\n  x = $\n", 100), "101:7: invalid character '$' in source");
  EXPECT_EQ(parse_error("x = '''\n", 4),
            "4:5: unterminated triple-quoted string literal (detected at line 5)");
}

TEST(ParserError, RenderedDiagnostic) {
  SourceManager sm;
  int f = sm.add("kern.py", "@jit\ndef k(x):\n    y = x +* 2\n", 20);
  try {
    frontend::parse(sm, f);
    FAIL() << "expected an error";
  } catch (const CompileError &e) {
    EXPECT_EQ(render_diagnostic(sm, e.loc(), "error", e.message()),
              "kern.py:22:12: error: invalid syntax: expected an expression, found '*'\n"
              "    y = x +* 2\n"
              "           ^\n");
  }
}

TEST(ParserError, PathologicalNestingIsAnErrorNotACrash) {
  std::string deep = "x = " + std::string(500, '(') + "1" + std::string(500, ')') + "\n";
  EXPECT_NE(parse_error(deep).find("too many nested expressions or blocks (more than 300)"),
            std::string::npos);
  std::string unary = "x = " + std::string(5000, '-') + "1\n";
  EXPECT_NE(parse_error(unary).find("too many nested"), std::string::npos);
  std::string chain = "x = 1";
  for (int i = 0; i < 5000; ++i)
    chain += " + 1";
  EXPECT_NE(parse_error(chain + "\n").find("expression is too long"), std::string::npos);
  std::string attrs = "x = a";
  for (int i = 0; i < 5000; ++i)
    attrs += ".b";
  EXPECT_NE(parse_error(attrs + "\n").find("expression is too long"), std::string::npos);
  std::string blocks;
  for (int i = 0; i < 400; ++i)
    blocks += std::string(static_cast<size_t>(i), ' ') + "if x:\n";
  blocks += std::string(400, ' ') + "pass\n";
  EXPECT_NE(parse_error(blocks).find("too many nested"), std::string::npos);
  // Reasonable nesting is fine.
  std::string ok = "x = " + std::string(90, '(') + "1" + std::string(90, ')') + "\n";
  EXPECT_EQ(parse_error(ok), "<no error>");
}
