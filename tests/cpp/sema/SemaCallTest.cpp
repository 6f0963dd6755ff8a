// Calls of @jit functions (inlined), defaults, keywords, tuple returns, returns from
// inside `if`, combiners of tl.reduce, and the errors calls raise.
#include "SemaTestUtil.h"

namespace tilec::sema::test {
namespace {

std::shared_ptr<FunctionSource> helpers_fn(const std::string &name, const std::string &src,
                                           int first_line = 1) {
  return make_fn(name, src, std_globals(), first_line, "helpers.py");
}

TEST(SemaCall, TupleReturnDefaultsAndKeywords) {
  auto helper = helpers_fn("helper", R"(@triton.jit
def helper(x, scale=2, SHIFT: tl.constexpr = 1):
    return x * scale, x + SHIFT
)");
  auto globals = std_globals();
  globals["helper"] = fn_val(helper);
  auto k = make_fn("k", R"(@triton.jit
def k(X):
    x = tl.load(X)
    a, b = helper(x)
    c, d = helper(x, 3.0, SHIFT=4)
    t = helper(x, scale=0.5)
    tl.store(X, a + b + c + d + t[0] + t[1])
)",
                   globals);
  Lowered l = lower(k, {ptr()});
  EXPECT_EQ(count(l.ir, " = mul "), 3u) << l.ir;
  EXPECT_NE(l.ir.find("constant {value = 4.0} : fp32"), std::string::npos) << l.ir;
  EXPECT_NE(l.ir.find("constant {value = 0.5} : fp32"), std::string::npos) << l.ir;
}

TEST(SemaCall, NestedCallsAndConstexprReturn) {
  auto inner = helpers_fn("inner", R"(def inner(B: tl.constexpr):
    return B * 2
)");
  auto g1 = std_globals();
  g1["inner"] = fn_val(inner);
  auto outer = make_fn("outer", R"(def outer(X, B: tl.constexpr):
    offs = tl.arange(0, inner(B))
    return tl.load(X + offs)
)",
                       g1, 1, "helpers.py");
  auto g2 = std_globals();
  g2["outer"] = fn_val(outer);
  auto k = make_fn("k", R"(def k(X, BLOCK: tl.constexpr):
    v = outer(X, BLOCK)
    tl.store(X + tl.arange(0, BLOCK * 2), v)
)",
                   g2);
  Lowered l = lower(k, {ptr(), cint(8)});
  EXPECT_NE(l.ir.find("arange {end = 16, start = 0}"), std::string::npos) << l.ir;
}

// Triton ignores a callee's tl.constexpr annotation when the argument is a tensor or a
// run-time scalar (tutorial 06's _attn_fwd_inner takes offs_m and N_CTX so).
TEST(SemaCall, ConstexprAnnotatedCalleeParamTakesTensors) {
  auto f = helpers_fn("f", R"(def f(x, OFFS: tl.constexpr, N: tl.constexpr):
    return x + OFFS, N * 2
)");
  auto g = std_globals();
  g["f"] = fn_val(f);
  auto k = make_fn("k", R"(def k(X, n):
    offs = tl.arange(0, 8)
    a, b = f(tl.load(X + offs), offs, n)
    tl.store(X + offs, a + b)
)",
                   g);
  Lowered l = lower(k, {ptr(), int_arg()});
  EXPECT_EQ(count(l.ir, " = add "), 2u) << l.ir;
  EXPECT_EQ(count(l.ir, " = mul "), 1u) << l.ir;
}

TEST(SemaCall, ReturnInsideRuntimeIfMergesValues) {
  auto clampish = helpers_fn("pick", R"(def pick(x, n):
    if n > 0:
        return x * 2.0, n
    return x, n + 1
)");
  auto g = std_globals();
  g["pick"] = fn_val(clampish);
  auto k = make_fn("k", R"(def k(X, n):
    v, m = pick(tl.load(X), n)
    for i in range(3):
        v, m = pick(v, m)
    tl.store(X + m, v)
)",
                   g);
  Lowered l = lower(k, {ptr(), int_arg()});
  EXPECT_NE(l.ir.find(":2 = if "), std::string::npos) << l.ir;
  EXPECT_NE(l.ir.find("-> fp32, i32 {"), std::string::npos) << l.ir;
  EXPECT_EQ(count(l.ir, " = for "), 1u);
}

TEST(SemaCall, StarArgsAndVarArgs) {
  auto add3 = helpers_fn("add3", R"(def add3(a, b, *rest):
    s = a + b
    for i in tl.static_range(len(rest)):
        s += rest[i]
    return s
)");
  auto g = std_globals();
  g["add3"] = fn_val(add3);
  auto k = make_fn("k", R"(def k(X):
    t = (tl.load(X), tl.load(X + 1))
    tl.store(X, add3(*t, 1.0, 2.0))
)",
                   g);
  Lowered l = lower(k, {ptr()});
  EXPECT_EQ(count(l.ir, " = add "), 3u) << l.ir;
}

