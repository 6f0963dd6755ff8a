// The Thread IR pass that moves shared-memory loads and their unpacking down to their
// first reader (lower/SinkFragmentLoads.h), on hand-built instruction sequences.
#include <gtest/gtest.h>

#include "lower/SinkFragmentLoads.h"
#include "simt/Builder.h"
#include "simt/Format.h"

namespace tilec::lower {
namespace {

using simt::Op;
using simt::Ty;

// Position of the first instruction with op `op` (after `from`) in the entry block.
size_t pos(const simt::Function &f, Op op, size_t from = 0) {
  const auto &in = f.blocks.at(0).instrs;
  for (size_t i = from; i < in.size(); ++i)
    if (in[i].op == op)
      return i;
  return in.size();
}

TEST(SinkFragmentLoads, LdmatrixAndUnpackMoveToTheirMma) {
  simt::Function f;
  simt::Builder b(f);
  b.set_block(b.new_block("entry"));
  simt::Reg addr = b.shared_addr(0);
  std::vector<simt::Reg> x = b.ldmatrix(2, false, simt::Operand::addr(addr, 0));
  std::vector<simt::Reg> h = b.unpack(Ty::F16, 2, x[0]);
  simt::Reg t = b.add(Ty::S32, addr, simt::imm(1)); // unrelated work
  t = b.add(Ty::S32, t, simt::imm(2));
  simt::Reg p = b.pack(Ty::B32, {h[0], h[1]});
  b.add(Ty::U32, p, x[1]);
  sink_fragment_loads(f);
  // ldmatrix, unpack and pack now sit right before the first reader, after the adds
  size_t ld = pos(f, Op::Ldmatrix);
  EXPECT_GT(ld, pos(f, Op::Add) + 1);
  EXPECT_EQ(pos(f, Op::Unpack), ld + 1);
  EXPECT_EQ(pos(f, Op::Pack), ld + 2);
}

TEST(SinkFragmentLoads, SharedLoadsStayBeforeBarriersAndStores) {
  for (bool barrier : {true, false}) {
    simt::Function f;
    simt::Builder b(f);
    b.set_block(b.new_block("entry"));
    simt::Reg addr = b.shared_addr(0);
    std::vector<simt::Reg> x = b.ldmatrix(1, false, simt::Operand::addr(addr, 0));
    if (barrier)
      b.bar_sync(0);
    else
      b.st(simt::Space::Shared, Ty::B32, simt::Operand::addr(addr, 0), {simt::Operand::imm(0)});
    b.add(Ty::U32, x[0], simt::imm(1));
    sink_fragment_loads(f);
    EXPECT_EQ(pos(f, Op::Ldmatrix), 1u) << barrier;
  }
}

TEST(SinkFragmentLoads, NothingCrossesARedefinitionOfItsInputs) {
  simt::Function f;
  simt::Builder b(f);
  b.set_block(b.new_block("entry"));
  simt::Reg a = b.mov(Ty::B16, simt::imm(1)), c = b.mov(Ty::B16, simt::imm(2));
  simt::Reg p = b.pack(Ty::B32, {a, c});
  b.mov_to(a, simt::imm(3)); // a loop-carried register rewritten
  b.add(Ty::U32, p, simt::imm(1));
  sink_fragment_loads(f);
  EXPECT_LT(pos(f, Op::Pack), 3u);
}

// A conversion's load (its scratch buffer's bytes tagged) sinks past another buffer's
// stores and the barriers around them, its address computation with it; stores to its own
// bytes, or a store after its new place but before the next barrier, keep it up.
TEST(SinkFragmentLoads, TaggedLoadsPassOtherBuffersStores) {
  enum Case { Other, Same, RaceAfter, NoNextBarrier };
  for (Case c : {Other, Same, RaceAfter, NoNextBarrier}) {
    simt::Function f;
    simt::Builder b(f);
    b.set_block(b.new_block("entry"));
    simt::Reg tid = b.special(simt::Sreg::TidX);
    b.set_smem_region(0, 256); // operand A's conversion
    simt::Reg a_addr =
        b.mad(Ty::U32, b.xor_(Ty::B32, tid, simt::imm(5)), simt::imm(4), b.shared_addr(0));
    simt::Reg a = b.ld1(simt::Space::Shared, Ty::B32, simt::Operand::addr(a_addr, 0));
    int64_t lo = c == Same ? 128 : 256; // operand B's
    b.set_smem_region(lo, lo + 256);
    b.bar_sync(0);
    b.st(simt::Space::Shared, Ty::B32, simt::Operand::addr(b.shared_addr(lo), 0), {tid});
    b.bar_sync(0);
    simt::Reg bv = b.ld1(simt::Space::Shared, Ty::B32, simt::Operand::addr(b.shared_addr(lo), 0));
    b.set_smem_region(c == RaceAfter ? 0 : 512, c == RaceAfter ? 64 : 768);
    b.add(Ty::U32, a, bv); // a's first reader
    b.st(simt::Space::Shared, Ty::B32, simt::Operand::addr(b.shared_addr(0), 0), {tid});
    if (c != NoNextBarrier)
      b.bar_sync(0);
    sink_fragment_loads(f);
    size_t use = pos(f, Op::Add), second_bar = pos(f, Op::Bar, pos(f, Op::Bar) + 1);
    size_t ld = c == Other ? use - 1 : pos(f, Op::Ld); // A's load
    ASSERT_EQ(f.blocks[0].instrs[ld].op, Op::Ld) << simt::dump(f);
    if (c == Other) {
      EXPECT_GT(ld, second_bar) << "past both barriers";
      EXPECT_EQ(pos(f, Op::Mad), ld - 1) << "its address follows it";
      EXPECT_GT(pos(f, Op::Xor), second_bar);
    } else {
      EXPECT_LT(ld, pos(f, Op::Bar)) << c;
    }
    EXPECT_LT(ld, use);
  }
}

// A chain of 80 movable ops, each the only reader of the one before, moves as a whole to
// its reader, in order: every op lands right before the one moved just before it, more
// times than the order labels can halve their gap (the pass relabels then).
TEST(SinkFragmentLoads, LongChainsMoveInOrder) {
  simt::Function f;
  simt::Builder b(f);
  b.set_block(b.new_block("entry"));
  simt::Reg addr = b.shared_addr(0);
  simt::Reg v = b.ld1(simt::Space::Shared, Ty::B32, simt::Operand::addr(addr, 0));
  for (int i = 0; i < 40; ++i) {
    std::vector<simt::Reg> h = b.unpack(Ty::B16, 2, v);
    v = b.pack(Ty::B32, {h[1], h[0]});
  }
  simt::Reg t = b.add(Ty::S32, addr, simt::imm(1)); // unrelated work
  b.add(Ty::S32, t, simt::imm(2));
  b.add(Ty::U32, v, simt::imm(3));
  size_t n = f.blocks[0].instrs.size();
  sink_fragment_loads(f);
  const auto &in = f.blocks[0].instrs;
  ASSERT_EQ(in.size(), n);
  size_t ld = pos(f, Op::Ld);
  EXPECT_EQ(ld, 3u) << simt::dump(f); // after the address and the two unrelated adds
  for (size_t i = 0; i < 80; ++i)
    EXPECT_EQ(in[ld + 1 + i].op, i % 2 ? Op::Pack : Op::Unpack) << i;
  EXPECT_EQ(in[ld + 81].op, Op::Add);
}

} // namespace
} // namespace tilec::lower
