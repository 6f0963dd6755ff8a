#include <bit>
#include <cmath>
#include <limits>

#include "TestUtil.h"

using namespace tilec;
using namespace tilec::interp;
using namespace tilec::interp::test;

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  std::vector<float> x{2.7f, -2.7f, 1e10f, -1e10f, NAN, 0.99f, -0.99f, 3e9f};
  EXPECT_EQ(run_unary<int32_t>(OpKind::Cast, DType::F32, DType::I32, x),
            (std::vector<int32_t>{2, -2, INT32_MAX, INT32_MIN, 0, 0, 0, INT32_MAX}));
  EXPECT_EQ(run_unary<uint32_t>(OpKind::Cast, DType::F32, DType::U32, x),
            (std::vector<uint32_t>{2, 0, UINT32_MAX, 0, 0, 0, 0, 3000000000u}));
  EXPECT_EQ(run_unary<int8_t>(OpKind::Cast, DType::F32, DType::I8, x),
            (std::vector<int8_t>{2, -2, 127, -128, 0, 0, 0, 127}));
  std::vector<double> d{9.3e18, -9.3e18, 1e19, -1.5};
  EXPECT_EQ(run_unary<int64_t>(OpKind::Cast, DType::F64, DType::I64, d),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN, INT64_MAX, -1}));
  EXPECT_EQ(run_unary<uint64_t>(OpKind::Cast, DType::F64, DType::U64, d),
            (std::vector<uint64_t>{9300000000000000000ull, 0, 10000000000000000000ull, 0}));
}

