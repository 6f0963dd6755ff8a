#include <cmath>
#include <random>
#include <thread>

#include "TestUtil.h"

using namespace tilec;
using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {
// Loads a [R x C] tile of `d` from src, applies f, stores the flattened result to dst.
template <class T>
std::vector<T> tile_op(DType d, int64_t rows, int64_t cols, std::vector<T> src, size_t out_n,
                       const std::function<Value *(KB &, Value *)> &f) {
  KB kb;
  auto *ps = kb.arg(ptr(d), "src");
  Value *y = nullptr;
  auto *r = kb.op(OpKind::ExpandDims, {kb.arange(rows)}, tile(DType::I32, {rows, 1}),
                  {{"axis", int64_t(1)}});
  auto *c = kb.op(OpKind::ExpandDims, {kb.arange(cols)}, tile(DType::I32, {1, cols}),
                  {{"axis", int64_t(0)}});
  auto *off =
      kb.bin(OpKind::Add,
             kb.bin(OpKind::Mul, kb.op(OpKind::Broadcast, {r}, tile(DType::I32, {rows, cols})),
                    kb.splat(kb.cst(scalar(DType::I32), cols), {rows, cols})),
             kb.op(OpKind::Broadcast, {c}, tile(DType::I32, {rows, cols})));
  auto *x = kb.load(kb.addptr(ps, off));
  y = f(kb, x);
  auto *pd = kb.arg(Type(y->type.elem, true), "dst");
  int64_t n = y->type.numel();
  if (y->type.is_scalar())
    kb.store(pd, y);
  else
    kb.store(kb.addptr(pd, kb.arange(n)),
             kb.op(OpKind::Reshape, {y}, Type(y->type.elem, false, {n})));
  std::vector<T> dst(out_n);
  kb.run({parg(src), parg(dst)}, {buf(src, "src"), buf(dst, "dst")});
  return dst;
}

Value *reduce1(KB &kb, Value *x, int64_t axis, OpKind k, bool generic = false) {
  ir::Shape s = x->type.shape;
  s.erase(s.begin() + axis);
  Type rt = Type(x->type.elem, false, s);
  return kb.reduce_like(OpKind::Reduce, {x}, axis, {rt}, {}, [&](KB &b, std::vector<Value *> a) {
    Value *r = b.bin(k, a[0], a[1]);
    if (generic) // an extra no-op so the fast path does not apply
      r = b.op(OpKind::Hint, {r}, r->type);
    return std::vector<Value *>{r};
  })[0];
}
} // namespace

TEST(Reduce, SumAndMaxOnEachAxis) {
  std::vector<float> m(4 * 8);
  for (size_t i = 0; i < m.size(); ++i)
    m[i] = float((i * 7) % 11) - 3.0f;
  for (bool generic : {false, true}) {
    auto s0 = tile_op<float>(DType::F32, 4, 8, m, 8, [&](KB &kb, Value *x) {
      return reduce1(kb, x, 0, OpKind::Add, generic);
    });
    auto s1 = tile_op<float>(DType::F32, 4, 8, m, 4, [&](KB &kb, Value *x) {
      return reduce1(kb, x, 1, OpKind::Add, generic);
    });
    auto m1 = tile_op<float>(DType::F32, 4, 8, m, 4, [&](KB &kb, Value *x) {
      return reduce1(kb, x, 1, OpKind::Max, generic);
    });
    for (int c = 0; c < 8; ++c) {
      float want = 0;
      for (int r = 0; r < 4; ++r)
        want += m[r * 8 + c];
      EXPECT_EQ(s0[c], want);
    }
    for (int r = 0; r < 4; ++r) {
      float want = 0, mx = -INFINITY;
      for (int c = 0; c < 8; ++c) {
        want += m[r * 8 + c];
        mx = std::max(mx, m[r * 8 + c]);
      }
      EXPECT_EQ(s1[r], want);
      EXPECT_EQ(m1[r], mx);
    }
  }
}

