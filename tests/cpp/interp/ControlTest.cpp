#include "TestUtil.h"

using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {
Value *i32(KB &kb, int64_t v) { return kb.cst(scalar(DType::I32), v); }
} // namespace

TEST(Control, ForLoopCarriedValuesAndNegativeStep) {
  for (int64_t step : {3, -3, 1, -1}) {
    KB kb;
    auto *p = kb.arg(ptr(DType::I32), "out");
    int64_t lb = step > 0 ? 2 : 20, ub = step > 0 ? 20 : 2;
    // sum of iv, count of iterations, and a swap of two carried values each iteration.
    auto r = kb.for_loop(i32(kb, lb), i32(kb, ub), i32(kb, step),
                         {i32(kb, 0), i32(kb, 0), i32(kb, 100), i32(kb, 200)},
                         [](KB &b, std::vector<Value *> a) {
                           return std::vector<Value *>{
                               b.bin(OpKind::Add, a[1], a[0]),
                               b.bin(OpKind::Add, a[2], b.cst(scalar(DType::I32), 1)), a[4], a[3]};
                         });
    for (int i = 0; i < 4; ++i)
      kb.store(kb.addptr(p, i32(kb, i)), r[static_cast<size_t>(i)]);
    std::vector<int32_t> out(4);
    kb.run({parg(out)}, {buf(out, "out")});
    int sum = 0, cnt = 0;
    for (int64_t iv = lb; step > 0 ? iv < ub : iv > ub; iv += step) {
      sum += int(iv);
      ++cnt;
    }
    EXPECT_EQ(out[0], sum) << step;
    EXPECT_EQ(out[1], cnt) << step;
    EXPECT_EQ(out[2], cnt % 2 ? 200 : 100) << step;
    EXPECT_EQ(out[3], cnt % 2 ? 100 : 200) << step;
  }
}

TEST(Control, ForWithRunTimeBoundAndZeroStepError) {
  KB kb;
  auto *p = kb.arg(ptr(DType::F32), "p");
  auto *n = kb.arg(scalar(DType::I32), "K");
  auto *st = kb.arg(scalar(DType::I32), "step");
  // acc (a tile) += p[k : k + 4] for k in range(0, K, step)
  kb.line = 30;
  auto r = kb.for_loop(
      i32(kb, 0), n, st, {kb.cstf(tile(DType::F32, {4}), 0.0)}, [&](KB &b, std::vector<Value *> a) {
        auto *offs = b.bin(OpKind::Add, b.splat(a[0], {4}), b.arange(4));
        return std::vector<Value *>{b.bin(OpKind::Add, a[1], b.load(b.addptr(p, offs)))};
      });
  kb.store(kb.addptr(p, kb.arange(4)), r[0]);
  std::vector<float> d{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  kb.run({parg(d), KernelArg::integer(12), KernelArg::integer(4)}, {buf(d, "p")});
  EXPECT_EQ(d[0], 1 + 5 + 9);
  EXPECT_EQ(d[3], 4 + 8 + 12);
  try {
    kb.run({parg(d), KernelArg::integer(12), KernelArg::integer(0)}, {buf(d, "p")});
    FAIL();
  } catch (const tilec::RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find("kernel.py:30:5: error: for loop step is zero"),
              std::string::npos)
        << e.what();
  }
}

