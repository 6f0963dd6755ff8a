#include <cmath>
#include <limits>

#include "TestUtil.h"

using namespace tilec;
using namespace tilec::interp;
using namespace tilec::interp::test;

TEST(Arith, IntegerWraparound) {
  auto r8 =
      run_binary<int8_t>(OpKind::Add, DType::I8, DType::I8, std::vector<int8_t>{127, -128, 100, 5},
                         std::vector<int8_t>{1, -1, 100, -10});
  EXPECT_EQ(r8, (std::vector<int8_t>{-128, 127, -56, -5}));
  auto ru8 = run_binary<uint8_t>(OpKind::Sub, DType::U8, DType::U8, std::vector<uint8_t>{0, 255},
                                 std::vector<uint8_t>{1, 255});
  EXPECT_EQ(ru8, (std::vector<uint8_t>{255, 0}));
  auto m32 =
      run_binary<int32_t>(OpKind::Mul, DType::I32, DType::I32,
                          std::vector<int32_t>{INT32_MAX, 65536}, std::vector<int32_t>{2, 65536});
  EXPECT_EQ(m32, (std::vector<int32_t>{-2, 0}));
  auto mu16 =
      run_binary<uint16_t>(OpKind::Mul, DType::U16, DType::U16, std::vector<uint16_t>{65535, 300},
                           std::vector<uint16_t>{65535, 300});
  EXPECT_EQ(mu16, (std::vector<uint16_t>{1, 24464}));
  auto a64 = run_binary<int64_t>(OpKind::Add, DType::I64, DType::I64,
                                 std::vector<int64_t>{INT64_MAX, 1}, std::vector<int64_t>{1, 2});
  EXPECT_EQ(a64, (std::vector<int64_t>{INT64_MIN, 3}));
}

TEST(Arith, CDivisionAndRemainder) {
  std::vector<int32_t> a{-7, 7, -7, 7, INT32_MIN, INT32_MIN, 0, 5};
  std::vector<int32_t> b{2, -2, -2, 2, -1, 1, 3, 7};
  EXPECT_EQ(run_binary<int32_t>(OpKind::Div, DType::I32, DType::I32, a, b),
            (std::vector<int32_t>{-3, -3, 3, 3, INT32_MIN, INT32_MIN, 0, 0}));
  EXPECT_EQ(run_binary<int32_t>(OpKind::Rem, DType::I32, DType::I32, a, b),
            (std::vector<int32_t>{-1, 1, -1, 1, 0, 0, 0, 5}));
  std::vector<uint32_t> ua{7, 0xffffffffu}, ub{2, 16};
  EXPECT_EQ(run_binary<uint32_t>(OpKind::Div, DType::U32, DType::U32, ua, ub),
            (std::vector<uint32_t>{3, 0x0fffffffu}));
  std::vector<float> fa{-7.5f, 7.5f}, fb{2.0f, -2.0f};
  EXPECT_EQ(run_binary<float>(OpKind::Rem, DType::F32, DType::F32, fa, fb),
            (std::vector<float>{-1.5f, 1.5f}));
  auto fd = run_binary<float>(OpKind::Div, DType::F32, DType::F32, std::vector<float>{1, -1, 0, 1},
                              std::vector<float>{0, 0, 0, 3});
  EXPECT_TRUE(std::isinf(fd[0]) && fd[0] > 0);
  EXPECT_TRUE(std::isinf(fd[1]) && fd[1] < 0);
  EXPECT_TRUE(std::isnan(fd[2]));
  EXPECT_EQ(fd[3], 1.0f / 3.0f);
}

