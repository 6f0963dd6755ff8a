// The shared-memory ring of pipelined dot loops (Ops.def: local_alloc, async_copy,
// async_commit, async_wait, local_load; docs/ARCHITECTURE.md, "The fast matmul path").
//
// - local_alloc: the buffer is the op's scratch from allocate_shared (S stages, its start
//   aligned up to layout::ring_alignment within the allocation); no registers. A barrier
//   when earlier scratch may still be read (the ring may reuse its space).
// - async_copy: per thread, per run of the pointer tile's registers that are consecutive
//   in global memory (vector_width: layout, contiguity, alignment, one mask value) and in
//   the stage's placement, one cp.async of 16, 8 or 4 bytes to buf + stage * stage bytes
//   + offset(coords), source size mask ? bytes : 0 (zero fill). Runs under 4 bytes (no
//   cp.async) load into registers and st.shared instead: correct, synchronous.
//   Replicated elements are copied by their owner only.
// - local_alloc {mbar}, async_arrive: a ring whose stages signal mbarriers (warp
//   specialisation), in LowerTma.cpp: cp.async.mbarrier.arrive.noinc on the stage's.
// - async_commit / async_wait n: cp.async.commit_group / wait_group n, then
//   fence.proxy.async when a wgmma reads a ring some copy of which stores through
//   registers (generic-proxy writes; cp.async's need none, as in Triton) and bar.sync (the
//   other threads' copies become visible).
// - local_load: nothing when only wgmma dots use it (LowerWgmma reads the stage through
//   descriptors: ring_view / ring_stage_start, LowerRing.h); ldmatrix for a #dot_op of #mma<v=2>
//   with 16-bit elements (LowerDotOperand's ldmatrix_operand with the stage as its source); else
//   ld.shared per element.
#include "lower/LowerRing.h"

#include <map>

#include "layout/AllocateShared.h"
#include "layout/Layouts.h"
#include "layout/MmaLayouts.h"
#include "layout/RingLayouts.h"
#include "lower/MemoryAccess.h"
#include "simt/AsyncInstrs.h"