TEST(Control, WhileAndIf) {
  // Collatz steps of n (while), and if/else picking a value by pid parity.
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "out");
  auto *n0 = kb.arg(scalar(DType::I32), "n");
  tilec::ir::Op *w =
      kb.make(OpKind::While, {n0, i32(kb, 0)}, {scalar(DType::I32), scalar(DType::I32)}, {}, 2);
  kb.in_region(
      w, 0, {scalar(DType::I32), scalar(DType::I32)},
      [](KB &b, std::vector<Value *> a) {
        auto *c = b.cmp("ne", a[0], b.cst(scalar(DType::I32), 1));
        return std::vector<Value *>{c, a[0], a[1]};
      },
      OpKind::Condition);
  kb.in_region(w, 1, {scalar(DType::I32), scalar(DType::I32)}, [](KB &b, std::vector<Value *> a) {
    auto *two = b.cst(scalar(DType::I32), 2);
    auto *odd = b.cmp("ne", b.bin(OpKind::Rem, a[0], two), b.cst(scalar(DType::I32), 0));
    auto nx = b.if_op(
        odd, {scalar(DType::I32)},
        [&](KB &t, std::vector<Value *>) {
          return std::vector<Value *>{t.bin(OpKind::Add,
                                            t.bin(OpKind::Mul, a[0], t.cst(scalar(DType::I32), 3)),
                                            t.cst(scalar(DType::I32), 1))};
        },
        [&](KB &e, std::vector<Value *>) {
          return std::vector<Value *>{e.bin(OpKind::Div, a[0], two)};
        });
    return std::vector<Value *>{nx[0], b.bin(OpKind::Add, a[1], b.cst(scalar(DType::I32), 1))};
  });
  kb.store(p, tilec::interp::test::KB::results(w)[1]);
  std::vector<int32_t> out(1);
  kb.run({parg(out), KernelArg::integer(27)}, {buf(out, "out")});
  EXPECT_EQ(out[0], 111);
  kb.fn.entry()->ops().pop_back(); // drop the return added by run()
  std::vector<int32_t> out1(1);
  kb.run({parg(out1), KernelArg::integer(1)}, {buf(out1, "out")});
  EXPECT_EQ(out1[0], 0);
}

TEST(Control, EarlyReturnInsideIf) {
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "out");
  auto *pid = kb.pid(0);
  auto *odd = kb.cmp("ne", kb.bin(OpKind::Rem, pid, i32(kb, 2)), i32(kb, 0));
  kb.if_op(
      odd, {},
      [](KB &t, std::vector<Value *>) {
        t.ret();
        return std::vector<Value *>{};
      },
      [](KB &, std::vector<Value *>) { return std::vector<Value *>{}; });
  // The then block now ends in return; remove the yield that in_region appended after it.
  tilec::ir::Op *ifop = kb.fn.entry()->ops().back().get();
  ifop->region(0)->block()->ops().pop_back();
  kb.store(kb.addptr(p, pid), pid);
  std::vector<int32_t> out(8, -1);
  kb.run({parg(out)}, {buf(out, "out")}, {8, 1, 1});
  EXPECT_EQ(out, (std::vector<int32_t>{0, -1, 2, -1, 4, -1, 6, -1}));
}

TEST(Control, TwoAndThreeDimensionalGrids) {
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "out");
  auto *x = kb.pid(0), *y = kb.pid(1), *z = kb.pid(2);
  auto *nx = kb.nprog(0), *ny = kb.nprog(1), *nz = kb.nprog(2);
  auto *lin = kb.bin(
      OpKind::Add, kb.bin(OpKind::Mul, kb.bin(OpKind::Add, kb.bin(OpKind::Mul, z, ny), y), nx), x);
  auto *code = kb.bin(OpKind::Add, kb.bin(OpKind::Mul, nz, i32(kb, 1000000)),
                      kb.bin(OpKind::Add, kb.bin(OpKind::Mul, z, i32(kb, 10000)),
                             kb.bin(OpKind::Add, kb.bin(OpKind::Mul, y, i32(kb, 100)), x)));
  kb.store(kb.addptr(p, lin), code);
  for (std::array<int64_t, 3> g :
       {std::array<int64_t, 3>{5, 3, 1}, std::array<int64_t, 3>{4, 3, 2}}) {
    std::vector<int32_t> out(static_cast<size_t>(g[0] * g[1] * g[2]), -1);
    kb.run({parg(out)}, {buf(out, "out")}, g, 3);
    kb.fn.entry()->ops().pop_back();
    for (int64_t zz = 0; zz < g[2]; ++zz)
      for (int64_t yy = 0; yy < g[1]; ++yy)
        for (int64_t xx = 0; xx < g[0]; ++xx)
          EXPECT_EQ(out[static_cast<size_t>((zz * g[1] + yy) * g[0] + xx)],
                    g[2] * 1000000 + zz * 10000 + yy * 100 + xx);
  }
}

TEST(Control, EmptyGridRunsNothing) {
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "out");
  kb.store(p, i32(kb, 1));
  std::vector<int32_t> out(1, 0);
  kb.run({parg(out)}, {buf(out, "out")}, {0, 1, 1});
  EXPECT_EQ(out[0], 0);
}
