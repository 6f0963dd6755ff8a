// tl.dot lowered to mma.sync (and FMA) and run on the SIMT simulator against the tile
// interpreter. Inputs are small multiples of 1/4 so that every fp32 sum is exact and the
// two agree bit for bit (fp16 results: to fp16 rounding).
#include <cstdlib>
#include <random>

#include "LowerTestUtil.h"

namespace tilec::lower::test {
namespace {

std::string dot_kernel(const std::string &a_ty, const std::string &expr, bool trans_b = false) {
  std::string s = R"(@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
)";
  s += trans_b ? "    b = tl.trans(tl.load(b_ptr + rn[:, None] * K + rk[None, :]))\n"
               : "    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])\n";
  s += "    acc = tl.load(c_ptr + rm[:, None] * N + rn[None, :])\n";
  s += "    c = " + expr + "\n";
  s += "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)\n";
  (void)a_ty;
  return s;
}

uint16_t f16_bits(double v) { // exact for the small quarters used here
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  v = std::fabs(v);
  int e = 0;
  double m = std::frexp(v, &e); // v = m * 2^e, m in [0.5, 1)
  int exp = e - 1 + 15;
  uint16_t mant = static_cast<uint16_t>(std::lround((m * 2 - 1) * 1024));
  return static_cast<uint16_t>(sign | (exp << 10) | mant);
}
uint16_t bf16_bits(double v) {
  float f = static_cast<float>(v);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<uint16_t>(b >> 16);
}

std::vector<double> quarters(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(-8, 8);
  std::vector<double> v(n);
  for (double &x : v)
    x = d(g) / 4.0;
  return v;
}

// Buffers of elem type `ty` ("fp16", "bf16", "fp32", "fp64", "i8") holding `v`.
int add_buffer(Inputs &in, const std::string &ty, const std::vector<double> &v,
               const std::string &name) {
  if (ty == "fp16" || ty == "bf16") {
    std::vector<uint16_t> h;
    for (double x : v)
      h.push_back(ty == "fp16" ? f16_bits(x) : bf16_bits(x));
    return in.buffer(h, name);
  }
  if (ty == "i8" || ty == "i32") {
    if (ty == "i8") {
      std::vector<int8_t> b;
      for (double x : v)
        b.push_back(static_cast<int8_t>(x * 4)); // -32..32
      return in.buffer(b, name);
    }
    std::vector<int32_t> b;
    for (double x : v)
      b.push_back(static_cast<int32_t>(x * 4));
    return in.buffer(b, name);
  }
  if (ty == "fp64")
    return in.buffer(v, name);
  std::vector<float> f(v.begin(), v.end());
  return in.buffer(f, name);
}

struct DotCase {
  std::string ab, out, expr;
  int M, N, K, warps = 4;
  bool trans_b = false;
  int sm = 80;       // sm_90a lowers the dots that qualify to wgmma (WgmmaOnSm90a)
  bool wgmma = true; // on sm_90a: the dot qualifies for wgmma
};

// The simulator runs the kernel against the tile interpreter; the PTX holds mma.sync when
// `expect_mma` (FMA otherwise), or wgmma when `cs.sm` is 90 and `expect_mma`.
GpuKernelUnderTest run_case(const DotCase &cs, bool expect_mma = true) {
  SCOPED_TRACE(cs.ab + " -> " + cs.out + " " + cs.expr + " " + std::to_string(cs.M) + "x" +
               std::to_string(cs.N) + "x" + std::to_string(cs.K));
  GpuKernelUnderTest k(dot_kernel(cs.ab, cs.expr, cs.trans_b), "dot_kernel",
                       {"*" + cs.ab + ":16", "*" + cs.ab + ":16", "*" + cs.out + ":16",
                        "=" + std::to_string(cs.M), "=" + std::to_string(cs.N),
                        "=" + std::to_string(cs.K)},
                       cs.warps, cs.sm);
  bool on_wgmma = expect_mma && cs.sm >= 90 && cs.wgmma;
  EXPECT_EQ(k.ptx().find("mma.sync.aligned") != std::string::npos, expect_mma && !on_wgmma)
      << k.thread_ir();
  EXPECT_EQ(k.ptx().find("wgmma.mma_async") != std::string::npos, on_wgmma) << k.thread_ir();
  Inputs in;
  int a = add_buffer(in, cs.ab, quarters(static_cast<size_t>(cs.M * cs.K), 1), "a");
  int b = add_buffer(in, cs.ab, quarters(static_cast<size_t>(cs.K * cs.N), 2), "b");
  int c = add_buffer(in, cs.out, quarters(static_cast<size_t>(cs.M * cs.N), 3), "c");
  in.args = {Arg::buffer(a), Arg::buffer(b), Arg::buffer(c)};
  Compare cmp = cs.out == "fp16" ? Compare::f16(2e-3, 1e-2) : Compare::exact();
  k.expect_agree(in, {Compare::exact(), Compare::exact(), cmp});
  return k;
}

} // namespace