TEST(Reduce, PairwiseTreeOrderForFloatSums) {
  // [1e8, 1, -1e8, 1]: tree ((1e8 + -1e8) + (1 + 1)) = 2; a left fold gives 1.
  std::vector<float> v{1e8f, 1.0f, -1e8f, 1.0f};
  for (bool generic : {false, true}) {
    auto s = tile_op<float>(DType::F32, 1, 4, v, 1, [&](KB &kb, Value *x) {
      return reduce1(kb, kb.op(OpKind::Reshape, {x}, tile(DType::F32, {4})), 0, OpKind::Add,
                     generic);
    });
    EXPECT_EQ(s[0], 2.0f);
  }
  // fp16 sums round after every combine: 2048 + 1 + 1 + ... stays 2048 in a fold but the
  // tree adds the ones together first.
  std::vector<uint16_t> hv{h(2048), h(1), h(1), h(1)};
  auto hs = tile_op<uint16_t>(DType::F16, 1, 4, hv, 1, [&](KB &kb, Value *x) {
    return reduce1(kb, kb.op(OpKind::Reshape, {x}, tile(DType::F16, {4})), 0, OpKind::Add);
  });
  EXPECT_EQ(hs[0], h(2050)); // (2048 + 1) -> 2048, (1 + 1) = 2, 2048 + 2 = 2050
}

TEST(Reduce, ArgmaxTwoOperands) {
  // values with a tie at the maximum: argmax must give the lower index.
  std::vector<int32_t> v{3, 9, 1, 9, 2, 0, 9, 5, /**/ 1, 1, 1, 1, 7, 1, 1, 1};
  for (int64_t axis : {0, 1}) {
    auto res = tile_op<int32_t>(DType::I32, 2, 8, v, axis == 1 ? 2 : 8, [&](KB &kb, Value *x) {
      int64_t n = x->type.shape[axis];
      ir::Shape s = x->type.shape;
      auto *ia = kb.arange(n);
      Value *idx;
      if (axis == 1)
        idx = kb.op(
            OpKind::Broadcast,
            {kb.op(OpKind::ExpandDims, {ia}, tile(DType::I32, {1, n}), {{"axis", int64_t(0)}})},
            tile(DType::I32, s));
      else
        idx = kb.op(
            OpKind::Broadcast,
            {kb.op(OpKind::ExpandDims, {ia}, tile(DType::I32, {n, 1}), {{"axis", int64_t(1)}})},
            tile(DType::I32, s));
      ir::Shape rs = s;
      rs.erase(rs.begin() + axis);
      auto out = kb.reduce_like(
          OpKind::Reduce, {x, idx}, axis, {tile(DType::I32, rs), tile(DType::I32, rs)}, {},
          [](KB &b, std::vector<Value *> a) {
            // a = (v1, i1, v2, i2): take (v2, i2) if v2 > v1 or (v2 == v1 and i2 < i1)
            auto *gt = b.cmp("gt", a[2], a[0]);
            auto *eq = b.cmp("eq", a[2], a[0]);
            auto *lt = b.cmp("lt", a[3], a[1]);
            auto *take = b.bin(OpKind::Or, gt, b.bin(OpKind::And, eq, lt));
            return std::vector<Value *>{b.op(OpKind::Select, {take, a[2], a[0]}, a[0]->type),
                                        b.op(OpKind::Select, {take, a[3], a[1]}, a[1]->type)};
          });
      return out[1];
    });
    if (axis == 1)
      EXPECT_EQ(res, (std::vector<int32_t>{1, 4}));
    else
      EXPECT_EQ(res, (std::vector<int32_t>{0, 0, 0, 0, 1, 1, 0, 0}));
  }
}

TEST(Scan, CumsumForwardReverseAndGeneric) {
  std::vector<int32_t> v{1, 2, 3, 4, 10, 20, 30, 40};
  for (bool generic : {false, true})
    for (int64_t rev : {0, 1})
      for (int64_t axis : {0, 1}) {
        auto r = tile_op<int32_t>(DType::I32, 2, 4, v, 8, [&](KB &kb, Value *x) {
          return kb.reduce_like(OpKind::Scan, {x}, axis, {x->type}, {{"reverse", rev}},
                                [&](KB &b, std::vector<Value *> a) {
                                  Value *s = b.bin(OpKind::Add, a[0], a[1]);
                                  if (generic)
                                    s = b.op(OpKind::Hint, {s}, s->type);
                                  return std::vector<Value *>{s};
                                })[0];
        });
        std::vector<int32_t> want;
        if (axis == 1 && !rev)
          want = {1, 3, 6, 10, 10, 30, 60, 100};
        else if (axis == 1)
          want = {10, 9, 7, 4, 100, 90, 70, 40};
        else if (!rev)
          want = {1, 2, 3, 4, 11, 22, 33, 44};
        else
          want = {11, 22, 33, 44, 10, 20, 30, 40};
        EXPECT_EQ(r, want) << "axis " << axis << " reverse " << rev << " generic " << generic;
      }
}

