// Whole kernels whose dot loops run through the shared-memory ring (layout/PipelineLoops
// makes it, lower/LowerRing.cpp and LowerWgmma / LowerDotOperand lower it): the SIMT
// simulator against the tile interpreter (which runs the loop as written, so the
// pipelined schedule must compute the same), and the PTX accepted by ptxas for sm_90a and
// sm_80 (GpuKernelUnderTest). Inputs are multiples of 1/4: fp32 sums are exact, so the
// results agree to the bit (fp16 / bf16 outputs: to one rounding).
#include <random>

#include "../SeedKernels.h"
#include "LowerTestUtil.h"

namespace tilec::lower::test {
namespace {

uint16_t half_bits(double v, bool bf16) {
  float f = static_cast<float>(v);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if (bf16)
    return static_cast<uint16_t>(b >> 16); // quarters up to 2 are exact in bf16
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int e = 0;
  double m = std::frexp(std::fabs(v), &e);
  return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) |
                               static_cast<uint16_t>(std::lround((m * 2 - 1) * 1024)));
}

std::vector<uint16_t> quarters(size_t n, unsigned seed, bool bf16 = false) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(-8, 8);
  std::vector<uint16_t> v(n);
  for (uint16_t &x : v)
    x = half_bits(d(g) / 4.0, bf16);
  return v;
}

int count(const std::string &s, const std::string &what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
    ++n;
  return n;
}

// The run-time arguments for `sig`: buffers in order, then the integers of `ints`, those
// specialised to 1 (":1") or constexpr ("=") left out as the launch expects.
std::vector<Arg> args_for(const std::vector<std::string> &sig, const std::vector<int> &bufs,
                          const std::vector<int64_t> &ints) {
  std::vector<Arg> out;
  size_t b = 0, i = 0;
  for (const std::string &e : sig) {
    if (e[0] == '=')
      continue;
    if (e[0] == '*') {
      out.push_back(Arg::buffer(bufs.at(b++)));
      continue;
    }
    int64_t v = ints.at(i++);
    if (e.size() > 2 && e.substr(e.size() - 2) == ":1")
      continue;
    out.push_back(Arg::integer(v));
  }
  return out;
}

// ---- a matmul loop with strides and masks (B row- or column-major) ----------------------

const char *kMatmul = R"(@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm,
       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
)";

struct MmCase {
  int bm, bn, bk, warps, stages;
  int m, n, k; // multiples of 16 (the strides): 16-byte aligned rows
  bool b_kmajor = false;
  bool bf16 = false;
  int sm = 90;
};

// Runs the case; returns the PTX.
std::string run_mm(const MmCase &c) {
  SCOPED_TRACE("mm " + std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" +
               std::to_string(c.bk) + " warps " + std::to_string(c.warps) + " stages " +
               std::to_string(c.stages) + " sm_" + std::to_string(c.sm) + " M,N,K " +
               std::to_string(c.m) + "," + std::to_string(c.n) + "," + std::to_string(c.k) +
               (c.b_kmajor ? " B K-major" : "") + (c.bf16 ? " bf16" : ""));
  std::string e = c.bf16 ? "bf16" : "fp16";
  // B row-major: sbk = N (:16), sbn = 1; K-major: sbk = 1, sbn = K
  std::vector<std::string> sig = {"*" + e + ":16", "*" + e + ":16", "*fp32:16", "i32",
                                  "i32:16",        "i32:16",        "i32:16",   "i32:1"};
  sig.push_back(c.b_kmajor ? "i32:1" : "i32:16");
  sig.push_back(c.b_kmajor ? "i32:16" : "i32:1");
  sig.push_back("i32:16");
  for (int v : {c.bm, c.bn, c.bk})
    sig.push_back("=" + std::to_string(v));
  GpuKernelUnderTest k(kMatmul, "mm", sig, c.warps, c.sm, c.stages);
  Inputs in;
  int a = in.buffer(quarters(static_cast<size_t>(c.m * c.k), 1, c.bf16), "a");
  int b = in.buffer(quarters(static_cast<size_t>(c.k * c.n), 2, c.bf16), "b");
  int out = in.buffer(std::vector<float>(static_cast<size_t>(c.m * c.n), -1.0f), "c");
  in.args = args_for(sig, {a, b, out},
                     {c.m, c.n, c.k, c.k, 1, c.b_kmajor ? 1 : c.n, c.b_kmajor ? c.k : 1, c.n});
  in.grid = {(c.m + c.bm - 1) / c.bm, (c.n + c.bn - 1) / c.bn, 1};
  k.expect_agree(in);
  const std::string &ptx = k.ptx();
  // both operands through the ring: S - 1 prologue copies and one in the loop, each
  // 16-byte cp.async
  EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos) << k.thread_ir();
  EXPECT_NE(ptx.find("cp.async.wait_group " + std::to_string(c.stages - 2)), std::string::npos)
      << ptx;
  bool wgmma = c.sm >= 90 && c.warps % 4 == 0;
  EXPECT_EQ(ptx.find("wgmma.mma_async") != std::string::npos, wgmma);
  if (wgmma) { // no operand stores in the loop: wgmma reads the stages in place
    size_t lo = ptx.find("$L__loop:"), hi = ptx.find("$L__endloop:");
    EXPECT_TRUE(lo != std::string::npos && hi != std::string::npos &&
                ptx.substr(lo, hi - lo).find("st.shared") == std::string::npos)
        << ptx;
    EXPECT_NE(ptx.find("wgmma.wait_group.sync.aligned 1;\n  bar.sync 0;"), std::string::npos)
        << ptx;
  } else
    EXPECT_NE(ptx.find("ldmatrix"), std::string::npos) << ptx;
  return ptx;
}