TEST(LowerDot, F16ToF32OnMma) {
  auto k = run_case({"fp16", "fp32", "tl.dot(a, b)", 16, 16, 16});
  // operands staged through shared memory and read by ldmatrix: A K-contiguous, B
  // N-contiguous (rows along K, transposed by .trans)
  EXPECT_NE(k.ptx().find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
  EXPECT_NE(k.ptx().find("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"), std::string::npos);
  run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 32, 64, 32});
  run_case({"fp16", "fp32", "tl.dot(a, b) + acc", 64, 32, 64, 8});
  // one warp holds the B tiles n and n + 8: one ldmatrix.x4 loads both
  auto k1 = run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 16, 16, 128, 1});
  EXPECT_NE(k1.ptx().find("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), std::string::npos);
}

TEST(LowerDot, Bf16AndF16AccumulatorAndTf32) {
  run_case({"bf16", "fp32", "tl.dot(a, b, acc)", 32, 32, 32});
  run_case({"fp16", "fp16", "tl.dot(a, b, acc, out_dtype=tl.float16)", 32, 32, 32});
  auto k = run_case({"fp32", "fp32", "tl.dot(a, b, acc)", 32, 16, 32});
  EXPECT_NE(k.ptx().find("cvt.rna.tf32.f32"), std::string::npos);
  EXPECT_NE(k.ptx().find("m16n8k8.row.col.f32.tf32.tf32.f32"), std::string::npos);
  // K-contiguous tf32 operands are read by ldmatrix (a 32-bit element = two 16-bit units
  // along K; no .trans): A always here, B when given as [N, K]
  EXPECT_NE(k.ptx().find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
  auto kt = run_case({"fp32", "fp32", "tl.dot(a, b, acc)", 32, 16, 32, 4, true});
  auto count = [](const std::string &ptx) {
    size_t n = 0;
    for (size_t at = ptx.find("ldmatrix"); at != std::string::npos;
         at = ptx.find("ldmatrix", at + 1))
      ++n;
    return n;
  };
  EXPECT_GT(count(kt.ptx()), count(k.ptx())); // B's too
  EXPECT_EQ(kt.ptx().find(".trans"), std::string::npos);
}

TEST(LowerDot, IeeeFp32AndInt8) {
  auto k =
      run_case({"fp32", "fp32", "tl.dot(a, b, acc, input_precision='ieee')", 32, 32, 16}, false);
  EXPECT_NE(k.ptx().find("fma.rn.f32"), std::string::npos);
  run_case({"fp32", "fp32", "tl.dot(a, b, acc, allow_tf32=False)", 16, 16, 16}, false);
  auto i = run_case({"i8", "i32", "tl.dot(a, b, acc)", 32, 32, 64});
  EXPECT_NE(i.ptx().find("m16n8k32.row.col.s32.s8.s8.s32"), std::string::npos);
  run_case({"i8", "i32", "tl.dot(a, b)", 16, 16, 16}, false); // K < 32: FMA (mad)
}

// fp64 runs on the tensor cores where Triton puts it (sm_80, sm_90: their fp64 units run
// at full rate): m16n8k8.f64 on sm_90, four m8n8k4 a tile on sm_80; FMA elsewhere.
TEST(LowerDot, Fp64OnTensorCores) {
  for (int warps : {4, 1}) {
    auto k = run_case({"fp64", "fp64", "tl.dot(a, b, acc)", 32, 16, 32, warps, false, 90, false});
    EXPECT_NE(k.ptx().find("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"), std::string::npos);
    auto k80 = run_case({"fp64", "fp64", "tl.dot(a, b, acc)", 32, 16, 32, warps, true, 80});
    EXPECT_NE(k80.ptx().find("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"), std::string::npos);
  }
  auto k = run_case({"fp64", "fp64", "tl.dot(a, b, acc)", 16, 16, 16, 4, false, 89}, false);
  EXPECT_NE(k.ptx().find("fma.rn.f64"), std::string::npos);
}

TEST(LowerDot, Fp8OperandsMixedFormatsUseFma) {
  // e4m3 x e5m2 (Triton allows the mix): decoded per operand, fp32 FMA; sm_89 and newer
  GpuKernelUnderTest k(dot_kernel("", "tl.dot(a, b, acc)"), "dot_kernel",
                       {"*fp8e4nv:16", "*fp8e5:16", "*fp32:16", "=16", "=16", "=32"}, 4, 90);
  Inputs in;
  std::mt19937 g(9);
  std::vector<uint8_t> a(16 * 32), b(32 * 16);
  // small values: e4m3 0x30..0x40 = 0.5..2 (and negatives), e5m2 0x38..0x40 = 0.5..2
  for (uint8_t &x : a)
    x = static_cast<uint8_t>((g() % 17 + 0x30) | (g() % 2 ? 0x80 : 0));
  for (uint8_t &x : b)
    x = static_cast<uint8_t>((g() % 9 + 0x38) | (g() % 2 ? 0x80 : 0));
  int pa = in.buffer(a, "a"), pb = in.buffer(b, "b");
  int pc = add_buffer(in, "fp32", quarters(16 * 16, 3), "c");
  in.args = {Arg::buffer(pa), Arg::buffer(pb), Arg::buffer(pc)};
  k.expect_agree(in, {Compare::exact(), Compare::exact(), Compare::f32(1e-6, 1e-6)});
}

TEST(LowerDot, TransposedOperand) {
  // B loaded K-contiguous as [N, K] and transposed: its ldmatrix needs no .trans
  auto k = run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 32, 32, 32, 4, true});
  EXPECT_NE(k.ptx().find("ldmatrix.sync.aligned.m8n8.x2.shared.b16"), std::string::npos);
  EXPECT_EQ(k.ptx().find(".trans"), std::string::npos);
}

