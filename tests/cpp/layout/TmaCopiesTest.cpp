// TMA copies into ring stages (layout/TmaCopies.h): the box and swizzle found for the wgmma
// operand layouts (K-major and MN-major, 8/16/32-bit), checked against an independent
// statement of where TMA puts each element; no plan where no box places the block as the
// stage does.
#include <gtest/gtest.h>

#include "layout/TmaCopies.h"
#include "layout/WgmmaLayouts.h"

using namespace tilec::layout;

namespace {

// Where TMA writes element (r, c) of a [rows, cols] block copied as boxes [rows, w]
// side by side with an S-byte swizzle: the 16-byte chunk of each row XORed with the row's
// position in its 8-row atom (S / 16 chunks a row; no swizzle: plain row-major panels).
int64_t tma_byte(int64_t r, int64_t c, int64_t rows, int64_t w, int s, int e) {
  int64_t panel = c / w, cb = (c % w) * e;
  int64_t row_bytes = w * e;
  int64_t chunk = cb / 16;
  if (s) {
    int64_t atom_row = (r * row_bytes / s) % 8; // the row within the 8-row atom
    chunk ^= s == 128 ? atom_row : s == 64 ? (atom_row >> 1) & 3 : (atom_row >> 2) & 1;
  }
  return panel * rows * row_bytes + r * row_bytes + chunk * 16 + cb % 16;
}

} // namespace

TEST(TmaCopies, KMajorOperandsAreOneSwizzledBox) {
  // A [128, 64] fp16, K contiguous: one box [128, 64], 128-byte swizzle
  WgmmaOperandSmem a = wgmma_operand_smem(128, 64, 2, false, false);
  auto p = tma_copy_plan(a.layout, 128, 64, false, 2);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->box0, 128);
  EXPECT_EQ(p->box1, 64);
  EXPECT_EQ(p->swizzle_bytes, 128);
  EXPECT_EQ(p->panels, 1);
  // [64, 32] fp16: 64-byte rows, 64-byte swizzle
  WgmmaOperandSmem n = wgmma_operand_smem(64, 32, 2, false, false);
  p = tma_copy_plan(n.layout, 64, 32, false, 2);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle_bytes, 64);
  EXPECT_EQ(p->box1, 32);
  // B^T [128, 64] loaded K-contiguous and permuted: B [64, 128] is K-major
  WgmmaOperandSmem bt = wgmma_operand_smem(128, 64, 2, false, true);
  p = tma_copy_plan(bt.layout, 128, 64, true, 2);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->panels, 1);
  // fp8 [64, 128]: 128-byte rows
  WgmmaOperandSmem f8 = wgmma_operand_smem(64, 128, 1, false, false);
  p = tma_copy_plan(f8.layout, 64, 128, false, 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle_bytes, 128);
}

TEST(TmaCopies, MnMajorOperandsArePanels) {
  // B [64, 128] fp16, N contiguous: two boxes [64, 64], each one swizzle chunk
  WgmmaOperandSmem b = wgmma_operand_smem(128, 64, 2, true, true);
  auto p = tma_copy_plan(b.layout, 64, 128, false, 2);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->box0, 64);
  EXPECT_EQ(p->box1, 64);
  EXPECT_EQ(p->swizzle_bytes, 128);
  EXPECT_EQ(p->panels, 2);
}

TEST(TmaCopies, PlacementsMatchTheIndependentStatement) {
  struct Case {
    int32_t mn, k;
    int e;
    bool mn_major, b;
  };
  for (Case c : {Case{128, 64, 2, false, false}, Case{64, 32, 2, false, false},
                 Case{64, 16, 2, false, false}, Case{128, 64, 2, true, true},
                 Case{64, 32, 4, false, false}, Case{64, 128, 1, false, true}}) {
    WgmmaOperandSmem o = wgmma_operand_smem(c.mn, c.k, c.e, c.mn_major, c.b);
    // the block as loaded: its last dim is the contiguous one
    int64_t rows = c.mn_major ? c.k : c.mn, cols = c.mn_major ? c.mn : c.k;
    bool transposed = c.b != c.mn_major; // B K-major, or A MN-major: loaded transposed
    auto p = tma_copy_plan(o.layout, rows, cols, transposed, c.e);
    ASSERT_TRUE(p) << c.mn << "x" << c.k << " e" << c.e;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t col = 0; col < cols; ++col)
        ASSERT_EQ(tma_element_offset(*p, r, col, c.e) * c.e,
                  tma_byte(r, col, rows, p->box1, p->swizzle_bytes, c.e))
            << c.mn << "x" << c.k << " (" << r << ", " << col << ")";
  }
}

TEST(TmaCopies, NoPlanWhereNoBoxPlacesTheBlock) {
  // a transposed view of a K-major stage: no box writes columns first
  WgmmaOperandSmem a = wgmma_operand_smem(128, 64, 2, false, false);
  EXPECT_FALSE(tma_copy_plan(a.layout, 128, 64, true, 2));
  // a size that is not the stage's
  EXPECT_FALSE(tma_copy_plan(a.layout, 64, 64, false, 2));
  // more than 256 rows in one box
  WgmmaOperandSmem big = wgmma_operand_smem(512, 64, 2, false, false);
  EXPECT_FALSE(tma_copy_plan(big.layout, 512, 64, false, 2));
}

TEST(TmaCopies, StorePlansTakeTheWidestSwizzleARowFills) {
  auto p = tma_store_plan(128, 128, 2); // fp16 [128, 128]: two 128-byte panels
  ASSERT_TRUE(p);
  EXPECT_EQ(p->box0, 128);
  EXPECT_EQ(p->box1, 64);
  EXPECT_EQ(p->swizzle_bytes, 128);
  EXPECT_EQ(p->panels, 2);
  p = tma_store_plan(64, 16, 4); // fp32 rows of 64 bytes
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle_bytes, 64);
  EXPECT_EQ(p->box1, 16);
  EXPECT_EQ(p->panels, 1);
  p = tma_store_plan(4, 64, 2); // under 8 rows: no swizzle, one box
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle_bytes, 0);
  EXPECT_EQ(p->box1, 64);
  EXPECT_FALSE(tma_store_plan(512, 64, 2)); // rows over 256
  EXPECT_FALSE(tma_store_plan(64, 4, 2));   // 8-byte rows
  EXPECT_FALSE(tma_store_plan(4, 512, 2));  // no swizzle and more than 256 columns
}

TEST(TmaCopies, BoxLayoutIsWhereTheBoxesPutEachElement) {
  struct Case {
    int64_t rows, cols;
    int e;
  };
  for (Case k :
       {Case{128, 128, 2}, Case{64, 16, 4}, Case{16, 64, 1}, Case{4, 64, 2}, Case{32, 64, 4}}) {
    auto p = tma_store_plan(k.rows, k.cols, k.e);
    ASSERT_TRUE(p);
    LinearLayout l = tma_box_layout(*p, k.rows, k.cols, k.e);
    for (int64_t r = 0; r < k.rows; ++r)
      for (int64_t c = 0; c < k.cols; ++c) {
        int64_t off = tma_byte(r, c, k.rows, p->box1, p->swizzle_bytes, k.e) / k.e;
        std::vector<int32_t> at = l.apply(std::vector<int32_t>{static_cast<int32_t>(off)});
        ASSERT_EQ(at, (std::vector<int32_t>{static_cast<int32_t>(r), static_cast<int32_t>(c)}))
            << k.rows << "x" << k.cols << " e" << k.e << " offset " << off;
      }
  }
}