TEST(RingKernels, WgmmaMatmulStagesAndTails) {
  for (int s : {2, 3, 4})
    run_mm({64, 64, 32, 4, s, 144, 80, 112}); // tails in M, N, K
  run_mm({64, 64, 32, 4, 3, 64, 64, 32});     // one iteration (the others masked off)
  run_mm({64, 64, 32, 4, 4, 64, 64, 16});     // a partial first tile only
  run_mm({64, 64, 32, 4, 3, 64, 64, 0});      // no iteration
}

TEST(RingKernels, WgmmaMatmulOrdersAndDtypes) {
  MmCase c{64, 64, 32, 4, 3, 80, 144, 96};
  c.b_kmajor = true;
  run_mm(c);
  c.b_kmajor = false;
  c.bf16 = true;
  run_mm(c);
  c.b_kmajor = true;
  run_mm(c);
}

TEST(RingKernels, WgmmaMatmulTwoWarpgroups) {
  run_mm({128, 64, 32, 8, 3, 144, 80, 80});
  run_mm({64, 128, 64, 8, 2, 80, 144, 144});
}

TEST(RingKernels, MmaSyncMatmul) {
  for (int s : {2, 3, 4})
    run_mm({64, 32, 32, 2, s, 80, 48, 112, false, false, 80});
  MmCase c{32, 64, 32, 2, 3, 48, 80, 80, true, false, 80};
  run_mm(c);
  c.bf16 = true;
  c.sm = 90; // 2 warps: mma.sync on sm_90a too
  run_mm(c);
  run_mm({64, 64, 32, 4, 4, 80, 80, 96, false, false, 80});
}

// ---- the seed kernels -------------------------------------------------------------------

std::vector<std::string> seed_mm_sig(int bm, int bn, int bk) {
  return {"*fp16:16",
          "*fp16:16",
          "*fp16:16",
          "i32",
          "i32:16",
          "i32:16",
          "i32:16",
          "i32:1",
          "i32:16",
          "i32:1",
          "i32:16",
          "i32:1",
          "=" + std::to_string(bm),
          "=" + std::to_string(bn),
          "=" + std::to_string(bk),
          "=8"};
}

void run_seed_matmul(int bm, int bn, int bk, int warps, int stages, int sm, int m, int n, int k) {
  SCOPED_TRACE("seed matmul " + std::to_string(bm) + "x" + std::to_string(bn) + "x" +
               std::to_string(bk) + " warps " + std::to_string(warps) + " stages " +
               std::to_string(stages) + " sm_" + std::to_string(sm));
  GpuKernelUnderTest kt(tilec::test::seed_kernel("matmul_kernel"), "matmul_kernel",
                        seed_mm_sig(bm, bn, bk), warps, sm, stages);
  Inputs in;
  int a = in.buffer(quarters(static_cast<size_t>(m * k), 3), "a");
  int b = in.buffer(quarters(static_cast<size_t>(k * n), 4), "b");
  int c = in.buffer(std::vector<uint16_t>(static_cast<size_t>(m * n), 0x7e00), "c");
  in.args = args_for(seed_mm_sig(bm, bn, bk), {a, b, c}, {m, n, k, k, 1, n, 1, n, 1});
  in.grid = {((m + bm - 1) / bm) * ((n + bn - 1) / bn), 1, 1};
  kt.expect_agree(in, {Compare::exact(), Compare::exact(), Compare::f16(0, 0)});
  EXPECT_NE(kt.ptx().find("cp.async.cg.shared.global"), std::string::npos) << kt.thread_ir();
}

TEST(RingKernels, SeedMatmulBigWgmmaConfigs) {
  run_seed_matmul(128, 256, 64, 8, 3, 90, 144, 272, 144);
  run_seed_matmul(64, 256, 32, 4, 4, 90, 80, 272, 112);
}