TEST(LowerDot, SmallMAndNRunOnFmaUnits) {
  // Triton's bounds: any M and N, K >= 16 (tests dot3d with 1x32, 32x2 and 8x8 blocks)
  run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 1, 32, 32, 1}, false);
  run_case({"fp32", "fp32", "tl.dot(a, b, acc)", 32, 2, 16, 2}, false);
  run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 8, 8, 16, 4}, false);
}

TEST(LowerDot, SmallShapesAreAClearError) {
  try {
    GpuKernelUnderTest k(dot_kernel("fp16", "tl.dot(a, b)"), "dot_kernel",
                         {"*fp16:16", "*fp16:16", "*fp32:16", "=16", "=16", "=8"});
    ADD_FAILURE() << "K = 8 compiled";
  } catch (const CompileError &e) {
    EXPECT_NE(e.message().find("K >= 16"), std::string::npos) << e.message();
  }
}

TEST(LowerDot, ResultFeedsTheNextDotInRegisters) {
  // attention's p @ v: the first product (mma layout, fp16) is the second's A operand;
  // with the warps along M the thread already holds its fragment (no shared memory)
  const char *src = R"(@triton.jit
def chain(a_ptr, b_ptr, v_ptr, o_ptr):
    r = tl.arange(0, 64)
    c = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + c[None, :])
    b = tl.load(b_ptr + c[:, None] * 32 + c[None, :])
    v = tl.load(v_ptr + c[:, None] * 32 + c[None, :])
    p = tl.dot(a, b).to(tl.float16)
    tl.store(o_ptr + r[:, None] * 32 + c[None, :], tl.dot(p, v))
)";
  GpuKernelUnderTest k(src, "chain", {"*fp16:16", "*fp16:16", "*fp16:16", "*fp32:16"}, 4, 80);
  Inputs in;
  int pa = add_buffer(in, "fp16", quarters(64 * 32, 1), "a");
  int pb = add_buffer(in, "fp16", quarters(32 * 32, 2), "b");
  int pv = add_buffer(in, "fp16", quarters(32 * 32, 3), "v");
  int po = add_buffer(in, "fp32", std::vector<double>(64 * 32, 0), "o");
  in.args = {Arg::buffer(pa), Arg::buffer(pb), Arg::buffer(pv), Arg::buffer(po)};
  k.expect_agree(in);
  // ldmatrix for a (per warp 16x32: 2 x4), b and v (32x32, one warp's N: 2 x 2 x4 each);
  // p (2 more) is relabelled, not staged
  size_t loads = 0;
  for (size_t at = k.ptx().find("ldmatrix"); at != std::string::npos;
       at = k.ptx().find("ldmatrix", at + 1))
    ++loads;
  EXPECT_EQ(loads, 10u) << k.thread_ir();
}