TEST(SemaCall, ReduceWithJitCombiner) {
  auto combine = helpers_fn("combine", R"(@triton.jit
def combine(a, b):
    return tl.maximum(a, b)
)");
  auto g = std_globals();
  g["combine"] = fn_val(combine);
  auto k = make_fn("k", R"(def k(X, B: tl.constexpr):
    x = tl.load(X + tl.arange(0, B))
    tl.store(X, tl.reduce(x, 0, combine))
)",
                   g);
  Lowered l = lower(k, {ptr(), cint(32)});
  EXPECT_NE(l.ir.find(" = reduce "), std::string::npos);
  EXPECT_NE(l.ir.find(" = max "), std::string::npos) << l.ir;
}

TEST(SemaCall, MethodsAttributesAndDtypes) {
  const char *src = R"(def k(X, Y, B: tl.constexpr):
    x = tl.load(X + tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :])
    tl.static_assert(x.shape[0] == B)
    tl.static_assert(len(x.shape) == 2)
    tl.static_assert(x.dtype == tl.float32)
    tl.static_assert(Y.dtype.element_ty == tl.float16)
    tl.static_assert(x.dtype.is_floating())
    tl.static_assert(not Y.dtype.element_ty.is_int())
    tl.static_assert(tl.float16.primitive_bitwidth == 16)
    y = x.T.to(Y.dtype.element_ty)
    s = x.sum(axis=1)
    tl.store(Y + tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :], y)
    tl.store(X + tl.arange(0, B), s)
)";
  Lowered l = lower("k", src, {ptr(), ptr(ir::DType::F16), cint(16)});
  EXPECT_NE(l.ir.find(" = permute "), std::string::npos) << l.ir;
  EXPECT_NE(l.ir.find("-> tile<16x16xfp16>"), std::string::npos);
}

TEST(SemaCall, ConstexprGlobalsAndTritonModule) {
  auto g = std_globals();
  g["SCALE"] = Val::floating(0.25);
  g["BLOCK"] = Val::integer(64);
  auto k = make_fn("k", R"(def k(X, n):
    offs = tl.arange(0, BLOCK)
    m = triton.cdiv(n, BLOCK)
    tl.store(X + offs, tl.load(X + offs) * SCALE + m)
)",
                   g);
  Lowered l = lower(k, {ptr(), int_arg()});
  EXPECT_NE(l.ir.find("tile<64xfp32>"), std::string::npos);
}

TEST(SemaCall, CalleeErrorPointsIntoCalleeFile) {
  auto bad = helpers_fn("bad", R"(@triton.jit
def bad(x):
    y = x + 1
    return y + undefined_thing
)",
                        100);
  auto g = std_globals();
  g["bad"] = fn_val(bad);
  Diag d = lower_error(make_fn("k", "def k(X):\n    tl.store(X, bad(tl.load(X)))\n", g), {ptr()});
  ASSERT_TRUE(d.raised);
  EXPECT_EQ(d.message, "name 'undefined_thing' is not defined");
  EXPECT_EQ(d.line, 103);
  EXPECT_EQ(d.col, 16);
  EXPECT_EQ(d.rendered.rfind("helpers.py:103:16: error: ", 0), 0u) << d.rendered;
}

TEST(SemaCall, ArityAndKeywordErrors) {
  auto f = helpers_fn("f", "def f(a, b, C: tl.constexpr = 1):\n    return a\n");
  auto g = std_globals();
  g["f"] = fn_val(f);
  struct Case {
    const char *call, *msg;
  } cases[] = {
      {"f(1)", "f() missing 1 required argument: 'b'"},
      {"f()", "f() missing 2 required arguments: 'a' and 'b'"},
      {"f(1, 2, 3, 4)", "f() takes 3 positional arguments but 4 were given"},
      {"f(1, 2, D=3)", "f() got an unexpected keyword argument 'D'"},
      {"f(1, 2, a=3)", "f() got multiple values for argument 'a'"},
  };
  for (const Case &c : cases) {
    std::string src = std::string("def k(X):\n    v = ") + c.call + "\n";
    Diag d = lower_error(make_fn("k", src, g), {ptr()});
    EXPECT_TRUE(d.raised) << c.call;
    EXPECT_EQ(d.message, c.msg) << c.call;
    EXPECT_EQ(d.line, 2) << c.call;
    EXPECT_EQ(d.col, 9) << c.call;
  }
}

TEST(SemaCall, RecursionIsAnError) {
  auto rec = std::make_shared<FunctionSource>();
  rec->name = "rec";
  rec->file = "helpers.py";
  rec->source = "def rec(x):\n    return rec(x)\n";
  auto g = std_globals();
  g["rec"] = fn_val(rec);
  rec->globals = g; // refers to itself (a cycle of shared_ptrs; broken below)
  Diag d = lower_error(make_fn("k", "def k(X):\n    rec(1)\n", g), {ptr()});
  rec->globals.clear();
  EXPECT_EQ(d.message, "recursive call to 'rec' is not supported (@jit functions are inlined)");
  EXPECT_EQ(d.line, 2);
}

} // namespace
} // namespace tilec::sema::test

