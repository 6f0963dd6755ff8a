// Timings of the seed kernels built by hand (printed, not asserted; results are checked).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "TestUtil.h"

using namespace tilec;
using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Value *i32c(KB &kb, int64_t v) { return kb.cst(scalar(DType::I32), v); }

// rows[:, None] * stride + cols[None, :] as an [R, C] i32 tile.
Value *offsets_2d(KB &kb, Value *rows, Value *stride_r, Value *cols, Value *stride_c) {
  int64_t r = rows->type.shape[0], c = cols->type.shape[0];
  auto *re = kb.op(OpKind::ExpandDims, {kb.bin(OpKind::Mul, rows, kb.splat(stride_r, {r}))},
                   tile(DType::I32, {r, 1}), {{"axis", int64_t(1)}});
  auto *ce = kb.op(OpKind::ExpandDims, {kb.bin(OpKind::Mul, cols, kb.splat(stride_c, {c}))},
                   tile(DType::I32, {1, c}), {{"axis", int64_t(0)}});
  return kb.bin(OpKind::Add, kb.op(OpKind::Broadcast, {re}, tile(DType::I32, {r, c})),
                kb.op(OpKind::Broadcast, {ce}, tile(DType::I32, {r, c})));
}

Value *and2d(KB &kb, Value *rmask, Value *cmask) {
  int64_t r = rmask->type.shape[0], c = cmask->type.shape[0];
  auto *re = kb.op(OpKind::ExpandDims, {rmask}, tile(DType::I1, {r, 1}), {{"axis", int64_t(1)}});
  auto *ce = kb.op(OpKind::ExpandDims, {cmask}, tile(DType::I1, {1, c}), {{"axis", int64_t(0)}});
  return kb.bin(OpKind::And, kb.op(OpKind::Broadcast, {re}, tile(DType::I1, {r, c})),
                kb.op(OpKind::Broadcast, {ce}, tile(DType::I1, {r, c})));
}

Value *reduce(KB &kb, Value *x, OpKind k) {
  return kb.reduce_like(
      OpKind::Reduce, {x}, 0, {scalar(x->type.elem)}, {},
      [&](KB &b, std::vector<Value *> a) { return std::vector<Value *>{b.bin(k, a[0], a[1])}; })[0];
}

} // namespace

TEST(Bench, SeedVectorAdd) {
  const int64_t B = 1024, n = int64_t(1) << 20;
  KB kb;
  auto *x = kb.arg(ptr(DType::F32), "x_ptr"), *y = kb.arg(ptr(DType::F32), "y_ptr");
  auto *o = kb.arg(ptr(DType::F32), "output_ptr");
  auto *ne = kb.arg(scalar(DType::I32), "n_elements");
  auto *offs =
      kb.bin(OpKind::Add, kb.splat(kb.bin(OpKind::Mul, kb.pid(0), i32c(kb, B)), {B}), kb.arange(B));
  auto *mask = kb.cmp("lt", offs, kb.splat(ne, {B}));
  auto *sum =
      kb.bin(OpKind::Add, kb.load(kb.addptr(x, offs), mask), kb.load(kb.addptr(y, offs), mask));
  kb.store(kb.addptr(o, offs), sum, mask);
  kb.ret();
  std::vector<float> xs(n), ys(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = float(i % 1000);
    ys[i] = 1.0f;
  }
  auto t0 = std::chrono::steady_clock::now();
  kb.run({parg(xs), parg(ys), parg(out), KernelArg::integer(n)},
         {buf(xs, "x_ptr"), buf(ys, "y_ptr"), buf(out, "output_ptr")}, {n / B, 1, 1});
  double t = seconds_since(t0);
  std::printf("[bench] seed vector add, 2^20 fp32 (1024 programs x 1024): %.4f s\n", t);
  for (int64_t i = 0; i < n; i += 4099)
    ASSERT_EQ(out[i], float(i % 1000) + 1.0f);
}