TEST(LowerDot, BatchedDot) {
  const char *src = R"(@triton.jit
def bdot(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rk1 = tl.arange(0, K)[None, None, :]
    rk0 = tl.arange(0, K)[None, :, None]
    a = tl.load(a_ptr + rb * M * K + rm * K + rk1)
    b = tl.load(b_ptr + rb * K * N + rk0 * N + rn)
    c = tl.dot(a, b)
    tl.store(c_ptr + rb * M * N + rm * N + rn, c)
)";
  GpuKernelUnderTest k(src, "bdot",
                       {"*fp16:16", "*fp16:16", "*fp32:16", "=2", "=16", "=32", "=16"});
  EXPECT_NE(k.ptx().find("mma.sync.aligned"), std::string::npos);
  // batched operands are staged per batch and read by ldmatrix too
  EXPECT_NE(k.ptx().find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
  EXPECT_NE(k.ptx().find("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"), std::string::npos);
  Inputs in;
  int a = add_buffer(in, "fp16", quarters(2 * 16 * 16, 4), "a");
  int b = add_buffer(in, "fp16", quarters(2 * 16 * 32, 5), "b");
  int c = add_buffer(in, "fp32", std::vector<double>(2 * 16 * 32, 0), "c");
  in.args = {Arg::buffer(a), Arg::buffer(b), Arg::buffer(c)};
  k.expect_agree(in);
}

TEST(LowerDot, WgmmaOnSm90a) {
  // one warpgroup; A K-major (128B swizzle), B [K, N] row-major: MN-major (64B swizzle)
  auto k = run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 64, 32, 64, 4, false, 90});
  const std::string &ptx = k.ptx();
  EXPECT_NE(ptx.find("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16"), std::string::npos);
  EXPECT_NE(ptx.find("fence.proxy.async"), std::string::npos);
  EXPECT_NE(ptx.find("wgmma.fence.sync.aligned"), std::string::npos);
  EXPECT_NE(ptx.find("wgmma.commit_group.sync.aligned"), std::string::npos);
  EXPECT_NE(ptx.find("wgmma.wait_group.sync.aligned 0"), std::string::npos);
  EXPECT_EQ(ptx.find("ldmatrix"), std::string::npos);
  EXPECT_NE(ptx.find("st.shared.v4.b32"), std::string::npos) << "16-byte operand stores";
  EXPECT_NE(ptx.find(".extern .shared .align 1024"), std::string::npos) << "swizzle atoms";
  // two warpgroups along N (each its 64 x 16 of the result: B read at its column)
  run_case({"fp16", "fp32", "tl.dot(a, b) + acc", 64, 32, 32, 8, false, 90});
  // two along M, M repeated in registers, K = 16 (32B swizzle), B K-major (a tl.trans)
  run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 256, 16, 16, 8, true, 90});
  // N past one instruction's 256: repeated in registers
  auto wide = run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 64, 512, 16, 4, false, 90});
  EXPECT_NE(wide.ptx().find("m64n256k16"), std::string::npos);
  run_case({"bf16", "fp32", "tl.dot(a, b, acc)", 64, 64, 32, 4, false, 90});
  run_case({"fp16", "fp16", "tl.dot(a, b, acc, out_dtype=tl.float16)", 128, 64, 32, 4, true, 90});
  // tf32 (k8, K-major operands only: a row-major B is stored transposed)
  auto t = run_case({"fp32", "fp32", "tl.dot(a, b, acc)", 64, 16, 32, 4, false, 90});
  EXPECT_NE(t.ptx().find("wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32"), std::string::npos);
  EXPECT_NE(t.ptx().find("cvt.rna.tf32.f32"), std::string::npos);
  run_case({"fp32", "fp32", "tl.dot(a, b, acc)", 128, 32, 64, 8, true, 90});
  // int8 (k32, K-major: bytes packed four to a word, a row-major B stored byte by byte)
  auto i8 = run_case({"i8", "i32", "tl.dot(a, b, acc)", 64, 32, 64, 4, false, 90});
  EXPECT_NE(i8.ptx().find("wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8"), std::string::npos);
  run_case({"i8", "i32", "tl.dot(a, b)", 128, 16, 32, 8, true, 90});
  // int8 with K = 16 and ieee fp32 stay on FMA
  run_case({"i8", "i32", "tl.dot(a, b, acc)", 64, 16, 16, 4, false, 90}, false);
  run_case({"fp32", "fp32", "tl.dot(a, b, acc, input_precision='ieee')", 64, 16, 16, 4, false, 90},
           false);
}

