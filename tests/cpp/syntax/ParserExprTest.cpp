#include "SyntaxTestUtil.h"

using namespace tilec;
using tilec::test::expr;
using tilec::test::parse;

TEST(ParserExpr, Atoms) {
  EXPECT_EQ(expr("x"), "x");
  EXPECT_EQ(expr("42"), "42");
  EXPECT_EQ(expr("1.5"), "1.5");
  EXPECT_EQ(expr("1e3"), "1000.0");
  EXPECT_EQ(expr("'s'"), "'s'");
  EXPECT_EQ(expr("True"), "True");
  EXPECT_EQ(expr("False"), "False");
  EXPECT_EQ(expr("None"), "None");
  EXPECT_EQ(expr("..."), "...");
  EXPECT_EQ(expr("99999999999999999999999"), "<int overflow>");
}

TEST(ParserExpr, PrecedenceArithmetic) {
  EXPECT_EQ(expr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(expr("a * b + c"), "(+ (* a b) c)");
  EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr("a / b // c % d @ e"), "(@ (% (// (/ a b) c) d) e)");
  EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(expr("a << b + c"), "(<< a (+ b c))");
  EXPECT_EQ(expr("a & b << c"), "(& a (<< b c))");
  EXPECT_EQ(expr("a ^ b & c"), "(^ a (& b c))");
  EXPECT_EQ(expr("a | b ^ c"), "(| a (^ b c))");
  EXPECT_EQ(expr("a >> b >> c"), "(>> (>> a b) c)");
}

TEST(ParserExpr, PrecedencePowerAndUnary) {
  EXPECT_EQ(expr("-2**2"), "(neg (** 2 2))");
  EXPECT_EQ(expr("2**-1"), "(** 2 (neg 1))");
  EXPECT_EQ(expr("a**b**c"), "(** a (** b c))");
  EXPECT_EQ(expr("-a * b"), "(* (neg a) b)");
  EXPECT_EQ(expr("~a + +b"), "(+ (~ a) (pos b))");
  EXPECT_EQ(expr("--a"), "(neg (neg a))");
  EXPECT_EQ(expr("-x.y[1]**2"), "(neg (** (sub (. x y) 1) 2))");
  EXPECT_EQ(expr("a * b ** c"), "(* a (** b c))");
}

TEST(ParserExpr, PrecedenceLogicAndComparison) {
  EXPECT_EQ(expr("a < b | c"), "(cmp a < (| b c))");
  EXPECT_EQ(expr("not a == b"), "(not (cmp a == b))");
  EXPECT_EQ(expr("a and b or c and d"), "(or (and a b) (and c d))");
  EXPECT_EQ(expr("a or b or c"), "(or a b c)");
  EXPECT_EQ(expr("a and not b and c"), "(and a (not b) c)");
  EXPECT_EQ(expr("a < b <= c"), "(cmp a < b <= c)");
  EXPECT_EQ(expr("a == b != c > d >= e"), "(cmp a == b != c > d >= e)");
  EXPECT_EQ(expr("a in b"), "(cmp a in b)");
  EXPECT_EQ(expr("a not in b"), "(cmp a not in b)");
  EXPECT_EQ(expr("a is b"), "(cmp a is b)");
  EXPECT_EQ(expr("a is not None"), "(cmp a is not None)");
  EXPECT_EQ(expr("not not a"), "(not (not a))");
}

TEST(ParserExpr, ConditionalAndLambda) {
  EXPECT_EQ(expr("a if c else b"), "(ifexp c a b)");
  EXPECT_EQ(expr("a if c else b if d else e"), "(ifexp c a (ifexp d b e))");
  EXPECT_EQ(expr("a or b if c or d else e"), "(ifexp (or c d) (or a b) e)");
  EXPECT_EQ(expr("lambda: 0"), "(lambda)");
  EXPECT_EQ(expr("lambda x, y=1, *a, k, **kw: x if y else {1: 2}[0] if 0 else 1"), "(lambda)");
  EXPECT_EQ(expr("f(lambda meta: (meta['B'],), 2)"), "(call f (lambda) 2)");
  EXPECT_EQ(expr("lambda x: x if x else y"), "(lambda)");
}

