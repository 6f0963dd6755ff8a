#include <gtest/gtest.h>

#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "layout/ConvertPlan.h"
#include "layout/Layouts.h"

using namespace tilec;
using namespace tilec::layout;
using LL = LinearLayout;

namespace {
// Element -> (register, lane, warp) holding it, for an injective layout.
std::vector<std::array<int, 3>> owners(const LL &l) {
  std::vector<std::array<int, 3>> own(l.total_out_size(), {-1, -1, -1});
  for (int w = 0; w < l.in_dim_size(kWarp); ++w)
    for (int t = 0; t < l.in_dim_size(kLane); ++t)
      for (int r = 0; r < l.in_dim_size(kRegister); ++r) {
        auto c = coords_of(l, r, t, w);
        int64_t flat = 0;
        for (int k = 0; k < l.num_out_dims(); ++k)
          flat = flat * l.out_dims()[k].size + c[k];
        if (own[flat][0] < 0)
          own[flat] = {r, t, w};
      }
  return own;
}
} // namespace

TEST(Blocked, OneDimWrapsAroundInRegisters) {
  // CTA tile 4*32*4 = 512 elements; a 1024 tile repeats it in registers
  LL l = blocked({4}, {32}, {4}, {0}, {1024});
  EXPECT_EQ(registers_per_thread(l), 8);
  EXPECT_EQ(l.in_dim_size(kLane), 32);
  EXPECT_EQ(l.in_dim_size(kWarp), 4);
  EXPECT_TRUE(l.is_invertible());
  EXPECT_EQ(contiguous_per_thread(l, 0), 4);
  auto own = owners(l);
  for (int e = 0; e < 1024; ++e) {
    EXPECT_EQ(own[e][0], (e & 3) | ((e >> 9) & 1) << 2) << e;
    EXPECT_EQ(own[e][1], (e >> 2) & 31) << e;
    EXPECT_EQ(own[e][2], (e >> 7) & 3) << e;
  }
}

TEST(Blocked, SmallTwoDimCaseListed) {
  // spt [1,2], tpw [4,8], wpc [2,1], order [1,0] over an 8x16 tile (exact fit)
  LL l = blocked({1, 2}, {4, 8}, {2, 1}, {1, 0}, {8, 16});
  EXPECT_EQ(l.str(), "register: [[0,1]]; lane: [[0,2],[0,4],[0,8],[1,0],[2,0]]; warp: [[4,0]]; "
                     "-> dim0:8, dim1:16");
  // thread (lane 9, warp 1): row = 4*1 + 9/8 = 5, columns (9%8)*2 .. +1
  EXPECT_EQ(coords_of(l, 0, 9, 1), (std::vector<int32_t>{5, 2}));
  EXPECT_EQ(coords_of(l, 1, 9, 1), (std::vector<int32_t>{5, 3}));
  auto own = owners(l);
  EXPECT_EQ(own[0 * 16 + 15], (std::array<int, 3>{1, 7, 0}));
  EXPECT_EQ(own[7 * 16 + 0], (std::array<int, 3>{0, 24, 1}));
}

TEST(Blocked, ColumnMajorOrder) {
  LL l = blocked({2, 1}, {8, 4}, {1, 1}, {0, 1}, {16, 4});
  EXPECT_EQ(contiguous_per_thread(l, 0), 2);
  EXPECT_EQ(contiguous_per_thread(l, 1), 1);
  EXPECT_EQ(coords_of(l, 1, 9, 0), (std::vector<int32_t>{3, 1}));
}