TEST(LowerDot, WgmmaFallsBackToMmaSync) {
  // sm_90a, but M < 64 or 2 warps: mma.sync
  run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 32, 32, 32, 4, false, 90, false});
  run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 64, 32, 32, 2, false, 90, false});
  run_case({"i8", "i32", "tl.dot(a, b, acc)", 32, 32, 64, 4, false, 90, false});
  // sm_80 never has wgmma
  run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 64, 32, 64, 4, false, 80});
}

TEST(LowerDot, WgmmaChainAndTransposedA) {
  // attention's shape: p = dot(a, b) in the wgmma layout feeds dot(p, v); a arrives
  // transposed (M-contiguous: MN-major A)
  const char *src = R"(@triton.jit
def chain(a_ptr, b_ptr, v_ptr, o_ptr):
    r = tl.arange(0, 64)
    c = tl.arange(0, 32)
    a = tl.trans(tl.load(a_ptr + c[:, None] * 64 + r[None, :]))
    b = tl.load(b_ptr + c[:, None] * 32 + c[None, :])
    v = tl.load(v_ptr + c[:, None] * 32 + c[None, :])
    p = tl.dot(a, b).to(tl.float16)
    tl.store(o_ptr + r[:, None] * 32 + c[None, :], tl.dot(p, v))
)";
  GpuKernelUnderTest k(src, "chain", {"*fp16:16", "*fp16:16", "*fp16:16", "*fp32:16"}, 4, 90);
  Inputs in;
  int pa = add_buffer(in, "fp16", quarters(64 * 32, 1), "a");
  int pb = add_buffer(in, "fp16", quarters(32 * 32, 2), "b");
  int pv = add_buffer(in, "fp16", quarters(32 * 32, 3), "v");
  int po = add_buffer(in, "fp32", std::vector<double>(64 * 32, 0), "o");
  in.args = {Arg::buffer(pa), Arg::buffer(pb), Arg::buffer(pv), Arg::buffer(po)};
  k.expect_agree(in);
  EXPECT_NE(k.ptx().find("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16"), std::string::npos);
  EXPECT_EQ(k.ptx().find("mma.sync"), std::string::npos);
  // p's registers are the second product's A fragments: that wgmma reads A from registers
  EXPECT_NE(k.ptx().find("}, {%r"), std::string::npos) << k.ptx();
}

