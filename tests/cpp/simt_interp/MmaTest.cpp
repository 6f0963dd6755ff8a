// mma.sync and ldmatrix on the simulator: hand-built one-warp programs whose fragments
// are packed on the host by the PTX ISA's tables (written out again here), checked
// against a reference matmul; ldmatrix feeding mma is checked end to end.
#include <random>

#include "SimTestUtil.h"
#include "support/FloatFormats.h"
#include "simt/Format.h"
#include "simt/Verifier.h"

using namespace tilec;
using namespace tilec::simt;
using namespace tilec::simt::test;

namespace {

struct Case {
  Ty acc, ab;
  MmaShape shape;
};

// Bits and value of a random element of type ab.
struct Elem {
  uint32_t bits;
  double value;
};
Elem random_elem(Ty ab, std::mt19937 &rng) {
  std::uniform_int_distribution<int> small(-8, 8);
  double v = small(rng) / 4.0; // exact in every float format here
  switch (ab) {
  case Ty::F16:
    return {static_cast<uint32_t>(tilec::fp16_from_double(v)), v};
  case Ty::BF16:
    return {tilec::bf16_from_double(v), v};
  case Ty::TF32: { // a full f32 whose low 13 bits the tensor core must ignore
    float f = static_cast<float>(v) * 1.25f;
    uint32_t b = std::bit_cast<uint32_t>(f) | (f != 0 ? 0x0fffu : 0);
    return {b, std::bit_cast<float>(b & 0xffffe000u)};
  }
  case Ty::S8: {
    int x = std::uniform_int_distribution<int>(-128, 127)(rng);
    return {static_cast<uint32_t>(x) & 0xff, static_cast<double>(x)};
  }
  case Ty::U8: {
    int x = std::uniform_int_distribution<int>(0, 255)(rng);
    return {static_cast<uint32_t>(x), static_cast<double>(x)};
  }
  default:
    return {0, 0};
  }
}

// The PTX ISA's fragment tables, per shape (g = groupID = lane / 4, t = lane % 4).
std::pair<int, int> a_elem(Ty ab, int lane, int i) {
  int g = lane / 4, t = lane % 4;
  if (ab == Ty::TF32) // m16n8k8: a0 (g,t) a1 (g+8,t) a2 (g,t+4) a3 (g+8,t+4)
    return {g + (i % 2) * 8, t + (i / 2) * 4};
  if (ab == Ty::S8 || ab == Ty::U8) // m16n8k32: a0-3 (g, 4t+i), a4-7 (g+8, ..), a8-15 +16 cols
    return {g + ((i / 4) % 2) * 8, t * 4 + i % 4 + (i / 8) * 16};
  // m16n8k16 f16/bf16: a0,a1 (g, 2t+i) a2,a3 (g+8, ..) a4,a5 (g, 2t+8+i) a6,a7 (g+8, ..)
  return {g + ((i / 2) % 2) * 8, t * 2 + i % 2 + (i / 4) * 8};
}
std::pair<int, int> b_elem(Ty ab, int lane, int i) {
  int g = lane / 4, t = lane % 4;
  if (ab == Ty::TF32) // b0 (t, g) b1 (t+4, g)
    return {t + i * 4, g};
  if (ab == Ty::S8 || ab == Ty::U8) // b0-3 (4t+i, g) b4-7 (4t+16+i, g)
    return {t * 4 + i % 4 + (i / 4) * 16, g};
  return {t * 2 + i % 2 + (i / 2) * 8, g}; // b0,b1 (2t+i, g) b2,b3 (2t+8+i, g)
}
std::pair<int, int> c_elem(int lane, int i) {
  return {lane / 4 + (i / 2) * 8, lane % 4 * 2 + i % 2};
}

// A one-warp kernel: lane l loads its a/b/c registers from in[l * stride ...], runs one
// mma and stores its d registers to out[l * nd ...].
Function mma_kernel(const Case &cs, MmaRegs r) {
  Function fn;
  fn.name = "mma_kernel";
  fn.num_warps = 1;
  uint32_t pin = fn.add_param("in", Ty::U64), pout = fn.add_param("out", Ty::U64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg lane = b.special(Sreg::TidX);
  int stride = r.a + r.b + r.c;
  Reg ia = b.mad_wide(Ty::U32, lane, imm(4 * stride), b.ld_param(pin));
  Reg oa = b.mad_wide(Ty::U32, lane, imm(4 * r.d), b.ld_param(pout));
  std::vector<Reg> a, bb;
  std::vector<Operand> c;
  for (int i = 0; i < stride; ++i) {
    Ty t = i < r.a + r.b ? Ty::B32 : cs.acc == Ty::F16 ? Ty::F16x2 : cs.acc;
    Reg v = b.ld1(Space::Global, t == Ty::F16x2 ? Ty::B32 : t, Operand::addr(ia, 4 * i));
    if (i < r.a)
      a.push_back(v);
    else if (i < r.a + r.b)
      bb.push_back(v);
    else
      c.push_back(v);
  }
  std::vector<Reg> d = b.mma(cs.shape, cs.acc, cs.ab, a, bb, c);
  for (int i = 0; i < r.d; ++i)
    b.st(Space::Global, cs.acc == Ty::F16 ? Ty::B32 : cs.acc, Operand::addr(oa, 4 * i), {d[i]});
  b.ret();
  verify(fn);
  return fn;
}

void check_case(const Case &cs) {
  SCOPED_TRACE(std::string(ty_name(cs.acc)) + " <- " + ty_name(cs.ab));
  Instr probe;
  probe.op = Op::Mma;
  probe.ty = cs.acc;
  probe.src_ty = cs.ab;
  probe.m.mma = cs.shape;
  MmaRegs r = mma_regs(probe);
  ASSERT_GT(r.a, 0);
  const int M = cs.shape.m, N = cs.shape.n, K = cs.shape.k;
  const int eb = mma_elem_bits(cs.ab), kw = 32 / eb;
  std::mt19937 rng(7);
  std::vector<std::vector<Elem>> A(M, std::vector<Elem>(K)), B(K, std::vector<Elem>(N));
  std::vector<std::vector<double>> C(M, std::vector<double>(N));
  for (auto &row : A)
    for (Elem &e : row)
      e = random_elem(cs.ab, rng);
  for (auto &row : B)
    for (Elem &e : row)
      e = random_elem(cs.ab, rng);
  for (auto &row : C)
    for (double &v : row)
      v = std::uniform_int_distribution<int>(-16, 16)(rng) / 2.0;
  int stride = r.a + r.b + r.c;
  std::vector<uint32_t> in(32 * static_cast<size_t>(stride), 0), out(32 * static_cast<size_t>(r.d));
  for (int l = 0; l < 32; ++l) {
    uint32_t *regs = &in[static_cast<size_t>(l * stride)];
    for (int i = 0; i < r.a * kw; ++i) {
      auto [row, col] = a_elem(cs.ab, l, i);
      regs[i / kw] |= (A[row][col].bits & ((eb == 32 ? 0 : 1u << eb) - 1)) << (eb * (i % kw));
    }
    for (int i = 0; i < r.b * kw; ++i) {
      auto [row, col] = b_elem(cs.ab, l, i);
      regs[r.a + i / kw] |= (B[row][col].bits & ((eb == 32 ? 0 : 1u << eb) - 1)) << (eb * (i % kw));
    }
    for (int i = 0; i < 4; ++i) {
      auto [row, col] = c_elem(l, i);
      double v = C[row][col];
      if (cs.acc == Ty::F16)
        regs[r.a + r.b + i / 2] |= static_cast<uint32_t>(tilec::fp16_from_double(v))
                                   << (16 * (i % 2));
      else if (cs.acc == Ty::S32)
        regs[r.a + r.b + i] = static_cast<uint32_t>(static_cast<int32_t>(v * 2));
      else
        regs[r.a + r.b + i] = std::bit_cast<uint32_t>(static_cast<float>(v));
    }
  }
  Function fn = mma_kernel(cs, r);
  run(fn, {SimArg::pointer(in.data()), SimArg::pointer(out.data())},
      {buffer(in, "in"), buffer(out, "out")}, {});
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) {
      auto [row, col] = c_elem(l, i);
      double want = cs.acc == Ty::S32 ? C[row][col] * 2 : C[row][col];
      for (int k = 0; k < K; ++k)
        want += A[row][k].value * B[k][col].value;
      double got;
      uint32_t reg = out[static_cast<size_t>(l * r.d + (cs.acc == Ty::F16 ? i / 2 : i))];
      if (cs.acc == Ty::F16)
        got = tilec::fp16_to_float(static_cast<uint16_t>(reg >> (16 * (i % 2))));
      else if (cs.acc == Ty::S32)
        got = static_cast<int32_t>(reg);
      else
        got = std::bit_cast<float>(reg);
      ASSERT_EQ(got, want) << "lane " << l << " element " << i << " (" << row << ", " << col << ")";
    }
}

} // namespace