TEST(ParserExpr, Primaries) {
  EXPECT_EQ(expr("tl.load(p, mask=m, other=0.0)"), "(call (. tl load) p mask=m other=0.0)");
  EXPECT_EQ(expr("f()"), "(call f)");
  EXPECT_EQ(expr("f(a,)"), "(call f a)");
  EXPECT_EQ(expr("f(*args, **kwargs)"), "(call f (* args) **kwargs)");
  EXPECT_EQ(expr("f(a, *b, c=1, **d)"), "(call f a (* b) c=1 **d)");
  EXPECT_EQ(expr("f(a)(b)"), "(call (call f a) b)");
  EXPECT_EQ(expr("x.dtype.element_ty"), "(. (. x dtype) element_ty)");
  EXPECT_EQ(expr("acc.to(Out.dtype.element_ty)"), "(call (. acc to) (. (. Out dtype) element_ty))");
  EXPECT_EQ(expr("a.b(c)[d].e"), "(. (sub (call (. a b) c) d) e)");
  EXPECT_EQ(expr("1 .real"), "(. 1 real)");
}

TEST(ParserExpr, Subscripts) {
  EXPECT_EQ(expr("x[i]"), "(sub x i)");
  EXPECT_EQ(expr("x[:, None]"), "(sub x (tuple (slice _ _ _) None))");
  EXPECT_EQ(expr("x[None, :]"), "(sub x (tuple None (slice _ _ _)))");
  EXPECT_EQ(expr("x[None, :, 1:2:3]"), "(sub x (tuple None (slice _ _ _) (slice 1 2 3)))");
  EXPECT_EQ(expr("x[a:b]"), "(sub x (slice a b _))");
  EXPECT_EQ(expr("x[::2]"), "(sub x (slice _ _ 2))");
  EXPECT_EQ(expr("x[:n:]"), "(sub x (slice _ n _))");
  EXPECT_EQ(expr("x[1:]"), "(sub x (slice 1 _ _))");
  EXPECT_EQ(expr("x[a, b]"), "(sub x (tuple a b))");
  EXPECT_EQ(expr("x[a,]"), "(sub x (tuple a))");
  EXPECT_EQ(expr("x[...]"), "(sub x ...)");
  EXPECT_EQ(expr("x[i][j]"), "(sub (sub x i) j)");
  EXPECT_EQ(expr("(start_n + offs_n)[:, None]"),
            "(sub (+ start_n offs_n) (tuple (slice _ _ _) None))");
}

TEST(ParserExpr, TuplesAndLists) {
  EXPECT_EQ(expr("a, b"), "(tuple a b)");
  EXPECT_EQ(expr("a,"), "(tuple a)");
  EXPECT_EQ(expr("(a, b)"), "(tuple a b)");
  EXPECT_EQ(expr("(a,)"), "(tuple a)");
  EXPECT_EQ(expr("()"), "(tuple)");
  EXPECT_EQ(expr("(a)"), "a");
  EXPECT_EQ(expr("((a))"), "a");
  EXPECT_EQ(expr("[]"), "(list)");
  EXPECT_EQ(expr("[a, b,]"), "(list a b)");
  EXPECT_EQ(expr("[BLOCK_M, BLOCK_N]"), "(list BLOCK_M BLOCK_N)");
  EXPECT_EQ(expr("(*a, b)"), "(tuple (* a) b)");
  EXPECT_EQ(expr("[*a]"), "(list (* a))");
}

TEST(ParserExpr, StringConcatenation) {
  EXPECT_EQ(expr("'a' 'b' \"c\""), "'abc'");
  EXPECT_EQ(expr("('a'\n 'b')"), "'ab'");
  EXPECT_EQ(expr("'a' f'{x}' 'b'"), "(f 'a' {x} 'b')");
}

TEST(ParserExpr, FStrings) {
  EXPECT_EQ(expr("f'BLOCK_SIZE:{BLOCK_SIZE}'"), "(f 'BLOCK_SIZE:' {BLOCK_SIZE})");
  EXPECT_EQ(expr("f'{x!r:>10}'"), "(f {x!r:>10})");
  EXPECT_EQ(expr("f'{{lit}}'"), "(f '{lit}')");
  EXPECT_EQ(expr("f'{x=}'"), "(f 'x=' {x=!r})");
  EXPECT_EQ(expr("f'{a + b * 2}'"), "(f {(+ a (* b 2))})");
  EXPECT_EQ(expr("f'{a, b}'"), "(f {(tuple a b)})");
  EXPECT_EQ(expr("f'{d[\"k\"]:x}'"), "(f {(sub d 'k'):x})");
  EXPECT_EQ(expr("f''"), "(f)");
}

