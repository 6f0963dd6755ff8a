// ExpVoteTail: the exact block of an early-voted tl.exp (exp_vote_exact, between the vote's
// block and exp_vote_ftz, exp_vote_done after) moves to the end of the function with a
// copy of exp_vote_done's instructions up to the first one warps run together or that
// leaves the block; the common path takes those instructions and runs on; every branch
// target is renumbered. Nothing changes where the layout differs or nothing can be copied.
#include "lower/ExpVoteTail.h"
#include "LowerTestUtil.h"
#include "simt/Builder.h"
#include "simt/Format.h"

namespace tilec::lower::test {
namespace {

using simt::BlockId;
using simt::Builder;
using simt::Function;
using simt::Op;
using simt::Operand;
using simt::Reg;
using simt::Ty;

enum class Stop { Bar, Wgmma, Ret };

// pre: @p bra after | V: vote; @!any bra F | X: ex2; bra J | F: ex2.ftz | J: add; st;
// <stop>; ... | after: ret.  Two such tiles in a row with `twice` (the second's V is J).
Function kernel(Stop stop, bool twice = false, bool copy_nothing = false, size_t extra = 0) {
  Function fn;
  fn.name = "k";
  fn.params = {{"px", Ty::U64}, {"pv", Ty::F32}};
  Builder b(fn);
  auto start = [&](const char *hint) { // a new block, where the builder goes on
    BlockId id = b.new_block(hint);
    b.set_block(id);
    return id;
  };
  BlockId pre = start("entry");
  Reg ptr = b.ld_param(0), v = b.ld_param(1);
  Reg p = b.setp(simt::Cmp::Lt, Ty::F32, v, Operand::f32(0.0f));
  b.bra_if(p, 0); // patched to `after` below
  size_t pre_bra = fn.blocks[pre].instrs.size() - 1;
  start("vote");
  Reg y = v;
  for (int tile = 0; tile < (twice ? 2 : 1); ++tile) {
    Reg low = b.setp(simt::Cmp::Lt, Ty::F32, y, Operand::f32(-126.0f));
    Reg any = b.vote(simt::VoteMode::Any, low);
    BlockId v_blk = b.block();
    b.bra_if(any, 0, /*negate=*/true);
    BlockId x = start(kExpVoteExact);
    Reg r = b.approx(Op::Ex2, Ty::F32, y);
    b.bra(0);
    BlockId f = start(kExpVoteFtz);
    simt::Mods m;
    m.approx = m.ftz = true;
    simt::Instr e;
    e.op = Op::Ex2;
    e.ty = Ty::F32;
    e.m = m;
    e.dst = {r};
    e.src = {y};
    b.emit(e);
    BlockId j = start(kExpVoteDone);
    fn.blocks[v_blk].instrs.back().src[0] = Operand::label(f);
    fn.blocks[x].instrs.back().src[0] = Operand::label(j);
    if (!copy_nothing) {
      y = b.add(Ty::F32, r, Operand::f32(1.0f));
      b.st(simt::Space::Global, Ty::F32, Operand::addr(ptr), {y});
    }
    for (size_t i = 0; i < extra; ++i)
      y = b.add(Ty::F32, y, Operand::f32(1.0f));
  }
  if (stop == Stop::Bar)
    b.bar_sync(0);
  else if (stop == Stop::Wgmma) {
    simt::Instr w;
    w.op = Op::WgmmaFence;
    b.emit(w);
  }
  b.add(Ty::F32, y, Operand::f32(2.0f));
  BlockId after = start("after");
  fn.blocks[pre].instrs[pre_bra].src[0] = Operand::label(after);
  b.ret();
  return fn;
}

std::vector<std::string> labels(const Function &f) {
  std::vector<std::string> out;
  for (const auto &blk : f.blocks)
    out.push_back(blk.label);
  return out;
}

// Every label operand names a block; returns the label a block's last instruction
// branches to ("" if none).
std::string target(const Function &f, BlockId b) {
  const simt::Instr &in = f.blocks.at(b).instrs.back();
  if (in.op != Op::Bra)
    return "";
  return f.blocks.at(in.src[0].index).label;
}

TEST(ExpVoteTail, TheExactBlockMovesToTheEndWithACopyUpToTheBarrier) {
  for (Stop stop : {Stop::Bar, Stop::Wgmma}) {
    Function f = kernel(stop);
    ASSERT_EQ(exp_vote_tail(f), 1) << simt::dump(f);
    EXPECT_EQ(labels(f), (std::vector<std::string>{"entry", "vote", "exp_vote_ftz", "exp_vote_done",
                                                   "after", "exp_vote_exact"}))
        << simt::dump(f);
    // the vote's block branches to the exact copy when taken, else runs into the ftz one
    const simt::Instr &vb = f.blocks[1].instrs.back();
    EXPECT_FALSE(vb.guard.negate);
    EXPECT_EQ(target(f, 1), "exp_vote_exact");
    // the common path: ex2.ftz, then the add and the store it took from exp_vote_done
    const auto &fz = f.blocks[2].instrs;
    ASSERT_EQ(fz.size(), 3u) << simt::dump(f);
    EXPECT_TRUE(fz[0].op == Op::Ex2 && fz[0].m.ftz);
    EXPECT_EQ(fz[1].op, Op::Add);
    EXPECT_EQ(fz[2].op, Op::St);
    // exp_vote_done keeps the barrier (or wgmma fence) on
    EXPECT_EQ(f.blocks[3].instrs.front().op, stop == Stop::Bar ? Op::Bar : Op::WgmmaFence);
    // the exact copy: ex2 (not ftz), the same add and store, a branch to the barrier
    const auto &ex = f.blocks[5].instrs;
    ASSERT_EQ(ex.size(), 4u) << simt::dump(f);
    EXPECT_TRUE(ex[0].op == Op::Ex2 && !ex[0].m.ftz);
    EXPECT_EQ(ex[1].op, Op::Add);
    EXPECT_EQ(ex[2].op, Op::St);
    EXPECT_EQ(target(f, 5), "exp_vote_done");
    // a branch from before the tile still reaches its block
    EXPECT_EQ(f.blocks[0].instrs.back().src[0].index, 4u);
  }
}

TEST(ExpVoteTail, TheCopyEndsWhereTheBlockLeaves) {
  Function f = kernel(Stop::Ret);
  ASSERT_EQ(exp_vote_tail(f), 1) << simt::dump(f);
  // exp_vote_done had no barrier: its add is copied too, and it keeps only its end
  EXPECT_TRUE(f.blocks[3].instrs.empty()) << simt::dump(f);
  EXPECT_EQ(f.blocks[5].instrs.size(), 5u) << simt::dump(f);
  EXPECT_EQ(target(f, 5), "exp_vote_done");
}

TEST(ExpVoteTail, TwoTilesInARowEachGetTheirCopy) {
  Function f = kernel(Stop::Bar, /*twice=*/true);
  ASSERT_EQ(exp_vote_tail(f), 2) << simt::dump(f);
  std::vector<std::string> want = {"entry",         "vote",           "exp_vote_ftz",
                                   "exp_vote_done", "exp_vote_ftz_1", "exp_vote_done_1",
                                   "after",         "exp_vote_exact", "exp_vote_exact_1"};
  EXPECT_EQ(labels(f), want) << simt::dump(f);
  // the first copy runs up to the second tile's vote branch, then takes it from there
  EXPECT_EQ(target(f, 7), "exp_vote_done");
  EXPECT_EQ(target(f, 3), "exp_vote_exact_1");
  EXPECT_EQ(target(f, 8), "exp_vote_done_1");
  EXPECT_EQ(f.blocks[5].instrs.front().op, Op::Bar);
}

TEST(ExpVoteTail, AStretchTooLongIsNotCopied) {
  Function f = kernel(Stop::Bar, false, false, kExpVoteMaxCopy);
  std::string before = simt::dump(f);
  EXPECT_EQ(exp_vote_tail(f), 0);
  EXPECT_EQ(simt::dump(f), before);
  Function g = kernel(Stop::Bar, false, false, kExpVoteMaxCopy - 2); // add, st + these
  EXPECT_EQ(exp_vote_tail(g), 1);
}

TEST(ExpVoteTail, NothingToCopyOrAnotherLayoutChangesNothing) {
  Function f = kernel(Stop::Bar, false, /*copy_nothing=*/true); // J starts at the barrier
  std::string before = simt::dump(f);
  EXPECT_EQ(exp_vote_tail(f), 0);
  EXPECT_EQ(simt::dump(f), before);
  Function g = kernel(Stop::Bar);
  std::swap(g.blocks[3].label, g.blocks[4].label); // ftz and done swapped: not the layout
  before = simt::dump(g);
  EXPECT_EQ(exp_vote_tail(g), 0);
  EXPECT_EQ(simt::dump(g), before);
}

} // namespace
} // namespace tilec::lower::test
