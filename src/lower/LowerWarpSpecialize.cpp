// warp_specialize (Ops.def; made by layout/WarpSpecialize.h): the CTA splits by warps.
//
//   @!(warp >= num_warps) bra consumer
//   producer: [setmaxnreg.dec; TMA: the warpgroup's other warps ret]
//             the producer region (TMA: its first thread issues the copies; cp.async:
//             its num_warps warps copy as the consumers' layouts place the elements,
//             their thread indices aliasing the consumers'); ret
//   consumer: [setmaxnreg.inc] the consumer region, then the rest of the kernel
//
// The producer warps come after the num_warps warps the layouts place tiles on, so the
// consumer code is the code every warp would run without the split. From the split on,
// the consumers' barriers are named ones of their threads only (bar.sync 1, 32 x
// num_warps): the producer's warps have returned and never arrive. The producer region is
// lowered first, so that work a consumer loop leaves in flight (defer_past) is finished
// in the consumer code, not at the producer's first op.
#include <set>

#include "lower/LoweringContext.h"
#include "simt/AsyncInstrs.h"

namespace tilec::lower {

void lower_warp_specialize(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  int consumers = c.num_warps();
  // maps the kernel built before the split were written by warp 0, whose own copies
  // needed no barrier: the producer's do, and acquire each map for the tensor-map proxy
  std::set<const ir::Value *> maps;
  ir::walk(op.region(0)->block(), [&](ir::Op *o) {
    if (o->kind() == ir::OpKind::TmaCopy && o->operand(3)->def &&
        o->operand(3)->def->kind() == ir::OpKind::MakeTmap && o->operand(3)->def->has_attr("slot"))
      maps.insert(o->operand(3));
  });
  if (!maps.empty())
    c.cta_barrier();
  Reg producer = b.setp(simt::Cmp::Ge, Ty::U32, c.hw_warp(), simt::imm(consumers));
  auto to_consumer = c.branch_ahead(producer, /*negate=*/true);
  c.new_block("producer");
  // {producer_regs, consumer_regs}: the producer warpgroup gives registers back, and its
  // warps but the first return; ptxas must know the registers at entry (.minnctapersm)
  int64_t give = op.int_attr("producer_regs", 0), take = op.int_attr("consumer_regs", 0);
  if (give) {
    c.fn().min_ctas = 1;
    c.fn().setmaxnreg_give_threads = static_cast<int>(32 * op.int_attr("producer_warps"));
    b.setmaxnreg(false, static_cast<int>(give));
  }
  if (give && !op.int_attr("cp", 0)) { // one thread issues the TMA copies
    Reg other = b.setp(simt::Cmp::Ne, Ty::U32, c.hw_warp(), simt::imm(consumers));
    c.uniform_if(other, [&] { b.ret(); });
  }
  bool readers = c.smem_readers_; // the producer region touches no scratch
  c.leader_warp_ = consumers;
  for (const ir::Value *m : maps)
    simt::fence_proxy_tensormap(b, c.scalar(m));
  c.lower_ops(*op.region(0)->block());
  c.leader_warp_ = 0;
  c.smem_readers_ = readers;
  b.ret();
  c.patch(to_consumer, c.new_block("consumer"));
  if (take)
    b.setmaxnreg(true, static_cast<int>(take));
  c.barrier_threads_ = 32 * consumers;
  c.lower_ops(*op.region(1)->block());
}

} // namespace tilec::lower
