#include <gtest/gtest.h>

#include "layout/LinearLayout.h"

using namespace tilec::layout;
using LL = LinearLayout;

TEST(LinearLayout, IdentityAndZeros) {
  LL id = LL::identity_1d(8, kRegister, "dim0");
  EXPECT_EQ(id.total_in_size(), 8);
  EXPECT_EQ(id.total_out_size(), 8);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(id.apply(std::vector<int32_t>{i}), std::vector<int32_t>{i});
  EXPECT_TRUE(id.is_invertible());
  LL z = LL::zeros_1d(4, kLane, "dim0");
  EXPECT_EQ(z.apply(std::vector<int32_t>{3}), std::vector<int32_t>{0});
  EXPECT_FALSE(z.is_injective());
  EXPECT_TRUE(z.is_surjective());
  EXPECT_EQ(z.free_variable_masks(), std::vector<int32_t>{3});
  LL s = LL::strided_1d(4, 2, kRegister, "dim0");
  EXPECT_EQ(s.apply(std::vector<int32_t>{3}), std::vector<int32_t>{6});
  EXPECT_EQ(s.out_dim_size("dim0"), 8);
  EXPECT_FALSE(s.is_surjective());
}

TEST(LinearLayout, ApplyXorsBases) {
  LL l({{kRegister, {{1, 0}, {0, 2}}}, {kLane, {{2, 1}}}}, {{"dim0", 4}, {"dim1", 4}});
  EXPECT_EQ(l.apply({3, 1}), (std::vector<int32_t>{1 ^ 2, 2 ^ 1}));
  auto named = l.apply_named({{kLane, 1}});
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0], (std::pair<std::string, int32_t>{"dim0", 2}));
  EXPECT_EQ(named[1], (std::pair<std::string, int32_t>{"dim1", 1}));
  // flat: register fastest in; dim1 fastest out
  EXPECT_EQ(l.apply_flat(1), 1 * 4 + 0);
  EXPECT_EQ(l.apply_flat(4), 2 * 4 + 1);
}

TEST(LinearLayout, ProductStacksBits) {
  LL a = LL::identity_1d(4, kRegister, "dim0");
  LL b = LL::identity_1d(2, kRegister, "dim0");
  LL p = a * b;
  EXPECT_EQ(p.in_dim_size(kRegister), 8);
  EXPECT_EQ(p.out_dim_size("dim0"), 8);
  EXPECT_EQ(p.basis(kRegister, 2), LL::Basis{4});
  // different dims: a 2-D product, rhs dims appended
  LL q = LL::identity_1d(4, kRegister, "dim1") * LL::identity_1d(2, kLane, "dim0");
  EXPECT_EQ(q.num_out_dims(), 2);
  EXPECT_EQ(q.out_dims()[0].name, "dim1");
  EXPECT_EQ(q.apply_named({{kRegister, 3}, {kLane, 1}})[1].second, 1);
}

TEST(LinearLayout, ComposeAndInvert) {
  // a permutation of 3 bits: in bit i -> out bit (i+1)%3
  LL p({{kRegister, {{2}, {4}, {1}}}}, {{"dim0", 8}});
  ASSERT_TRUE(p.is_invertible());
  LL inv = p.invert();
  for (int i = 0; i < 8; ++i) {
    int32_t y = p.apply(std::vector<int32_t>{i})[0];
    EXPECT_EQ(inv.apply(std::vector<int32_t>{y})[0], i);
  }
  LL id = p.compose(inv.rename_out_dim(kRegister, "x").rename_in_dim("dim0", "dim0"));
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(id.apply(std::vector<int32_t>{i})[0], i);
}

