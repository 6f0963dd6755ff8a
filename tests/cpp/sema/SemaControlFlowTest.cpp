// Control flow: if/else merging, early return, for/while with loop-carried values,
// static_range unrolling, conditional expressions.
#include "SemaTestUtil.h"

namespace tilec::sema::test {
namespace {

TEST(SemaIf, RuntimeIfMergesAssignedVariables) {
  const char *src = R"(def k(X, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    if pid > n:
        x = x * 2
        y = x + 1
        only_then = 3
    else:
        y = x - 1
    tl.store(X + offs, x + y)
)";
  Lowered l = lower("k", src, {ptr(), int_arg(), cint(16)});
  // x (reassigned) and y (defined in both branches) are the if's results; only_then is not.
  EXPECT_NE(l.ir.find(":2 = if "), std::string::npos) << l.ir;
  EXPECT_NE(l.ir.find("-> tile<16xfp32>, tile<16xfp32> {"), std::string::npos) << l.ir;
  EXPECT_EQ(count(l.ir, "yield "), 2u);
}

TEST(SemaIf, VariableFromOneBranchIsNotVisibleAfter) {
  const char *src = R"(def k(X, n):
    if n > 0:
        w = 1
    tl.store(X, w)
)";
  Diag d = lower_error("k", src, {ptr(), int_arg()});
  ASSERT_TRUE(d.raised);
  EXPECT_EQ(d.message, "name 'w' is not defined");
  EXPECT_EQ(d.line, 4);
  EXPECT_EQ(d.col, 17);
}

TEST(SemaIf, NumberAndTensorJoinThroughLiteralTyping) {
  const char *src = R"(def k(X, n):
    v = tl.load(X)
    if n > 0:
        v = 0.0
    tl.store(X, v)
)";
  Lowered l = lower("k", src, {ptr(), int_arg()});
  EXPECT_NE(l.ir.find(" = if "), std::string::npos);
  EXPECT_NE(l.ir.find("-> fp32 {"), std::string::npos) << l.ir;
}

TEST(SemaIf, ConstexprConditionPicksOneBranchUnchecked) {
  const char *src = R"(def k(X, ACT: tl.constexpr, FLAG: tl.constexpr):
    x = tl.load(X)
    if ACT == "relu":
        x = tl.maximum(x, 0.0)
    elif ACT == "neg":
        x = undefined_name(x)
    else:
        x = also_undefined
    if FLAG:
        x = x + 1.0
    if None:
        x = nope
    tl.store(X, x)
)";
  Lowered l = lower("k", src, {ptr(), cexpr(Val::string("relu")), cexpr(Val::boolean(false))});
  EXPECT_EQ(count(l.ir, " if "), 0u);
  EXPECT_NE(l.ir.find(" = max "), std::string::npos) << l.ir;
  EXPECT_EQ(count(l.ir, " = add "), 0u);
}

TEST(SemaIf, EarlyReturnInKernel) {
  const char *src = R"(def k(X, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(X + offs, tl.load(X + offs) + 1.0)
)";
  Lowered l = lower("k", src, {ptr(), int_arg(), cint(32)});
  // The rest of the kernel runs in the else branch; nothing follows the if.
  const ir::Block *entry = l.result.module->functions[0]->entry();
  auto it = entry->ops().rbegin();
  EXPECT_EQ((*it)->kind(), ir::OpKind::Return);
  ++it;
  ASSERT_EQ((*it)->kind(), ir::OpKind::If) << l.ir;
  const ir::Op *if_op = it->get();
  EXPECT_EQ(if_op->region(0)->block()->ops().size(), 1u); // just the yield
  int stores = 0;
  ir::walk(if_op->region(1)->block(),
           [&](ir::Op *op) { stores += op->kind() == ir::OpKind::Store; });
  EXPECT_EQ(stores, 1);
}

TEST(SemaIf, EarlyReturnInNestedIfAndElse) {
  const char *src = R"(def k(X, n, m):
    v = 1.0
    if n > 0:
        if m > 0:
            return
        v = 2.0
    else:
        tl.store(X, 5.0)
        return
    tl.store(X, v)
)";
  Lowered l = lower("k", src, {ptr(), int_arg(), int_arg()});
  EXPECT_EQ(count(l.ir, " if "), 2u) << l.ir;
  EXPECT_EQ(count(l.ir, "store "), 2u) << l.ir; // the final store lands in one path only
}

TEST(SemaIf, CodeAfterEarlyReturnIsCopiedButPrintsOnce) {
  const char *src = R"(def k(X, n, m):
    if n > 0:
        if m > 0:
            return
        tl.static_print("inner rest")
    tl.static_print("outer rest")
    tl.store(X, 1.0)
)";
  Lowered l = lower("k", src, {ptr(), int_arg(), int_arg()});
  EXPECT_EQ(count(l.ir, "store "), 2u) << l.ir; // the rest runs in two places
  EXPECT_EQ(l.result.static_output, "inner rest\nouter rest\n");
}