TEST(SimMma, F16AndBf16ToF32) {
  check_case({Ty::F32, Ty::F16, {16, 8, 16}});
  check_case({Ty::F32, Ty::BF16, {16, 8, 16}});
}

TEST(SimMma, F16Accumulator) { check_case({Ty::F16, Ty::F16, {16, 8, 16}}); }

TEST(SimMma, Tf32ReadsTheTop19Bits) { check_case({Ty::F32, Ty::TF32, {16, 8, 8}}); }

TEST(SimMma, Int8ToInt32) {
  check_case({Ty::S32, Ty::S8, {16, 8, 32}});
  check_case({Ty::S32, Ty::U8, {16, 8, 32}});
}

TEST(SimMma, PrintsGroupedOperands) {
  Function fn = mma_kernel({Ty::F32, Ty::F16, {16, 8, 16}}, {4, 4, 2, 4});
  std::string text = dump(fn);
  EXPECT_TRUE(contains(text, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r")) << text;
  Function fi = mma_kernel({Ty::S32, Ty::S8, {16, 8, 32}}, {4, 4, 2, 4});
  EXPECT_TRUE(contains(dump(fi), "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")) << dump(fi);
}

TEST(SimMma, GuardedOrPartialWarpIsAnError) {
  Function fn;
  fn.name = "k";
  fn.num_warps = 1;
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg lane = b.special(Sreg::TidX);
  Reg p = b.setp(Cmp::Lt, Ty::U32, lane, imm(16));
  BlockId body = b.new_block("body"); // blocks are laid out in order: entry falls into body
  BlockId done = b.new_block("done");
  b.set_block(0);
  b.bra_if(p, done, true);
  b.set_block(body);
  std::vector<Reg> a = b.regs(Ty::B32, 4), bb = b.regs(Ty::B32, 2);
  for (Reg x : a)
    b.mov_to(x, imm(0));
  for (Reg x : bb)
    b.mov_to(x, imm(0));
  b.mma({16, 8, 16}, Ty::F32, Ty::F16, a, bb,
        {Operand::f32(0), Operand::f32(0), Operand::f32(0), Operand::f32(0)});
  b.bra(done);
  b.set_block(done);
  b.ret();
  std::string err = sim_error([&] { run(fn, {}, {}, {}); });
  EXPECT_TRUE(contains(err, "warp-wide")) << "[" << err << "]";
}

// A (16x16, row-major) and B (16x8, row-major [k][n]) in shared memory; ldmatrix.x4 gives
// the A fragment, ldmatrix.x2.trans the B fragment; mma; D checked against a matmul.
TEST(SimMma, LdmatrixFeedsMma) {
  Function fn;
  fn.name = "ldsm";
  fn.num_warps = 1;
  fn.shared_bytes = 16 * 16 * 2 + 16 * 8 * 2;
  uint32_t pa = fn.add_param("a", Ty::U64), pb = fn.add_param("b", Ty::U64),
           pd = fn.add_param("d", Ty::U64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg lane = b.special(Sreg::TidX);
  // copy: lane l copies 16 bytes of A (row l/2, half l%2) and 8 bytes of B
  Reg ga = b.mad_wide(Ty::U32, lane, imm(16), b.ld_param(pa));
  std::vector<Reg> av = b.ld(Space::Global, Ty::B32, Operand::addr(ga), 4);
  Reg sa = b.mul(Ty::U32, lane, imm(16));
  b.st(Space::Shared, Ty::B32, Operand::addr(sa), {av[0], av[1], av[2], av[3]});
  Reg gb = b.mad_wide(Ty::U32, lane, imm(8), b.ld_param(pb));
  std::vector<Reg> bv = b.ld(Space::Global, Ty::B32, Operand::addr(gb), 2);
  Reg sb = b.mad(Ty::U32, lane, imm(8), imm(512));
  b.st(Space::Shared, Ty::B32, Operand::addr(sb), {bv[0], bv[1]});
  b.bar_sync(0);
  // A: matrix i = lanes 8i..8i+7: rows (i%2)*8 + r, cols (i/2)*8 -> byte (row*16 + col)*2
  Reg r8 = b.and_(Ty::B32, lane, imm(15));                                // row 0..15
  Reg colh = b.shr(Ty::U32, lane, imm(4));                                // 0/1
  Reg aaddr = b.mad(Ty::U32, r8, imm(32), b.mul(Ty::U32, colh, imm(16))); // bytes
  std::vector<Reg> afrag = b.ldmatrix(4, false, Operand::addr(aaddr));
  // B: matrix i = k rows 8i..8i+7 (lanes 0..15 give rows 0..15), transposed
  Reg baddr = b.mad(Ty::U32, r8, imm(16), imm(512));
  std::vector<Reg> bfrag = b.ldmatrix(2, true, Operand::addr(baddr));
  std::vector<Reg> d = b.mma({16, 8, 16}, Ty::F32, Ty::F16, afrag, bfrag,
                             {Operand::f32(0), Operand::f32(0), Operand::f32(0), Operand::f32(0)});
  Reg gd = b.mad_wide(Ty::U32, lane, imm(16), b.ld_param(pd));
  b.st(Space::Global, Ty::F32, Operand::addr(gd), {d[0], d[1], d[2], d[3]});
  b.ret();
  verify(fn);
  EXPECT_TRUE(contains(dump(fn), "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r")) << dump(fn);

  std::mt19937 rng(3);
  std::vector<double> A(256), B(128);
  std::vector<uint16_t> ah(256), bh(128);
  for (int i = 0; i < 256; ++i) {
    A[i] = std::uniform_int_distribution<int>(-8, 8)(rng) / 4.0;
    ah[i] = tilec::fp16_from_double(A[i]);
  }
  for (int i = 0; i < 128; ++i) {
    B[i] = std::uniform_int_distribution<int>(-8, 8)(rng) / 4.0;
    bh[i] = tilec::fp16_from_double(B[i]);
  }
  std::vector<float> out(128);
  run(fn, {SimArg::pointer(ah.data()), SimArg::pointer(bh.data()), SimArg::pointer(out.data())},
      {buffer(ah, "a"), buffer(bh, "b"), buffer(out, "d")}, {});
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) {
      auto [row, col] = c_elem(l, i);
      double want = 0;
      for (int k = 0; k < 16; ++k)
        want += A[row * 16 + k] * B[k * 8 + col];
      ASSERT_EQ(out[l * 4 + i], want) << "lane " << l << " element " << i;
    }
}
