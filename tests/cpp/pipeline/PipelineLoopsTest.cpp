// The stage "pipeline-loops" (layout/PipelineLoops.h) on whole kernels: the schedule's
// shape in the IR text, and the tile interpreter running each kernel before and after the
// stage (the rings are interpreted: copies at issue), which must agree bit for bit. The
// pass is forced (PipelineLoopsOptions::force) so these run whatever consumers the
// lowering supports yet.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "../SeedKernels.h"
#include "../TextCount.h"
#include "interp/tile/Interpreter.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "layout/AssignLayouts.h"
#include "layout/PipelineLoops.h"
#include "layout/PlanRings.h"
#include "layout/RemoveConversions.h"
#include "pipeline/Pipeline.h"

using namespace tilec;

namespace {

std::shared_ptr<sema::FunctionSource> source(const std::string &name, const std::string &text) {
  auto f = std::make_shared<sema::FunctionSource>();
  f->name = name;
  f->file = "kernels.py";
  f->source = text;
  f->first_line = 1;
  f->globals = {{"tl", sema::Val::module("tilec.language")},
                {"triton", sema::Val::module("tilec")}};
  return f;
}

sema::ArgSpec ptr16() {
  sema::ArgSpec a;
  a.kind = sema::ArgSpec::Kind::Pointer;
  a.dtype = ir::DType::F16;
  a.divisible_by_16 = true;
  return a;
}
sema::ArgSpec integer(int64_t v) {
  sema::ArgSpec a;
  a.kind = sema::ArgSpec::Kind::Int;
  a.divisible_by_16 = v % 16 == 0;
  a.equal_to_1 = v == 1;
  return a;
}
sema::ArgSpec constexpr_int(int64_t v) {
  sema::ArgSpec a;
  a.kind = sema::ArgSpec::Kind::Constexpr;
  a.value = sema::Val::integer(v);
  return a;
}

// The kernel through the tile stages and layout assignment (sm_90a's wgmma when asked).
pipeline::CompiledTileKernel with_layouts(const std::shared_ptr<sema::FunctionSource> &src,
                                          const std::vector<sema::ArgSpec> &args, int warps,
                                          int stages, bool wgmma) {
  pipeline::PipelineOptions po;
  po.verify = true;
  po.compile.num_warps = warps;
  po.compile.num_stages = stages;
  pipeline::CompiledTileKernel k = pipeline::compile_to_tile_ir(src, args, po, nullptr);
  if (wgmma)
    k.module->attrs.push_back({"wgmma", int64_t{1}});
  layout::assign_layouts(*k.module);
  layout::remove_conversions(*k.module); // the pipeline's next stage
  ir::verify(*k.module);
  return k;
}

uint16_t f16_bits(double v) { // exact for the small quarters used here
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int e = 0;
  double m = std::frexp(std::fabs(v), &e);
  return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) |
                               static_cast<uint16_t>(std::lround((m * 2 - 1) * 1024)));
}

std::vector<uint16_t> quarters(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(-8, 8);
  std::vector<uint16_t> v(n);
  for (uint16_t &x : v)
    x = f16_bits(d(g) / 4.0);
  return v;
}

// Runs `k` with fp16 buffers (the last one the output, filled with a marker) and the
// integer arguments `ints` after the pointers; returns the output buffer.
std::vector<uint16_t> run(const pipeline::CompiledTileKernel &k,
                          std::vector<std::vector<uint16_t>> bufs, const std::vector<int64_t> &ints,
                          std::array<int64_t, 3> grid) {
  std::fill(bufs.back().begin(), bufs.back().end(), uint16_t{0x7e00});
  std::vector<interp::KernelArg> args;
  std::vector<interp::Buffer> ranges;
  for (size_t i = 0; i < bufs.size(); ++i) {
    args.push_back(interp::KernelArg::pointer(bufs[i].data()));
    ranges.push_back({reinterpret_cast<uint64_t>(bufs[i].data()), bufs[i].size() * 2,
                      "buf" + std::to_string(i), i + 1 == bufs.size()});
  }
  const ir::Function &fn = *k.module->functions[0];
  for (int64_t v : ints)
    if (v != 1) // specialised away (equal_to_1): not a parameter any more
      args.push_back(interp::KernelArg::integer(v));
  EXPECT_EQ(args.size(), fn.entry()->num_args());
  interp::LaunchOptions lo;
  lo.grid = grid;
  interp::run(fn, args, ranges, lo, *k.sources);
  return bufs.back();
}