TEST(SemaFor, CarriedScalarAndLoopVariable) {
  const char *src = R"(def k(X, n):
    acc = 0
    for i in range(n):
        acc += i
    tl.store(X, acc)
)";
  Lowered l = lower("k", src, {ptr(ir::DType::I32), int_arg()});
  EXPECT_NE(l.ir.find(" = for "), std::string::npos);
  EXPECT_NE(l.ir.find("= for %1, %n, %2, %0 : i32 {"), std::string::npos) << l.ir;
}

TEST(SemaFor, BoundsUnifyToI64) {
  const char *src = R"(def k(X, n):
    acc = tl.zeros([4], dtype=tl.float32)
    for i in range(2, n, 3):
        acc += 1.0
    tl.store(X + tl.arange(0, 4), acc)
)";
  Lowered l = lower("k", src, {ptr(), int_arg(ir::DType::I64)});
  EXPECT_NE(l.ir.find("i64, i64, i64, tile<4xfp32> -> tile<4xfp32>"), std::string::npos) << l.ir;
  EXPECT_EQ(count(l.ir, " = cast "), 2u); // the constant bounds are widened
}

TEST(SemaFor, TlRangeOptionsAndNegativeStep) {
  const char *src = R"(def k(X, n):
    acc = 0.0
    for i in tl.range(0, n, 2, num_stages=3, loop_unroll_factor=2, flatten=True):
        acc += 1.0
    for j in range(n, 0, -1):
        acc += 2.0
    tl.store(X, acc)
)";
  Lowered l = lower("k", src, {ptr(), int_arg()});
  EXPECT_NE(l.ir.find("{flatten = 1, loop_unroll_factor = 2, num_stages = 3}"), std::string::npos)
      << l.ir;
  EXPECT_NE(l.ir.find("constant {value = -1} : i32"), std::string::npos);
  EXPECT_EQ(count(l.ir, " = for "), 2u);
}

TEST(SemaFor, ConstexprAssignedVariablesAreTensorsAndLoopLocalsStayInside) {
  const char *src = R"(def k(X, n):
    a = 1.0
    b = 0
    for i in range(n):
        t = a * 2.0
        a = t
    tl.store(X, a)
)";
  Lowered l = lower("k", src, {ptr(), int_arg()});
  // only `a` is carried (b is untouched, t is loop-local)
  EXPECT_NE(l.ir.find("i32, i32, i32, fp32 -> fp32 {"), std::string::npos) << l.ir;
}

TEST(SemaFor, LoopVariableIsNotVisibleAfter) {
  const char *src = R"(def k(X, n):
    for i in range(n):
        pass
    tl.store(X, i)
)";
  Diag d = lower_error("k", src, {ptr(ir::DType::I32), int_arg()});
  EXPECT_EQ(d.message, "name 'i' is not defined");
}

TEST(SemaFor, NestedLoopsCarryThroughBoth) {
  const char *src = R"(def k(X, n, m):
    acc = tl.zeros([8], dtype=tl.float32)
    for i in range(n):
        for j in range(m):
            acc += tl.load(X + tl.arange(0, 8))
    tl.store(X + tl.arange(0, 8), acc)
)";
  Lowered l = lower("k", src, {ptr(), int_arg(), int_arg()});
  EXPECT_EQ(count(l.ir, " = for "), 2u);
  EXPECT_EQ(count(l.ir, "-> tile<8xfp32> {"), 2u) << l.ir;
}

TEST(SemaFor, TupleCarried) {
  const char *src = R"(def k(X, n):
    t = (tl.load(X), tl.load(X + 1))
    for i in range(n):
        t = (t[1], t[0] + t[1])
    tl.store(X, t[0])
)";
  Lowered l = lower("k", src, {ptr(), int_arg()});
  EXPECT_NE(l.ir.find("i32, i32, i32, fp32, fp32 -> fp32, fp32 {"), std::string::npos) << l.ir;
}

TEST(SemaFor, StaticPrintInLoopPrintsOnce) {
  const char *src = R"(def k(X, n, B: tl.constexpr):
    acc = 0.0
    for i in range(n):
        tl.static_print("in loop", B)
        acc += 1.0
    tl.store(X, acc)
)";
  Lowered l = lower("k", src, {ptr(), int_arg(), cint(7)});
  EXPECT_EQ(l.result.static_output, "in loop 7\n");
}

