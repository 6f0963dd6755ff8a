// DeferWgmmaWait's in-block rule: `commit; wait_group 0` of a group whose block retires it
// again at its next wait loses its own wait - only while nothing in between reads or writes
// the group's accumulators or A fragments, writes memory or passes a barrier. (The
// back-edge rule, opt-in, is ThreadStagesTest's.)
#include "lower/DeferWgmmaWait.h"
#include "LowerTestUtil.h"
#include "simt/AsyncInstrs.h"
#include "simt/Builder.h"
#include "simt/Format.h"

namespace tilec::lower::test {
namespace {

using simt::Builder;
using simt::Function;
using simt::Op;
using simt::Operand;
using simt::Reg;
using simt::Ty;

enum class Between { Nothing, ReadsD1, WritesA1, Store, Barrier, WaitOne };

// [wait 0, or an earlier group D0 committed and left in flight]; fence, D1 += A1
// (registers) * B; commit; wait 0; [between]; fence; D2 = A * B; commit;
// wait 0 (or wait 2, which with one group committed after D1's does not retire it); D1
// and D2 stored after.
Function two_groups(Between between, bool second_waits_all = true,
                    bool earlier_group_in_flight = false) {
  Function fn;
  fn.name = "k";
  fn.num_warps = 4;
  fn.params = {{"out", Ty::U64}};
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg out = b.ld_param(0);
  Reg base = b.shared_addr(0);
  Reg desc = simt::wgmma_desc(b, base, simt::MatrixDesc{});
  simt::WgmmaShape shape; // m64n8k16 f16 -> f32
  std::vector<Reg> d0 = b.regs(Ty::F32, shape.acc_regs()), d1 = b.regs(Ty::F32, shape.acc_regs()),
                   d2 = b.regs(Ty::F32, shape.acc_regs());
  std::vector<Reg> a1 = b.regs(Ty::B32, 4);
  for (Reg r : d1)
    b.mov_to(r, Operand::imm(0));
  for (Reg r : a1)
    b.mov_to(r, Operand::imm(0));
  if (earlier_group_in_flight) { // committed, never waited for in this block
    simt::wgmma_fence(b);
    simt::wgmma(b, shape, d0, desc, {}, desc, Operand::imm(0), false, false);
    simt::wgmma_commit(b);
  } else {
    simt::wgmma_wait(b, 0); // whatever an earlier block left in flight is retired
  }
  simt::wgmma_fence(b);
  simt::wgmma(b, shape, d1, {}, a1, desc, Operand::imm(1), false, false);
  simt::wgmma_commit(b);
  simt::wgmma_wait(b, 0);
  switch (between) {
  case Between::Nothing:
    b.add(Ty::U32, base, Operand::imm(4)); // unrelated work may run beside the group
    if (earlier_group_in_flight)           // retired by D1's wait: may read D0 here
      b.add(Ty::F32, d0[0], Operand::imm(1));
    break;
  case Between::ReadsD1:
    b.add(Ty::F32, d1[0], Operand::imm(1));
    break;
  case Between::WritesA1:
    b.mov_to(a1[0], Operand::imm(3));
    break;
  case Between::Store:
    b.st(simt::Space::Shared, Ty::B32, Operand::addr(base, 0), {Operand::imm(1)});
    break;
  case Between::Barrier:
    b.bar_sync(0);
    break;
  case Between::WaitOne:
    break;
  }
  simt::wgmma_fence(b);
  simt::wgmma(b, shape, d2, desc, {}, desc, Operand::imm(0), false, false);
  simt::wgmma_commit(b);
  simt::wgmma_wait(b, second_waits_all ? 0 : 2);
  if (!second_waits_all)
    simt::wgmma_wait(b, 0);
  for (size_t i = 0; i < d1.size(); ++i) {
    b.st(simt::Space::Global, Ty::F32, Operand::addr(out, static_cast<int64_t>(4 * i)), {d1[i]});
    b.st(simt::Space::Global, Ty::F32, Operand::addr(out, static_cast<int64_t>(64 + 4 * i)),
         {d2[i]});
  }
  b.ret();
  return fn;
}

TEST(DeferWgmmaWait, TheNextWaitRetiresTheGroupInstead) {
  Function f = two_groups(Between::Nothing);
  EXPECT_EQ(count_op(f, Op::WgmmaWait), 3u);
  EXPECT_EQ(defer_wgmma_wait(f), 1) << simt::dump(f);
  EXPECT_EQ(count_op(f, Op::WgmmaWait), 2u) << simt::dump(f);
  // the wait left is the second group's, after both commits
  std::string text = simt::dump(f);
  EXPECT_LT(text.rfind("wgmma.commit_group"), text.rfind("wgmma.wait_group")) << text;
  EXPECT_GT(text.find("wgmma.commit_group"), text.find("wgmma.wait_group")) << text;
}

TEST(DeferWgmmaWait, KeepsTheWaitWhenSomethingNeedsTheGroupDone) {
  for (Between w : {Between::ReadsD1, Between::WritesA1, Between::Store, Between::Barrier}) {
    Function f = two_groups(w);
    EXPECT_EQ(defer_wgmma_wait(f), 0) << simt::dump(f);
    EXPECT_EQ(count_op(f, Op::WgmmaWait), 3u) << static_cast<int>(w);
  }
  // an earlier group is still in flight at D1's wait, which retires it too (the code
  // after it reads D0)
  Function g = two_groups(Between::Nothing, true, true);
  EXPECT_EQ(defer_wgmma_wait(g), 0) << simt::dump(g);
  // the next wait keeps two groups pending: it does not retire the first
  Function f = two_groups(Between::WaitOne, false);
  EXPECT_EQ(defer_wgmma_wait(f), 0) << simt::dump(f);
}

} // namespace
} // namespace tilec::lower::test