TEST(LinearLayout, PseudoInverseIsARightInverse) {
  // lanes 0..3 cover dims, lane bit 2 is broadcast
  LL l({{kRegister, {{1}}}, {kLane, {{2}, {4}, {0}}}}, {{"dim0", 8}});
  EXPECT_FALSE(l.is_injective());
  EXPECT_TRUE(l.is_surjective());
  EXPECT_EQ(l.free_variable_masks(), (std::vector<int32_t>{0, 4}));
  LL r = l.pseudo_invert();
  for (int y = 0; y < 8; ++y) {
    auto x = r.apply(std::vector<int32_t>{y}); // (register, lane)
    EXPECT_EQ(l.apply({x[0], x[1]})[0], y);
    EXPECT_EQ(x[1] & 4, 0) << "free bits map to 0";
  }
}

TEST(LinearLayout, InvertAndCompose) {
  // src: element e at register e&1, lane e>>1; dst: lane e&3... (8 elements)
  LL src({{kRegister, {{1}}}, {kLane, {{2}, {4}}}}, {{"dim0", 8}});
  LL dst({{kRegister, {{4}}}, {kLane, {{1}, {2}}}}, {{"dim0", 8}});
  LL c = src.invert_and_compose(dst); // src hw -> dst hw
  for (int r = 0; r < 2; ++r)
    for (int l = 0; l < 4; ++l) {
      auto d = c.apply({r, l});
      EXPECT_EQ(dst.apply(d), src.apply({r, l}));
    }
}

TEST(LinearLayout, FreeVariablesRepeatEarlierBits) {
  // lane bit 1 repeats register bit 0's element: only the later one is free
  LL l({{kRegister, {{1}}}, {kLane, {{2}, {1}}}}, {{"dim0", 4}});
  EXPECT_EQ(l.free_variable_masks(), (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(l.free_variable_mask(kWarp), 0);
  EXPECT_EQ(l.rank_f2(), 2);
}

TEST(LinearLayout, SublayoutTransposeReshape) {
  LL l({{kRegister, {{0, 1}, {0, 2}}}, {kLane, {{1, 0}, {2, 0}}}}, {{"dim0", 4}, {"dim1", 4}});
  LL s = l.sublayout({kLane}, {"dim0"});
  EXPECT_EQ(s.num_in_dims(), 1);
  EXPECT_EQ(s.basis(kLane, 1), LL::Basis{2});
  LL t = l.transpose_outs({"dim1", "dim0"});
  EXPECT_EQ(t.basis(kRegister, 0), (LL::Basis{1, 0}));
  // row-major flatten: (r, c) -> r*4 + c
  LL f = l.reshape_outs({{"flat", 16}});
  EXPECT_EQ(f.basis(kRegister, 1), LL::Basis{2});
  EXPECT_EQ(f.basis(kLane, 0), LL::Basis{4});
  EXPECT_TRUE(f.is_invertible());
  LL back = f.reshape_outs({{"dim0", 4}, {"dim1", 4}});
  EXPECT_EQ(back, l);
  LL ri = l.reshape_ins({{"all", std::vector<LL::Basis>(4)}});
  EXPECT_EQ(ri.in_dim_size("all"), 16);
  EXPECT_EQ(ri.basis("all", 2), (LL::Basis{1, 0}));
}

TEST(LinearLayout, ConsecutiveRegisters) {
  LL l({{kRegister, {{0, 1}, {0, 2}, {4, 0}}}, {kLane, {{0, 4}}}}, {{"dim0", 8}, {"dim1", 8}});
  EXPECT_EQ(l.num_consecutive_in_out(kRegister, "dim1"), 4);
  EXPECT_EQ(l.num_consecutive_in_out(kRegister, "dim0"), 1);
  EXPECT_EQ(l.num_consecutive_in_out(kLane, "dim1"), 1);
}

TEST(LinearLayout, FromBasesInfersSizesAndPrints) {
  LL l = LL::from_bases({{kRegister, {{0, 1}, {3, 0}}}}, {"dim0", "dim1"});
  EXPECT_EQ(l.out_dim_size("dim0"), 4);
  EXPECT_EQ(l.out_dim_size("dim1"), 2);
  EXPECT_EQ(l.str(), "register: [[0,1],[3,0]]; -> dim0:4, dim1:2");
}
