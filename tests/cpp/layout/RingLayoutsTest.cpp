// The ring's stage layouts (layout/RingLayouts.h): one choice for the pass and the lowering.
#include <gtest/gtest.h>

#include "ir/IRParser.h"
#include "ir/RingOps.h"
#include "ir/Verifier.h"
#include "layout/Layouts.h"
#include "layout/RingLayouts.h"

using namespace tilec;
using namespace tilec::layout;

namespace {

// A dot whose operands come in as arguments, with the given layouts.
std::unique_ptr<ir::Module> dot_module(const std::string &elem, int m, int n, int k,
                                       const std::string &res, const std::string &la,
                                       const std::string &lb) {
  auto t = [&](int r, int c, const std::string &e, const std::string &l) {
    return "tile<" + std::to_string(r) + "x" + std::to_string(c) + "x" + e + ", " + l + ">";
  };
  std::string a = t(m, k, elem, la), b = t(k, n, elem, lb), c = t(m, n, "fp32", res);
  std::string text = "tt.func @k(%a: " + a + ", %b: " + b + ", %c: " + c +
                     ") {\n  %0 = dot %a, %b, %c : " + a + ", " + b + ", " + c + " -> " + c +
                     "\n  return\n}\n";
  auto mod = ir::parse_module(text);
  ir::verify(*mod);
  return mod;
}

const ir::Op &the_dot(const ir::Module &m) { return *m.functions[0]->entry()->ops().front(); }

const char *kBlocked = "#blocked<spt=[1,8], tpw=[4,8], wpc=[8,1], order=[1,0]>";

ir::Type buffer_for(const LinearLayout &l, ir::DType e, int64_t stages, int64_t d0, int64_t d1) {
  std::vector<std::vector<int32_t>> bases;
  for (int i = 0; i < l.in_dim_bits(kOffset); ++i)
    bases.push_back(l.basis(kOffset, i));
  return ir::ring_buffer_type(e, stages, d0, d1, bases);
}

} // namespace

TEST(RingLayouts, WgmmaIsTheDescriptorLayout) {
  // the seed matmul 128x256x64 on 8 warps: wgmma, B's instruction N 256 / wg_n
  auto m =
      dot_module("fp16", 128, 256, 64, "#mma<v=3, wpc=[8,1], instr=[64,256]>", kBlocked, kBlocked);
  const ir::Op &dot = the_dot(*m);
  for (int op = 0; op < 2; ++op)
    for (int cdim = 0; cdim < 2; ++cdim) {
      auto l = ring_stage_layout(dot, op, cdim);
      auto s = ring_wgmma_smem(dot, op, cdim);
      ASSERT_TRUE(l && s) << op << cdim;
      bool b = op == 1;
      bool mn_major = cdim != (b ? 0 : 1);
      WgmmaOperandSmem want = b ? wgmma_operand_smem(256, 64, 2, mn_major, true, 256)
                                : wgmma_operand_smem(128, 64, 2, mn_major, false, 64);
      EXPECT_EQ(*l, want.layout);
      EXPECT_EQ(s->lbo, want.lbo);
      EXPECT_EQ(s->sbo, want.sbo);
      EXPECT_EQ(s->swizzle_bytes, want.swizzle_bytes);
      ir::Type buf = buffer_for(*l, ir::DType::F16, 3, b ? 64 : 128, b ? 256 : 64);
      EXPECT_EQ(ring_contiguous_dim(buf), cdim);
      EXPECT_EQ(ring_stage_linear(buf), *l);
      EXPECT_EQ(ring_stage_bytes(buf), b ? 64 * 256 * 2 : 128 * 64 * 2);
    }
}

TEST(RingLayouts, WgmmaTf32IsKMajorOnly) {
  auto m =
      dot_module("fp32", 64, 64, 32, "#mma<v=3, wpc=[4,1], instr=[64,64]>", kBlocked, kBlocked);
  EXPECT_TRUE(ring_stage_layout(the_dot(*m), 0, 1).has_value());  // A K-major
  EXPECT_FALSE(ring_stage_layout(the_dot(*m), 0, 0).has_value()); // A M-major
  EXPECT_TRUE(ring_stage_layout(the_dot(*m), 1, 0).has_value());  // B K-major
  EXPECT_FALSE(ring_stage_layout(the_dot(*m), 1, 1).has_value());
}

TEST(RingLayouts, MmaSyncSwizzle) {
  const char *mma = "#mma<v=2, wpc=[2,2], instr=[16,8]>";
  std::string da = std::string("#dot_op<idx=0, parent=") + mma + ", k_width=2>";
  std::string db = std::string("#dot_op<idx=1, parent=") + mma + ", k_width=2>";
  for (int k : {16, 32, 64}) {
    auto m = dot_module("fp16", 64, 64, k, mma, da, db);
    const ir::Op &dot = the_dot(*m);
    for (int op = 0; op < 2; ++op)
      for (int cdim = 0; cdim < 2; ++cdim) {
        auto l = ring_stage_layout(dot, op, cdim);
        ASSERT_TRUE(l.has_value());
        EXPECT_TRUE(l->is_invertible());
        EXPECT_FALSE(ring_wgmma_smem(dot, op, cdim).has_value());
        // offsets 0..7 run along the contiguous dim (16-byte cp.async chunks)
        for (int i = 0; i < 3; ++i) {
          LinearLayout::Basis want = {0, 0};
          want[static_cast<size_t>(cdim)] = 1 << i;
          EXPECT_EQ(l->basis(kOffset, i), want);
        }
        // 8 consecutive rows: 8 distinct 16-byte bank groups (of 128 bytes)
        const ir::Shape &shape = dot.operand(static_cast<size_t>(op))->type.shape;
        LinearLayout inv = l->invert();
        std::vector<bool> seen(8, false);
        for (int r = 0; r < 8; ++r) {
          std::vector<int32_t> c = {0, 0};
          c[static_cast<size_t>(1 - cdim)] = r;
          int64_t off = inv.apply(c)[0];
          int group = static_cast<int>((off * 2 / 16) % 8);
          EXPECT_FALSE(seen[static_cast<size_t>(group)]) << "k=" << k << " row " << r;
          seen[static_cast<size_t>(group)] = true;
        }
        (void)shape;
        ir::Type buf = buffer_for(*l, ir::DType::F16, 2, dot.operand(size_t(op))->type.shape[0],
                                  dot.operand(size_t(op))->type.shape[1]);
        EXPECT_EQ(ring_contiguous_dim(buf), cdim);
      }
  }
}

TEST(RingLayouts, OtherConsumersAreNotPipelined) {
  // the FMA path: blocked operands
  auto m = dot_module("fp32", 16, 16, 16, kBlocked, kBlocked, kBlocked);
  EXPECT_FALSE(ring_stage_layout(the_dot(*m), 0, 1).has_value());
  EXPECT_FALSE(ring_consumer_supported(the_dot(*m), 0));
}
