#include "SyntaxTestUtil.h"

using namespace tilec;
using tilec::test::dump_src;
using tilec::test::parse;

TEST(ParserStmt, Assignments) {
  EXPECT_EQ(dump_src("x = 1\n"), "x = 1\n");
  EXPECT_EQ(dump_src("a = b = c\n"), "a = b = c\n");
  EXPECT_EQ(dump_src("a, b = b, a\n"), "(tuple a b) = (tuple b a)\n");
  EXPECT_EQ(dump_src("(a, b) = t\n"), "(tuple a b) = t\n");
  EXPECT_EQ(dump_src("[a, b] = t\n"), "(list a b) = t\n");
  EXPECT_EQ(dump_src("a, = t\n"), "(tuple a) = t\n");
  EXPECT_EQ(dump_src("a, *rest = t\n"), "(tuple a (* rest)) = t\n");
  EXPECT_EQ(dump_src("x.y = z[0] = 1\n"), "(. x y) = (sub z 0) = 1\n");
  EXPECT_EQ(dump_src("m_i, l_i = f(a), 0\n"), "(tuple m_i l_i) = (tuple (call f a) 0)\n");
}

TEST(ParserStmt, AugmentedAssignments) {
  const char *ops[] = {"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^"};
  for (const char *op : ops) {
    std::string src = std::string("x ") + op + "= y\n";
    EXPECT_EQ(dump_src(src), src) << op;
  }
  EXPECT_EQ(dump_src("a_ptrs += BLOCK_SIZE_K * stride_ak\n"),
            "a_ptrs += (* BLOCK_SIZE_K stride_ak)\n");
  EXPECT_EQ(dump_src("x[i] += 1\n"), "(sub x i) += 1\n");
  EXPECT_EQ(dump_src("x.a -= 1, 2\n"), "(. x a) -= (tuple 1 2)\n");
}

TEST(ParserStmt, AnnotatedAssignments) {
  EXPECT_EQ(dump_src("x: tl.constexpr = 3\n"), "x: (. tl constexpr) = 3\n");
  EXPECT_EQ(dump_src("x: int\n"), "x: int\n");
  EXPECT_EQ(dump_src("self.x: int = 0\n"), "(. self x): int = 0\n");
}

TEST(ParserStmt, ExpressionStatements) {
  EXPECT_EQ(dump_src("tl.store(p, x)\n"), "expr (call (. tl store) p x)\n");
  EXPECT_EQ(dump_src("'docstring'\n"), "expr 'docstring'\n");
  EXPECT_EQ(dump_src("x\n"), "expr x\n");
}

TEST(ParserStmt, SemicolonSeparated) {
  EXPECT_EQ(dump_src("a = 1; b = 2; f(a)\n"), "a = 1\nb = 2\nexpr (call f a)\n");
  EXPECT_EQ(dump_src("pass;\n"), "pass\n");
}

TEST(ParserStmt, FunctionDefinitions) {
  EXPECT_EQ(dump_src("@triton.jit\n"
                     "def k(x_ptr, n, BLOCK: tl.constexpr = 128) -> None:\n"
                     "    pass\n"),
            "@(. triton jit)\n"
            "def k(x_ptr, n, BLOCK: (. tl constexpr) = 128) -> None:\n"
            "  pass\n");
  EXPECT_EQ(dump_src("def f(a, *args, b, c=1, **kw):\n  return a\n"),
            "def f(a, *args, kwonly b, kwonly c = 1, **kw):\n  return a\n");
  EXPECT_EQ(dump_src("def f(a, /, b, *, c):\n  pass\n"), "def f(a, b, kwonly c):\n  pass\n");
  EXPECT_EQ(dump_src("def f(*args: int, **kw: str,):\n  pass\n"),
            "def f(*args: int, **kw: str):\n  pass\n");
  EXPECT_EQ(dump_src("def f(): return 1\n"), "def f():\n  return 1\n");
  EXPECT_EQ(dump_src("@a\n@b.c(1, key=2)\ndef f():\n  pass\n"),
            "@a\n@(call (. b c) 1 key=2)\ndef f():\n  pass\n");
}