TEST(SemaStaticRange, Unrolls) {
  const char *src = R"(def k(X, N: tl.constexpr):
    acc = tl.load(X)
    for i in tl.static_range(1, N, 2):
        tl.static_assert(i % 2 == 1)
        tl.static_print(f"i={i}")
        acc += i
    tl.store(X, acc)
)";
  Lowered l = lower("k", src, {ptr(), cint(7)});
  EXPECT_EQ(count(l.ir, " = for "), 0u);
  EXPECT_EQ(count(l.ir, " = add "), 3u) << l.ir;
  EXPECT_EQ(l.result.static_output, "i=1\ni=3\ni=5\n");
}

TEST(SemaStaticRange, ReturnInBodyIsAnEarlyReturn) {
  // Each iteration's run-time `if` may end the kernel: later iterations and the code after
  // the loop go where it does not, one `if` nested in the other's else.
  const char *src = R"(def k(X, n):
    for i in tl.static_range(3):
        tl.static_print("iter", i)
        if n == i:
            return
        tl.store(X + i, 1.0)
    tl.static_print("after")
    tl.store(X + 10, 2.0)
)";
  Lowered l = lower("k", src, {ptr(), int_arg()});
  EXPECT_EQ(count(l.ir, " if "), 3u) << l.ir;
  EXPECT_EQ(count(l.ir, "store "), 4u) << l.ir;
  EXPECT_EQ(count(l.ir, " = for "), 0u);
  EXPECT_EQ(l.result.static_output, "iter 0\niter 1\niter 2\nafter\n");
  // The final store sits three ifs deep (in the innermost else).
  size_t last = l.ir.rfind("store ");
  size_t line = l.ir.rfind('\n', last);
  EXPECT_EQ(l.ir.substr(line + 1, last - line - 1), std::string(2 + 3 * 2, ' ')) << l.ir;
}

TEST(SemaStaticRange, ConstexprReturnStopsUnrolling) {
  const char *src = R"(def k(X, STOP: tl.constexpr):
    for i in tl.static_range(5):
        if i == STOP:
            return
        tl.store(X + i, 1.0)
    tl.store(X + 10, 2.0)
)";
  Lowered l = lower("k", src, {ptr(), cint(2)});
  EXPECT_EQ(count(l.ir, " if "), 0u) << l.ir;
  EXPECT_EQ(count(l.ir, "store "), 2u) << l.ir; // i = 0, 1; never the one after the loop
  l = lower("k", src, {ptr(), cint(9)});
  EXPECT_EQ(count(l.ir, "store "), 6u) << l.ir;
  // A bare return in the body ends the kernel in the first iteration.
  l = lower("k", R"(def k(X, N: tl.constexpr):
    for i in tl.static_range(N):
        tl.store(X + i, 1.0)
        return
    tl.store(X + 10, 2.0)
)",
            {ptr(), cint(4)});
  EXPECT_EQ(count(l.ir, "store "), 1u) << l.ir;
}

TEST(SemaStaticRange, ReturnWithValueFromCallee) {
  auto find = make_fn("find", R"(def find(X, t, N: tl.constexpr):
    for i in tl.static_range(N):
        if tl.load(X + i) > t:
            return i
    return -1
)");
  auto g = std_globals();
  g["find"] = fn_val(find);
  auto k = make_fn("k", R"(def k(X, Y, t):
    j = find(X, t, 4)
    tl.store(Y, j)
    for i in range(2):
        tl.store(Y + 1 + i, find(X + i, t, 2))
)",
                   g);
  Lowered l = lower(k, {ptr(), ptr(ir::DType::I32), float_arg()});
  EXPECT_EQ(count(l.ir, " = if "), 4u + 2u) << l.ir;
  EXPECT_NE(l.ir.find("-> i32 {"), std::string::npos) << l.ir;
}

TEST(SemaStaticRange, ReturnInsideRunTimeLoopsStillRejected) {
  const char *inner = R"(def k(X, n):
    for i in tl.static_range(2):
        for j in range(n):
            if j > i:
                return
)";
  Diag d = lower_error("k", inner, {ptr(), int_arg()});
  ASSERT_TRUE(d.raised);
  EXPECT_EQ(d.message, "Cannot have `return` statements inside `while` or `for` statements");
  EXPECT_EQ(d.line, 5);
  const char *outer = R"(def k(X, n):
    for j in range(n):
        for i in tl.static_range(2):
            if j > i:
                return
)";
  d = lower_error("k", outer, {ptr(), int_arg()});
  ASSERT_TRUE(d.raised);
  EXPECT_EQ(d.message, "Cannot have `return` statements inside `while` or `for` statements");
  EXPECT_EQ(d.line, 5);
}