namespace {
// c = a @ b + acc with a [M,K], b [K,N] of dtype `in`, acc fp32/i32 zeros; returns c.
template <class TI, class TO>
std::vector<TO> run_dot(DType in, DType acc, int64_t m, int64_t k, int64_t n, std::vector<TI> a,
                        std::vector<TI> b, const std::string &precision) {
  KB kb;
  auto *pa = kb.arg(ptr(in), "a"), *pb = kb.arg(ptr(in), "b"), *pc = kb.arg(ptr(acc), "c");
  auto load2d = [&](Value *p, int64_t rows, int64_t cols) {
    auto *r = kb.op(OpKind::ExpandDims, {kb.arange(rows)}, tile(DType::I32, {rows, 1}),
                    {{"axis", int64_t(1)}});
    auto *c = kb.op(OpKind::ExpandDims, {kb.arange(cols)}, tile(DType::I32, {1, cols}),
                    {{"axis", int64_t(0)}});
    auto *off =
        kb.bin(OpKind::Add,
               kb.bin(OpKind::Mul, kb.op(OpKind::Broadcast, {r}, tile(DType::I32, {rows, cols})),
                      kb.splat(kb.cst(scalar(DType::I32), cols), {rows, cols})),
               kb.op(OpKind::Broadcast, {c}, tile(DType::I32, {rows, cols})));
    return std::pair{kb.addptr(p, off), off};
  };
  auto [ap, ao] = load2d(pa, m, k);
  auto [bp, bo] = load2d(pb, k, n);
  auto [cp, co] = load2d(pc, m, n);
  auto *acc0 = kb.load(cp);
  auto *d = kb.op(OpKind::Dot, {kb.load(ap), kb.load(bp), acc0}, acc0->type,
                  {{"input_precision", precision}});
  kb.store(cp, d);
  std::vector<TO> c(static_cast<size_t>(m * n), TO(1));
  kb.run({parg(a), parg(b), parg(c)}, {buf(a, "a"), buf(b, "b"), buf(c, "c")});
  return c;
}
} // namespace

TEST(Dot, Fp16Fp32AndInt8) {
  const int64_t M = 16, K = 32, N = 24; // N not a multiple of 8: exercises the tail loop
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<float> af(M * K), bf(K * N);
  std::vector<uint16_t> ah(M * K), bh(K * N);
  std::vector<int8_t> ai(M * K), bi(K * N);
  for (size_t i = 0; i < af.size(); ++i) {
    af[i] = dist(rng);
    ah[i] = fp16_from_float(af[i]);
    ai[i] = int8_t(int(af[i] * 60));
  }
  for (size_t i = 0; i < bf.size(); ++i) {
    bf[i] = dist(rng);
    bh[i] = fp16_from_float(bf[i]);
    bi[i] = int8_t(int(bf[i] * 60));
  }
  auto ch = run_dot<uint16_t, float>(DType::F16, DType::F32, M, K, N, ah, bh, "ieee");
  auto cf = run_dot<float, float>(DType::F32, DType::F32, M, K, N, af, bf, "ieee");
  auto ct = run_dot<float, float>(DType::F32, DType::F32, M, K, N, af, bf, "tf32");
  auto ci = run_dot<int8_t, int32_t>(DType::I8, DType::I32, M, K, N, ai, bi, "ieee");
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float sh = 1, sf = 1, st = 1;
      int32_t si = 1;
      for (int64_t k = 0; k < K; ++k) {
        sh += fp16_to_float(ah[i * K + k]) * fp16_to_float(bh[k * N + j]);
        sf += af[i * K + k] * bf[k * N + j];
        st += round_to_tf32(af[i * K + k]) * round_to_tf32(bf[k * N + j]);
        si += int32_t(ai[i * K + k]) * int32_t(bi[k * N + j]);
      }
      ASSERT_EQ(ch[i * N + j], sh);
      ASSERT_EQ(cf[i * N + j], sf);
      ASSERT_EQ(ct[i * N + j], st);
      ASSERT_EQ(ci[i * N + j], si);
    }
  // tf32 really rounds: with inputs 1 + 2^-12 the product differs from ieee.
  std::vector<float> one(8 * 8, 1.0f + std::ldexp(1.0f, -12));
  auto t = run_dot<float, float>(DType::F32, DType::F32, 8, 8, 8, one, one, "tf32");
  auto e = run_dot<float, float>(DType::F32, DType::F32, 8, 8, 8, one, one, "ieee");
  EXPECT_EQ(t[0], 9.0f);
  EXPECT_GT(e[0], 9.0f);
}