TEST(ParserStmt, NestedDefs) {
  EXPECT_EQ(dump_src("def outer():\n"
                     "    def inner(x):\n"
                     "        return x\n"
                     "    return inner(1)\n"),
            "def outer():\n  def inner(x):\n    return x\n  return (call inner 1)\n");
}

TEST(ParserStmt, DecoratorArgumentsWithHostOnlySyntax) {
  // @autotune's configs are dicts: host code, kept as a call of the decorator's name.
  EXPECT_EQ(dump_src("@triton.autotune(configs=[triton.Config({'B': 1})], key=['n'])\n"
                     "@triton.jit\n"
                     "def k(x):\n"
                     "    pass\n"),
            "@(call (. triton autotune))\n@(. triton jit)\ndef k(x):\n  pass\n");
  EXPECT_EQ(dump_src("@triton.heuristics(values={'BLOCK_SIZE': lambda args: 128})\n"
                     "@triton.jit\n"
                     "def k(x):\n"
                     "    pass\n"),
            "@(call (. triton heuristics))\n@(. triton jit)\ndef k(x):\n  pass\n");
}

TEST(ParserStmt, IfElifElse) {
  EXPECT_EQ(dump_src("if a:\n  x = 1\nelif b:\n  x = 2\nelif c:\n  x = 3\nelse:\n  x = 4\n"),
            "if a:\n  x = 1\nelse:\n  if b:\n    x = 2\n  else:\n    if c:\n      x = 3\n"
            "    else:\n      x = 4\n");
  EXPECT_EQ(dump_src("if x: y = 1\nelse: y = 2\n"), "if x:\n  y = 1\nelse:\n  y = 2\n");
  EXPECT_EQ(dump_src("if x: a; b\n"), "if x:\n  expr a\n  expr b\n");
}

TEST(ParserStmt, ElifLocation) {
  auto p = parse("if a:\n  pass\nelif b:\n  pass\n", 10);
  const auto &s = static_cast<const ast::IfStmt &>(*p.module.body[0]);
  ASSERT_EQ(s.orelse.size(), 1u);
  EXPECT_EQ(s.orelse[0]->loc.line, 12);
  EXPECT_EQ(s.orelse[0]->loc.col, 1);
}

TEST(ParserStmt, ForLoops) {
  EXPECT_EQ(dump_src("for k in range(0, K, BLOCK_K):\n  acc += 1\n"),
            "for k in (call range 0 K BLOCK_K):\n  acc += 1\n");
  EXPECT_EQ(dump_src("for i, j in pairs:\n  pass\nelse:\n  done()\n"),
            "for (tuple i j) in pairs:\n  pass\nelse:\n  expr (call done)\n");
  EXPECT_EQ(dump_src("for (a, b) in x: pass\n"), "for (tuple a b) in x:\n  pass\n");
  EXPECT_EQ(dump_src("for x in a, b: pass\n"), "for x in (tuple a b):\n  pass\n");
  EXPECT_EQ(dump_src("for i in tl.static_range(4):\n  break\n  continue\n"),
            "for i in (call (. tl static_range) 4):\n  break\n  continue\n");
}

TEST(ParserStmt, WhileLoops) {
  EXPECT_EQ(dump_src("while i < n:\n  i += 1\nelse:\n  pass\n"),
            "while (cmp i < n):\n  i += 1\nelse:\n  pass\n");
  EXPECT_EQ(dump_src("while True: pass\n"), "while True:\n  pass\n");
}

TEST(ParserStmt, ReturnAssertPass) {
  EXPECT_EQ(dump_src("def f():\n  return\n"), "def f():\n  return\n");
  EXPECT_EQ(dump_src("def f():\n  return a, b\n"), "def f():\n  return (tuple a b)\n");
  EXPECT_EQ(dump_src("assert x > 0\n"), "assert (cmp x > 0)\n");
  EXPECT_EQ(dump_src("assert x, 'msg'\n"), "assert x, 'msg'\n");
  EXPECT_EQ(dump_src("pass\n"), "pass\n");
}

