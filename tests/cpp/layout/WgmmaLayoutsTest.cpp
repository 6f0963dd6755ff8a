// wgmma layouts (layout/WgmmaLayouts.h): the accumulator against the PTX ISA's D fragment,
// the operand shared layouts against the swizzle pictures (16-byte chunk j of row r of an
// S-byte atom at chunk j ^ f(r)), the same rule the simulator's wgmma tests stage by
// (tests/cpp/simt/AsyncPrograms.h).
#include <gtest/gtest.h>

#include <set>

#include "layout/WgmmaLayouts.h"

using namespace tilec::layout;

namespace {

std::vector<int32_t> at(const LinearLayout &l, int32_t r, int32_t lane, int32_t warp) {
  return l.apply(std::vector<int32_t>{r, lane, warp});
}

// The atom row permutation of the 16-byte chunks.
int chunk_xor(int s, int row) { return s == 128 ? row : s == 64 ? (row >> 1) & 3 : (row >> 2) & 1; }

// Independent statement of the canonical byte offset of (mn, k).
uint32_t picture_offset(const WgmmaOperandSmem &o, int mn, int k) {
  int e = o.elem_bytes, s = o.swizzle_bytes;
  if (!o.mn_major) {
    int kb = k * e;
    if (s == 0)
      return static_cast<uint32_t>((kb / 16) * 128 + (mn / 8) * (o.k * e / 16 * 128) +
                                   (mn % 8) * 16 + kb % 16);
    int chunk = (kb % s) / 16 ^ chunk_xor(s, mn % 8);
    return static_cast<uint32_t>((kb / s) * o.mn * s + mn * s + chunk * 16 + kb % 16);
  }
  if (s == 0) {
    int t = 16 / e;
    return static_cast<uint32_t>((mn / t) * 128 + (mn % t) * e + (k % 8) * 16 +
                                 (k / 8) * (o.mn / t * 128));
  }
  int w = s / e, mb = (mn % w) * e;
  int chunk = mb / 16 ^ chunk_xor(s, k % 8);
  // a chunk of w mn-elements holds all k rows (8-row swizzle atoms in k order), then the
  // next chunk: what a TMA box [k, w] writes
  return static_cast<uint32_t>((mn / w) * (o.k / 8 * 8 * s) + (k / 8) * 8 * s + (k % 8) * s +
                               chunk * 16 + mb % 16);
}

} // namespace

TEST(WgmmaLayouts, AccumulatorIsTheDFragment) {
  LinearLayout l = wgmma_acc(64, 64, 4);
  EXPECT_EQ(l.in_dim_size(kRegister), 32);
  for (int w = 0; w < 4; ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < 32; ++i) {
        std::vector<int32_t> want = {16 * w + lane / 4 + 8 * ((i / 2) % 2),
                                     8 * (i / 4) + 2 * (lane % 4) + i % 2};
        ASSERT_EQ(at(l, i, lane, w), want) << "warp " << w << " lane " << lane << " reg " << i;
      }
}

TEST(WgmmaLayouts, AccumulatorCoversTheTileOnce) {
  struct Case {
    int32_t m, n;
    int warps;
    int32_t instr_n;
  };
  for (Case c : {Case{64, 64, 4, 64}, Case{128, 128, 8, 128}, Case{128, 256, 4, 256},
                 Case{64, 256, 8, 128}, Case{256, 512, 8, 256}}) {
    LinearLayout l = wgmma_acc(c.m, c.n, c.warps);
    EXPECT_EQ(wgmma_instr_n(c.m, c.n, c.warps), c.instr_n) << c.m << "x" << c.n;
    std::set<std::vector<int32_t>> seen;
    for (int w = 0; w < c.warps; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < l.in_dim_size(kRegister); ++r)
          seen.insert(at(l, r, lane, w));
    EXPECT_EQ(static_cast<int64_t>(seen.size()), int64_t(c.m) * c.n) << c.m << "x" << c.n;
    // The first instr_n / 2 registers are one instruction's D list.
    for (int i = 0; i < c.instr_n / 2; ++i)
      EXPECT_EQ(at(l, i, 5, 1)[1], 8 * (i / 4) + 2 * (5 % 4) + i % 2);
  }
  // Two warpgroups along M: the second starts at row 64.
  EXPECT_EQ(at(wgmma_acc(128, 64, 8), 0, 0, 4), (std::vector<int32_t>{64, 0}));
}

