// Software-pipelined dot loops (transforms/PipelineLoads.h, run at the start of the GPU
// path) on the SIMT simulator against the tile interpreter, which runs the loop as
// written: K loops with masked tails, fp16 and tf32 operands, pointers carried or
// computed from the induction variable.
#include <random>

#include "LowerTestUtil.h"
#include "ir/Printer.h"

namespace tilec::lower::test {
namespace {

const char *kCarried = R"(@triton.jit
def mm(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
)";

const char *kFromIv = R"(@triton.jit
def mm(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=kk[None, :] < K, other=0.0)
        b = tl.load(b_ptr + kk[:, None] * BN + rn[None, :], mask=kk[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
)";

uint16_t f16_bits(double v) { // exact for the small quarters used here
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int e = 0;
  double m = std::frexp(std::fabs(v), &e);
  return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) |
                               static_cast<uint16_t>(std::lround((m * 2 - 1) * 1024)));
}

std::vector<double> quarters(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(-8, 8);
  std::vector<double> v(n);
  for (double &x : v)
    x = d(g) / 4.0;
  return v;
}

void run_mm(const char *src, const std::string &ty, int M, int N, int K, int BK, int warps) {
  SCOPED_TRACE(ty + " " + std::to_string(M) + "x" + std::to_string(N) + " K " + std::to_string(K) +
               " BK " + std::to_string(BK));
  GpuKernelUnderTest k(src, "mm",
                       {"*" + ty + ":16", "*" + ty + ":16", "*fp32:16", "i32",
                        "=" + std::to_string(M), "=" + std::to_string(N), "=" + std::to_string(BK)},
                       warps);
  // The loop carries the prefetched tiles: its loads are issued before the loop too.
  std::string ir = ir::print(*k.gpu().tile.module);
  size_t for_at = ir.find(" = for ");
  ASSERT_NE(for_at, std::string::npos) << ir;
  EXPECT_LT(ir.find(" = load "), for_at) << "not pipelined:\n" << ir;
  Inputs in;
  std::vector<double> a = quarters(static_cast<size_t>(M * K), 1),
                      b = quarters(static_cast<size_t>(K * N), 2);
  int ia, ib;
  if (ty == "fp16") {
    std::vector<uint16_t> ha, hb;
    for (double x : a)
      ha.push_back(f16_bits(x));
    for (double x : b)
      hb.push_back(f16_bits(x));
    ia = in.buffer(ha, "a");
    ib = in.buffer(hb, "b");
  } else {
    ia = in.buffer(std::vector<float>(a.begin(), a.end()), "a");
    ib = in.buffer(std::vector<float>(b.begin(), b.end()), "b");
  }
  int ic = in.buffer(std::vector<float>(static_cast<size_t>(M * N), -1.0f), "c");
  in.args = {Arg::buffer(ia), Arg::buffer(ib), Arg::buffer(ic), Arg::integer(K)};
  k.expect_agree(in, {Compare::exact(), Compare::exact(), Compare::exact()});
}

} // namespace

TEST(PipelineLoads, CarriedPointersWithAMaskedTail) {
  run_mm(kCarried, "fp16", 32, 32, 80, 32, 4); // 3 iterations, the last half masked
  run_mm(kCarried, "fp16", 16, 64, 16, 16, 2); // one iteration: the prefetch is masked off
}

TEST(PipelineLoads, PointersFromTheInductionVariable) {
  run_mm(kFromIv, "fp16", 64, 32, 96, 32, 4);
  run_mm(kFromIv, "fp32", 32, 16, 40, 16, 4); // tf32 products of quarters are exact
}

TEST(PipelineLoads, ZeroTripLoopLoadsNothing) { run_mm(kFromIv, "fp16", 16, 16, 0, 16, 4); }

} // namespace tilec::lower::test