TEST(Blocked, SmallerTileBroadcastsLanesAndWarps) {
  LL l = blocked({4}, {32}, {4}, {0}, {16});
  EXPECT_EQ(registers_per_thread(l), 4);
  EXPECT_EQ(l.free_variable_mask(kLane), 0b11100);
  EXPECT_EQ(l.free_variable_mask(kWarp), 0b11);
  EXPECT_EQ(l.free_variable_mask(kRegister), 0);
  EXPECT_EQ(coords_of(l, 1, 5, 3), (std::vector<int32_t>{5}));
  // a tile smaller than one thread's registers drops the extra registers
  LL t = blocked({4}, {32}, {1}, {0}, {2});
  EXPECT_EQ(registers_per_thread(t), 2);
  EXPECT_TRUE(t.is_surjective());
}

TEST(Blocked, TwoDimWrapMinorDimFirst) {
  LL l = blocked({1, 1}, {1, 32}, {1, 1}, {1, 0}, {2, 64});
  EXPECT_EQ(registers_per_thread(l), 4);
  EXPECT_EQ(l.basis(kRegister, 0), (LL::Basis{0, 32}));
  EXPECT_EQ(l.basis(kRegister, 1), (LL::Basis{1, 0}));
}

TEST(Slice, DropsTheReducedDim) {
  ir::LayoutRef parent = ir::Layout::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0});
  LL p = to_linear(*parent, {32, 64});
  LL s = slice(p, 1);
  LL via_attr = to_linear(*ir::Layout::slice(1, parent), {32});
  EXPECT_EQ(s, via_attr);
  EXPECT_EQ(registers_per_thread(s), 1);
  EXPECT_EQ(s.free_variable_mask(kLane), 0b11); // the 4 lanes along dim 1 hold copies
  EXPECT_EQ(coords_of(s, 0, 4 * 3 + 1, 2), (std::vector<int32_t>{2 * 8 + 3}));
  // slicing dim 0 keeps dim 1's registers and lanes
  LL s0 = to_linear(*ir::Layout::slice(0, parent), {64});
  EXPECT_EQ(registers_per_thread(s0), 16);
  EXPECT_EQ(contiguous_per_thread(s0, 0), 4);
  EXPECT_EQ(s0.free_variable_mask(kWarp), 0b11);
}