TEST(ParserStmt, Imports) {
  EXPECT_EQ(dump_src("import tilec\n"), "import tilec\n");
  EXPECT_EQ(dump_src("import tilec.language as tl, os\n"), "import tilec.language as tl, os\n");
  EXPECT_EQ(dump_src("from tilec import language as tl\n"), "from tilec import language as tl\n");
  EXPECT_EQ(dump_src("from . import x\n"), "from . import x\n");
  EXPECT_EQ(dump_src("from ..a.b import (c, d as e,)\n"), "from ..a.b import c, d as e\n");
  EXPECT_EQ(dump_src("from ...x import *\n"), "from ...x import *\n");
  EXPECT_EQ(dump_src("from .... import y\n"), "from .... import y\n");
}

TEST(ParserStmt, UnsupportedStatementsAreConsumed) {
  EXPECT_EQ(dump_src("with a as b:\n  x = 1\n  if y:\n    z\ny = 2\n"),
            "unsupported with statement\ny = 2\n");
  EXPECT_EQ(dump_src("try:\n  a\nexcept E as e:\n  b\nexcept:\n  c\nelse:\n  d\nfinally:\n  "
                     "e\nz = 1\n"),
            "unsupported try statement\nz = 1\n");
  EXPECT_EQ(dump_src("raise ValueError('x'); y = 1\n"), "unsupported raise statement\ny = 1\n");
  EXPECT_EQ(dump_src("del x\nglobal g\nnonlocal n\n"),
            "unsupported del statement\nunsupported global statement\n"
            "unsupported nonlocal statement\n");
  EXPECT_EQ(dump_src("class A(B):\n  def f(self):\n    return {1: 2}\nx = 1\n"),
            "unsupported class definition\nx = 1\n");
  EXPECT_EQ(dump_src("@dataclass\nclass A:\n  x: int\n"), "unsupported class definition\n");
  EXPECT_EQ(dump_src("async def f():\n  await g()\nx = 1\n"),
            "unsupported async function definition\nx = 1\n");
  EXPECT_EQ(dump_src("def g():\n  yield 1\n  yield\n"),
            "def g():\n  unsupported yield expression\n  unsupported yield expression\n");
  EXPECT_EQ(dump_src("match x:\n  case 1:\n    pass\n  case _:\n    pass\ny = 2\n"),
            "unsupported match statement\ny = 2\n");
  EXPECT_EQ(dump_src("with a: b = {}\nc = 1\n"), "unsupported with statement\nc = 1\n");
  // `match` is still an ordinary name.
  EXPECT_EQ(dump_src("match = re.match(p, s)\nmatch(x)\n"),
            "match = (call (. re match) p s)\nexpr (call match x)\n");
}

TEST(ParserStmt, UnsupportedLocations) {
  auto p = parse("x = 1\n    \nwith a:\n  pass\n", 3);
  ASSERT_EQ(p.module.body.size(), 2u);
  EXPECT_EQ(p.module.body[1]->loc.line, 5);
  const auto &u = static_cast<const ast::UnsupportedStmt &>(*p.module.body[1]);
  EXPECT_EQ(u.what, "with statement");
}

TEST(ParserStmt, IndentedSourceKeepsAbsoluteLines) {
  // inspect.getsource of a method: indented, starting at line 40 of its file.
  auto p = parse("    @jit\n    def f(x):\n        y = x + 1\n        return y\n", 40);
  ASSERT_EQ(p.module.body.size(), 1u);
  const auto &fn = static_cast<const ast::FunctionDefStmt &>(*p.module.body[0]);
  EXPECT_EQ(fn.loc.line, 41);
  EXPECT_EQ(fn.loc.col, 5);
  EXPECT_EQ(fn.decorators[0]->loc.line, 40);
  EXPECT_EQ(fn.decorators[0]->loc.col, 6);
  EXPECT_EQ(fn.params[0].loc.col, 11);
  EXPECT_EQ(fn.body[1]->loc.line, 43);
  EXPECT_EQ(fn.body[1]->loc.col, 9);
}

TEST(ParserStmt, CommentsAndBlankLinesInsideBlocks) {
  EXPECT_EQ(dump_src("def f():\n"
                     "    # leading comment\n"
                     "\n"
                     "    x = 1  # trailing\n"
                     "# column-0 comment inside the body\n"
                     "    return x\n"),
            "def f():\n  x = 1\n  return x\n");
}

TEST(ParserStmt, DumpWithLocations) {
  EXPECT_EQ(dump_src("def f(a):\n  return a\n", true),
            "[1:1] def f(a@1:7):\n  [2:3] return a@2:10\n");
}
