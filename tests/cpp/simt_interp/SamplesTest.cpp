// The sample kernels (tests/cpp/simt/Programs.h) run on the simulator with checked results.
#include <algorithm>
#include <numeric>

#include "SimTestUtil.h"

using namespace tilec;
using namespace tilec::simt;
using namespace tilec::simt::test;

TEST(SimSamples, VectorAddPredicatedV4) {
  const int n = 1000; // not a multiple of the 512 elements a CTA covers
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i) * 0.5f;
    y[i] = 1.0f / static_cast<float>(i + 1);
  }
  Function fn = vector_add(4);
  int grid = (n + 511) / 512;
  RunResult r =
      run(fn,
          {SimArg::pointer(x.data()), SimArg::pointer(y.data()), SimArg::pointer(out.data()),
           SimArg::integer(n)},
          {buffer(x, "x_ptr"), buffer(y, "y_ptr"), buffer(out, "out_ptr")}, {.grid = {grid, 1, 1}});
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], x[i] + y[i]) << i;
  EXPECT_GT(r.steps, 0u);
  EXPECT_EQ(r.output, "");
}

TEST(SimSamples, VectorAddMaskIsNeeded) {
  // Without the guard, the last CTA's lanes would run past the buffers: the simulator
  // names the buffer and the byte range instead of touching memory.
  const int n = 1000;
  std::vector<float> x(n), y(n), out(n);
  Function fn = vector_add(4);
  for (Block &b : fn.blocks)
    for (Instr &in : b.instrs)
      in.guard = Guard{};
  std::string err = sim_error([&] {
    run(fn,
        {SimArg::pointer(x.data()), SimArg::pointer(y.data()), SimArg::pointer(out.data()),
         SimArg::integer(n)},
        {buffer(x, "x_ptr"), buffer(y, "y_ptr"), buffer(out, "out_ptr")}, {.grid = {2, 1, 1}});
  });
  EXPECT_TRUE(contains(err, "out-of-bounds load from global memory")) << err;
  EXPECT_TRUE(contains(err, "past the end of 'x_ptr'")) << err;
  EXPECT_TRUE(contains(err, "CTA (1, 0, 0), thread 122")) << err;
  EXPECT_TRUE(contains(err, "ld.global.v4.b32")) << err;
}

TEST(SimSamples, WarpReduceButterfly) {
  const int warps = 2, ctas = 3, n = warps * 32 * ctas;
  std::vector<float> x(n), out(n / 32, 0.0f);
  for (int i = 0; i < n; ++i)
    x[i] = static_cast<float>((i * 7) % 13) - 6.0f;
  run(warp_reduce(warps), {SimArg::pointer(x.data()), SimArg::pointer(out.data())},
      {buffer(x, "x"), buffer(out, "out")}, {.grid = {ctas, 1, 1}});
  for (int w = 0; w < n / 32; ++w) {
    // the butterfly's order: pairs (i, i ^ 16), then ^8, ... (exact here: small integers)
    float s = 0;
    for (int i = 0; i < 32; ++i)
      s += x[w * 32 + i];
    EXPECT_EQ(out[w], s) << w;
  }
}

TEST(SimSamples, BlockReduceThroughSharedMemory) {
  for (int warps : {1, 4, 8}) {
    const int ctas = 5, per = warps * 32;
    std::vector<float> x(ctas * per), out(ctas, -1.0f);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(i % 17);
    run(block_reduce(warps), {SimArg::pointer(x.data()), SimArg::pointer(out.data())},
        {buffer(x, "x"), buffer(out, "out")}, {.grid = {ctas, 1, 1}});
    for (int c = 0; c < ctas; ++c) {
      float s = 0;
      for (int i = 0; i < per; ++i)
        s += x[c * per + i];
      EXPECT_EQ(out[c], s) << "warps " << warps << " cta " << c;
    }
  }
}

TEST(SimSamples, BlockReduceNeedsTheBarrier) {
  // Dropping bar.sync lets warp 0 read the partial sums before warps 1..3 wrote them.
  Function fn = block_reduce(4);
  auto &ins = fn.blocks[0].instrs;
  ins.erase(std::remove_if(ins.begin(), ins.end(), [](const Instr &i) { return i.op == Op::Bar; }),
            ins.end());
  std::vector<float> x(128, 1.0f), out(1, 0.0f);
  run(fn, {SimArg::pointer(x.data()), SimArg::pointer(out.data())},
      {buffer(x, "x"), buffer(out, "out")});
  EXPECT_EQ(out[0], 32.0f); // only warp 0's own partial: the others had not run yet
}

TEST(SimSamples, AtomicCounter) {
  const int warps = 2, ctas = 4, n = warps * 32 * ctas;
  std::vector<uint32_t> counter(1, 0), out(n, 0xdeadbeef);
  run(atomic_counter(warps), {SimArg::pointer(counter.data()), SimArg::pointer(out.data())},
      {buffer(counter, "counter"), buffer(out, "out")}, {.grid = {ctas, 1, 1}});
  EXPECT_EQ(counter[0], static_cast<uint32_t>(n));
  std::vector<uint32_t> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(sorted[i], static_cast<uint32_t>(i));
}

TEST(SimSamples, Printf) {
  std::vector<float> x{1.5f, -2.25f};
  RunResult r =
      run(printf_kernel(), {SimArg::pointer(x.data())}, {buffer(x, "x")}, {.grid = {2, 1, 1}});
  EXPECT_EQ(r.output, "pid (0) tid 0: x=1.50 big=1099511627776 100%\n"
                      "pid (0) tid 1: x=-2.25 big=1099511627777 100%\n"
                      "pid (1) tid 0: x=1.50 big=1099511627776 100%\n"
                      "pid (1) tid 1: x=-2.25 big=1099511627777 100%\n");
}

TEST(SimSamples, DivergentLoopAndIfReconverge) {
  for (int warps : {1, 3}) {
    std::vector<uint32_t> out(warps * 32, 0);
    run(divergent(warps), {SimArg::pointer(out.data())}, {buffer(out, "out")});
    auto f = [](int t) {
      uint32_t trips = static_cast<uint32_t>(t % 5);
      uint32_t acc = trips == 0 ? 0 : trips * (trips - 1) / 2;
      return (t & 1) ? acc * 2 : acc + 100;
    };
    for (int t = 0; t < warps * 32; ++t) // lane 0's value arrives through shfl.idx
      ASSERT_EQ(out[t], f(t) + f(t / 32 * 32) * 1000) << "thread " << t;
  }
}