TEST(Arith, IntegerDivisionByZeroIsAnError) {
  KB kb;
  auto *pa = kb.arg(ptr(DType::I32), "a");
  auto *offs = kb.arange(4);
  auto *x = kb.load(kb.addptr(pa, offs));
  kb.line = 7;
  auto *q = kb.bin(OpKind::Div, x, x);
  kb.line = 8;
  kb.store(kb.addptr(pa, offs), q);
  std::vector<int32_t> a{1, 2, 0, 4};
  try {
    kb.run({parg(a)}, {buf(a, "a")});
    FAIL() << "expected an error";
  } catch (const tilec::RuntimeError &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("kernel.py:7:5: error: integer division by zero at element index (2,)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("line 7 of the kernel"), std::string::npos) << m;
    EXPECT_NE(m.find("program (0, 0, 0)"), std::string::npos) << m;
  }
  EXPECT_EQ(a, (std::vector<int32_t>{1, 2, 0, 4})); // nothing stored
}

TEST(Arith, Shifts) {
  std::vector<int32_t> a{1, 1, 1, -8, -8, -8, 0x40000000, 3};
  std::vector<int32_t> s{0, 31, 32, 1, 31, 40, 1, -1};
  EXPECT_EQ(run_binary<int32_t>(OpKind::Shl, DType::I32, DType::I32, a, s),
            (std::vector<int32_t>{1, INT32_MIN, 0, -16, 0, 0, INT32_MIN, 0}));
  EXPECT_EQ(run_binary<int32_t>(OpKind::Shr, DType::I32, DType::I32, a, s),
            (std::vector<int32_t>{1, 0, 0, -4, -1, -1, 0x20000000, 0}));
  std::vector<uint32_t> ua{0x80000000u, 0x80000000u, 0x80000000u, 5};
  std::vector<uint32_t> us{31, 32, 1, 100};
  EXPECT_EQ(run_binary<uint32_t>(OpKind::Shr, DType::U32, DType::U32, ua, us),
            (std::vector<uint32_t>{1, 0, 0x40000000u, 0}));
  std::vector<int8_t> a8{-128, 64}, s8{7, 1};
  EXPECT_EQ(run_binary<int8_t>(OpKind::Shr, DType::I8, DType::I8, a8, s8),
            (std::vector<int8_t>{-1, 32}));
  EXPECT_EQ(run_binary<int8_t>(OpKind::Shl, DType::I8, DType::I8, a8, s8),
            (std::vector<int8_t>{0, -128}));
}

TEST(Arith, Comparisons) {
  std::vector<int32_t> a{-1, 2, 3, 3}, b{1, 2, 2, 4};
  EXPECT_EQ(
      run_binary<uint8_t>(OpKind::Cmp, DType::I32, DType::I1, a, b, {{"pred", std::string("lt")}}),
      (std::vector<uint8_t>{1, 0, 0, 1}));
  std::vector<uint32_t> ua{0xffffffffu, 2, 3, 3}, ub{1, 2, 2, 4};
  EXPECT_EQ(run_binary<uint8_t>(OpKind::Cmp, DType::U32, DType::I1, ua, ub,
                                {{"pred", std::string("lt")}}),
            (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(run_binary<uint8_t>(OpKind::Cmp, DType::U32, DType::I1, ua, ub,
                                {{"pred", std::string("ge")}}),
            (std::vector<uint8_t>{1, 1, 1, 0}));
  float nan = NAN;
  std::vector<float> fa{nan, 1, nan, 2}, fb{1, nan, nan, 2};
  EXPECT_EQ(run_binary<uint8_t>(OpKind::Cmp, DType::F32, DType::I1, fa, fb,
                                {{"pred", std::string("ne")}}),
            (std::vector<uint8_t>{1, 1, 1, 0}));
  EXPECT_EQ(run_binary<uint8_t>(OpKind::Cmp, DType::F32, DType::I1, fa, fb,
                                {{"pred", std::string("eq")}}),
            (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(run_binary<uint8_t>(OpKind::Cmp, DType::F32, DType::I1, fa, fb,
                                {{"pred", std::string("le")}}),
            (std::vector<uint8_t>{0, 0, 0, 1}));
}

TEST(Arith, MinMaxNan) {
  float nan = NAN;
  std::vector<float> a{nan, 1, -0.5f, 3}, b{1, nan, 2, -3};
  auto mx =
      run_binary<float>(OpKind::Max, DType::F32, DType::F32, a, b, {{"propagate_nan", int64_t(0)}});
  EXPECT_EQ(mx, (std::vector<float>{1, 1, 2, 3}));
  auto mxn =
      run_binary<float>(OpKind::Max, DType::F32, DType::F32, a, b, {{"propagate_nan", int64_t(1)}});
  EXPECT_TRUE(std::isnan(mxn[0]) && std::isnan(mxn[1]));
  EXPECT_EQ(mxn[2], 2.0f);
  auto mnn =
      run_binary<float>(OpKind::Min, DType::F32, DType::F32, a, b, {{"propagate_nan", int64_t(1)}});
  EXPECT_TRUE(std::isnan(mnn[0]) && std::isnan(mnn[1]));
  EXPECT_EQ(mnn[3], -3.0f);
  std::vector<uint8_t> ua{200, 1}, ub{100, 2};
  EXPECT_EQ(run_binary<uint8_t>(OpKind::Min, DType::U8, DType::U8, ua, ub),
            (std::vector<uint8_t>{100, 1}));
  std::vector<int8_t> sa{-56, 1}, sb{100, 2};
  EXPECT_EQ(run_binary<int8_t>(OpKind::Min, DType::I8, DType::I8, sa, sb),
            (std::vector<int8_t>{-56, 1}));
}

TEST(Arith, Fp16AndBf16RoundEveryOp) {
  // 2048 + 1 is not representable in fp16: the sum rounds to even (2048).
  std::vector<uint16_t> a{h(2048), h(1.0), h(65504), h(0.1)},
      b{h(1), h(std::ldexp(1.0, -11)), h(65504), h(0.2)};
  auto r = run_binary<uint16_t>(OpKind::Add, DType::F16, DType::F16, a, b);
  EXPECT_EQ(r[0], h(2048));
  EXPECT_EQ(r[1], h(1.0));
  EXPECT_EQ(r[2], 0x7c00); // overflow to inf
  EXPECT_EQ(r[3], h(double(f16(h(0.1))) + double(f16(h(0.2)))));
  std::vector<uint16_t> ba{bf(1.0 + 1.0 / 128), bf(3.0)}, bb{bf(1.0 + 1.0 / 128), bf(1.0 / 3)};
  auto rb = run_binary<uint16_t>(OpKind::Mul, DType::BF16, DType::BF16, ba, bb);
  EXPECT_EQ(rb[0], bf((1.0 + 1.0 / 128) * (1.0 + 1.0 / 128))); // 1 + 2/128 + 1/2^14 -> 1 + 2/128
  EXPECT_EQ(rb[0], 0x3f82);
  EXPECT_EQ(rb[1], bf(3.0 * double(bf16_to_float(bf(1.0 / 3)))));
  auto d16 =
      run_binary<uint16_t>(OpKind::Div, DType::F16, DType::F16, std::vector<uint16_t>{h(1), h(2)},
                           std::vector<uint16_t>{h(3), h(3)});
  EXPECT_EQ(d16[0], h(1.0 / 3));
  EXPECT_EQ(d16[1], h(2.0 / 3));
}

TEST(Arith, FloatMath) {
  std::vector<float> x{0.5f, 1.0f, 2.0f, 4.0f};
  auto e = run_unary<float>(OpKind::Exp, DType::F32, DType::F32, x);
  auto s = run_unary<float>(OpKind::Rsqrt, DType::F32, DType::F32, x);
  auto l2 = run_unary<float>(OpKind::Log2, DType::F32, DType::F32, x);
  auto fl =
      run_unary<float>(OpKind::Floor, DType::F32, DType::F32, std::vector<float>{-1.5f, 1.5f});
  auto er = run_unary<float>(OpKind::Erf, DType::F32, DType::F32, std::vector<float>{0.0f, 1.0f});
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(e[i], std::exp(x[i]));
    EXPECT_EQ(s[i], 1.0f / std::sqrt(x[i]));
  }
  EXPECT_EQ(l2, (std::vector<float>{-1, 0, 1, 2}));
  EXPECT_EQ(fl, (std::vector<float>{-2, 1}));
  EXPECT_EQ(er[1], std::erf(1.0f));
  auto e16 = run_unary<uint16_t>(OpKind::Exp, DType::F16, DType::F16,
                                 std::vector<uint16_t>{h(1.0), h(-1)});
  EXPECT_EQ(e16[0], h(std::exp(1.0f)));
  auto ab =
      run_unary<int32_t>(OpKind::Abs, DType::I32, DType::I32, std::vector<int32_t>{-5, INT32_MIN});
  EXPECT_EQ(ab, (std::vector<int32_t>{5, INT32_MIN}));
  auto ng = run_unary<uint8_t>(OpKind::Neg, DType::U8, DType::U8, std::vector<uint8_t>{1, 0});
  EXPECT_EQ(ng, (std::vector<uint8_t>{255, 0}));
  auto nt = run_unary<uint8_t>(OpKind::Not, DType::I1, DType::I1, std::vector<uint8_t>{1, 0});
  EXPECT_EQ(nt, (std::vector<uint8_t>{0, 1}));
  auto nf =
      run_unary<uint16_t>(OpKind::Neg, DType::F16, DType::F16, std::vector<uint16_t>{h(2), 0});
  EXPECT_EQ(nf, (std::vector<uint16_t>{h(-2), 0x8000}));
}

TEST(Arith, UmulhiAndFmaAndSelect) {
  std::vector<int32_t> a{-1, 0x10000, 7, 3}, b{-1, 0x10000, 3, -1};
  EXPECT_EQ(run_binary<int32_t>(OpKind::Umulhi, DType::I32, DType::I32, a, b),
            (std::vector<int32_t>{-2, 1, 0, 2}));
  std::vector<uint64_t> ua{~0ull, 1ull << 63}, ub{~0ull, 4};
  EXPECT_EQ(run_binary<uint64_t>(OpKind::Umulhi, DType::U64, DType::U64, ua, ub),
            (std::vector<uint64_t>{~0ull - 1, 2}));

  // fma rounds once: v*v-1 = 2^-11 + 2^-24 exactly; v*v rounded first would lose 2^-24.
  KB kb;
  auto *p = kb.arg(ptr(DType::F32), "p");
  auto *offs = kb.arange(2);
  auto *x = kb.load(kb.addptr(p, offs));
  auto *f = kb.op(OpKind::Fma, {x, x, kb.splat(kb.cstf(scalar(DType::F32), -1.0), {2})}, x->type);
  auto *c = kb.cmp("lt", x, kb.splat(kb.cstf(scalar(DType::F32), 1.5), {2}));
  auto *sel = kb.op(OpKind::Select, {c, f, x}, x->type);
  kb.store(kb.addptr(p, offs), sel);
  float v = 1.0f + std::ldexp(1.0f, -12);
  std::vector<float> data{v, 2.0f};
  kb.run({parg(data)}, {buf(data, "p")});
  EXPECT_EQ(data[0], std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24));
  EXPECT_EQ(data[1], 2.0f); // not < 1.5: x selected
}

TEST(Arith, ScalarOperandsBroadcast) {
  // A scalar (one-element) operand of an elementwise op is used for every element.
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "p");
  auto *n = kb.arg(scalar(DType::I32), "n");
  auto *offs = kb.arange(4);
  auto *x = kb.load(kb.addptr(p, offs));
  auto *y = kb.op(OpKind::Mul, {x, n}, x->type);
  kb.store(kb.addptr(p, offs), y);
  std::vector<int32_t> d{1, 2, 3, 4};
  kb.run({parg(d), KernelArg::integer(3)}, {buf(d, "p")});
  EXPECT_EQ(d, (std::vector<int32_t>{3, 6, 9, 12}));
}