TEST(WgmmaLayouts, SwizzleIsTheWidestTheContiguousExtentFills) {
  EXPECT_EQ(wgmma_operand_smem(64, 64, 2, false, false).swizzle_bytes, 128);
  EXPECT_EQ(wgmma_operand_smem(64, 32, 2, false, false).swizzle_bytes, 64);
  EXPECT_EQ(wgmma_operand_smem(64, 16, 2, false, false).swizzle_bytes, 32);
  EXPECT_EQ(wgmma_operand_smem(64, 8, 2, false, false).swizzle_bytes, 0);
  EXPECT_EQ(wgmma_operand_smem(128, 16, 2, true, true).swizzle_bytes, 128);
  EXPECT_EQ(wgmma_operand_smem(64, 32, 4, false, false).swizzle_bytes, 128);
  EXPECT_EQ(wgmma_operand_smem(64, 128, 1, false, true).swizzle_bytes, 128);
}

TEST(WgmmaLayouts, OperandLayoutsMatchTheSwizzlePictures) {
  struct Case {
    int32_t mn, k;
    int e;
    bool mn_major, b;
  };
  std::vector<Case> cases;
  for (bool mnm : {false, true})
    for (bool b : {false, true})
      for (int32_t ext : {8, 16, 32, 64, 128})
        for (int e : {1, 2, 4}) {
          int32_t contiguous = ext, other = 64;
          if (contiguous * e < 16 || contiguous * e > 512)
            continue;
          cases.push_back(mnm ? Case{contiguous, other, e, true, b}
                              : Case{other, contiguous, e, false, b});
        }
  for (const Case &c : cases) {
    WgmmaOperandSmem o = wgmma_operand_smem(c.mn, c.k, c.e, c.mn_major, c.b);
    std::string what = std::to_string(c.mn) + "x" + std::to_string(c.k) + " e" +
                       std::to_string(c.e) + (c.mn_major ? " mn-major" : " k-major") +
                       (c.b ? " B" : " A") + " swizzle " + std::to_string(o.swizzle_bytes);
    std::set<uint32_t> used;
    for (int32_t mn = 0; mn < c.mn; ++mn)
      for (int32_t k = 0; k < c.k; ++k) {
        uint32_t want = picture_offset(o, mn, k);
        ASSERT_EQ(o.byte_offset(mn, k), want) << what << " (" << mn << ", " << k << ")";
        used.insert(want);
        // the linear layout maps the element offset back to the tile coordinates
        std::vector<int32_t> coords = o.layout.apply(
            std::vector<int32_t>{static_cast<int32_t>(want / static_cast<uint32_t>(c.e))});
        std::vector<int32_t> tile = c.b ? std::vector<int32_t>{k, mn} : std::vector<int32_t>{mn, k};
        ASSERT_EQ(coords, tile) << what << " (" << mn << ", " << k << ")";
      }
    EXPECT_EQ(static_cast<int64_t>(used.size()), int64_t(c.mn) * c.k) << what;
    EXPECT_EQ(*used.rbegin(), static_cast<uint32_t>(o.bytes() - c.e)) << what; // dense
  }
}

TEST(WgmmaLayouts, DescriptorStartsSwizzleToTheirElement) {
  for (bool mnm : {false, true})
    for (int32_t k : {16, 32, 64, 128}) {
      WgmmaOperandSmem o = wgmma_operand_smem(128, k, 2, mnm, false);
      uint32_t s = static_cast<uint32_t>(o.swizzle_bytes);
      for (int32_t mn0 : {0, 64})
        for (int32_t k0 = 0; k0 < k; k0 += 16) {
          uint32_t a = o.start(mn0, k0);
          uint32_t swizzled = s ? a ^ ((a >> 3) & (s - 16)) : a;
          EXPECT_EQ(swizzled, o.byte_offset(mn0, k0))
              << (mnm ? "mn" : "k") << "-major k " << k << " at (" << mn0 << ", " << k0 << ")";
        }
    }
}
