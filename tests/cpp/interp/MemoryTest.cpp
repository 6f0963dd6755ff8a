#include "TestUtil.h"

using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {
// Builds the seed vector add: out[o] = x[o] + y[o] for o = pid*B + arange(B), o < n.
void build_vector_add(KB &kb, int64_t block, int load_line = 5, int store_line = 6) {
  auto *x = kb.arg(ptr(DType::F32), "x_ptr");
  auto *y = kb.arg(ptr(DType::F32), "y_ptr");
  auto *o = kb.arg(ptr(DType::F32), "output_ptr");
  auto *n = kb.arg(scalar(DType::I32), "n_elements");
  auto *start = kb.bin(OpKind::Mul, kb.pid(0), kb.cst(scalar(DType::I32), block));
  auto *offs = kb.bin(OpKind::Add, kb.splat(start, {block}), kb.arange(block));
  auto *mask = kb.cmp("lt", offs, kb.splat(n, {block}));
  kb.line = load_line;
  auto *xv = kb.load(kb.addptr(x, offs), mask);
  kb.line = load_line + 100;
  auto *yv = kb.load(kb.addptr(y, offs), mask);
  kb.line = store_line;
  kb.store(kb.addptr(o, offs), kb.bin(OpKind::Add, xv, yv), mask);
}

std::string run_error(KB &kb, const std::vector<KernelArg> &args, const std::vector<Buffer> &bufs,
                      std::array<int64_t, 3> grid = {1, 1, 1}, int threads = 0) {
  try {
    kb.run(args, bufs, grid, threads);
  } catch (const tilec::RuntimeError &e) {
    return e.what();
  }
  return "<no error>";
}
} // namespace

TEST(Memory, VectorAddWithMaskedTail) {
  for (int threads : {1, 2, 4}) {
    KB kb;
    build_vector_add(kb, 64);
    const int n = 1000; // not a multiple of 64
    std::vector<float> x(n), y(n), out(n, -1);
    for (int i = 0; i < n; ++i) {
      x[i] = float(i);
      y[i] = 0.5f * float(i);
    }
    kb.run({parg(x), parg(y), parg(out), KernelArg::integer(n)},
           {buf(x, "x_ptr"), buf(y, "y_ptr"), buf(out, "output_ptr")}, {(n + 63) / 64, 1, 1},
           threads);
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(out[i], 1.5f * float(i)) << i;
  }
}

TEST(Memory, MaskedLoadUsesOtherAndNeverTouchesMemory) {
  KB kb;
  auto *p = kb.arg(ptr(DType::F32), "p");
  auto *q = kb.arg(ptr(DType::F32), "q");
  auto *offs = kb.arange(8);
  auto *mask = kb.cmp("lt", offs, kb.splat(kb.cst(scalar(DType::I32), 3), {8}));
  auto *v = kb.load(kb.addptr(p, offs), mask, kb.splat(kb.cstf(scalar(DType::F32), -7.0), {8}));
  kb.store(kb.addptr(q, offs), v);
  auto *v0 = kb.load(kb.addptr(p, offs), mask); // no other: zeros
  kb.store(kb.addptr(q, kb.bin(OpKind::Add, offs, kb.splat(kb.cst(scalar(DType::I32), 8), {8}))),
           v0);
  std::vector<float> src{1, 2, 3}; // only 3 elements: masked lanes would be out of bounds
  std::vector<float> dst(16, 99);
  kb.run({parg(src), parg(dst)}, {buf(src, "p"), buf(dst, "q")});
  EXPECT_EQ(dst, (std::vector<float>{1, 2, 3, -7, -7, -7, -7, -7, 1, 2, 3, 0, 0, 0, 0, 0}));
}

TEST(Memory, OutOfBoundsLoadNamesArgumentOffsetAndIndex) {
  KB kb;
  build_vector_add(kb, 64, 12, 13);
  std::vector<float> x(100), y(100), out(100);
  // n = 130 > 100: program 1 reads x[100] first (element index 36 of its tile).
  std::string m = run_error(kb, {parg(x), parg(y), parg(out), KernelArg::integer(130)},
                            {buf(x, "x_ptr"), buf(y, "y_ptr"), buf(out, "output_ptr")}, {3, 1, 1});
  EXPECT_NE(
      m.find("kernel.py:12:5: error: out-of-bounds load from argument 'x_ptr' at byte offset 400 "
             "(buffer is 400 bytes) at element index (36,) of the tile in program (1, 0, 0)"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("    line 12 of the kernel\n    ^"), std::string::npos) << m;
}

TEST(Memory, OutOfBoundsStoreAndNegativeOffset) {
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "out");
  auto *offs = kb.bin(OpKind::Sub, kb.arange(4), kb.splat(kb.cst(scalar(DType::I32), 1), {4}));
  kb.line = 9;
  kb.store(kb.addptr(p, offs), offs);
  std::vector<int32_t> d(4, 5);
  std::string m = run_error(kb, {parg(d)}, {buf(d, "out")});
  EXPECT_NE(m.find("kernel.py:9:5: error: out-of-bounds store to argument 'out' at byte offset -4 "
                   "(buffer is 16 bytes) at element index (0,) of the tile"),
            std::string::npos)
      << m;
  EXPECT_EQ(d, (std::vector<int32_t>{5, 5, 5, 5}));
}