struct MatmulCase {
  int bm, bn, bk, warps, stages;
  bool wgmma;
  bool b_k_major; // B stored transposed (K contiguous)
  int M, N, K;
};

std::string name(const MatmulCase &c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk) + " w" +
         std::to_string(c.warps) + " S" + std::to_string(c.stages) + (c.wgmma ? " wgmma" : " mma") +
         (c.b_k_major ? " B K-major" : " B N-major") + " M" + std::to_string(c.M) + " N" +
         std::to_string(c.N) + " K" + std::to_string(c.K);
}

void check_matmul(const MatmulCase &c) {
  SCOPED_TRACE(name(c));
  auto src = source("matmul_kernel", test::seed_kernel("matmul_kernel"));
  // row pitches padded to 64 elements: 16-byte aligned rows whatever M, N, K
  int64_t lda = 64 * ((c.K + 63) / 64), ldb = 64 * (((c.b_k_major ? c.K : c.N) + 63) / 64);
  int64_t ldc = 64 * ((c.N + 63) / 64);
  int64_t sbk = c.b_k_major ? 1 : ldb, sbn = c.b_k_major ? ldb : 1;
  std::vector<int64_t> ints = {c.M, c.N, c.K, lda, 1, sbk, sbn, ldc, 1};
  std::vector<sema::ArgSpec> args = {ptr16(), ptr16(), ptr16()};
  for (int64_t v : ints)
    args.push_back(integer(v));
  for (int64_t v : {c.bm, c.bn, c.bk, 8})
    args.push_back(constexpr_int(v));
  auto before = with_layouts(src, args, c.warps, c.stages, c.wgmma);
  auto after = with_layouts(src, args, c.warps, c.stages, c.wgmma);
  layout::PipelineLoopsOptions o;
  o.force = true;
  layout::pipeline_loops(*after.module, o);
  ir::verify(*after.module);
  std::string ir = ir::print(*after.module);
  int S = c.stages;
  EXPECT_EQ(count(ir, "= local_alloc"), 2u) << ir;
  EXPECT_EQ(count(ir, "async_copy "), 2u * static_cast<size_t>(S)) << ir; // S-1 + 1 each
  EXPECT_EQ(count(ir, "async_commit"), static_cast<size_t>(S)) << ir;
  EXPECT_EQ(count(ir, "async_wait {pending = "), 2u) << ir;
  // the order: prologue copies; in the body wait, local_load, dot, copy, commit, the stage
  // counter's wrap, yield; the last wait after the loop
  size_t for_at = ir.find(" = for ");
  ASSERT_NE(for_at, std::string::npos) << ir;
  size_t body_end = ir.find("\n  }", for_at);
  std::string pre = ir.substr(0, for_at), body = ir.substr(for_at, body_end - for_at),
              post = ir.substr(body_end);
  EXPECT_EQ(count(pre, "async_copy "), 2u * static_cast<size_t>(S - 1)) << ir;
  EXPECT_EQ(count(body, "async_copy "), 2u) << ir;
  size_t wait = body.find("\n    async_wait {pending = " + std::to_string(S - 2) + "}\n");
  size_t first_op = body.find("\n    ", body.find("^bb("));
  EXPECT_EQ(wait, first_op) << body;
  size_t ll = body.find("= local_load"), dot = body.find("= dot "), cp = body.find("async_copy ");
  size_t commit = body.find("async_commit"), yield = body.find("yield ");
  EXPECT_TRUE(wait < ll && ll < dot && dot < cp && cp < commit && commit < yield) << body;
  EXPECT_NE(body.find("{pred = \"eq\"}", commit), std::string::npos) << body; // c + 1 == S
  EXPECT_NE(body.find("= select ", commit), std::string::npos) << body;
  EXPECT_EQ(count(body, " = div "), 0u) << body;
  EXPECT_EQ(count(body, " = rem "), 0u) << body;
  EXPECT_NE(post.find("async_wait {pending = 0}"), std::string::npos) << post;
  EXPECT_EQ(count(ir, "= local_load"), 2u) << ir;
  EXPECT_EQ(count(ir, " = load "), 0u) << ir;
  // the wgmma operand stage: K-major B when stored transposed (its first offset basis steps K)
  if (c.wgmma) {
    EXPECT_NE(ir.find("#mma<v=3"), std::string::npos) << ir;
  }

  std::vector<uint16_t> a = quarters(static_cast<size_t>(c.M * lda), 1),
                        b = quarters(static_cast<size_t>((c.b_k_major ? c.N : c.K) * ldb), 2),
                        out(static_cast<size_t>(c.M * ldc));
  std::array<int64_t, 3> grid = {((c.M + c.bm - 1) / c.bm) * ((c.N + c.bn - 1) / c.bn), 1, 1};
  std::vector<uint16_t> want = run(before, {a, b, out}, ints, grid);
  std::vector<uint16_t> got = run(after, {a, b, out}, ints, grid);
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (want[i] != got[i] && ++bad <= 8)
      ADD_FAILURE() << "C[" << i / static_cast<size_t>(ldc) << ", " << i % static_cast<size_t>(ldc)
                    << "]: " << got[i] << " != " << want[i];
  EXPECT_EQ(bad, 0u);
  // the reference really computed something (not all zeros / the marker)
  size_t nonzero = 0;
  for (int64_t m = 0; m < c.M; ++m)
    for (int64_t n = 0; n < c.N; ++n)
      nonzero += want[static_cast<size_t>(m * ldc + n)] != 0;
  if (c.K > 0)
    EXPECT_GT(nonzero, static_cast<size_t>(c.M * c.N / 2));
  else
    EXPECT_EQ(nonzero, 0u);
}

} // namespace