namespace {

// A K loop; `body` computes acc from a and b (a loop-carried accumulator), after the loop
// `epi` is stored (the simulator runs it against the tile interpreter).
void run_k_loop(const std::string &body, const std::string &epi, int M, int N, int K, int BK,
                int warps, bool pipelined) {
  SCOPED_TRACE(body + " " + std::to_string(M) + "x" + std::to_string(N) + " K " +
               std::to_string(K) + " BK " + std::to_string(BK));
  std::string src = R"(@triton.jit
def mm(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=kk[None, :] < K, other=0.0)
        b = tl.load(b_ptr + kk[:, None] * BN + rn[None, :], mask=kk[:, None] < K, other=0.0)
        )" + body + R"(
    c = )" + epi + R"(
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)
)";
  GpuKernelUnderTest k(src, "mm",
                       {"*fp16:16", "*fp16:16", "*fp32:16", "i32", "=" + std::to_string(M),
                        "=" + std::to_string(N), "=" + std::to_string(BK)},
                       warps, 90);
  const std::string &ptx = k.ptx();
  EXPECT_NE(ptx.find("wgmma.mma_async"), std::string::npos);
  EXPECT_EQ(ptx.find("wgmma.wait_group.sync.aligned 1") != std::string::npos, pipelined) << ptx;
  Inputs in;
  int a = add_buffer(in, "fp16", quarters(static_cast<size_t>(M * K), 1), "a");
  int b = add_buffer(in, "fp16", quarters(static_cast<size_t>(K * N), 2), "b");
  int c = add_buffer(in, "fp32", std::vector<double>(static_cast<size_t>(M * N), -1), "c");
  in.args = {Arg::buffer(a), Arg::buffer(b), Arg::buffer(c), Arg::integer(K)};
  k.expect_agree(in);
}

} // namespace

TEST(LowerDot, WgmmaKLoopKeepsOneGroupInFlight) {
  // acc = dot(a, b, acc) in a loop: two operand buffers, wait_group 1, the accumulator in
  // the carried registers, wait_group 0 after the loop (before the epilogue's scratch)
  const char *chain = "acc = tl.dot(a, b, acc)";
  run_k_loop(chain, "acc", 64, 32, 96, 32, 4, true);
  run_k_loop(chain, "acc", 128, 64, 80, 16, 8, true); // masked tail, two warpgroups
  run_k_loop(chain, "acc", 64, 64, 16, 16, 4, true);  // one iteration
  run_k_loop(chain, "acc", 64, 32, 0, 32, 4, true);   // no iteration
  // the epilogue reduces across warps through shared memory right after the loop
  run_k_loop(chain, "acc + tl.max(acc, axis=0)[None, :]", 128, 32, 64, 32, 8, true);
  // acc += dot(a, b) is folded into the chain
  run_k_loop("acc += tl.dot(a, b)", "acc", 64, 32, 64, 32, 4, true);
  // not a chain (the accumulator is scaled first; another scratch user in the loop): one
  // group at a time
  run_k_loop("acc = acc * 0.5 + tl.dot(a, b)", "acc", 64, 32, 64, 32, 4, false);
  run_k_loop("acc = tl.dot(a, b, acc) + tl.max(acc, axis=0)[None, :]", "acc", 128, 32, 64, 32, 8,
             false);
}

} // namespace tilec::lower::test