TEST(RingKernels, SeedMatmulSmallConfigs) {
  run_seed_matmul(128, 128, 32, 4, 4, 90, 144, 144, 80);
  run_seed_matmul(64, 32, 32, 2, 5, 90, 80, 48, 176);
  run_seed_matmul(32, 64, 32, 2, 5, 80, 48, 80, 112);
  run_seed_matmul(128, 64, 32, 4, 4, 80, 144, 80, 80);
}

// allocate_shared keeps every ring apart from the scratch of the ops inside its loop (the
// softmax's reductions here), which run while copies land in the ring.
void expect_rings_apart_from_loop_scratch(ir::Module &m) {
  std::vector<std::pair<int64_t, int64_t>> rings, in_loop;
  int rings_seen = 0;
  ir::walk(m.functions.front()->entry(), [&](ir::Op *op) {
    if (!op->has_attr("smem_offset"))
      return;
    std::pair<int64_t, int64_t> r{op->int_attr("smem_offset"),
                                  op->int_attr("smem_offset") + op->int_attr("smem_size")};
    if (op->kind() == ir::OpKind::LocalAlloc) {
      rings.push_back(r);
      ++rings_seen;
    } else if (op->parent() != m.functions.front()->entry()) {
      in_loop.push_back(r);
    }
  });
  EXPECT_EQ(rings_seen, 2);
  EXPECT_FALSE(in_loop.empty());
  for (auto a : rings)
    for (auto b : in_loop)
      EXPECT_TRUE(a.second <= b.first || b.second <= a.first)
          << "ring [" << a.first << ", " << a.second << ") overlaps loop scratch [" << b.first
          << ", " << b.second << ")";
}

void run_seed_attention(int block_m, int block_n, int d, int warps, int stages, int sm, int n_ctx) {
  SCOPED_TRACE("seed attention " + std::to_string(block_m) + "x" + std::to_string(block_n) + " D " +
               std::to_string(d) + " warps " + std::to_string(warps) + " stages " +
               std::to_string(stages) + " sm_" + std::to_string(sm) + " N_CTX " +
               std::to_string(n_ctx));
  std::vector<std::string> sig = {"*fp16:16", "*fp16:16", "*fp16:16", "*fp16:16"};
  for (int i = 0; i < 4; ++i) // strides z, h, m, k of q, k, v, o (contiguous [1, 1, N, D])
    for (const char *s : {"i32:16", "i32:16", "i32:16", "i32:1"})
      sig.push_back(s);
  for (const char *s : {"i32", "i32", "i32"})
    sig.push_back(s);
  for (int v : {block_m, block_n, d})
    sig.push_back("=" + std::to_string(v));
  GpuKernelUnderTest kt(tilec::test::seed_kernel("fused_attention_kernel"),
                        "fused_attention_kernel", sig, warps, sm, stages);
  size_t numel = static_cast<size_t>(n_ctx * d);
  Inputs in;
  std::mt19937 g(7);
  std::uniform_int_distribution<int> dist(-4, 4);
  auto small = [&] { // multiples of 1/16 in [-1/4, 1/4]: scores stay small
    std::vector<uint16_t> v(numel);
    for (uint16_t &x : v)
      x = half_bits(dist(g) / 16.0, false);
    return v;
  };
  int q = in.buffer(small(), "q"), kk = in.buffer(small(), "k"), v = in.buffer(small(), "v");
  int o = in.buffer(std::vector<uint16_t>(numel, 0x7e00), "o");
  std::vector<int64_t> ints;
  for (int i = 0; i < 4; ++i)
    for (int64_t st : {int64_t(n_ctx) * d, int64_t(n_ctx) * d, int64_t(d), int64_t(1)})
      ints.push_back(st);
  for (int64_t st : {1, 1, n_ctx})
    ints.push_back(st);
  in.args = args_for(sig, {q, kk, v, o}, ints);
  in.grid = {(n_ctx + block_m - 1) / block_m, 1, 1};
  kt.expect_agree(in,
                  {Compare::exact(), Compare::exact(), Compare::exact(), Compare::f16(2e-2, 2e-3)});
  // k and v through rings; q loaded once before the loop
  EXPECT_GE(count(kt.ptx(), "cp.async.cg.shared.global"), 2) << kt.thread_ir();
  expect_rings_apart_from_loop_scratch(*kt.gpu().tile.module);
}

TEST(RingKernels, SeedAttentionWgmma) {
  run_seed_attention(128, 64, 64, 4, 2, 90, 200);
  run_seed_attention(64, 64, 64, 4, 3, 90, 176);
}

TEST(RingKernels, SeedAttentionMmaSync) { run_seed_attention(64, 64, 64, 4, 2, 80, 144); }

} // namespace
} // namespace tilec::lower::test