TEST(Cast, ToBoolIsNonZero) {
  std::vector<float> x{0.0f, -0.0f, 0.5f, NAN};
  EXPECT_EQ(run_unary<uint8_t>(OpKind::Cast, DType::F32, DType::I1, x),
            (std::vector<uint8_t>{0, 0, 1, 1}));
  std::vector<int32_t> i{0, 2, -1, 256};
  EXPECT_EQ(run_unary<uint8_t>(OpKind::Cast, DType::I32, DType::I1, i),
            (std::vector<uint8_t>{0, 1, 1, 1}));
  std::vector<uint8_t> b{0, 1};
  EXPECT_EQ(run_unary<int32_t>(OpKind::Cast, DType::I1, DType::I32, b),
            (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(run_unary<float>(OpKind::Cast, DType::I1, DType::F32, b), (std::vector<float>{0, 1}));
}

TEST(Cast, IntegerWidths) {
  std::vector<int32_t> x{-1, 300, 65536 + 7, INT32_MIN};
  EXPECT_EQ(run_unary<int8_t>(OpKind::Cast, DType::I32, DType::I8, x),
            (std::vector<int8_t>{-1, 44, 7, 0}));
  EXPECT_EQ(run_unary<uint16_t>(OpKind::Cast, DType::I32, DType::U16, x),
            (std::vector<uint16_t>{65535, 300, 7, 0}));
  EXPECT_EQ(run_unary<int64_t>(OpKind::Cast, DType::I32, DType::I64, x),
            (std::vector<int64_t>{-1, 300, 65543, INT32_MIN}));
  std::vector<uint32_t> u{0xffffffffu, 5};
  EXPECT_EQ(run_unary<int64_t>(OpKind::Cast, DType::U32, DType::I64, u),
            (std::vector<int64_t>{0xffffffffll, 5})); // zero-extends
  EXPECT_EQ(run_unary<float>(OpKind::Cast, DType::U32, DType::F32, u),
            (std::vector<float>{4294967296.0f, 5.0f}));
  std::vector<int64_t> big{(1ll << 53) + 1, -3};
  EXPECT_EQ(run_unary<float>(OpKind::Cast, DType::I64, DType::F32, big),
            (std::vector<float>{9007199254740992.0f, -3.0f}));
}

TEST(Cast, FloatNarrowingRounding) {
  float a = 1.0f + std::ldexp(3.0f, -12); // between two fp16 values, nearer the upper
  std::vector<float> x{a, -a, 70000.0f, 1e-8f};
  auto rn = run_unary<uint16_t>(OpKind::Cast, DType::F32, DType::F16, x);
  EXPECT_EQ(rn, (std::vector<uint16_t>{0x3c01, 0xbc01, 0x7c00, 0x0000}));
  auto rz = run_unary<uint16_t>(OpKind::Cast, DType::F32, DType::F16, x,
                                {{"rounding", std::string("rtz")}});
  EXPECT_EQ(rz, (std::vector<uint16_t>{0x3c00, 0xbc00, 0x7bff, 0x0000}));
  auto b = run_unary<uint16_t>(OpKind::Cast, DType::F32, DType::BF16, x,
                               {{"rounding", std::string("rtz")}});
  EXPECT_EQ(b[0], 0x3f80);
  auto e4 = run_unary<uint8_t>(OpKind::Cast, DType::F32, DType::F8E4NV,
                               std::vector<float>{1.0f, 1000.0f, -0.0f, 0.3f});
  EXPECT_EQ(e4, (std::vector<uint8_t>{0x38, 0x7e, 0x80, fp8e4nv_from_double(0.3f)}));
  auto e5 = run_unary<uint8_t>(OpKind::Cast, DType::F16, DType::F8E5,
                               std::vector<uint16_t>{h(1.0), h(-2.0)});
  EXPECT_EQ(e5, (std::vector<uint8_t>{0x3c, 0xc0}));
  auto up =
      run_unary<float>(OpKind::Cast, DType::F8E4NV, DType::F32, std::vector<uint8_t>{0x7e, 0x01});
  EXPECT_EQ(up, (std::vector<float>{448.0f, std::ldexp(1.0f, -9)}));
  // fp64 -> fp16 rounds once from double (no double rounding through fp32).
  double t = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  auto d16 = run_unary<uint16_t>(OpKind::Cast, DType::F64, DType::F16, std::vector<double>{t, 0});
  EXPECT_EQ(d16[0], 0x3c01);
  auto f32 = run_unary<float>(OpKind::Cast, DType::F64, DType::F32,
                              std::vector<double>{1.0 + std::ldexp(1.9, -23), 0},
                              {{"rounding", std::string("rtz")}});
  EXPECT_EQ(f32[0], 1.0f + std::ldexp(1.0f, -23));
}

TEST(Cast, Bitcast) {
  auto r =
      run_unary<int32_t>(OpKind::Bitcast, DType::F32, DType::I32, std::vector<float>{1.0f, -0.0f});
  EXPECT_EQ(r, (std::vector<int32_t>{0x3f800000, INT32_MIN}));
  auto r16 =
      run_unary<int16_t>(OpKind::Bitcast, DType::F16, DType::I16, std::vector<uint16_t>{h(1.0), 0});
  EXPECT_EQ(r16[0], 0x3c00);
}

// Loads a [rows x cols] i32 tile from `src` (row-major), applies f, stores the result's
// numel elements to `dst`.
static std::vector<int32_t> shape_op(int64_t rows, int64_t cols, std::vector<int32_t> src,
                                     size_t out_n, const std::function<Value *(KB &, Value *)> &f) {
  KB kb;
  auto *ps = kb.arg(ptr(DType::I32), "src"), *pd = kb.arg(ptr(DType::I32), "dst");
  auto *r = kb.op(OpKind::ExpandDims, {kb.arange(rows)}, tile(DType::I32, {rows, 1}),
                  {{"axis", int64_t(1)}});
  auto *c = kb.op(OpKind::ExpandDims, {kb.arange(cols)}, tile(DType::I32, {1, cols}),
                  {{"axis", int64_t(0)}});
  auto *rb = kb.op(OpKind::Broadcast, {r}, tile(DType::I32, {rows, cols}));
  auto *cb = kb.op(OpKind::Broadcast, {c}, tile(DType::I32, {rows, cols}));
  auto *off =
      kb.bin(OpKind::Add,
             kb.bin(OpKind::Mul, rb, kb.splat(kb.cst(scalar(DType::I32), cols), {rows, cols})), cb);
  auto *x = kb.load(kb.addptr(ps, off));
  Value *y = f(kb, x);
  auto n = y->type.numel();
  auto *flat = kb.op(OpKind::Reshape, {y}, tile(DType::I32, {n}));
  kb.store(kb.addptr(pd, kb.arange(n)), flat);
  std::vector<int32_t> dst(out_n, -1);
  kb.run({parg(src), parg(dst)}, {buf(src, "src"), buf(dst, "dst")});
  return dst;
}

TEST(Shape, PermuteBroadcastJoinSplitCat) {
  std::vector<int32_t> m{0, 1, 2, 3, 4, 5, 6, 7}; // 2 x 4
  auto t = shape_op(2, 4, m, 8, [](KB &kb, Value *x) {
    return kb.op(OpKind::Permute, {x}, tile(DType::I32, {4, 2}),
                 {{"order", std::vector<int64_t>{1, 0}}});
  });
  EXPECT_EQ(t, (std::vector<int32_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  auto j = shape_op(2, 4, m, 16, [](KB &kb, Value *x) {
    auto *neg = kb.un(OpKind::Neg, x);
    return kb.op(OpKind::Join, {x, neg}, tile(DType::I32, {2, 4, 2}));
  });
  EXPECT_EQ(j, (std::vector<int32_t>{0, 0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7}));
  auto s = shape_op(2, 4, m, 4, [](KB &kb, Value *x) {
    auto *r = kb.op(OpKind::Reshape, {x}, tile(DType::I32, {4, 2}));
    tilec::ir::Op *sp = kb.make(OpKind::Split, {r}, {tile(DType::I32, {4}), tile(DType::I32, {4})});
    return kb.bin(OpKind::Sub, sp->result(1), sp->result(0)); // odd - even = 1
  });
  EXPECT_EQ(s, (std::vector<int32_t>{1, 1, 1, 1}));
  auto c = shape_op(2, 4, m, 16, [](KB &kb, Value *x) {
    return kb.op(OpKind::Cat, {x, kb.un(OpKind::Neg, x)}, tile(DType::I32, {4, 4}));
  });
  EXPECT_EQ(c, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 0, -1, -2, -3, -4, -5, -6, -7}));
  // [2,1,4] -> [2,3,4] broadcast of the middle dim; 3-D permute (2,0,1) of [2,3,4] -> [4,2,3].
  auto b = shape_op(2, 4, m, 24, [](KB &kb, Value *x) {
    auto *e = kb.op(OpKind::ExpandDims, {x}, tile(DType::I32, {2, 1, 4}), {{"axis", int64_t(1)}});
    auto *bb = kb.op(OpKind::Broadcast, {e}, tile(DType::I32, {2, 2, 4}));
    auto *p = kb.op(OpKind::Permute, {bb}, tile(DType::I32, {4, 2, 2}),
                    {{"order", std::vector<int64_t>{2, 0, 1}}});
    return kb.op(OpKind::Reshape, {p}, tile(DType::I32, {16}));
  });
  // p[k][i][j] = x[i][k]
  std::vector<int32_t> want;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int jj = 0; jj < 2; ++jj)
        want.push_back(i * 4 + k);
  want.resize(24, -1);
  EXPECT_EQ(b, want);
}

TEST(Shape, ConstantsAndSplat) {
  KB kb;
  auto *p = kb.arg(ptr(DType::F16), "p");
  auto *q = kb.arg(ptr(DType::I8), "q");
  auto *c = kb.cstf(tile(DType::F16, {4}), 0.1);
  kb.store(kb.addptr(p, kb.arange(4)), c);
  auto *ci = kb.cst(tile(DType::I8, {2}), 300); // wraps to 44
  kb.store(kb.addptr(q, kb.arange(2)), ci);
  std::vector<uint16_t> out(4);
  std::vector<int8_t> out8(2);
  kb.run({parg(out), parg(out8)}, {buf(out, "p"), buf(out8, "q")});
  EXPECT_EQ(out, (std::vector<uint16_t>(4, h(0.1))));
  EXPECT_EQ(out8, (std::vector<int8_t>{44, 44}));
}