TEST(Dot, BatchedBf16IntoFp16Accumulator) {
  // [2,4,8] x [2,8,4] + acc, bf16 inputs, fp16 accumulator (rounded once at the end).
  const int64_t B = 2, M = 4, K = 8, N = 4;
  KB kb;
  auto *pa = kb.arg(ptr(DType::BF16), "a"), *pb = kb.arg(ptr(DType::BF16), "b"),
       *pc = kb.arg(ptr(DType::F16), "c");
  auto *a = kb.op(OpKind::Reshape, {kb.load(kb.addptr(pa, kb.arange(B * M * K)))},
                  tile(DType::BF16, {B, M, K}));
  auto *b = kb.op(OpKind::Reshape, {kb.load(kb.addptr(pb, kb.arange(B * K * N)))},
                  tile(DType::BF16, {B, K, N}));
  auto *c = kb.op(OpKind::Reshape, {kb.load(kb.addptr(pc, kb.arange(B * M * N)))},
                  tile(DType::F16, {B, M, N}));
  auto *d = kb.op(OpKind::Dot, {a, b, c}, c->type);
  kb.store(kb.addptr(pc, kb.arange(B * M * N)),
           kb.op(OpKind::Reshape, {d}, tile(DType::F16, {B * M * N})));
  std::vector<uint16_t> av(B * M * K), bv(B * K * N), cv(B * M * N);
  for (size_t i = 0; i < av.size(); ++i)
    av[i] = bf(0.25 * double(int(i % 7) - 3));
  for (size_t i = 0; i < bv.size(); ++i)
    bv[i] = bf(0.5 * double(int(i % 5) - 2));
  for (size_t i = 0; i < cv.size(); ++i)
    cv[i] = h(double(i));
  std::vector<uint16_t> c0 = cv;
  kb.run({parg(av), parg(bv), parg(cv)}, {buf(av, "a"), buf(bv, "b"), buf(cv, "c")});
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float s = f16(c0[(bi * M + i) * N + j]);
        for (int64_t k = 0; k < K; ++k)
          s += bf16_to_float(av[(bi * M + i) * K + k]) * bf16_to_float(bv[(bi * K + k) * N + j]);
        EXPECT_EQ(cv[(bi * M + i) * N + j], fp16_from_float(s)) << bi << " " << i << " " << j;
      }
}

TEST(Executable, ReusedAcrossLaunchesAndHostThreads) {
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "p");
  auto *v = kb.arg(scalar(DType::I32), "v");
  auto *offs = kb.bin(OpKind::Add,
                      kb.splat(kb.bin(OpKind::Mul, kb.pid(0), kb.cst(scalar(DType::I32), 8)), {8}),
                      kb.arange(8));
  kb.store(kb.addptr(p, offs), kb.bin(OpKind::Add, offs, kb.splat(v, {8})));
  kb.ret();
  Executable exe(kb.fn);
  std::vector<std::vector<int32_t>> outs(4, std::vector<int32_t>(64));
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) {
        LaunchOptions o;
        o.grid = {8, 1, 1};
        o.num_threads = 2;
        exe.run({parg(outs[t]), KernelArg::integer(t * 100 + rep)}, {buf(outs[t], "p")}, o, kb.sm);
      }
    });
  for (auto &t : ts)
    t.join();
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(outs[t][i], i + t * 100 + 19);
}