namespace tilec::lower {

// LowerDotOperand.cpp
int smem_store_run(LoweringContext &c, const layout::LinearLayout &l, int32_t r,
                   const std::vector<bool> &uniq, int max_run = 8);
std::vector<Reg> ldmatrix_operand(LoweringContext &c, const layout::LinearLayout &dst,
                                  const layout::LinearLayout &shared, bool a, int64_t base,
                                  Reg extra, Ty et);
bool ldmatrix_readable(const layout::LinearLayout &shared);

RingView ring_view(LoweringContext &c, const ir::Value *buf) {
  const ir::Op *alloc = buf->def;
  TILEC_ASSERT(alloc && alloc->kind() == ir::OpKind::LocalAlloc,
               "ring lowering: a buffer that no local_alloc made");
  const ir::Type &t = buf->type;
  RingView r;
  r.alloc = alloc;
  r.d0 = t.shape[1];
  r.d1 = t.shape[2];
  r.elem_bytes = mem_bytes(t.element());
  r.stage_bytes = layout::ring_stage_bytes(t);
  r.stage = layout::ring_stage_linear(t);
  r.base = c.scratch(*alloc, layout::scratch_bytes(*alloc), layout::scratch_alignment(*alloc));
  return r;
}

RingView ring_view(LoweringContext &c, const ir::Op &local_load) {
  RingView r = ring_view(c, local_load.operand(0));
  if (local_load.int_attr("trans", 0)) {
    r.stage = layout::transposed_stage(r.stage);
    std::swap(r.d0, r.d1);
  }
  return r;
}

std::pair<int64_t, Reg> ring_stage_start(LoweringContext &c, const RingView &r,
                                         const ir::Value *stage) {
  const ir::Op *d = stage->def;
  if (d && d->kind() == ir::OpKind::Constant)
    return {r.base + d->int_attr("value") * r.stage_bytes, Reg{}};
  return {r.base, c.b().mul(Ty::U32, c.scalar(stage), simt::imm(r.stage_bytes))};
}

namespace {

// `addr` + extra (memoised per address register: the stage offset is added once).
struct AddrPlus {
  LoweringContext &c;
  Reg extra;
  std::map<uint32_t, Reg> moved;
  Operand operator()(Operand addr) {
    if (!extra.valid())
      return addr;
    auto it = moved.find(addr.reg().id);
    if (it == moved.end())
      it = moved.emplace(addr.reg().id, c.b().add(Ty::U32, addr.reg(), extra)).first;
    return Operand::addr(it->second, addr.value);
  }
};

// How `op` copies: per thread, runs of its pointer registers consecutive in global memory
// and in the stage ({first register, length}); a run of 4 bytes or more is one cp.async,
// a narrower one goes through registers and st.shared.
struct CopyPlan {
  RingView ring;
  layout::LinearLayout to_off; // (reg, lane, warp) -> offset in the stage
  std::vector<bool> uniq;
  std::vector<std::pair<int32_t, int>> runs;
};

CopyPlan copy_plan(LoweringContext &c, const ir::Op &op) {
  CopyPlan p;
  p.ring = ring_view(c, op.operand(0));
  const ir::Value *ptr = op.operand(2);
  const ir::Value *mask = op.num_operands() > 3 ? op.operand(3) : nullptr;
  const layout::LinearLayout &pl = c.layout_of(ptr->type);
  p.to_off = pl.compose(p.ring.stage.invert());
  int vec = vector_width(c, ptr, mask, pl, p.ring.elem_bytes);
  p.uniq = LoweringContext::unique_regs(pl);
  auto n = static_cast<int32_t>(p.uniq.size());
  for (int32_t r = 0; r < n;) {
    if (!p.uniq[static_cast<size_t>(r)]) {
      ++r;
      continue;
    }
    int run = smem_store_run(c, p.to_off, r, p.uniq, vec);
    p.runs.emplace_back(r, run);
    r += run;
  }
  return p;
}

// Whether some copy of the function being lowered into a ring a wgmma reads stores through
// st.shared (generic-proxy writes: the async proxy sees them after fence.proxy.async).
// cp.async writes need no fence: as in Triton 3.6, whose fences cover register-to-shared
// stores only, they are complete at cp.async.wait_group and visible to the CTA after
// bar.sync; the fence costs a MEMBAR.ALL.CTA an iteration (attention backward, H200: 3 %).
bool ring_copies_store_generic(LoweringContext &c) {
  bool any = false;
  ir::walk(c.function().entry(), [&](ir::Op *o) {
    if (any || o->kind() != ir::OpKind::AsyncCopy || !layout::ring_feeds_wgmma(*o->operand(0)->def))
      return;
    CopyPlan p = copy_plan(c, *o);
    for (auto [r, run] : p.runs)
      any = any || run * p.ring.elem_bytes < 4;
  });
  return any;
}

void lower_async_copy(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  const ir::Value *ptr = op.operand(2);
  const ir::Value *mask = op.num_operands() > 3 ? op.operand(3) : nullptr;
  expect_same_layout(c, op, {ptr, mask});
  ir::Type elem = ptr->type.element();
  elem.ptr = false;
  CopyPlan p = copy_plan(c, op);
  const int eb = p.ring.elem_bytes;
  auto [base, extra] = ring_stage_start(c, p.ring, op.operand(1));
  AddrPlus at{c, extra, {}};
  Reg owner = c.owner_pred(c.layout_of(ptr->type));
  const std::vector<Reg> &pr = c.get(ptr);
  for (auto [r, run] : p.runs) {
    int bytes = run * eb;
    Reg m = mask ? c.get(mask)[static_cast<size_t>(c.get(mask).size() == 1 ? 0 : r)] : Reg{};
    Operand dst = at(c.smem_operand(p.to_off, base, eb, r));
    Reg src = pr[static_cast<size_t>(r)];
    if (bytes >= 4) {
      Operand src_bytes =
          m.valid() ? Operand(b.selp(Ty::U32, simt::imm(bytes), simt::imm(0), m)) : Operand{};
      simt::Builder::GuardScope g(b, simt::Guard{owner, false});
      simt::cp_async(b, dst, Operand::addr(src, 0), bytes, src_bytes);
    } else { // too narrow for cp.async: through registers
      std::vector<Reg> vals = load_vector(c, src, run, elem, m, mask != nullptr, {}, {});
      simt::Builder::GuardScope g(b, simt::Guard{owner, false});
      for (int j = 0; j < run; ++j) {
        Operand o = dst;
        o.value += j * eb;
        c.smem_store(o, vals[static_cast<size_t>(j)], elem);
      }
    }
  }
}

void lower_local_load(LoweringContext &c, const ir::Op &op) {
  const ir::Value *res = op.result(0);
  bool wgmma_only = !res->users.empty();
  for (const ir::Op *u : res->users)
    wgmma_only &= layout::is_wgmma_dot(*u);
  if (wgmma_only) // LowerWgmma reads the stage in place: the value has no registers
    return;
  RingView ring = ring_view(c, op);
  auto [base, extra] = ring_stage_start(c, ring, op.operand(1));
  const layout::LinearLayout &dst = c.layout_of(res->type);
  const ir::LayoutRef &dl = res->type.layout;
  ir::Type elem = res->type.element();
  if (dl->kind == ir::LayoutKind::DotOperand && dl->parent &&
      dl->parent->kind == ir::LayoutKind::Mma && dl->parent->mma_version == 2 && dl->k_width == 2 &&
      ring.elem_bytes == 2 && c.opts().sm >= 80 && ldmatrix_readable(ring.stage)) {
    c.set(res, ldmatrix_operand(c, dst, ring.stage, dl->op_idx == 0, base, extra, reg_ty(elem)));
    return;
  }
  layout::LinearLayout to_off = dst.compose(ring.stage.invert());
  AddrPlus at{c, extra, {}};
  std::vector<Reg> out;
  for (int32_t r = 0; r < c.num_regs(res->type); ++r)
    out.push_back(c.smem_load(at(c.smem_operand(to_off, base, ring.elem_bytes, r)), elem));
  c.set(res, std::move(out));
}

} // namespace

// LowerTma.cpp: local_alloc {tma = 1}, tma_copy, tma_wait, tma_release
void lower_tma(LoweringContext &c, const ir::Op &op);

void lower_ring(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  switch (op.kind()) {
  case ir::OpKind::LocalAlloc:
    if (op.int_attr("tma", 0) || op.int_attr("mbar", 0))
      return lower_tma(c, op);
    // its users find the buffer through the op; its space may be scratch that other
    // threads still read (e.g. a convert_layout just before): the copies into it wait
    c.smem_before_write();
    return;
  case ir::OpKind::TmaCopy:
  case ir::OpKind::TmaWait:
  case ir::OpKind::TmaRelease:
  case ir::OpKind::TmaFree:
  case ir::OpKind::AsyncArrive:
    return lower_tma(c, op);
  case ir::OpKind::AsyncCopy:
    lower_async_copy(c, op);
    return;
  case ir::OpKind::AsyncCommit:
    simt::cp_async_commit(b);
    return;
  case ir::OpKind::AsyncWait:
    simt::cp_async_wait(b, static_cast<int>(op.int_attr("pending", 0)));
    if (c.opts().sm >= 90 && ring_copies_store_generic(c))
      simt::fence_proxy_async(b);
    // the barrier; it also orders every earlier shared-memory read before later scratch
    // writes, so the next scratch user needs none of its own
    c.smem_unknown();
    c.smem_before_write();
    return;
  case ir::OpKind::LocalLoad:
    lower_local_load(c, op);
    return;
  default:
    TILEC_ASSERT(false, "lower_ring: not a ring op");
  }
}

} // namespace tilec::lower
