// Tensor-core layouts against the PTX ISA's fragment tables: coordinates of (register,
// lane) pairs of the mma accumulator and the A/B dot operands.
#include <gtest/gtest.h>

#include "ir/Layout.h"
#include "layout/Layouts.h"
#include "layout/MmaLayouts.h"

using namespace tilec;
using namespace tilec::layout;

namespace {

ir::LayoutRef mma(std::vector<int32_t> wpc) {
  std::vector<int32_t> instr(wpc.size(), 1);
  instr[wpc.size() - 2] = 16;
  instr[wpc.size() - 1] = 8;
  return ir::Layout::mma(2, wpc, instr);
}

std::vector<int32_t> rc(int r, int c) { return {r, c}; }

} // namespace

TEST(MmaLayouts, AccumulatorIsTheCFragment) {
  // c_i of lane l: (l/4 + 8*(i/2), 2*(l%4) + i%2)
  LinearLayout c = to_linear(*mma({1, 1}), {16, 8});
  EXPECT_EQ(registers_per_thread(c), 4);
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(coords_of(c, i, l, 0), rc(l / 4 + 8 * (i / 2), 2 * (l % 4) + i % 2))
          << "lane " << l << " reg " << i;
  EXPECT_TRUE(c.is_invertible());
}

TEST(MmaLayouts, OperandsAreTheABFragmentsOfEachShape) {
  struct Case {
    int kw, K;
  };
  for (Case cs : {Case{2, 16}, Case{1, 8}, Case{4, 32}}) {
    SCOPED_TRACE("k_width " + std::to_string(cs.kw));
    auto parent = mma({1, 1});
    LinearLayout a = to_linear(*ir::Layout::dot_operand(0, parent, cs.kw), {16, cs.K});
    LinearLayout b = to_linear(*ir::Layout::dot_operand(1, parent, cs.kw), {cs.K, 8});
    // m16n8k16 f16: a0,a1 (g, 2t+i) a2,a3 (g+8, ..) a4..a7 the same 8 columns on;
    // m16n8k8 tf32: a0 (g,t) a1 (g+8,t) a2 (g,t+4) a3 (g+8,t+4);
    // m16n8k32 s8: a0-3 (g, 4t+i) a4-7 (g+8, ..) a8-15 16 columns on.
    for (int l = 0; l < 32; ++l) {
      int g = l / 4, t = l % 4, kw = cs.kw;
      for (int e = 0; e < 4 * kw; ++e) {
        std::vector<int32_t> want = {g + 8 * ((e / kw) % 2),
                                     t * kw + e % kw + 4 * kw * (e / (2 * kw))};
        ASSERT_EQ(coords_of(a, e, l, 0), want) << "A lane " << l << " element " << e;
      }
      for (int e = 0; e < 2 * kw; ++e) {
        std::vector<int32_t> want = {t * kw + e % kw + 4 * kw * (e / kw), g};
        ASSERT_EQ(coords_of(b, e, l, 0), want) << "B lane " << l << " element " << e;
      }
    }
    // spot checks straight from the tables
    if (cs.kw == 2) {
      EXPECT_EQ(coords_of(a, 5, 6, 0), rc(1, 13));  // a5 of lane 6: (g=1, 2t+8+1 = 13)
      EXPECT_EQ(coords_of(b, 3, 31, 0), rc(15, 7)); // b3 of lane 31: (2t+8+1 = 15, g = 7)
    }
    if (cs.kw == 4) {
      EXPECT_EQ(coords_of(a, 14, 9, 0), rc(10, 22)); // a14 of lane 9: (g+8=10, 4t+16+2=22)
    }
  }
}

TEST(MmaLayouts, WarpsTileTheResultAndOperandsBroadcast) {
  auto parent = mma({2, 2});
  LinearLayout c = to_linear(*parent, {64, 32});
  LinearLayout a = to_linear(*ir::Layout::dot_operand(0, parent, 2), {64, 32});
  LinearLayout b = to_linear(*ir::Layout::dot_operand(1, parent, 2), {32, 32});
  // warp bit 0 steps N by 8, bit 1 steps M by 16
  EXPECT_EQ(coords_of(c, 0, 0, 1), rc(0, 8));
  EXPECT_EQ(coords_of(c, 0, 0, 2), rc(16, 0));
  // A ignores the N warps, B the M warps
  EXPECT_EQ(coords_of(a, 3, 5, 1), coords_of(a, 3, 5, 0));
  EXPECT_EQ(coords_of(a, 3, 5, 2)[0], coords_of(a, 3, 5, 0)[0] + 16);
  EXPECT_EQ(coords_of(b, 1, 7, 2), coords_of(b, 1, 7, 0));
  EXPECT_EQ(coords_of(b, 1, 7, 1)[1], coords_of(b, 1, 7, 0)[1] + 8);
  // repeats in registers: 64x32 over 2x2 warps of 16x8 = 2x2 tiles of 4 registers
  EXPECT_EQ(registers_per_thread(c), 16);
  EXPECT_EQ(registers_per_thread(a), 2 * 2 * 8); // (64/32 M tiles) * (32/16 K tiles) * 8
  for (const LinearLayout *l : {&c, &a, &b})
    EXPECT_TRUE(l->is_surjective());
  EXPECT_TRUE(c.is_invertible());
}