namespace tilec::sema::test {
namespace {

TEST(SemaCall, UnsupportedGlobalsAreNamed) {
  auto f = make_fn("k", R"(def k(X):
    y = helper(1)
    tl.store(X, y)
)");
  f->unsupported_globals["helper"] = "function (not a @jit function)";
  Diag d = lower_error(f, {ptr()});
  EXPECT_EQ(d.message,
            "calling non-@jit function 'helper' is not supported (decorate it with @jit)");
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.col, 9);

  auto g = make_fn("k", "def k(X):\n    tl.store(X, arr + 1)\n");
  g->unsupported_globals["arr"] = "value of type numpy.ndarray";
  d = lower_error(g, {ptr()});
  EXPECT_EQ(d.message,
            "global 'arr' is a value of type numpy.ndarray and cannot be used in a kernel");
  EXPECT_EQ(d.col, 17);

  auto r = make_fn("k", "def k(X):\n    again(X)\n");
  r->unsupported_globals["again"] = "recursive @jit function 'again'";
  d = lower_error(r, {ptr()});
  EXPECT_EQ(d.message, "recursive call to 'again' is not supported (@jit functions are inlined)");
}

} // namespace
} // namespace tilec::sema::test

namespace tilec::sema::test {
namespace {

// A host function (Triton's @constexpr_function) as the bindings give one: run at compile
// time on constexpr arguments; its result is a constexpr, its failure a located error.
Val host_fn(const std::string &name, std::function<Val(const std::vector<Val> &)> f) {
  auto h = std::make_shared<HostFunction>();
  h->name = name;
  h->call = [f](const std::vector<Val> &args,
                const std::vector<std::pair<std::string, Val>> &kwargs) {
    std::vector<Val> all = args;
    for (const auto &kv : kwargs)
      all.push_back(kv.second);
    return f(all);
  };
  return Val::host_function(h, "def " + name + "(...): ...");
}

TEST(SemaCall, HostFunctionsRunAtCompileTime) {
  auto globals = std_globals();
  globals["plus_one"] = host_fn("plus_one", [](const std::vector<Val> &a) {
    return Val::integer(a.at(0).i + 1);
  });
  globals["shape"] = host_fn("shape", [](const std::vector<Val> &a) {
    return Val::tuple({a.at(0), a.at(1)});
  });
  auto k = make_fn("k", R"(def k(X, N: tl.constexpr):
    n: tl.constexpr = plus_one(N)
    s: tl.constexpr = shape(4, m=n)
    tl.store(X + tl.arange(0, s[1]), tl.arange(0, s[1]) + s[0])
)",
                   globals);
  Lowered l = lower(k, {ptr(), cint(7)});
  EXPECT_NE(l.ir.find("arange {end = 8, start = 0}"), std::string::npos) << l.ir;
  EXPECT_NE(l.ir.find("constant {value = 4}"), std::string::npos) << l.ir;
}

TEST(SemaCall, HostFunctionErrorsAreLocated) {
  auto globals = std_globals();
  globals["boom"] = host_fn("boom", [](const std::vector<Val> &) -> Val {
    throw std::runtime_error("constexpr_function 'boom' raised ValueError: no");
  });
  auto k = make_fn("k", "def k(X):\n    a: tl.constexpr = boom(1)\n", globals);
  Diag d = lower_error(k, {ptr()});
  EXPECT_EQ(d.message, "constexpr_function 'boom' raised ValueError: no");
  EXPECT_EQ(d.line, 2);

  auto r = make_fn("k", "def k(X, n):\n    boom(n)\n", globals);
  d = lower_error(r, {ptr(), int_arg()});
  EXPECT_EQ(d.message, "constexpr_function 'boom' takes constexpr arguments only, but "
                       "argument 1 (int32) is known only at run time");
}

} // namespace
} // namespace tilec::sema::test

namespace tilec::sema::test {
namespace {

TEST(SemaCall, AnErrorInACalleeKnowsTheCallsItIsInside) {
  auto leaf = helpers_fn("leaf", "def leaf(v):\n    return v + nowhere\n", 10);
  auto mid_globals = std_globals();
  mid_globals["leaf"] = fn_val(leaf);
  auto mid =
      make_fn("mid", "def mid(v):\n    w = v\n    return leaf(w)\n", mid_globals, 20, "helpers.py");
  auto globals = std_globals();
  globals["mid"] = fn_val(mid);
  auto k = make_fn("k", "def k(X):\n    tl.store(X, mid(tl.load(X)))\n", globals);
  Diag d = lower_error(k, {ptr()});
  EXPECT_EQ(d.message, "name 'nowhere' is not defined");
  EXPECT_EQ(d.line, 11);
  EXPECT_EQ(d.call_lines, (std::vector<int>{22, 2})); // leaf(w) in mid, mid(...) in k

  // an error at the call itself is not inside it
  auto bad = make_fn("k", "def k(X):\n    mid(1, 2)\n", globals);
  d = lower_error(bad, {ptr()});
  EXPECT_EQ(d.line, 2);
  EXPECT_TRUE(d.call_lines.empty());
}

} // namespace
} // namespace tilec::sema::test