TEST(Shared, SwizzleXorsColumnsByRow) {
  LL u = shared_unswizzled({1, 0}, {4, 8});
  EXPECT_EQ(u.apply(std::vector<int32_t>{8 + 3}), (std::vector<int32_t>{1, 3}));
  LL s = shared_swizzled(2, 1, 4, {1, 0}, {8, 8});
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) {
      int phase = r % 4;
      EXPECT_EQ(s.apply(std::vector<int32_t>{r * 8 + c}),
                (std::vector<int32_t>{r, c ^ (phase * 2)}));
    }
  EXPECT_TRUE(s.is_invertible());
  LL pp = shared_swizzled(1, 2, 2, {1, 0}, {4, 4});
  EXPECT_EQ(pp.apply(std::vector<int32_t>{2 * 4 + 0}), (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(to_linear(*ir::Layout::shared(2, 1, 4, {1, 0}), {8, 8}), s);
}

TEST(Layouts, DefaultAndShapeFittedBlocked) {
  ir::LayoutRef d = default_blocked({1024}, 4);
  EXPECT_EQ(d->str(), "#blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>");
  ir::LayoutRef d2 = default_blocked({16, 128}, 8);
  // warps go along dim 1 until it is covered (4 x 32 lanes = 128), the rest to dim 0
  EXPECT_EQ(d2->str(), "#blocked<spt=[1,1], tpw=[1,32], wpc=[2,4], order=[1,0]>");
  ir::LayoutRef d3 = blocked_for_shape({64, 8}, {1, 4}, {1, 0}, 4);
  EXPECT_EQ(d3->str(), "#blocked<spt=[1,4], tpw=[16,2], wpc=[4,1], order=[1,0]>");
  ir::LayoutRef d4 = default_blocked({2, 4}, 4);
  EXPECT_EQ(d4->str(), "#blocked<spt=[1,1], tpw=[8,4], wpc=[4,1], order=[1,0]>");
}

TEST(Layouts, LinearEncoding) {
  ir::LayoutRef l = ir::Layout::linear(1, {{"register", {{1}}}, {"lane", {{2}, {4}}}});
  LL ll = to_linear(*l, {8});
  EXPECT_EQ(ll.in_dims()[2].name, kWarp);
  EXPECT_EQ(coords_of(ll, 1, 3, 0), (std::vector<int32_t>{7}));
}

TEST(Shared, BankConflictsReadOffTheLayouts) {
  // a warp of column-major threads over a row-major 32x32 fp32 tile: every lane of a
  // register hits the same bank (32-way); XOR-swizzling the columns by row removes it
  LL cols = blocked({1, 1}, {32, 1}, {1, 4}, {0, 1}, {32, 32});
  LL rows = blocked({1, 4}, {1, 32}, {4, 1}, {1, 0}, {32, 32});
  LL plain = shared_unswizzled({1, 0}, {32, 32});
  EXPECT_EQ(shared_bank_conflicts(rows, plain, 4), 1);
  EXPECT_EQ(shared_bank_conflicts(cols, plain, 4), 32);
  LL swz = shared_swizzled(1, 1, 32, {1, 0}, {32, 32});
  EXPECT_EQ(shared_bank_conflicts(cols, swz, 4), 1);
  EXPECT_EQ(shared_bank_conflicts(rows, swz, 4), 1);
  // 4 rows per thread: lanes cover 8 rows of a column, 8-way
  EXPECT_EQ(shared_bank_conflicts(blocked({4, 1}, {32, 1}, {1, 4}, {0, 1}, {32, 32}), plain, 4), 8);
  // fp16 pairs share a word: 16 lanes of a row read 8 words -> no conflict
  LL half = blocked({1, 1}, {2, 16}, {1, 1}, {1, 0}, {2, 16});
  EXPECT_EQ(shared_bank_conflicts(half, shared_unswizzled({1, 0}, {2, 16}), 2), 1);
}

// ---- conversions -------------------------------------------------------------------

TEST(ConvertPlan, SameLayoutIsNothing) {
  LL a = blocked({4}, {32}, {4}, {0}, {1024});
  EXPECT_EQ(plan_conversion(a, a).kind, ConversionKind::None);
}

TEST(ConvertPlan, RegisterPermutation) {
  LL a({{kRegister, {{1}, {2}}}, {kLane, {{4}}}, {kWarp, {}}}, {{"dim0", 8}});
  LL b({{kRegister, {{2}, {1}}}, {kLane, {{4}}}, {kWarp, {}}}, {{"dim0", 8}});
  ConversionPlan p = plan_conversion(a, b);
  EXPECT_EQ(p.kind, ConversionKind::Registers);
  // dst register 0 of lane 1 holds element 4 = src register 0 of lane 1
  EXPECT_EQ(p.dst_to_src.apply({1, 1, 0}), (std::vector<int32_t>{2, 1, 0}));
  // dropping a broadcast: the slice's copies are already in every thread's registers
  LL full = blocked({1}, {32}, {1}, {0}, {8}); // lanes 8..31 hold copies
  LL regs = blocked({8}, {32}, {1}, {0}, {8}); // every lane holds all 8
  EXPECT_EQ(plan_conversion(regs, full).kind, ConversionKind::Registers);
  EXPECT_EQ(plan_conversion(full, regs).kind, ConversionKind::Shuffle);
}

TEST(ConvertPlan, IntraWarpShuffle) {
  LL a = blocked({2}, {32}, {1}, {0}, {64});
  LL b = blocked({1}, {32}, {1}, {0}, {64});
  EXPECT_EQ(plan_conversion(a, b).kind, ConversionKind::Shuffle);
  // 2-D: one warp per row block in both, lanes rearranged within rows
  LL c = blocked({1, 4}, {4, 8}, {4, 1}, {1, 0}, {16, 32});
  LL d = blocked({1, 1}, {4, 8}, {4, 1}, {1, 0}, {16, 32});
  EXPECT_EQ(plan_conversion(c, d).kind, ConversionKind::Shuffle);
}

TEST(ConvertPlan, CrossWarpNeedsSharedMemory) {
  LL a = blocked({1, 4}, {8, 4}, {4, 1}, {1, 0}, {32, 32});
  LL b = blocked({4, 1}, {4, 8}, {1, 4}, {0, 1}, {32, 32});
  ConversionPlan p = plan_conversion(a, b);
  EXPECT_EQ(p.kind, ConversionKind::SharedMemory);
  EXPECT_EQ(p.str(), "shared_memory");
  // the reverse too; and a slice meeting a blocked layout of another warp split
  EXPECT_EQ(plan_conversion(b, a).kind, ConversionKind::SharedMemory);
  LL s =
      to_linear(*ir::Layout::slice(1, ir::Layout::blocked({1, 1}, {32, 1}, {4, 1}, {1, 0})), {128});
  LL one = blocked({1}, {32}, {4}, {0}, {128});
  EXPECT_EQ(plan_conversion(s, one).kind, ConversionKind::None);
  LL s2 =
      to_linear(*ir::Layout::slice(0, ir::Layout::blocked({1, 1}, {32, 1}, {4, 1}, {1, 0})), {128});
  // s2: every thread holds the whole row in registers: taking one element is local,
  // gathering the row from the distributed layout crosses warps
  EXPECT_EQ(registers_per_thread(s2), 128);
  EXPECT_EQ(plan_conversion(s2, one).kind, ConversionKind::Registers);
  EXPECT_EQ(plan_conversion(one, s2).kind, ConversionKind::SharedMemory);
}

TEST(ConvertPlan, ChunksSplitOnASharedRegisterBit) {
  // 64 x 64: a repeats along rows (register bit: row 32) and columns (col 16, col 32), b
  // along rows (row 16, row 32) and columns (col 32): two bits both hold in registers
  LL a = blocked({1, 4}, {8, 4}, {4, 1}, {1, 0}, {64, 64});
  LL b = blocked({4, 1}, {4, 8}, {1, 4}, {0, 1}, {64, 64});
  EXPECT_EQ(chunk_bits_available(a, b), 2);
  std::optional<ChunkBit> cb = chunk_bit(a, b);
  ASSERT_TRUE(cb);
  const auto &ab = a.in_dims()[a.in_dim_index(kRegister)].bases;
  const auto &bb = b.in_dims()[b.in_dim_index(kRegister)].bases;
  EXPECT_EQ(ab[cb->src_reg], bb[cb->dst_reg]);
  EXPECT_EQ(ab[cb->src_reg][cb->dim], 1 << cb->bit);
  // each half: the whole layout's registers with that bit clear, the bit squeezed out
  LL ha = drop_chunk_bit(a, cb->src_reg, cb->dim, cb->bit);
  EXPECT_EQ(ha.in_dim_size(kRegister), a.in_dim_size(kRegister) / 2);
  EXPECT_EQ(ha.out_dims()[cb->dim].size, 32);
  int low = (1 << cb->src_reg) - 1;
  for (int w = 0; w < 4; ++w)
    for (int t = 0; t < 32; ++t)
      for (int r = 0; r < ha.in_dim_size(kRegister); ++r) {
        auto whole = coords_of(a, ((r & ~low) << 1) | (r & low), t, w);
        int32_t &x = whole[static_cast<size_t>(cb->dim)];
        x = (x & ((1 << cb->bit) - 1)) | ((x >> (cb->bit + 1)) << cb->bit);
        EXPECT_EQ(coords_of(ha, r, t, w), whole);
      }
  EXPECT_EQ(plan_conversion(ha, drop_chunk_bit(b, cb->dst_reg, cb->dim, cb->bit)).kind,
            ConversionKind::SharedMemory);
  // at 32 x 32 their register bits differ (a: columns, b: rows): no chunks
  EXPECT_EQ(chunk_bits_available(blocked({1, 4}, {8, 4}, {4, 1}, {1, 0}, {32, 32}),
                                 blocked({4, 1}, {4, 8}, {1, 4}, {0, 1}, {32, 32})),
            0);
}

// ---- the attribute in IR text ------------------------------------------------------

TEST(LayoutAttr, PrintParseRoundTrip) {
  for (const char *text : {
           "#blocked<spt=[1,4], tpw=[8,4], wpc=[4,1], order=[1,0]>",
           "#slice<dim=1, #blocked<spt=[1,4], tpw=[8,4], wpc=[4,1], order=[1,0]>>",
           "#shared<vec=8, per_phase=1, max_phase=8, order=[1,0]>",
           "#linear<rank=2, register=[[0,1],[0,2]], lane=[], warp=[[1,0]]>",
       }) {
    auto l = ir::parse_layout(text);
    ASSERT_TRUE(l) << text;
    EXPECT_EQ((*l)->str(), text);
  }
  EXPECT_FALSE(ir::parse_layout("#blocked<spt=[1]>"));
  EXPECT_FALSE(ir::parse_layout("#nope<>"));
  auto t =
      ir::parse_type("tile<64x32xfp16, #blocked<spt=[1,8], tpw=[16,2], wpc=[4,1], order=[1,0]>>");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->layout->size_per_thread, (std::vector<int32_t>{1, 8}));
  EXPECT_EQ(t->str(), "tile<64x32xfp16, #blocked<spt=[1,8], tpw=[16,2], wpc=[4,1], order=[1,0]>>");
  EXPECT_NE(*t, t->without_layout());
  EXPECT_TRUE(t->same_ignoring_layout(t->without_layout()));
}