TEST(Bench, SeedSoftmax) {
  const int64_t rows = 256, cols = 1000, B = 1024;
  KB kb;
  auto *in = kb.arg(ptr(DType::F32), "input_ptr"), *outp = kb.arg(ptr(DType::F32), "output_ptr");
  auto *irs = kb.arg(scalar(DType::I32), "input_row_stride"),
       *ors = kb.arg(scalar(DType::I32), "output_row_stride");
  auto *nc = kb.arg(scalar(DType::I32), "n_cols");
  auto *row = kb.pid(0);
  auto *start = kb.op(OpKind::AddPtr, {in, kb.bin(OpKind::Mul, row, irs)}, in->type);
  auto *col = kb.arange(B);
  auto *mask = kb.cmp("lt", col, kb.splat(nc, {B}));
  auto *x = kb.load(kb.addptr(start, col), mask, kb.cstf(tile(DType::F32, {B}), -INFINITY));
  auto *mx = reduce(kb, x, OpKind::Max);
  auto *num = kb.un(OpKind::Exp, kb.bin(OpKind::Sub, x, kb.splat(mx, {B})));
  auto *den = reduce(kb, num, OpKind::Add);
  auto *res = kb.bin(OpKind::Div, num, kb.splat(den, {B}));
  auto *ostart = kb.op(OpKind::AddPtr, {outp, kb.bin(OpKind::Mul, row, ors)}, outp->type);
  kb.store(kb.addptr(ostart, col), res, mask);
  kb.ret();
  std::vector<float> xs(rows * cols), out(rows * cols);
  std::mt19937 rng(3);
  std::normal_distribution<float> dist;
  for (float &v : xs)
    v = dist(rng);
  auto t0 = std::chrono::steady_clock::now();
  kb.run({parg(xs), parg(out), KernelArg::integer(cols), KernelArg::integer(cols),
          KernelArg::integer(cols)},
         {buf(xs, "input_ptr"), buf(out, "output_ptr")}, {rows, 1, 1});
  double t = seconds_since(t0);
  std::printf("[bench] seed softmax, 256 x 1000 fp32 (BLOCK 1024): %.4f s\n", t);
  for (int64_t r = 0; r < rows; r += 17) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c)
      m = std::max<double>(m, xs[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c)
      s += std::exp(double(xs[r * cols + c]) - m);
    for (int64_t c = 0; c < cols; c += 13)
      ASSERT_NEAR(out[r * cols + c], std::exp(double(xs[r * cols + c]) - m) / s, 1e-6);
  }
}

TEST(Bench, SeedMatmulFp16) {
  const int64_t M = 512, N = 512, K = 512, BM = 64, BN = 64, BK = 32;
  KB kb;
  auto *a = kb.arg(ptr(DType::F16), "a_ptr"), *b = kb.arg(ptr(DType::F16), "b_ptr"),
       *c = kb.arg(ptr(DType::F16), "c_ptr");
  auto *Mv = kb.arg(scalar(DType::I32), "M"), *Nv = kb.arg(scalar(DType::I32), "N"),
       *Kv = kb.arg(scalar(DType::I32), "K");
  auto *sam = kb.arg(scalar(DType::I32), "stride_am"),
       *sak = kb.arg(scalar(DType::I32), "stride_ak");
  auto *sbk = kb.arg(scalar(DType::I32), "stride_bk"),
       *sbn = kb.arg(scalar(DType::I32), "stride_bn");
  auto *scm = kb.arg(scalar(DType::I32), "stride_cm"),
       *scn = kb.arg(scalar(DType::I32), "stride_cn");
  auto *pid = kb.pid(0);
  auto *npn = i32c(kb, N / BN);
  auto *pm = kb.bin(OpKind::Div, pid, npn), *pn = kb.bin(OpKind::Rem, pid, npn);
  auto *am =
      kb.bin(OpKind::Add, kb.splat(kb.bin(OpKind::Mul, pm, i32c(kb, BM)), {BM}), kb.arange(BM));
  auto *bn =
      kb.bin(OpKind::Add, kb.splat(kb.bin(OpKind::Mul, pn, i32c(kb, BN)), {BN}), kb.arange(BN));
  auto *ok = kb.arange(BK);
  auto *one = i32c(kb, 1);
  auto *aptrs = kb.addptr(a, offsets_2d(kb, am, sam, ok, sak));
  auto *bptrs = kb.addptr(b, offsets_2d(kb, ok, sbk, bn, sbn));
  auto *acc0 = kb.cstf(tile(DType::F32, {BM, BN}), 0.0);
  auto r = kb.for_loop(
      i32c(kb, 0), Kv, i32c(kb, BK), {acc0, aptrs, bptrs}, [&](KB &k, std::vector<Value *> v) {
        auto *kk = k.bin(OpKind::Add, k.splat(v[0], {BK}), ok);
        auto *amask =
            and2d(k, k.cmp("lt", am, k.splat(Mv, {BM})), k.cmp("lt", kk, k.splat(Kv, {BK})));
        auto *bmask =
            and2d(k, k.cmp("lt", kk, k.splat(Kv, {BK})), k.cmp("lt", bn, k.splat(Nv, {BN})));
        auto *av = k.load(v[2], amask, k.cstf(tile(DType::F16, {BM, BK}), 0.0));
        auto *bv = k.load(v[3], bmask, k.cstf(tile(DType::F16, {BK, BN}), 0.0));
        auto *acc = k.op(OpKind::Dot, {av, bv, v[1]}, v[1]->type,
                         {{"input_precision", std::string("tf32")}});
        auto *na =
            k.op(OpKind::AddPtr, {v[2], k.splat(k.bin(OpKind::Mul, i32c(k, BK), sak), {BM, BK})},
                 v[2]->type);
        auto *nb =
            k.op(OpKind::AddPtr, {v[3], k.splat(k.bin(OpKind::Mul, i32c(k, BK), sbk), {BK, BN})},
                 v[3]->type);
        return std::vector<Value *>{acc, na, nb};
      });
  auto *cv = kb.cast(r[0], DType::F16);
  auto *cm = and2d(kb, kb.cmp("lt", am, kb.splat(Mv, {BM})), kb.cmp("lt", bn, kb.splat(Nv, {BN})));
  kb.store(kb.addptr(c, offsets_2d(kb, am, scm, bn, scn)), cv, cm);
  kb.ret();
  (void)one;
  std::vector<uint16_t> A(M * K), Bm(K * N), C(M * N);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto &v : A)
    v = fp16_from_float(dist(rng));
  for (auto &v : Bm)
    v = fp16_from_float(dist(rng));
  auto t0 = std::chrono::steady_clock::now();
  kb.run({parg(A), parg(Bm), parg(C), KernelArg::integer(M), KernelArg::integer(N),
          KernelArg::integer(K), KernelArg::integer(K), KernelArg::integer(1),
          KernelArg::integer(N), KernelArg::integer(1), KernelArg::integer(N),
          KernelArg::integer(1)},
         {buf(A, "a_ptr"), buf(Bm, "b_ptr"), buf(C, "c_ptr")}, {(M / BM) * (N / BN), 1, 1});
  double t = seconds_since(t0);
  std::printf("[bench] seed matmul fp16 512^3 (64x64x32 blocks): %.4f s\n", t);
  for (int64_t i = 0; i < M; i += 37)
    for (int64_t j = 0; j < N; j += 29) {
      float s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += fp16_to_float(A[i * K + k]) * fp16_to_float(Bm[k * N + j]);
      ASSERT_NEAR(fp16_to_float(C[i * N + j]), s, 0.02 + 0.002 * std::fabs(s));
    }
}

