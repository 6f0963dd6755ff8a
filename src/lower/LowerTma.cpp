// The TMA rings (Ops.def: local_alloc {tma = 1}, tma_copy, tma_wait, tma_release; made by
// layout/PipelineLoops for host descriptors' blocks read by wgmma). One mbarrier a stage,
// after the stages (8 bytes each). Per stage fill:
//
//   thread 0, when the iteration exists:
//     mbarrier.arrive.expect_tx [bar_s], stage bytes
//     cp.async.bulk.tensor.2d [stage + k * panel bytes], [tmap, {col + k * cols, row}], [bar_s]
//   every thread, before the dot that reads the stage:
//     mbarrier.try_wait.parity [bar_s], phase (a loop)
//
// The stage's data then is visible to the waiting threads and to wgmma (both writer and
// reader are the async proxy: no fence). Who may overwrite a stage is the ring's rule
// (layout/PipelineLoops.cpp: the wgmma that read it retired, then a barrier, as for
// cp.async). Barriers are initialised by thread 0 before the prologue's copies (a fence
// for the async proxy, then bar.sync) and invalidated after the loop. A warp-specialised
// ring (local_alloc {free = n}, layout/WarpSpecialize.h) has S more barriers, each counting
// the n consumer warps that are done with the stage (tma_free); the producer's thread waits
// on one before refilling the stage (tma_wait {free}). Also here: the tensor maps the
// kernel builds (make_tmap).
#include <iterator>

#include "layout/AllocateShared.h"
#include "layout/MmaLayouts.h"
#include "layout/RingLayouts.h"
#include "layout/TmaCopies.h"
#include "lower/LowerRing.h"
#include "simt/AsyncInstrs.h"