TEST(LayoutAttr, IRWithLayoutsRoundTripsAndVerifies) {
  const char *text = R"(tt.func @k(%p: ptr<fp32>) {
  %0 = arange {end = 128, start = 0} : tile<128xi32, #blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>>
  %1 = splat %p : ptr<fp32> -> tile<128xptr<fp32>, #blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>>
  %2 = addptr %1, %0 : tile<128xptr<fp32>, #blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>>, tile<128xi32, #blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>> -> tile<128xptr<fp32>, #blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>>
  %3 = convert_layout %0 : tile<128xi32, #blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>> -> tile<128xi32, #blocked<spt=[4], tpw=[32], wpc=[1], order=[0]>>
  return
}
)";
  std::unique_ptr<ir::Module> m = ir::parse_module(text);
  ir::verify(*m);
  EXPECT_EQ(ir::print(*m), text);
}

TEST(LayoutAttr, VerifierRejectsMismatchedLayouts) {
  const char *bad = R"(tt.func @k() {
  %0 = arange {end = 128, start = 0} : tile<128xi32, #blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>>
  %1 = arange {end = 128, start = 0} : tile<128xi32, #blocked<spt=[4], tpw=[32], wpc=[1], order=[0]>>
  %2 = add %0, %1 : tile<128xi32, #blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>>, tile<128xi32, #blocked<spt=[4], tpw=[32], wpc=[1], order=[0]>> -> tile<128xi32, #blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>>
  return
}
)";
  std::unique_ptr<ir::Module> m = ir::parse_module(bad);
  EXPECT_THROW(ir::verify(*m), InternalError);
  const char *bad_rank = R"(tt.func @k() {
  %0 = arange {end = 128, start = 0} : tile<128xi32, #blocked<spt=[1,1], tpw=[8,4], wpc=[4,1], order=[1,0]>>
  return
}
)";
  EXPECT_THROW(ir::verify(*ir::parse_module(bad_rank)), InternalError);
}