TEST(MmaLayouts, SmallTilesBroadcastWarpsAndBatchedAddsADim) {
  // 16x8 result with 4 warps: every warp computes the same tile
  LinearLayout c = to_linear(*mma({2, 2}), {16, 8});
  EXPECT_EQ(coords_of(c, 2, 9, 3), coords_of(c, 2, 9, 0));
  // batched [2, 16, 16], warps [2, 1, 2]: warp bit 2 steps the batch
  auto p3 = mma({2, 1, 2});
  LinearLayout c3 = to_linear(*p3, {2, 16, 16});
  EXPECT_EQ(coords_of(c3, 0, 0, 2), (std::vector<int32_t>{1, 0, 0}));
  EXPECT_EQ(coords_of(c3, 3, 4, 0), (std::vector<int32_t>{0, 9, 1})); // c3 of lane 4
  LinearLayout a3 = to_linear(*ir::Layout::dot_operand(0, p3, 2), {2, 16, 16});
  EXPECT_EQ(coords_of(a3, 0, 0, 2), (std::vector<int32_t>{1, 0, 0}));
  EXPECT_EQ(coords_of(a3, 0, 0, 1), (std::vector<int32_t>{0, 0, 0}));
  EXPECT_TRUE(c3.is_invertible());
}

TEST(MmaLayouts, FmaOperandsHoldWholeRows) {
  auto parent = ir::Layout::blocked({1, 1}, {4, 8}, {2, 2}, {1, 0});
  LinearLayout c = to_linear(*parent, {32, 32});
  LinearLayout a = to_linear(*ir::Layout::dot_operand(0, parent, 0), {32, 8});
  LinearLayout b = to_linear(*ir::Layout::dot_operand(1, parent, 0), {8, 32});
  // each thread: its result rows x all of K in A, all of K x its columns in B
  for (int lane : {0, 5, 31})
    for (int warp : {0, 3}) {
      std::vector<int32_t> c0 = coords_of(c, 0, lane, warp);
      std::vector<int32_t> a0 = coords_of(a, 0, lane, warp), b0 = coords_of(b, 0, lane, warp);
      EXPECT_EQ(a0[0], c0[0]);
      EXPECT_EQ(b0[1], c0[1]);
    }
  EXPECT_EQ(registers_per_thread(c), 4 * 2); // 32x32 over an 8x16 CTA tile
  EXPECT_EQ(registers_per_thread(a), 4 * 8); // its 4 rows x all 8 of K
  EXPECT_TRUE(a.is_surjective());
  EXPECT_TRUE(b.is_surjective());
}

TEST(MmaLayouts, PrintParseAndCheck) {
  auto p = mma({2, 2});
  auto d = ir::Layout::dot_operand(1, p, 2);
  EXPECT_EQ(p->str(), "#mma<v=2, wpc=[2,2], instr=[16,8]>");
  EXPECT_EQ(d->str(), "#dot_op<idx=1, parent=#mma<v=2, wpc=[2,2], instr=[16,8]>, k_width=2>");
  for (const ir::LayoutRef &l : {p, d}) {
    auto back = ir::parse_layout(l->str());
    ASSERT_TRUE(back.has_value());
    EXPECT_TRUE(ir::same_layout(*back, l));
    EXPECT_EQ(ir::check_layout(*l, 2), "");
  }
  EXPECT_NE(ir::check_layout(*ir::Layout::mma(2, {3, 1}, {16, 8}), 2), "");
  EXPECT_NE(ir::check_layout(*ir::Layout::dot_operand(0, p, 3), 2), "");
  EXPECT_EQ(p->num_warps(), 4);
  EXPECT_EQ(d->num_warps(), 4);
}

TEST(MmaLayouts, WarpsPerCtaAsTritonChooses) {
  EXPECT_EQ(mma_warps_per_cta({128, 128}, 4), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(mma_warps_per_cta({128, 256}, 8), (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(mma_warps_per_cta({16, 64}, 4), (std::vector<int32_t>{1, 4}));
  EXPECT_EQ(mma_warps_per_cta({64, 16}, 4), (std::vector<int32_t>{4, 1}));
  EXPECT_EQ(mma_warps_per_cta({4, 32, 32}, 4), (std::vector<int32_t>{4, 1, 1}));
  EXPECT_EQ(mma_warps_per_cta({2, 32, 32}, 8), (std::vector<int32_t>{2, 2, 2}));
}