TEST(SemaWhile, CarriedCounter) {
  const char *src = R"(def k(X, n):
    i = 0
    total = 0.0
    while i < n:
        total += tl.load(X + i)
        i += 1
    tl.store(X, total)
)";
  Lowered l = lower("k", src, {ptr(), int_arg()});
  EXPECT_NE(l.ir.find(":2 = while "), std::string::npos) << l.ir;
  EXPECT_NE(l.ir.find("condition "), std::string::npos);
  EXPECT_NE(l.ir.find("-> i32, fp32 {"), std::string::npos) << l.ir;
}

TEST(SemaIfExp, ConstexprAndRuntime) {
  const char *src = R"(def k(X, n, B: tl.constexpr):
    a = 1.0 if B > 2 else undefined_name
    b = tl.load(X) if n > 0 else 0.0
    tl.store(X, a + b)
)";
  Lowered l = lower("k", src, {ptr(), int_arg(), cint(4)});
  EXPECT_EQ(count(l.ir, " = if "), 1u);
  int loads_in_if = 0;
  ir::walk(l.result.module->functions[0]->entry(), [&](ir::Op *op) {
    if (op->kind() == ir::OpKind::Load && op->parent() != l.result.module->functions[0]->entry())
      ++loads_in_if;
  });
  EXPECT_EQ(loads_in_if, 1); // the load happens only when the condition holds
}

TEST(SemaAssign, TupleUnpackingAndAnnotations) {
  const char *src = R"(def k(X):
    (a, b), c = (1.0, 2.0), 3.0
    HALF: tl.constexpr = 8 // 2
    offs = tl.arange(0, HALF)
    d = e = a + b + c
    x: tl.tensor = d + e
    tl.store(X + offs, x)
)";
  Lowered l = lower("k", src, {ptr()});
  EXPECT_NE(l.ir.find("arange {end = 4, start = 0}"), std::string::npos) << l.ir;
}

TEST(SemaAssign, AugmentedPointerTiles) {
  const char *src = R"(def k(X, stride, B: tl.constexpr):
    ptrs = X + tl.arange(0, B)
    ptrs += B * stride
    X += 1
    tl.store(ptrs, tl.load(X))
)";
  Lowered l = lower("k", src, {ptr(), int_arg(), cint(16)});
  EXPECT_EQ(count(l.ir, " = addptr "), 3u) << l.ir;
}

TEST(SemaAssert, DebugOnly) {
  const char *src = R"(def k(X, n):
    assert n > 0, "n must be positive"
    tl.store(X, 1.0)
)";
  Lowered off = lower("k", src, {ptr(), int_arg()});
  EXPECT_EQ(count(off.ir, "assert "), 0u);
  CompileOptions dbg;
  dbg.debug = true;
  Lowered on = lower("k", src, {ptr(), int_arg()}, dbg);
  EXPECT_EQ(count(on.ir, "assert "), 1u) << on.ir;
}

} // namespace
} // namespace tilec::sema::test

namespace tilec::sema::test {
namespace {

TEST(SemaFor, CarriedThroughRuntimeIfInBody) {
  const char *src = R"(def k(X, n):
    best = tl.load(X)
    idx = 0
    for i in range(n):
        v = tl.load(X + i)
        if v > best:
            best = v
            idx = i
    tl.store(X, best + idx)
)";
  Lowered l = lower("k", src, {ptr(), int_arg()});
  EXPECT_NE(l.ir.find("-> fp32, i32 {"), std::string::npos) << l.ir;
  EXPECT_NE(l.ir.find(":2 = if "), std::string::npos) << l.ir;
}

TEST(SemaFor, LoopAfterEarlyReturnAndCalleeReturnInLoop) {
  auto helper = make_fn("clip", R"(def clip(x, lim):
    if x > lim:
        return lim
    return x
)");
  auto g = std_globals();
  g["clip"] = fn_val(helper);
  auto k = make_fn("k", R"(def k(X, n):
    if n <= 0:
        return
    acc = 0.0
    for i in range(n):
        acc = clip(acc + tl.load(X + i), 10.0)
    tl.store(X, acc)
)",
                   g);
  Lowered l = lower(k, {ptr(), int_arg()});
  EXPECT_EQ(count(l.ir, " = for "), 1u);
  EXPECT_EQ(count(l.ir, " = if "), 1u) << l.ir; // clip's merged return value
}

TEST(SemaWhile, ConstexprFalseConditionAndCallInCondition) {
  auto lt = make_fn("lt", "def lt(a, b):\n    return a < b\n");
  auto g = std_globals();
  g["lt"] = fn_val(lt);
  auto k = make_fn("k", R"(def k(X, n):
    i = 0
    while lt(i, n):
        i += 2
    while False:
        i += 1
    tl.store(X, i)
)",
                   g);
  Lowered l = lower(k, {ptr(ir::DType::I32), int_arg()});
  EXPECT_EQ(count(l.ir, " = while "), 2u) << l.ir;
}

} // namespace
} // namespace tilec::sema::test