namespace tilec::lower {

namespace {

// A .shared address register of scratch offset `off`, made once in the prologue.
Reg smem_at(LoweringContext &c, int64_t off) {
  Reg r;
  c.in_prologue([&] { r = c.b().shared_addr(off); });
  return r;
}

// Scratch offset of the ring's first barrier (they follow the S stages, 8 bytes each).
int64_t barriers_at(const RingView &r) {
  return r.base + r.alloc->result(0)->type.shape[0] * r.stage_bytes;
}

// Barriers of the ring: S "full" ones (the copies' bytes landed), and with local_alloc
// {free = n} S "free" ones after them (n consumer warps released the stage).
int64_t barrier_count(const ir::Op &alloc) {
  return alloc.result(0)->type.shape[0] * (alloc.int_attr("free", 0) ? 2 : 1);
}

// The .shared address of stage `stage`'s barrier (its free barrier when `free`).
Operand barrier_addr(LoweringContext &c, const RingView &r, const ir::Value *stage,
                     bool free = false) {
  int64_t first = barriers_at(r) + (free ? 8 * r.alloc->result(0)->type.shape[0] : 0);
  const ir::Op *d = stage->def;
  if (d && d->kind() == ir::OpKind::Constant)
    return Operand::addr(smem_at(c, first + 8 * d->int_attr("value")));
  Reg off = c.b().shl(Ty::B32, c.scalar(stage), simt::imm(3));
  return Operand::addr(c.b().add(Ty::U32, smem_at(c, first), off));
}

// The op before (`step` -1) or after (+1) `op` in its block, or null.
const ir::Op *sibling(const ir::Op &op, int step) {
  const auto &ops = op.parent()->ops();
  auto it = const_cast<ir::Op &>(op).self_iterator();
  if (step < 0)
    return it == ops.begin() ? nullptr : std::prev(it)->get();
  return ++it == ops.end() ? nullptr : it->get();
}

// A ring whose stages are signalled on mbarriers: TMA, or cp.async with {mbar}.
bool is_tma_ring(const ir::Op *op) {
  return op && op->kind() == ir::OpKind::LocalAlloc &&
         (op->int_attr("tma", 0) || op->int_attr("mbar", 0));
}

// Thread 0 initialises the ring's barriers. Rings made one after the other (a dot's A and
// B) share the fence and barrier that publish the inits: the last one emits them.
void init_barriers(LoweringContext &c, const ir::Op &alloc) {
  simt::Builder &b = c.b();
  RingView r = ring_view(c, alloc.result(0));
  int64_t stages = alloc.result(0)->type.shape[0];
  int64_t first = barriers_at(r);
  c.smem_before_write();
  // a stage's fill: thread 0's expect_tx (TMA), or every copying thread's arrival
  // (cp.async: the CTA's threads, or the same number of producer warps)
  int64_t fill = alloc.int_attr("tma", 0) ? 1 : 32 * c.num_warps();
  int64_t consumers = alloc.int_attr("free", 0);
  {
    auto g = b.guarded(c.thread0_pred());
    for (int64_t s = 0; s < barrier_count(alloc); ++s)
      simt::mbarrier_init(b, Operand::addr(b.shared_addr(first + 8 * s)),
                          simt::imm(s < stages ? fill : consumers));
  }
  if (is_tma_ring(sibling(alloc, 1)))
    return;
  simt::fence_proxy_async(b); // the inits, before the copies' complete_tx (async proxy)
  c.cta_barrier();
  c.smem_unknown();
}

// Every thread computes the copy's operands (uniform values: unguarded, ptxas keeps them
// in uniform registers instead of selecting them under thread 0's predicate); warps but
// the first branch past the issue, which thread 0 makes. Guarding the operands too made
// ptxas move them into vector registers and issue each UTMALDG in a loop over the lanes,
// in every warp (tutorial 09's fp8 tma_persistent: 16 % of the stall samples).
void tma_copy(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  RingView r = ring_view(c, op.operand(0));
  auto [base, extra] = ring_stage_start(c, r, op.operand(1));
  std::vector<int64_t> box = op.ints_attr("box");
  int64_t panels = op.int_attr("panels", 1);
  int64_t panel_bytes = box[0] * box[1] * r.elem_bytes;
  Operand bar = barrier_addr(c, r, op.operand(1));
  Reg tmap = c.scalar(op.operand(3));
  Reg row = c.scalar(op.operand(4)), col = c.scalar(op.operand(5));
  std::vector<Operand> dst, x;
  for (int64_t k = 0; k < panels; ++k) {
    Reg at = smem_at(c, base + k * panel_bytes);
    dst.push_back(Operand::addr(extra.valid() ? b.add(Ty::U32, at, extra) : at));
    x.push_back(k ? Operand(b.add(Ty::S32, col, simt::imm(k * box[1]))) : Operand(col));
  }
  Reg warp0 = b.setp(simt::Cmp::Eq, Ty::U32, c.leader_warp() ? c.hw_warp() : c.warp(),
                     simt::imm(c.leader_warp()));
  c.uniform_if(b.and_(Ty::Pred, warp0, c.scalar(op.operand(2))), [&] {
    auto g = b.guarded(c.thread0_pred());
    simt::mbarrier_arrive_expect_tx(b, bar, simt::imm(r.stage_bytes));
    for (int64_t k = 0; k < panels; ++k)
      simt::cp_async_bulk_tensor(b, dst[k], bar, tmap, {x[k], row});
  });
}

// ptxas serialises every wgmma of a function that makes any call (C7510: tutorial 08's TMA
// kernel ran 1.2 x slower for its map checks' __assertfail), so there the check traps.
bool has_wgmma_dot(const ir::Function &f) {
  bool any = false;
  ir::walk(f.entry(), [&](ir::Op *op) { any |= layout::is_wgmma_dot(*op); });
  return any;
}

} // namespace

// make_tmap (Ops.def) with a slot: warp 0 zeroes a 128-byte map in shared scratch, thread 0
// sets its fields (TMA's dims innermost first), the warp copies it to the program's global
// scratch slot and fences it for the tensor-map proxy, so thread 0's later copies read it.
// The value is the slot's address. A map no copy uses has no slot: a null address.
void lower_make_tmap(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  if (!op.has_attr("slot")) {
    c.set(op.result(0), {c.imm_reg(Ty::U64, 0)});
    return;
  }
  using simt::TmapField;
  std::vector<int64_t> box = op.ints_attr("box");
  const ir::Type &base = op.operand(0)->type;
  int64_t eb = static_cast<int64_t>(ir::byte_size(base.elem));
  int elemtype = simt::tensormap_elemtype(ir::ir_name(base.elem));
  TILEC_ASSERT(elemtype >= 0, "make_tmap: no TMA element type");
  int64_t swz = op.int_attr("swizzle", 0);
  int64_t swizzle_mode = swz == 128 ? 3 : swz == 64 ? 2 : swz == 32 ? 1 : 0;
  Reg global = b.add(Ty::U64, c.global_scratch(), simt::imm(128 * op.int_attr("slot")));
  Reg stride = b.mul(Ty::S64, c.scalar(op.operand(3)), simt::imm(eb)); // in bytes
  if (!layout::tma_map_provably_aligned(op, c.axis())) {
    // tl.make_tensor_descriptor's contract, which TMA needs: a clear error where it fails,
    // not what the copies would make of the map
    Reg low = b.and_(Ty::B64, b.or_(Ty::B64, c.scalar(op.operand(0)), stride), simt::imm(15));
    auto g = b.guarded(b.setp(simt::Cmp::Ne, Ty::B64, low, simt::imm(0)));
    b.assert_fail("tl.make_tensor_descriptor: the base must be 16-byte aligned and the "
                  "strides multiples of 16 bytes",
                  op.str_attr("file"), static_cast<int>(op.int_attr("line", 0)),
                  op.str_attr("func"), has_wgmma_dot(c.function()));
  }
  int64_t off = (c.scratch(op, 256) + 127) & ~int64_t{127};
  c.smem_before_write();
  Reg map = b.shared_addr(off);
  Reg warp0 = b.setp(simt::Cmp::Lt, Ty::U32, c.tid(), simt::imm(32));
  {
    auto g = b.guarded(warp0);
    Reg at = b.add(Ty::U32, map, b.shl(Ty::B32, c.lane(), simt::imm(2)));
    b.st(simt::Space::Shared, Ty::B32, Operand::addr(at), {simt::imm(0)});
  }
  simt::bar_warp_sync(b);
  {
    auto g = b.guarded(c.thread0_pred());
    auto set = [&](TmapField f, int ord, Operand v, Ty t = Ty::B32) {
      simt::tensormap_replace(b, Operand::addr(map), f, ord, t, v);
    };
    set(TmapField::GlobalAddress, -1, c.scalar(op.operand(0)), Ty::B64);
    set(TmapField::Rank, -1, simt::imm(1)); // rank - 1
    set(TmapField::BoxDim, 0, simt::imm(box[1]));
    set(TmapField::BoxDim, 1, simt::imm(box[0]));
    set(TmapField::GlobalDim, 0, c.scalar(op.operand(2)));
    set(TmapField::GlobalDim, 1, c.scalar(op.operand(1)));
    set(TmapField::GlobalStride, 0, stride, Ty::B64);
    set(TmapField::ElementStride, 0, simt::imm(1));
    set(TmapField::ElementStride, 1, simt::imm(1));
    set(TmapField::ElemType, -1, simt::imm(elemtype));
    set(TmapField::InterleaveLayout, -1, simt::imm(0));
    set(TmapField::SwizzleMode, -1, simt::imm(swizzle_mode));
    set(TmapField::FillMode, -1, simt::imm(op.int_attr("nan", 0)));
  }
  {
    auto g = b.guarded(warp0);
    simt::tensormap_cp_fenceproxy(b, global, Operand::addr(map));
    simt::fence_proxy_tensormap(b, global);
  }
  c.smem_unknown(); // warp 0 read the staging bytes: the next scratch write waits
  c.set(op.result(0), {global});
}

// How many bulk groups a deferred store may leave in flight when it waits for its own
// previous boxes: the block's other deferred stores. Each has staging of its own and
// commits one group each time the block runs, so between two runs of this store the
// others committed after it; any other group (a store that waits at once, one in another
// block) only retires more. A tile's two epilogue halves thus no longer wait for the
// first half's boxes before staging the second (tutorial 09's split epilogue).
namespace {
int deferred_keep(const ir::Op &op) {
  int n = 0;
  for (const auto &o : op.parent()->ops())
    if (o->kind() == ir::OpKind::TmaStore && o->int_attr("defer", 0))
      ++n;
  return n - 1;
}
} // namespace

// tma_store (Ops.def): every thread writes its elements where the boxes place them in
// shared scratch (1024-byte aligned: the swizzle is a function of address bits); after a
// proxy fence and a barrier, thread 0 stores each box and waits until they have read the
// scratch, which a later write may then reuse (after a barrier, smem_unknown). Deferred
// ({defer}: its staging is its own), thread 0 waits instead before the next staging
// (then a barrier tells every thread) and at the kernel's end.
void lower_tma_store(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  const ir::Value *v = op.operand(0);
  std::vector<int64_t> box = op.ints_attr("box");
  layout::TmaCopyPlan p{box[0], box[1], static_cast<int>(op.int_attr("swizzle", 0)),
                        op.int_attr("panels", 1)};
  int eb = static_cast<int>(ir::byte_size(v->type.elem));
  int64_t rows = v->type.shape[0], cols = v->type.shape[1];
  int64_t base = c.scratch(op, layout::scratch_bytes(op), layout::scratch_alignment(op));
  layout::LinearLayout to_offset = layout::tma_box_layout(p, rows, cols, eb).invert();
  bool defer = op.int_attr("defer", 0) != 0;
  if (defer) { // the previous iteration's boxes have left the staging
    {
      auto g = b.guarded(c.thread0_pred());
      simt::cp_async_bulk_wait_read(b, deferred_keep(op));
    }
    c.smem_unknown();
    c.tma_stores_in_flight();
  }
  b.set_smem_region(base, base + rows * cols * eb);
  c.smem_before_write();
  store_to_shared(c, c.get(v), c.layout_of(v->type).compose(to_offset), v->type.element(), base);
  simt::fence_proxy_async(b); // the generic writes, before the async proxy reads them
  c.cta_barrier();
  b.set_smem_region(0, 0);
  Reg tmap = c.scalar(op.operand(1));
  Reg row = c.scalar(op.operand(2)), col = c.scalar(op.operand(3));
  {
    auto g = b.guarded(c.thread0_pred());
    for (int64_t k = 0; k < p.panels; ++k) {
      Operand x = k ? Operand(b.add(Ty::S32, col, simt::imm(k * p.box1))) : Operand(col);
      simt::cp_async_bulk_tensor_store(
          b, Operand::addr(b.shared_addr(base + k * p.box0 * p.box1 * eb)), tmap, {x, row});
    }
    simt::cp_async_bulk_commit(b);
    if (!defer)
      simt::cp_async_bulk_wait_read(b, 0);
  }
  c.smem_unknown();
}

// LowerRing.cpp's lower_ring hands these over.
void lower_tma(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  switch (op.kind()) {
  case ir::OpKind::LocalAlloc:
    init_barriers(c, op);
    return;
  case ir::OpKind::TmaCopy:
    tma_copy(c, op);
    return;
  case ir::OpKind::TmaWait: {
    RingView r = ring_view(c, op.operand(0));
    if (!op.int_attr("free", 0)) {
      simt::mbarrier_wait(b, barrier_addr(c, r, op.operand(1)), c.scalar(op.operand(2)));
      return;
    }
    // the producer, before a copy it will issue: the readers of the stage's last fill
    // are done (a fresh barrier completes the phase of parity 1 at once)
    Operand bar = barrier_addr(c, r, op.operand(1), true);
    Reg phase = c.scalar(op.operand(2));
    c.uniform_if(c.scalar(op.operand(3)), [&] { simt::mbarrier_wait(b, bar, phase); });
    return;
  }
  case ir::OpKind::AsyncArrive: {
    RingView r = ring_view(c, op.operand(0));
    Operand bar = barrier_addr(c, r, op.operand(1));
    auto g = b.guarded(c.scalar(op.operand(2)));
    simt::cp_async_mbarrier_arrive(b, bar);
    return;
  }
  case ir::OpKind::TmaFree: {
    // each consumer warp, past the wait that retired its reads of the stage: one arrival
    // (lane 0) on the stage's free barrier, which counts the consumer warps
    RingView r = ring_view(c, op.operand(0));
    Operand bar = barrier_addr(c, r, op.operand(1), true);
    Reg lane0 = b.setp(simt::Cmp::Eq, Ty::U32, c.lane(), simt::imm(0));
    auto g = b.guarded(b.and_(Ty::Pred, lane0, c.scalar(op.operand(2))));
    simt::mbarrier_arrive(b, bar);
    return;
  }
  case ir::OpKind::TmaRelease: {
    RingView r = ring_view(c, op.operand(0));
    int64_t first = barriers_at(r);
    const ir::Op *before = sibling(op, -1);
    // every thread is past its last wait (of every ring released here); an async_wait just
    // before (a cp.async ring's wait_all) ends with that barrier already
    if (!before ||
        (before->kind() != ir::OpKind::TmaRelease && before->kind() != ir::OpKind::AsyncWait))
      c.cta_barrier();
    {
      auto g = b.guarded(c.thread0_pred());
      for (int64_t s = 0; s < barrier_count(*op.operand(0)->def); ++s)
        simt::mbarrier_inval(b, Operand::addr(b.shared_addr(first + 8 * s)));
    }
    c.smem_unknown();
    return;
  }
  default:
    TILEC_ASSERT(false, "lower_tma: not a TMA ring op");
  }
}

} // namespace tilec::lower
