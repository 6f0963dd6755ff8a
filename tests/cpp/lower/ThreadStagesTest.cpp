// Each Thread IR pass is a stage of the one pipeline list (Pipeline.cpp): with its dump
// (TILEC_DUMP=<stage>, here dump_stage = "all") the Thread IR after it shows what it changed
// against the stage before it, and the verifier runs after it.
#include <algorithm>
#include <cstdlib>
#include <map>

#include "../SeedKernels.h"
#include "../TextCount.h"
#include "LowerTestUtil.h"

namespace tilec::lower::test {
namespace {

// The dumps of every GPU stage, by stage name.
std::map<std::string, std::string> dumps(const std::string &src, const std::string &name,
                                         const std::vector<std::string> &sig, int sm,
                                         int num_warps = 4) {
  pipeline::GpuCompileOptions o;
  o.pipeline.verify = true;
  o.pipeline.dump_stage = "all";
  o.pipeline.compile.num_warps = num_warps;
  o.sm = sm;
  pipeline::CompiledGpuKernel k =
      pipeline::compile_to_ptx(kernel_source(name, src), specs(sig), o, nullptr);
  std::map<std::string, std::string> out(k.tile.dumps.begin(), k.tile.dumps.end());
  EXPECT_EQ(out.at("defer-wgmma-wait"), k.thread_ir_text); // the last Thread IR stage's
  return out;
}

std::vector<std::string> sorted_lines(const std::string &s) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < s.size()) {
    size_t nl = s.find('\n', at);
    lines.push_back(s.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    at = nl == std::string::npos ? s.size() : nl + 1;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

const std::vector<std::string> kAttentionSig = {
    "*fp16:16", "*fp16:16", "*fp16:16", "*fp16:16", "i32:16", "i32:16", "i32:16",
    "i32:1",    "i32:16",   "i32:16",   "i32:16",   "i32:1",  "i32:16", "i32:16",
    "i32:16",   "i32:1",    "i32:16",   "i32:16",   "i32:16", "i32:1",  "i32",
    "i32",      "i32:16",   "=128",     "=64",      "=64"};

TEST(ThreadStages, EveryPassIsAStageWithItsOwnDump) {
  auto d = dumps(tilec::test::seed_kernel("fused_attention_kernel"), "fused_attention_kernel",
                 kAttentionSig, 90);
  for (const char *s : {"lower", "sink-fragment-loads", "fuse-cvt-packs", "fold-xor-pairs",
                        "coalesce-copies", "exp-vote-tail", "overlap-wgmma", "defer-wgmma-wait"})
    EXPECT_NE(d.at(s).find("func fused_attention_kernel("), std::string::npos) << s;
  // p.to(fp16) feeding the second wgmma: two cvts and a pack become one cvt.f16x2
  EXPECT_EQ(count(d.at("sink-fragment-loads"), "cvt.rn.f16x2.f32"), 0u);
  EXPECT_GT(count(d.at("fuse-cvt-packs"), "cvt.rn.f16x2.f32"), 0u);
  // the loop's yields write the carried registers directly: fewer copies
  EXPECT_LT(count(d.at("coalesce-copies"), "mov.f32"), count(d.at("fold-xor-pairs"), "mov.f32"));
  // p = exp(s - m): the exact path's block moves past the loop's end with its own copy of
  // the softmax up to p v's wgmma (and the common path's ex2s run on into it)
  const std::string &before = d.at("coalesce-copies"), &after = d.at("exp-vote-tail");
  EXPECT_LT(before.find("$L__exp_vote_exact:"), before.find("$L__endloop:"));
  EXPECT_GT(after.find("$L__exp_vote_exact:"), after.find("$L__endloop:"));
  EXPECT_EQ(count(after, "cvt.rn.f16x2.f32"), 2 * count(before, "cvt.rn.f16x2.f32") - 32)
      << "the 32 packs of p copied (the epilogue's 32 not)";
  // overlap-wgmma is opt-in (TILEC_WGMMA_OVERLAP=1): nothing changes by default
  EXPECT_EQ(d.at("overlap-wgmma"), d.at("exp-vote-tail"));
  // and defer-wgmma-wait's back-edge rule ("auto") leaves two-group bodies (q k^T, p v)
  // alone: p v is retired at once
  EXPECT_EQ(d.at("defer-wgmma-wait"), d.at("overlap-wgmma"));
}

TEST(ThreadStages, DeferWgmmaWaitOnlyMovesTheLastWaitWhenAskedTo) {
  setenv("TILEC_WGMMA_DEFER", "1", 1);
  setenv("TILEC_EXP_TILE", "0", 1); // the pass reorders loop bodies of one block
  auto d = dumps(tilec::test::seed_kernel("fused_attention_kernel"), "fused_attention_kernel",
                 kAttentionSig, 90);
  unsetenv("TILEC_WGMMA_DEFER");
  unsetenv("TILEC_EXP_TILE");
  // p v's wait_group 0 and bar.sync leave the loop body for the loop's exit: the same
  // instructions, in another order
  EXPECT_NE(d.at("defer-wgmma-wait"), d.at("overlap-wgmma"));
  EXPECT_EQ(sorted_lines(d.at("defer-wgmma-wait")), sorted_lines(d.at("overlap-wgmma")));
  std::string exit = d.at("defer-wgmma-wait");
  exit = exit.substr(exit.find("$L__endloop:"));
  EXPECT_EQ(exit.find("wgmma.wait_group.sync.aligned 0;"), exit.find('\n') + 3);
  d = dumps(tilec::test::seed_kernel("fused_attention_kernel"), "fused_attention_kernel",
            kAttentionSig, 90);
  EXPECT_EQ(d.at("defer-wgmma-wait"), d.at("overlap-wgmma")); // off by default
}

TEST(ThreadStages, OverlapWgmmaInterleavesTheTwoDotsWhenAskedTo) {
  setenv("TILEC_WGMMA_OVERLAP", "1", 1);
  setenv("TILEC_EXP_TILE", "0", 1); // the pass reorders one block: keep the body whole
  auto d = dumps(tilec::test::seed_kernel("fused_attention_kernel"), "fused_attention_kernel",
                 kAttentionSig, 90);
  unsetenv("TILEC_WGMMA_OVERLAP");
  unsetenv("TILEC_EXP_TILE");
  // one wgmma group per 64-row tile: more commits than the dots' one group each
  EXPECT_GT(count(d.at("overlap-wgmma"), "wgmma.commit_group"),
            count(d.at("coalesce-copies"), "wgmma.commit_group"));
}

TEST(ThreadStages, SinkFragmentLoadsOnlyMovesInstructions) {
  // sm_80: mma.sync operands come through ldmatrix, which the pass moves to its readers
  auto d = dumps(tilec::test::seed_kernel("fused_attention_kernel"), "fused_attention_kernel",
                 kAttentionSig, 80);
  EXPECT_GT(count(d.at("lower"), "ldmatrix"), 0u);
  EXPECT_NE(d.at("lower"), d.at("sink-fragment-loads"));
  EXPECT_EQ(sorted_lines(d.at("lower")), sorted_lines(d.at("sink-fragment-loads")));
}

TEST(ThreadStages, FoldXorPairsRemovesTheSortsDoubleXors) {
  std::string src = "@triton.jit\n"
                    "def k(x_ptr, y_ptr):\n"
                    "    offs = tl.arange(0, 1024)\n"
                    "    tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs)))\n";
  auto d = dumps(src, "k", {"*fp32:16", "*fp32:16"}, 90);
  EXPECT_LT(count(d.at("fold-xor-pairs"), "xor.b32"), count(d.at("fuse-cvt-packs"), "xor.b32"));
}

} // namespace
} // namespace tilec::lower::test