TEST(Memory, NullAndMisalignedPointers) {
  {
    KB kb;
    auto *p = kb.arg(ptr(DType::F32), "p");
    kb.line = 3;
    kb.load(p);
    std::string m = run_error(kb, {KernelArg::pointer_value(0)}, {});
    EXPECT_NE(m.find("kernel.py:3:5: error: load from a null pointer in program (0, 0, 0)"),
              std::string::npos)
        << m;
  }
  {
    KB kb;
    auto *p = kb.arg(ptr(DType::F32), "p");
    kb.line = 4;
    kb.load(kb.addptr(p, kb.arange(2)));
    std::vector<float> d(8);
    auto base = reinterpret_cast<uint64_t>(d.data());
    std::string m = run_error(kb, {KernelArg::pointer_value(base + 2)}, {Buffer{base, 32, "p"}});
    EXPECT_NE(m.find("kernel.py:4:5: error: misaligned load from argument 'p' at byte offset 2"),
              std::string::npos)
        << m;
  }
}

TEST(Memory, LowestFailingProgramWins) {
  for (int threads : {1, 2, 3}) {
    KB kb;
    build_vector_add(kb, 16, 20, 21);
    std::vector<float> x(64 * 16), y(64 * 16), out(8); // out is small: programs >= 1 fault on store
    std::string m =
        run_error(kb, {parg(x), parg(y), parg(out), KernelArg::integer(64 * 16)},
                  {buf(x, "x_ptr"), buf(y, "y_ptr"), buf(out, "output_ptr")}, {64, 1, 1}, threads);
    EXPECT_NE(
        m.find(
            "kernel.py:21:5: error: out-of-bounds store to argument 'output_ptr' at byte offset 32 "
            "(buffer is 32 bytes) at element index (8,) of the tile in program (0, 0, 0)"),
        std::string::npos)
        << m;
  }
}

TEST(Memory, ArgumentChecks) {
  KB kb;
  build_vector_add(kb, 16);
  std::vector<float> x(16);
  std::string m = run_error(kb, {parg(x), parg(x), parg(x)}, {buf(x, "x_ptr")});
  EXPECT_NE(m.find("takes 4 run-time arguments, got 3"), std::string::npos) << m;
  m = run_error(kb, {parg(x), parg(x), KernelArg::integer(3), KernelArg::integer(3)},
                {buf(x, "x_ptr")});
  EXPECT_NE(m.find("argument 'output_ptr' is a pointer (ptr<fp32>) but got an integer"),
            std::string::npos)
      << m;
  m = run_error(kb, {parg(x), KernelArg::blob(x.data(), 16), parg(x), KernelArg::integer(3)},
                {buf(x, "x_ptr")});
  EXPECT_NE(m.find("is ptr<fp32> but got a byte array (which only the SIMT simulator takes)"),
            std::string::npos)
      << m;
  m = run_error(kb, {parg(x), parg(x), parg(x), KernelArg::integer(1ll << 40)}, {buf(x, "x_ptr")});
  EXPECT_NE(m.find("argument 'n_elements' is i32 but its value 1099511627776 does not fit"),
            std::string::npos)
      << m;
}

TEST(Memory, ReadOnlyBuffersRejectStoresAndAtomics) {
  for (int threads : {1, 3}) {
    KB kb;
    build_vector_add(kb, 16, 20, 21); // out[i] = x[i] + y[i]; the store is on line 21
    std::vector<float> x(64, 1.0f), y(64, 2.0f), out(64, 7.0f);
    Buffer ro = buf(out, "output_ptr");
    ro.writable = false;
    std::string m = run_error(kb, {parg(x), parg(y), parg(out), KernelArg::integer(64)},
                              {buf(x, "x_ptr"), buf(y, "y_ptr"), ro}, {4, 1, 1}, threads);
    EXPECT_NE(m.find("kernel.py:21:5: error: store to argument 'output_ptr', which is read-only"),
              std::string::npos)
        << m;
    EXPECT_EQ(out, std::vector<float>(64, 7.0f)); // nothing written
  }
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "counter");
  kb.line = 5;
  kb.make(OpKind::AtomicRmw, {p, kb.cst(scalar(DType::I32), 1)}, {scalar(DType::I32)},
          {{"op", std::string("add")}});
  std::vector<int32_t> counter(1, 0);
  Buffer ro = buf(counter, "counter");
  ro.writable = false;
  std::string m = run_error(kb, {parg(counter)}, {ro});
  EXPECT_NE(m.find("kernel.py:5:5: error: atomic operation on argument 'counter', which is "
                   "read-only"),
            std::string::npos)
      << m;
  EXPECT_EQ(counter[0], 0);
  // loads from a read-only buffer are fine
  KB kl;
  build_vector_add(kl, 16);
  std::vector<float> a(16, 1.0f), b(16, 2.0f), r(16, 0.0f);
  Buffer ra = buf(a, "x_ptr"), rb = buf(b, "y_ptr");
  ra.writable = rb.writable = false;
  kl.run({parg(a), parg(b), parg(r), KernelArg::integer(16)}, {ra, rb, buf(r, "output_ptr")});
  EXPECT_EQ(r, std::vector<float>(16, 3.0f));
}