TEST(Reduce, BatchedCombinerMatchesReference) {
  // A two-operand argmin combiner (cmp/and/or/select) runs as a batched region; with a Hint
  // op added it runs pair by pair. Both must give the reference argmin (lowest index on ties).
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> dist(-20, 20);
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{8, 1024}, {16, 4}, {1, 64}})
    for (int64_t axis : {0, 1})
      for (bool scalar_path : {false, true}) {
        std::vector<float> v(static_cast<size_t>(rows * cols));
        for (float &x : v)
          x = float(dist(rng)) * 0.5f;
        int64_t outn = axis == 1 ? rows : cols, nax = axis == 1 ? cols : rows;
        auto got = tile_op<float>(
            DType::F32, rows, cols, v, static_cast<size_t>(outn), [&](KB &kb, Value *x) {
              ir::Shape s = x->type.shape;
              ir::Shape es = axis == 1 ? ir::Shape{1, nax} : ir::Shape{nax, 1};
              auto *e = kb.op(OpKind::ExpandDims, {kb.arange(nax)}, tile(DType::I32, es),
                              {{"axis", int64_t(1 - axis)}});
              auto *idx = kb.op(OpKind::Broadcast, {e}, tile(DType::I32, s));
              ir::Shape rs = s;
              rs.erase(rs.begin() + axis);
              auto out = kb.reduce_like(
                  OpKind::Reduce, {x, idx}, axis, {tile(DType::F32, rs), tile(DType::I32, rs)}, {},
                  [&](KB &b, std::vector<Value *> a) {
                    auto *lt = b.cmp("lt", a[2], a[0]);
                    auto *eq = b.cmp("eq", a[2], a[0]);
                    auto *take =
                        b.bin(OpKind::Or, lt, b.bin(OpKind::And, eq, b.cmp("lt", a[3], a[1])));
                    Value *vi = b.op(OpKind::Select, {take, a[3], a[1]}, a[1]->type);
                    if (scalar_path)
                      vi = b.op(OpKind::Hint, {vi}, vi->type);
                    return std::vector<Value *>{
                        b.op(OpKind::Select, {take, a[2], a[0]}, a[0]->type), vi};
                  });
              return kb.cast(out[1], DType::F32);
            });
        for (int64_t o = 0; o < outn; ++o) {
          int64_t best = 0;
          for (int64_t i = 1; i < nax; ++i) {
            auto at = [&](int64_t k) {
              return axis == 1 ? v[size_t(o * cols + k)] : v[size_t(k * cols + o)];
            };
            if (at(i) < at(best))
              best = i;
          }
          ASSERT_EQ(got[size_t(o)], float(best))
              << rows << "x" << cols << " axis " << axis << " scalar " << scalar_path;
        }
      }
}

TEST(Scan, BatchedTwoOperandScan) {
  // Running (sum, max) over each row and each column, batched and pair by pair.
  std::vector<int32_t> v(16 * 32);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = int32_t((i * 37) % 23) - 11;
  for (int64_t axis : {0, 1})
    for (bool scalar_path : {false, true}) {
      auto got = tile_op<int32_t>(DType::I32, 16, 32, v, v.size() * 2, [&](KB &kb, Value *x) {
        auto out = kb.reduce_like(OpKind::Scan, {x, x}, axis, {x->type, x->type},
                                  {{"reverse", int64_t(0)}}, [&](KB &b, std::vector<Value *> a) {
                                    Value *s = b.bin(OpKind::Add, a[0], a[2]);
                                    if (scalar_path)
                                      s = b.op(OpKind::Hint, {s}, s->type);
                                    return std::vector<Value *>{s, b.bin(OpKind::Max, a[1], a[3])};
                                  });
        return kb.op(OpKind::Cat, {out[0], out[1]}, tile(DType::I32, {32, 32}));
      });
      for (int64_t r = 0; r < 16; ++r)
        for (int64_t c = 0; c < 32; ++c) {
          int32_t sum = 0, mx = INT32_MIN;
          for (int64_t k = 0; k <= (axis == 1 ? c : r); ++k) {
            int32_t e = axis == 1 ? v[size_t(r * 32 + k)] : v[size_t(k * 32 + c)];
            sum += e;
            mx = std::max(mx, e);
          }
          ASSERT_EQ(got[size_t(r * 32 + c)], sum) << axis << scalar_path;
          ASSERT_EQ(got[size_t(512 + r * 32 + c)], mx) << axis << scalar_path;
        }
    }
}