TEST(ParserExpr, FStringSelfDocumentingMergesText) {
  // The "x = " text joins the preceding literal text, as in CPython's AST.
  EXPECT_EQ(expr("f'a{x = :d}b'"), "(f 'ax = ' {x=:d} 'b')");
}

TEST(ParserExpr, FStringFieldLocations) {
  auto p = parse("y = 1\nf'ab{x + 1}'\n", 5);
  const auto &s = static_cast<const ast::ExprStmt &>(*p.module.body[1]);
  const auto &f = static_cast<const ast::FStringExpr &>(*s.value);
  ASSERT_EQ(f.parts.size(), 2u);
  EXPECT_EQ(f.parts[1].expr->loc.line, 6);
  EXPECT_EQ(f.parts[1].expr->loc.col, 6);
  const auto &bin = static_cast<const ast::BinOpExpr &>(*f.parts[1].expr);
  EXPECT_EQ(bin.rhs->loc.col, 10);
}

TEST(ParserExpr, NodeLocationsAreFirstTokens) {
  EXPECT_EQ(test::dump_src("x = a + b * c\n", true),
            "[1:1] x@1:1 = (+@1:5 a@1:5 (*@1:9 b@1:9 c@1:13))\n");
  EXPECT_EQ(test::dump_src("y = (a + b) * c\n", true),
            "[1:1] y@1:1 = (*@1:5 (+@1:6 a@1:6 b@1:10) c@1:15)\n");
  EXPECT_EQ(test::dump_src("tl.load(p, mask=m)\n", true),
            "[1:1] expr (call@1:1 (.@1:1 tl@1:1 load) p@1:9 mask=m@1:17)\n");
  EXPECT_EQ(test::dump_src("-x[:, None]\n", true),
            "[1:1] expr (neg@1:1 (sub@1:2 x@1:2 (tuple@1:4 (slice@1:4 _ _ _) None@1:7)))\n");
}

TEST(ParserExpr, KeywordLocations) {
  auto p = parse("f(a, key=1)\n");
  const auto &s = static_cast<const ast::ExprStmt &>(*p.module.body[0]);
  const auto &c = static_cast<const ast::CallExpr &>(*s.value);
  ASSERT_EQ(c.keywords.size(), 1u);
  EXPECT_EQ(c.keywords[0].name, "key");
  EXPECT_EQ(c.keywords[0].loc.col, 6);
}

TEST(ParserExpr, MultiLineExpressions) {
  EXPECT_EQ(expr("f(a,\n  b)\n"), "(call f a b)");
  EXPECT_EQ(expr("(a +\n b)"), "(+ a b)");
  EXPECT_EQ(expr("a + \\\n b"), "(+ a b)");
}

TEST(AstSymbols, EveryOperatorHasItsPythonSpelling) {
  using ast::BinOp;
  using ast::CmpOp;
  using ast::UnaryOp;
  const std::pair<BinOp, const char *> bins[] = {
      {BinOp::Add, "+"},       {BinOp::Sub, "-"},     {BinOp::Mul, "*"},    {BinOp::Div, "/"},
      {BinOp::FloorDiv, "//"}, {BinOp::Mod, "%"},     {BinOp::Pow, "**"},   {BinOp::MatMul, "@"},
      {BinOp::LShift, "<<"},   {BinOp::RShift, ">>"}, {BinOp::BitAnd, "&"}, {BinOp::BitOr, "|"},
      {BinOp::BitXor, "^"}};
  for (auto [op, s] : bins)
    EXPECT_STREQ(ast::binop_symbol(op), s);
  EXPECT_STREQ(ast::unaryop_symbol(UnaryOp::Neg), "-");
  EXPECT_STREQ(ast::unaryop_symbol(UnaryOp::Pos), "+");
  EXPECT_STREQ(ast::unaryop_symbol(UnaryOp::Invert), "~");
  EXPECT_STREQ(ast::unaryop_symbol(UnaryOp::Not), "not");
  const std::pair<CmpOp, const char *> cmps[] = {
      {CmpOp::Eq, "=="}, {CmpOp::NotEq, "!="},    {CmpOp::Lt, "<"},  {CmpOp::LtE, "<="},
      {CmpOp::Gt, ">"},  {CmpOp::GtE, ">="},      {CmpOp::Is, "is"}, {CmpOp::IsNot, "is not"},
      {CmpOp::In, "in"}, {CmpOp::NotIn, "not in"}};
  for (auto [op, s] : cmps)
    EXPECT_STREQ(ast::cmpop_symbol(op), s);
}