TEST(Memory, AtomicCounterUnderParallelGrid) {
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "counter");
  auto *f = kb.arg(ptr(DType::F32), "fsum");
  auto *hp = kb.arg(ptr(DType::F16), "hsum");
  auto *old = kb.arg(ptr(DType::I32), "olds");
  auto *one = kb.cst(scalar(DType::I32), 1);
  auto *o = kb.make(OpKind::AtomicRmw, {p, one}, {scalar(DType::I32)}, {{"op", std::string("add")}})
                ->result();
  kb.store(kb.addptr(old, kb.pid(0)), o);
  kb.make(OpKind::AtomicRmw, {f, kb.cstf(scalar(DType::F32), 0.5)}, {scalar(DType::F32)},
          {{"op", std::string("add")}});
  kb.make(OpKind::AtomicRmw, {hp, kb.cstf(scalar(DType::F16), 1.0)}, {scalar(DType::F16)},
          {{"op", std::string("add")}});
  // Tile atomic max over 4 lanes of a 4-element array, lane 3 masked off.
  auto *offs = kb.arange(4);
  auto *mask = kb.cmp("lt", offs, kb.splat(kb.cst(scalar(DType::I32), 3), {4}));
  kb.make(
      OpKind::AtomicRmw,
      {kb.addptr(p, kb.bin(OpKind::Add, offs, kb.splat(one, {4}))), kb.splat(kb.pid(0), {4}), mask},
      {tile(DType::I32, {4})}, {{"op", std::string("max")}});
  std::vector<int32_t> counter(5, 0);
  std::vector<float> fs(1, 0);
  std::vector<uint16_t> hs(1, 0);
  std::vector<int32_t> olds(1000, -1);
  kb.run({parg(counter), parg(fs), parg(hs), parg(olds)},
         {buf(counter, "counter"), buf(fs, "fsum"), buf(hs, "hsum"), buf(olds, "olds")},
         {1000, 1, 1}, 4);
  EXPECT_EQ(counter[0], 1000);
  EXPECT_EQ(fs[0], 500.0f);
  EXPECT_EQ(hs[0], h(1000.0)); // integers up to 2048 are exact in fp16
  EXPECT_EQ(counter[1], 999);
  EXPECT_EQ(counter[3], 999);
  EXPECT_EQ(counter[4], 0); // masked lane
  std::sort(olds.begin(), olds.end());
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(olds[i], i); // every old value seen exactly once
}

TEST(Memory, AtomicCasAndXchg) {
  // Each program takes a ticket with cas in a while loop: old = cas(p, t, t + 1) until it
  // succeeds; the ticket it got is recorded. Tickets must be a permutation.
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "p");
  auto *rec = kb.arg(ptr(DType::I32), "rec");
  auto *x = kb.arg(ptr(DType::I32), "x");
  auto *init = kb.load(p);
  tilec::ir::Op *w = kb.make(OpKind::While, {init}, {scalar(DType::I32)}, {}, 2);
  tilec::ir::Builder saved = kb.b;
  {
    auto *blk = w->region(0)->block();
    auto *t = blk->add_arg(scalar(DType::I32));
    kb.b.set_insertion_point_to_end(blk);
    auto *t1 = kb.bin(OpKind::Add, t, kb.cst(scalar(DType::I32), 1));
    auto *old = kb.op(OpKind::AtomicCas, {p, t, t1}, scalar(DType::I32));
    auto *failed = kb.cmp("ne", old, t);
    auto *next = kb.op(OpKind::Select, {failed, old, t}, scalar(DType::I32));
    kb.make(OpKind::Condition, {failed, next}, {});
    auto *ablk = w->region(1)->block();
    auto *a = ablk->add_arg(scalar(DType::I32));
    kb.b.set_insertion_point_to_end(ablk);
    kb.make(OpKind::Yield, {a}, {});
  }
  kb.b = saved;
  kb.store(kb.addptr(rec, kb.pid(0)), w->result());
  kb.make(OpKind::AtomicRmw, {x, kb.pid(0)}, {scalar(DType::I32)}, {{"op", std::string("xchg")}});
  std::vector<int32_t> counter{0}, tickets(200, -1), xv{-1};
  kb.run({parg(counter), parg(tickets), parg(xv)},
         {buf(counter, "p"), buf(tickets, "rec"), buf(xv, "x")}, {200, 1, 1}, 4);
  EXPECT_EQ(counter[0], 200);
  std::sort(tickets.begin(), tickets.end());
  for (int i = 0; i < 200; ++i)
    ASSERT_EQ(tickets[i], i);
  EXPECT_GE(xv[0], 0);
  EXPECT_LT(xv[0], 200);
}