namespace tilec::lower::test {

TEST(LowerDot, WgmmaLoopInvariantOperandStoredOnce) {
  // q is loaded before the loop: its shared-memory copy is made once, before the loop
  // (attention's q @ k^T); a reduction in the loop uses scratch beside it
  const char *src = R"(@triton.jit
def inv(q_ptr, k_ptr, o_ptr, N):
    r = tl.arange(0, 64)
    c = tl.arange(0, 32)
    q = tl.load(q_ptr + r[:, None] * 32 + c[None, :])
    acc = tl.zeros((64, 32), dtype=tl.float32)
    for n0 in range(0, N, 32):
        kt = tl.load(k_ptr + (n0 + c)[:, None] * 32 + c[None, :])
        s = tl.dot(q, tl.trans(kt))
        acc = acc * 0.5 + s + tl.max(s, axis=0)[None, :]
    tl.store(o_ptr + r[:, None] * 32 + c[None, :], acc)
)";
  GpuKernelUnderTest k(src, "inv", {"*fp16:16", "*fp16:16", "*fp32:16", "i32"}, 4, 90);
  const std::string &ptx = k.ptx();
  size_t loop = ptx.find("$L__loop:");
  ASSERT_NE(loop, std::string::npos) << ptx;
  size_t first_store = ptx.find("st.shared");
  EXPECT_LT(first_store, loop) << "q is not stored before the loop:\n" << ptx;
  EXPECT_NE(ptx.find("wgmma.mma_async"), std::string::npos);
  Inputs in;
  int pq = add_buffer(in, "fp16", quarters(64 * 32, 1), "q");
  int pk = add_buffer(in, "fp16", quarters(96 * 32, 2), "k");
  int po = add_buffer(in, "fp32", std::vector<double>(64 * 32, 0), "o");
  in.args = {Arg::buffer(pq), Arg::buffer(pk), Arg::buffer(po), Arg::integer(96)};
  k.expect_agree(in);
}

} // namespace tilec::lower::test

namespace tilec::lower::test {

TEST(LowerDot, WgmmaChainLastInAnOuterLoopIsNotPipelined) {
  // the inner K loop is the outer body's last op: its yield would read the accumulator
  // before a wait after the loop could run, so the chain waits for each group
  const char *src = R"(@triton.jit
def nest(a_ptr, b_ptr, c_ptr, K):
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 32)
    rk = tl.arange(0, 16)
    acc = tl.zeros((64, 32), dtype=tl.float32)
    for j in range(0, 2):
        for k0 in range(0, K, 16):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
            b = tl.load(b_ptr + (k0 + rk)[:, None] * 32 + rn[None, :])
            acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * 32 + rn[None, :], acc)
)";
  // With num_stages > 1 the shared-memory ring's async_wait follows the inner loop: the
  // chain's wait goes before it, and the chain is pipelined.
  for (int stages : {1, 3}) {
    GpuKernelUnderTest k(src, "nest", {"*fp16:16", "*fp16:16", "*fp32:16", "i32"}, 4, 90, stages);
    EXPECT_NE(k.ptx().find("wgmma.mma_async"), std::string::npos);
    EXPECT_EQ(k.ptx().find("wgmma.wait_group.sync.aligned 1") != std::string::npos, stages > 1)
        << k.ptx();
    Inputs in;
    int pa = add_buffer(in, "fp16", quarters(64 * 48, 1), "a");
    int pb = add_buffer(in, "fp16", quarters(48 * 32, 2), "b");
    int pc = add_buffer(in, "fp32", std::vector<double>(64 * 32, 0), "c");
    in.args = {Arg::buffer(pa), Arg::buffer(pb), Arg::buffer(pc), Arg::integer(48)};
    k.expect_agree(in);
  }
}

} // namespace tilec::lower::test

namespace tilec::lower::test {

TEST(LowerDot, WgmmaOffByEnvironment) {
  // TILEC_WGMMA=0: the same dot on sm_90a takes mma.sync
  ::setenv("TILEC_WGMMA", "0", 1);
  run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 64, 32, 32, 4, false, 90, false});
  ::unsetenv("TILEC_WGMMA");
  run_case({"fp16", "fp32", "tl.dot(a, b, acc)", 64, 32, 32, 4, false, 90});
}

} // namespace tilec::lower::test