TEST(PipelineLoops, SeedMatmulWgmma) {
  // masked tails: M, N, K not multiples of the block (N, K multiples of 16: one mask bit
  // per 16-byte copy)
  check_matmul({128, 256, 64, 8, 3, true, false, 100, 272, 80});
  check_matmul({64, 256, 32, 4, 4, true, false, 70, 96, 48});
  check_matmul({128, 128, 32, 4, 2, true, true, 130, 144, 96});
  check_matmul({128, 64, 32, 4, 4, true, true, 64, 64, 16}); // one iteration, S-1 > trips
}

TEST(PipelineLoops, SeedMatmulMmaSync) {
  check_matmul({64, 32, 32, 2, 5, false, false, 70, 48, 112});
  check_matmul({32, 64, 32, 2, 3, false, true, 40, 80, 80});
  check_matmul({128, 64, 32, 4, 2, false, false, 128, 64, 64});
  check_matmul({64, 128, 32, 4, 4, false, true, 65, 144, 0}); // no iteration at all
}

namespace {

// Runs `src` with layouts, then pipeline-loops (forced), in the interpreter before and
// after; returns the pipelined IR text. Buffers: fp16 inputs, the last one the output
// (`out_halves` 16-bit words).
std::string check_kernel(const std::string &kname, const std::string &text,
                         const std::vector<sema::ArgSpec> &args, const std::vector<int64_t> &ints,
                         std::vector<size_t> in_sizes, size_t out_halves,
                         std::array<int64_t, 3> grid, int warps, int stages, bool wgmma) {
  auto src = source(kname, text);
  auto before = with_layouts(src, args, warps, stages, wgmma);
  auto after = with_layouts(src, args, warps, stages, wgmma);
  layout::PipelineLoopsOptions o;
  o.force = true;
  layout::pipeline_loops(*after.module, o);
  ir::verify(*after.module);
  std::vector<std::vector<uint16_t>> bufs;
  for (size_t i = 0; i < in_sizes.size(); ++i)
    bufs.push_back(quarters(in_sizes[i], static_cast<unsigned>(i + 7)));
  bufs.emplace_back(out_halves);
  std::vector<uint16_t> want = run(before, bufs, ints, grid), got = run(after, bufs, ints, grid);
  EXPECT_TRUE(want == got) << kname;
  size_t marker = 0;
  for (uint16_t w : want)
    marker += w == 0x7e00;
  EXPECT_LT(marker, want.size()) << "the kernel stored nothing";
  return ir::print(*after.module);
}

const char *kOtherAndStore = R"(@triton.jit
def mm(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in RANGE:
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=kk[None, :] < K, other=OTHER)
        b = tl.load(b_ptr + kk[:, None] * BN + rn[None, :], mask=kk[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
        STORE
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
)";

std::string other_and_store(const std::string &other, bool store,
                            const std::string &range = "range(0, K, BK)") {
  std::string s = kOtherAndStore;
  s.replace(s.find("RANGE"), 5, range);
  s.replace(s.find("OTHER"), 5, other);
  s.replace(s.find("STORE"), 5,
            store ? "tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)" : "");
  return s;
}

std::string run_other_and_store(const std::string &other, bool store, bool wgmma,
                                const std::string &range = "range(0, K, BK)") {
  int64_t K = 80, BM = 64, BN = 64, BK = 32;
  std::vector<sema::ArgSpec> args = {ptr16(),          ptr16(),           ptr16(),
                                     integer(K),       constexpr_int(BM), constexpr_int(BN),
                                     constexpr_int(BK)};
  args[2].dtype = ir::DType::F32;
  return check_kernel("mm", other_and_store(other, store, range), args, {K},
                      {size_t(BM * K), size_t(K * BN)}, size_t(2 * BM * BN), {1, 1, 1}, 4, 3,
                      wgmma);
}

} // namespace

TEST(PipelineLoops, NonZeroOtherIsNotPipelined) {
  for (bool wgmma : {false, true}) {
    std::string ir = run_other_and_store("1.0", false, wgmma);
    EXPECT_EQ(count(ir, "= local_alloc"), 1u) << ir; // b only
    EXPECT_EQ(count(ir, " = load "), 1u) << ir;      // a, still in the loop
    ir = run_other_and_store("0.0", false, wgmma);
    EXPECT_EQ(count(ir, "= local_alloc"), 2u) << ir;
  }
}

TEST(PipelineLoops, LoopWithStoreIsNotPipelined) {
  std::string ir = run_other_and_store("0.0", true, true);
  EXPECT_EQ(count(ir, "= local_alloc"), 0u) << ir;
  EXPECT_EQ(count(ir, "async_"), 0u) << ir;
}

TEST(PipelineLoops, OneRingForTwoWgmmaReaders) {
  // b feeds a @ b and, transposed, x @ b^T (attention backward's qT and do): one ring
  // whose stage both wgmma dots read, the second through local_load {trans = 1}; the
  // interpreter's transposed read must match the unpipelined kernel. mma.sync readers
  // (ldmatrix) take a ring only alone: b stays a load there.
  const char *text = R"(@triton.jit
def two(a_ptr, b_ptr, x_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    x = tl.load(x_ptr + rm[:, None] * BN + rn[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc2 = tl.zeros((BM, BK), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        b = tl.load(b_ptr + kk[:, None] * BN + rn[None, :], mask=kk[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
        acc2 += tl.dot(x, tl.trans(b))
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
    tl.store(c_ptr + BM * BN + rm[:, None] * BK + rk[None, :], acc2)
)";
  int64_t K = 80, BM = 64, BN = 64, BK = 64;
  std::vector<sema::ArgSpec> args = {ptr16(),           ptr16(),          ptr16(),
                                     ptr16(),           integer(K),       constexpr_int(BM),
                                     constexpr_int(BN), constexpr_int(BK)};
  args[3].dtype = ir::DType::F32;
  for (bool wgmma : {true, false}) {
    SCOPED_TRACE(wgmma ? "wgmma" : "mma.sync");
    std::string ir =
        check_kernel("two", text, args, {K}, {size_t(BM * BK), size_t(K * BN), size_t(BM * BN)},
                     size_t(2 * (BM * BN + BM * BK)), {1, 1, 1}, 4, 3, wgmma);
    EXPECT_EQ(count(ir, "= local_alloc"), wgmma ? 1u : 0u) << ir;
    EXPECT_EQ(count(ir, "= local_load"), wgmma ? 2u : 0u) << ir;
    EXPECT_EQ(count(ir, "trans = 1"), wgmma ? 1u : 0u) << ir;
  }
}

TEST(PipelineLoops, SeedAttention) {
  // k and v pipelined (k reaches its dot through tl.trans), q invariant (loaded before the
  // loop, untouched); masked tail: N_CTX not a multiple of BLOCK_N
  const int64_t Z = 1, H = 2, N = 144, D = 64;
  for (auto [bm, bn, warps, stages, wgmma] :
       {std::tuple{128, 64, 4, 2, true}, std::tuple{64, 32, 4, 3, true},
        std::tuple{64, 32, 4, 3, false}, std::tuple{32, 32, 2, 4, false},
        std::tuple{64, 64, 4, 2, false}}) {
    SCOPED_TRACE(std::to_string(bm) + "x" + std::to_string(bn) + " S" + std::to_string(stages) +
                 (wgmma ? " wgmma" : " mma"));
    std::vector<int64_t> ints;
    for (int t = 0; t < 4; ++t)
      for (int64_t s : {H * N * D, N * D, D, int64_t{1}})
        ints.push_back(s);
    for (int64_t v : {Z, H, N})
      ints.push_back(v);
    std::vector<sema::ArgSpec> args = {ptr16(), ptr16(), ptr16(), ptr16()};
    for (int64_t v : ints)
      args.push_back(integer(v));
    for (int64_t v : {int64_t(bm), int64_t(bn), D})
      args.push_back(constexpr_int(v));
    size_t n = size_t(Z * H * N * D);
    std::string ir =
        check_kernel("fused_attention_kernel", test::seed_kernel("fused_attention_kernel"), args,
                     ints, {n, n, n}, n, {(N + bm - 1) / bm, Z * H, 1}, warps, stages, wgmma);
    size_t for_at = ir.find(" = for ");
    ASSERT_NE(for_at, std::string::npos) << ir;
    EXPECT_EQ(count(ir, "= local_alloc"), 2u) << ir;
    EXPECT_EQ(count(ir, "= local_load"), 2u) << ir;
    EXPECT_EQ(count(ir, " = load "), 1u) << ir; // q
    EXPECT_LT(ir.find(" = load "), for_at) << ir;
    // k^T: the ring holds the dot operand [D, BLOCK_N], copied through permuted pointers
    EXPECT_NE(ir.find("local_alloc : tile<" + std::to_string(stages) + "x" + std::to_string(D) +
                      "x" + std::to_string(bn) + "xfp16"),
              std::string::npos)
        << ir;
    EXPECT_NE(ir.find("= permute "), std::string::npos) << ir;
  }
}

TEST(PipelineLoops, TheLoopsOwnNumStages) {
  // tl.range(num_stages=) over the module's 3: 1 turns the ring off, 4 makes 3 prologue copies
  std::string ir = run_other_and_store("0.0", false, true, "tl.range(0, K, BK, num_stages=1)");
  EXPECT_EQ(count(ir, "= local_alloc"), 0u) << ir;
  ir = run_other_and_store("0.0", false, false, "tl.range(0, K, BK, num_stages=4)");
  EXPECT_EQ(count(ir, "= local_alloc : tile<4x"), 2u) << ir;
  EXPECT_EQ(count(ir.substr(0, ir.find(" = for ")), "async_copy "), 6u) << ir;
  EXPECT_NE(ir.find("async_wait {pending = 2}"), std::string::npos) << ir;
}

#include "pipeline/GpuPipeline.h"

namespace {

// After the GPU path's pipeline-loops stage: the loads in `for` bodies that still reach a
// dot operand directly (neither in a ring nor prefetched into registers by PipelineLoads,
// whose loads feed the loop's yield instead).
int unpipelined_dot_loads(const std::shared_ptr<sema::FunctionSource> &src,
                          const std::vector<sema::ArgSpec> &args, int warps, int stages, int sm,
                          int *rings) {
  pipeline::GpuCompileOptions o;
  o.pipeline.verify = true;
  o.pipeline.compile.num_warps = warps;
  o.pipeline.compile.num_stages = stages;
  o.pipeline.stop_after = "pipeline-loops";
  o.sm = sm;
  pipeline::CompiledGpuKernel k = pipeline::compile_to_ptx(src, args, o, nullptr);
  int n = 0;
  *rings = 0;
  ir::walk(k.tile.module->functions[0]->entry(), [&](ir::Op *op) {
    *rings += op->kind() == ir::OpKind::LocalAlloc;
    if (op->kind() != ir::OpKind::Load || !op->parent()->parent())
      return;
    const ir::Op *holder = op->parent()->parent()->parent();
    if (!holder || holder->kind() != ir::OpKind::For)
      return;
    n += !layout::ring_consumers(*op).empty();
  });
  return n;
}

} // namespace

// The register prefetch and the ring never both pass a dot's load by: what "plan-rings"
// (before layouts) gives the ring, "pipeline-loops" (after them) takes (a load it could not
// take would stay marked and in the loop, reaching its dot).
TEST(PipelineLoops, EveryDotLoadIsPipelinedOneWayOrTheOther) {
  auto src = source("matmul_kernel", test::seed_kernel("matmul_kernel"));
  for (int sm : {80, 90})
    for (bool aligned : {true, false})
      for (auto [bm, bn, bk, warps, stages] :
           {std::tuple{128, 256, 64, 8, 3}, std::tuple{64, 32, 32, 2, 5},
            std::tuple{16, 16, 16, 8, 3}, std::tuple{128, 128, 32, 4, 4}}) {
        SCOPED_TRACE("sm " + std::to_string(sm) + (aligned ? " aligned " : " unaligned ") +
                     std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk));
        std::vector<sema::ArgSpec> args = {ptr16(), ptr16(), ptr16()};
        // M, N, K, then strides am, ak, bk, bn, cm, cn: row-major, pitches aligned or not
        for (int64_t v : {aligned ? 512 : 500, 512, aligned ? 512 : 504, aligned ? 512 : 504, 1,
                          512, 1, 512, 1})
          args.push_back(integer(v));
        for (int64_t v : {int64_t(bm), int64_t(bn), int64_t(bk), int64_t(8)})
          args.push_back(constexpr_int(v));
        int rings = 0;
        EXPECT_EQ(unpipelined_dot_loads(src, args, warps, stages, sm, &rings), 0);
        if (aligned && bm * bk >= 4 * 32 * warps) {
          EXPECT_EQ(rings, 2);
        }
      }
}

TEST(PipelineLoops, EveryAttentionDotLoadIsPipelinedOneWayOrTheOther) {
  auto src = source("fused_attention_kernel", test::seed_kernel("fused_attention_kernel"));
  for (int sm : {80, 90})
    for (int64_t row : {64, 65}) { // row pitch of q, k, v, o: 16-byte aligned or not
      SCOPED_TRACE("sm " + std::to_string(sm) + " row pitch " + std::to_string(row));
      std::vector<sema::ArgSpec> args = {ptr16(), ptr16(), ptr16(), ptr16()};
      for (int t = 0; t < 4; ++t)
        for (int64_t s : {2 * 128 * row, 128 * row, row, int64_t{1}})
          args.push_back(integer(s));
      for (int64_t v : {1, 2, 128})
        args.push_back(integer(v));
      for (int64_t v : {128, 64, 64})
        args.push_back(constexpr_int(v));
      int rings = 0;
      EXPECT_EQ(unpipelined_dot_loads(src, args, 4, 2, sm, &rings), 0);
      EXPECT_EQ(rings, row == 64 ? 2 : 0);
    }
}