TEST(Bench, ArgmaxRows) {
  // tl.argmax over 256 rows of 1024 (one program per row): the generic combiner path.
  const int64_t rows = 256, B = 1024;
  for (bool scalar_path : {false, true}) {
    KB kb;
    auto *in = kb.arg(ptr(DType::F32), "x"), *outp = kb.arg(ptr(DType::I32), "out");
    auto *row = kb.pid(0);
    auto *start = kb.op(OpKind::AddPtr, {in, kb.bin(OpKind::Mul, row, i32c(kb, B))}, in->type);
    auto *x = kb.load(kb.addptr(start, kb.arange(B)));
    auto out = kb.reduce_like(
        OpKind::Reduce, {x, kb.arange(B)}, 0, {scalar(DType::F32), scalar(DType::I32)}, {},
        [&](KB &b, std::vector<Value *> a) {
          auto *gt = b.cmp("gt", a[2], a[0]);
          auto *tie = b.bin(OpKind::And, b.cmp("eq", a[2], a[0]), b.cmp("lt", a[3], a[1]));
          auto *take = b.bin(OpKind::Or, gt, tie);
          Value *vi = b.op(OpKind::Select, {take, a[3], a[1]}, a[1]->type);
          if (scalar_path)
            vi = b.op(OpKind::Hint, {vi}, vi->type);
          return std::vector<Value *>{b.op(OpKind::Select, {take, a[2], a[0]}, a[0]->type), vi};
        });
    kb.store(kb.op(OpKind::AddPtr, {outp, row}, outp->type), out[1]);
    kb.ret();
    std::vector<float> xs(rows * B);
    std::vector<int32_t> res(rows);
    for (size_t i = 0; i < xs.size(); ++i)
      xs[i] = float((i * 7919) % 1021);
    auto t0 = std::chrono::steady_clock::now();
    kb.run({parg(xs), parg(res)}, {buf(xs, "x"), buf(res, "out")}, {rows, 1, 1});
    std::printf("[bench] argmax 256 x 1024 (%s combiner): %.4f s\n",
                scalar_path ? "pair-by-pair" : "batched", seconds_since(t0));
    for (int64_t r = 0; r < rows; ++r)
      ASSERT_EQ(res[r], std::max_element(xs.begin() + r * B, xs.begin() + (r + 1) * B) -
                            (xs.begin() + r * B));
  }
}
