// dot on wgmma (sm_90a): the result has the accumulator layout #mma<v=3, wpc=[4 wg_m, wg_n],
// instr=[64, n]> (layout/WgmmaLayouts.h), the operands any distributed layout (layout
// rules ask nothing of them).
//
// 1. A [M, K] and B [K, N] are stored to shared memory in the canonical layouts wgmma's
//    matrix descriptors describe (layout::wgmma_operand_smem): K-major or MN-major by the
//    dim each thread holds contiguously, so a thread's runs of 8 elements are one 16-byte
//    st.shared; the swizzle is the widest (128B, else 64B/32B) the contiguous extent of one
//    instruction fills. Each buffer starts 1024-byte aligned (the swizzle is a function of
//    address bits).
// 2. fence.proxy.async (the generic-proxy stores become visible to wgmma's async proxy),
//    bar.sync.
// 3. wgmma.fence; per K step (16; 8 for tf32, 32 for 8-bit types) and per instruction tile (64 rows
// x n of a warpgroup,
//    repeated in registers over M and N), one wgmma.mma_async with descriptors whose start
//    is the tile's (m0, k0) / (n0, k0); then commit_group and wait_group 0.
// A K loop's chain (layout::wgmma_pipelined_loop: acc = dot(a, b, acc) carried in fp32, no
// other shared scratch in the loop) keeps one group in flight: the accumulator stays in
// the loop-carried registers (no copies: nothing else touches them until the loop ends),
// the operands alternate between two buffers (a register holds this iteration's offset),
// and wait_group 1 after the commit retires the previous group, which read the buffer
// the next iteration overwrites (after a barrier). wait_group 0 follows the loop
// (LoweringContext::defer_past), before anything reads the accumulator or shared memory.
// The descriptors' start fields add up: a per-warpgroup base (warp / 4 picks its rows of A
// and columns of B) computed once, plus a compile-time offset per (tile, k) (the start is the
// descriptor's low 14 bits, no carry out for shared addresses; make_descriptors: where).
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "layout/Layouts.h"
#include "layout/MmaLayouts.h"
#include "layout/WgmmaLayouts.h"
#include "lower/LowerRing.h"
#include "lower/LoweringContext.h"
#include "lower/WgmmaByteFragments.h"
#include "lower/WgmmaOperandStore.h"
#include "simt/AsyncInstrs.h"
#include "support/Env.h"

namespace tilec::lower {

using layout::log2i;

namespace {

using layout::LinearLayout;
using layout::WgmmaOperandSmem;
using Coords = std::vector<int32_t>;

simt::Swizzle swizzle_of(int bytes) {
  switch (bytes) {
  case 128:
    return simt::Swizzle::B128;
  case 64:
    return simt::Swizzle::B64;
  case 32:
    return simt::Swizzle::B32;
  default:
    return simt::Swizzle::None;
  }
}

using layout::ring_operand;

// Where `dot`'s operand buffers start (its scratch, 1024-aligned): A, then B at
// wgmma_dot_a_bytes (also for the dots that read or fill another dot's B there).
int64_t dot_buffer_base(LoweringContext &c, const ir::Op &dot) {
  return (c.scratch(dot, layout::wgmma_dot_smem_bytes(dot)) + 1023) & ~int64_t{1023};
}

// Whether the ring stage `v` (a local_load) comes from is freed by its readers' tma_free
// (a warp-specialised ring, layout/WarpSpecialize.h): no barrier orders its overwrite.
bool freed_ring(const ir::Value *v) {
  const ir::Op *alloc = v->def ? v->def->operand(0)->def : nullptr;
  return alloc && alloc->int_attr("free", 0) > 0;
}

// Whether invariant descriptors of `dot` are kept as 32-bit low words (make_descriptors):
// TILEC_WGMMA_DESC=auto in blocks of three wgmma dots or more, low always, wide never.
bool low_word_descriptors(const ir::Op &dot) {
  const std::string mode = env::get(env::Var::WgmmaDesc);
  if (mode != "auto")
    return mode == "low";
  int n = 0;
  for (const auto &op : dot.parent()->ops()) {
    const ir::LayoutRef &l = op->kind() == ir::OpKind::Dot ? op->result()->type.layout : nullptr;
    n += l && l->kind == ir::LayoutKind::Mma && l->mma_version == 3;
  }
  return n >= 3;
}

// Whether a dot before `dot` in its block reads a ring stage.
bool earlier_ring_reader(const ir::Op &dot) {
  for (const auto &op : dot.parent()->ops()) {
    if (op.get() == &dot)
      return false;
    if (op->kind() == ir::OpKind::Dot &&
        (ring_operand(op->operand(0)) || ring_operand(op->operand(1))))
      return true;
  }
  return false;
}

// Whether the ring's stage placement is the MN-major canonical layout (else K-major; an
// internal error when it is neither: the pass and the lowering disagree).
bool ring_major(const RingView &r, int32_t mn, int32_t k, int eb, bool operand_b,
                int32_t mn_instr) {
  for (bool mn_major : {false, true}) {
    if (mn_major && eb != 2)
      continue;
    if (layout::wgmma_operand_smem(mn, k, eb, mn_major, operand_b, mn_instr).layout == r.stage)
      return mn_major;
  }
  TILEC_ASSERT(false,
               "wgmma lowering: a ring stage in no canonical wgmma layout: " + r.stage.str());
  return false;
}

// One wgmma dot: its operands staged (step 1), descriptors (2), accumulator tiles and
// the instructions (3), the result registers.
class WgmmaLowering {
public:
  WgmmaLowering(LoweringContext &c, const ir::Op &op)
      : c_(c), b_(c.b()), op_(op), a_(op.operand(0)), bv_(op.operand(1)), acc_(op.operand(2)),
        rt_(op.result(0)->type), eb_(mem_bytes(a_->type.element())) {
    const ir::Layout &enc = *rt_.layout;
    TILEC_ASSERT(c.opts().sm >= 90 && enc.mma_version == 3 && rt_.rank() == 2 &&
                     (eb_ == 2 || (tf32() && eb_ == 4) || eb_ == 1) &&
                     mem_bytes(bv_->type.element()) == eb_,
                 "wgmma lowering: an sm_90a dot of 16-bit, tf32, int8 or fp8 operands");
    M_ = static_cast<int32_t>(rt_.shape[0]);
    N_ = static_cast<int32_t>(rt_.shape[1]);
    K_ = static_cast<int32_t>(a_->type.shape[1]);
    wg_m_ = enc.warps_per_cta[0] / 4;
    wg_n_ = enc.warps_per_cta[1];
    in_ = enc.instr_shape[1];
    TILEC_ASSERT(wg_m_ * wg_n_ * 4 == c.num_warps(),
                 "wgmma lowering: warpgroups do not cover the CTA");
    loop_ = layout::wgmma_pipelined_loop(op);
    steps_ = layout::wgmma_imprecise_steps(op);
    if (const ir::Op *z = layout::wgmma_zeroing_select(op)) { // select(c, 0, x): x, scaled by !c
      acc_ = z->operand(2);
      keep_ = b_.not_(Ty::Pred, c.scalar(z->operand(0)->def->operand(0)));
    }
  }

  void run() {
    stage_operands();
    make_descriptors();
    init_accumulators();
    issue();
    c_.set(op_.result(0), results());
  }

private:
  bool tf32() const { return a_->type.elem == ir::DType::F32; }
  bool s8() const { return a_->type.elem == ir::DType::I8; }
  bool f16_acc() const { return rt_.elem == ir::DType::F16; }
  Ty acc_ty() const { return f16_acc() ? Ty::F16 : s8() ? Ty::S32 : Ty::F32; }
  Ty operand_ty(ir::DType d) const {
    return tf32()                 ? Ty::TF32
           : s8()                 ? Ty::S8
           : eb_ == 1             ? (d == ir::DType::F8E4NV ? Ty::E4M3x2 : Ty::E5M2x2)
           : d == ir::DType::BF16 ? Ty::BF16
                                  : Ty::F16;
  }

  // 1. the operands in shared memory (A in registers when they hold its fragments); a
  // pipelined K loop alternates two buffers
  void stage_operands() {
    if (layout::wgmma_a_from_registers(op_) && !ring_operand(a_)) {
      const LinearLayout &la = c_.layout_of(a_->type);
      const std::vector<Reg> &ar = c_.get(a_);
      for (int32_t r = 0; r < static_cast<int32_t>(ar.size()); ++r)
        a_held_.emplace(LoweringContext::reg_coords(la, r), ar[static_cast<size_t>(r)]);
    }
    a_regs_ = !a_held_.empty();
    // an operand from a ring stage (local_load) is read in place: its placement is the
    // stage's (the pass chose it with wgmma_operand_smem; K- or MN-major, found here)
    ring_a_ = !a_regs_ && ring_operand(a_);
    ring_b_ = ring_operand(bv_);
    a_mn_ = layout::wgmma_staged_mn_major(op_, 0);
    b_mn_ = layout::wgmma_staged_mn_major(op_, 1);
    RingView ra, rb;
    if (ring_a_) {
      ra = ring_view(c_, *a_->def);
      a_mn_ = ring_major(ra, M_, K_, eb_, false, 64);
    }
    if (ring_b_) {
      rb = ring_view(c_, *bv_->def);
      b_mn_ = ring_major(rb, N_, K_, eb_, true, in_);
    }
    sa_ = layout::wgmma_operand_smem(M_, K_, eb_, a_mn_, false, 64);
    sb_ = ring_b_ ? layout::wgmma_operand_smem(N_, K_, eb_, b_mn_, true, in_)
                  : layout::wgmma_staged_b(op_); // the one rule, shared with wgmma_b_twin
    int64_t a_bytes = a_regs_ || ring_a_ ? 0 : (sa_.bytes() + 1023) & ~int64_t{1023};
    // B stored by an earlier dot of this block at the same bytes (allocate-shared's
    // "shared_b"): read in that dot's buffer
    const ir::Op *twin = op_.int_attr("shared_b", 0) ? layout::wgmma_b_twin(op_) : nullptr;
    TILEC_ASSERT(!op_.int_attr("shared_b", 0) || twin, "wgmma lowering: shared_b without a twin");
    int64_t b_bytes = ring_b_ || twin ? 0 : (sb_.bytes() + 1023) & ~int64_t{1023};
    buf_bytes_ = layout::wgmma_dot_buffer_bytes(op_);
    TILEC_ASSERT(buf_bytes_ == a_bytes + b_bytes,
                 "wgmma lowering: operand buffers differ from the allocation");
    base_a_ = buf_bytes_ ? dot_buffer_base(c_, op_) : 0;
    base_b_ = base_a_ + a_bytes;
    if (twin)
      base_b_ = dot_buffer_base(c_, *twin) + layout::wgmma_dot_a_bytes(*twin);
    if (ring_a_)
      std::tie(base_a_, ring_off_a_) = ring_stage_start(c_, ra, a_->def->operand(1));
    if (ring_b_)
      std::tie(base_b_, ring_off_b_) = ring_stage_start(c_, rb, bv_->def->operand(1));
    if (loop_ && buf_bytes_) {
      c_.in_prologue([&] { buf_off_ = b_.mov(Ty::U32, simt::imm(0)); });
      c_.smem_unknown(); // the previous iteration's wgmma read the other buffer: a barrier
    }
    // an operand defined outside the loop around the dot (attention's q) is stored once,
    // before that loop (its scratch is the dot's for the whole loop)
    const ir::Op *hoist_a = a_regs_ ? nullptr : layout::wgmma_invariant_operand_loop(op_, 0);
    const ir::Op *hoist_b = layout::wgmma_invariant_operand_loop(op_, 1);
    // a dot of an earlier loop staged this operand in the buffer this dot shares
    // (allocate-shared's "staged_operand"): it is in place already
    int64_t staged = op_.int_attr("staged_operand", -1);
    bool put_a = hoist_a && staged != 0, put_b = hoist_b && staged != 1;
    if (put_a || put_b) {
      simt::BlockId here = b_.block();
      b_.set_block(c_.block_before(hoist_a ? hoist_a : hoist_b));
      c_.cta_barrier(); // earlier readers of this scratch
      if (put_a)
        store_operand(c_, a_, sa_, base_a_, Reg{});
      if (put_b)
        store_operand(c_, bv_, sb_, base_b_, Reg{});
      simt::fence_proxy_async(b_);
      c_.cta_barrier();
      b_.set_block(here);
    }
    store_a_ = !a_regs_ && !hoist_a && !ring_a_;
    store_b_ = !hoist_b && !ring_b_ && !twin && !op_.int_attr("prestaged", 0);
    if (store_a_ || store_b_) {
      c_.smem_before_write();
      if (store_a_)
        store_operand(c_, a_, sa_, base_a_, buf_off_);
      if (store_b_)
        store_operand(c_, bv_, sb_, base_b_, buf_off_);
      // later dots of this block whose B this dot stores (layout::wgmma_stage_host)
      for (const auto &later : op_.parent()->ops())
        if (later->int_attr("prestaged", 0) && layout::wgmma_stage_host(*later) == &op_)
          store_operand(c_, later->operand(1), layout::wgmma_staged_b(*later),
                        dot_buffer_base(c_, *later) + layout::wgmma_dot_a_bytes(*later), Reg{});
      simt::fence_proxy_async(b_);
      c_.smem_after_write();
    }
  }

  // 2. descriptors: this warpgroup's rows of A and columns of B, moved to this iteration's
  // buffer or ring stage (the start field is address >> 4). A moving descriptor is one
  // 64-bit add of the offset, each tile's start then one more (ptxas: a UIADD3.64). An
  // invariant one may stay a 32-bit low word, each tile's start added there and the
  // constant high word put above it (AsyncInstrs.h): in bodies of three wgmma dots or more
  // (TILEC_WGMMA_DESC=auto) ptxas keeps only a 64-bit invariant's low word in a uniform
  // register and adds with a carry chain per tile (tutorial 06 backward, four dots: 1,165 -> 1,100
  // SASS instructions in its loops), while in forward bodies (two dots) the low words cost 4-8 more
  // moves.
  void make_descriptors() {
    Reg w = c_.warp();
    Reg off_a = ring_a_ ? ring_off_a_ : store_a_ ? buf_off_ : Reg{};
    Reg off_b = ring_b_ ? ring_off_b_ : store_b_ ? buf_off_ : Reg{};
    c_.in_prologue([&] {
      Reg wg = b_.shr(Ty::U32, w, simt::imm(2));
      Reg start_a = b_.shared_addr(base_a_), start_b = b_.shared_addr(base_b_);
      if (wg_m_ > 1) {
        Reg i = b_.and_(Ty::B32, wg, simt::imm(wg_m_ - 1));
        start_a = b_.mad(Ty::U32, i, simt::imm(sa_.start(64, 0)), start_a);
      }
      if (wg_n_ > 1) {
        Reg j =
            b_.and_(Ty::B32, b_.shr(Ty::U32, wg, simt::imm(log2i(wg_m_))), simt::imm(wg_n_ - 1));
        start_b = b_.mad(Ty::U32, j, simt::imm(sb_.start(in_, 0)), start_b);
      }
      low_a_ = simt::wgmma_desc_low(b_, start_a, matrix_desc(sa_));
      low_b_ = simt::wgmma_desc_low(b_, start_b, matrix_desc(sb_));
      bool low = low_word_descriptors(op_);
      if (off_a.valid() || !low)
        desc_a_ = simt::wgmma_desc_of(b_, low_a_, matrix_desc(sa_));
      if (off_b.valid() || !low)
        desc_b_ = simt::wgmma_desc_of(b_, low_b_, matrix_desc(sb_));
    });
    auto shifted = [&](Reg desc, Reg off_bytes) {
      return b_.add(Ty::U64, desc,
                    b_.cvt(Ty::U64, Ty::U32, b_.shr(Ty::U32, off_bytes, simt::imm(4))));
    };
    if (off_a.valid())
      desc_a_ = shifted(desc_a_, off_a);
    if (off_b.valid())
      desc_b_ = shifted(desc_b_, off_b);
  }
  static simt::MatrixDesc matrix_desc(const WgmmaOperandSmem &s) {
    simt::MatrixDesc d;
    d.lbo = s.lbo;
    d.sbo = s.sbo;
    d.swizzle = swizzle_of(s.swizzle_bytes);
    return d;
  }
  // A tile's descriptor: `start` added to the 64-bit descriptor `wide`, else to the
  // invariant low word `low` (make_descriptors says when).
  Operand desc_at(Reg wide, Reg low, const WgmmaOperandSmem &s, uint32_t start) {
    Operand off = simt::imm(int64_t{start >> 4});
    if (wide.valid())
      return start == 0 ? Operand(wide) : Operand(b_.add(Ty::U64, wide, off));
    return simt::wgmma_desc_of(b_, start == 0 ? low : b_.add(Ty::U32, low, off), matrix_desc(s));
  }

  // 3. accumulator tiles (64 x in at lane = warp = 0), in the order their registers appear.
  // Pipelined: the accumulator stays in the loop-carried registers (in flight between
  // iterations, nothing else may touch them); a zero accumulator is not filled in (the
  // first K step scales D by 0); else fresh copies.
  void init_accumulators() {
    const LinearLayout &lc = c_.layout_of(rt_);
    TILEC_ASSERT(c_.layout_of(acc_->type) == lc, "wgmma lowering: acc and result layouts differ");
    const std::vector<Reg> &acc_regs = c_.get(acc_);
    std::map<Coords, Reg> accm;
    for (int32_t r = 0; r < static_cast<int32_t>(acc_regs.size()); ++r) {
      Coords crd = LoweringContext::reg_coords(lc, r);
      accm.emplace(crd, acc_regs[static_cast<size_t>(r)]);
      Coords o = tile_of(crd);
      if (!d_of_.count(o)) {
        d_of_[o] = {};
        tiles_.push_back(o);
      }
    }
    // fragment register i of a tile: row 8 ((i / 2) % 2), column 8 (i / 4) + i % 2 (lane 0)
    auto elem = [&](const Coords &o, int i) {
      Coords crd = {o[0] + 8 * ((i / 2) % 2), o[1] + 8 * (i / 4) + i % 2};
      auto it = accm.find(crd);
      TILEC_ASSERT(it != accm.end(), "wgmma lowering: an accumulator element no register holds");
      return it->second;
    };
    const ir::Op *acc_def = acc_->def;
    zero_acc_ =
        acc_def && acc_def->kind() == ir::OpKind::Constant && acc_def->float_attr("value", 1) == 0;
    bool f16 = f16_acc();
    for (const Coords &o : tiles_) {
      std::vector<Reg> &d = d_of_[o];
      for (int i = 0; i < in_ / 2; i += f16 ? 2 : 1)
        d.push_back(zero_acc_ ? b_.reg(f16 ? Ty::F16x2 : acc_ty())
                    : f16     ? b_.pack(Ty::F16x2, {elem(o, i), elem(o, i + 1)})
                    : loop_   ? elem(o, i)
                              : b_.mov(acc_ty(), elem(o, i)));
    }
  }
  Coords tile_of(const Coords &crd) const { return {crd[0] & ~63, crd[1] & ~(in_ - 1)}; }

  // A from registers: the 4 b32 of (m0, k0): pairs at rows +0 / +8, columns +0 / +8 (lane 0)
  const std::vector<Reg> &a_tile(int32_t m0, int32_t k0) {
    std::vector<Reg> &f = a_frag_[{m0, k0}];
    if (f.empty() && eb_ == 1)
      f = a_tile_bytes(m0, k0);
    if (f.empty())
      for (int i = 0; i < 4; ++i) {
        int32_t row = m0 + 8 * (i % 2), col = k0 + 8 * (i / 2);
        auto lo = a_held_.find({row, col}), hi = a_held_.find({row, col + 1});
        TILEC_ASSERT(lo != a_held_.end() && hi != a_held_.end(),
                     "wgmma lowering: an A fragment element no register holds");
        f.push_back(b_.pack(Ty::B32, {lo->second, hi->second}));
      }
    return f;
  }

  // 8-bit A from registers (WgmmaByteFragments.h): pairs of bytes regrouped by shuffles
  std::vector<Reg> a_tile_bytes(int32_t m0, int32_t k0) {
    if (!quad_)
      quad_ = quad_gather(c_);
    // fp8 cast from f32 (attention's p): each pair converts as one, from the f32 values
    const std::vector<Reg> *f32 = fp8_cast_source(c_, a_);
    if (f32 && a_f32_.empty()) {
      const LinearLayout &la = c_.layout_of(a_->type);
      for (int32_t r = 0; r < static_cast<int32_t>(f32->size()); ++r)
        a_f32_.emplace(LoweringContext::reg_coords(la, r), (*f32)[static_cast<size_t>(r)]);
    }
    auto held = [&](const std::map<Coords, Reg> &m, int32_t row, int32_t col) {
      auto it = m.find({row, col});
      TILEC_ASSERT(it != m.end(), "wgmma lowering: an A fragment byte no register holds");
      return it->second;
    };
    auto pair = [&](int32_t row, int32_t col) { // bytes (row, col), (row, col + 1) as a b16
      Reg lo = held(a_held_, row, col), hi = held(a_held_, row, col + 1);
      return f32 ? byte_pair(c_, a_->type.elem, lo, hi, held(a_f32_, row, col),
                             held(a_f32_, row, col + 1))
                 : byte_pair(c_, a_->type.elem, lo, hi);
    };
    return byte_fragment(c_, *quad_, pair, m0, k0);
  }

  // wgmma per K step and tile. max_num_imprecise_acc (fp8): each run of steps_ K steps
  // sums into fresh registers, added to the accumulator (add.f32) once its group is done.
  void issue() {
    simt::WgmmaShape shape{in_, acc_ty(), operand_ty(a_->type.elem), operand_ty(bv_->type.elem)};
    std::map<Coords, std::vector<Reg>> partial;
    // Register A: every fragment is packed before the fence. A register written between
    // the fence and its wgmma makes ptxas insert a warpgroup.arrive before that wgmma
    // (its C7519 advisory), one per K step.
    if (a_regs_)
      for (int32_t k0 = 0; k0 < K_; k0 += shape.k())
        for (const Coords &o : tiles_)
          a_tile(o[0], k0);
    simt::wgmma_fence(b_);
    for (int32_t k0 = 0, step = 0; k0 < K_; k0 += shape.k(), ++step) {
      bool first = steps_ && step % steps_ == 0;
      if (first && step)
        simt::wgmma_fence(b_);
      for (const Coords &o : tiles_) {
        std::vector<Reg> *d = &d_of_[o];
        Operand scale_d = simt::imm(zero_acc_ && k0 == 0 ? 0 : 1);
        if (keep_.valid() && k0 == 0)
          scale_d = keep_;
        if (steps_) {
          d = &partial[o];
          if (first) {
            d->clear();
            for (int i = 0; i < in_ / 2; ++i)
              d->push_back(b_.reg(Ty::F32));
          }
          scale_d = simt::imm(first ? 0 : 1);
        }
        Operand b_desc = desc_at(desc_b_, low_b_, sb_, sb_.start(o[1], k0));
        if (a_regs_)
          simt::wgmma(b_, shape, *d, {}, a_tile(o[0], k0), b_desc, scale_d, false, b_mn_);
        else
          simt::wgmma(b_, shape, *d, desc_at(desc_a_, low_a_, sa_, sa_.start(o[0], k0)), {}, b_desc,
                      scale_d, a_mn_, b_mn_);
      }
      if (steps_ && ((step + 1) % steps_ == 0 || k0 + shape.k() >= K_)) {
        simt::wgmma_commit(b_);
        simt::wgmma_wait(b_, 0);
        bool fresh = zero_acc_ && step < steps_; // the first run: the accumulator is 0
        for (const Coords &o : tiles_)
          for (size_t i = 0; i < partial[o].size(); ++i) // add.f32: no product to fuse
            d_of_[o][i] = fresh ? partial[o][i]
                                : b_.binary(simt::Op::Add, Ty::F32, d_of_[o][i], partial[o][i]);
      }
    }
    if (steps_) {
      // every group is done and summed
    } else if (loop_) {
      // this group runs on while the next iteration stores its operands to the other
      // buffer; the previous group, which read that buffer, is done
      simt::wgmma_commit(b_);
      simt::wgmma_wait(b_, 1);
      if (buf_off_.valid())
        b_.mov_to(buf_off_, b_.xor_(Ty::B32, buf_off_, simt::imm(buf_bytes_)));
      simt::Builder *bp = &b_;
      c_.defer_past(loop_, [bp] { simt::wgmma_wait(*bp, 0); });
      wait_in_ifs(bp);
    } else {
      simt::wgmma_commit(b_);
      simt::wgmma_wait(b_, 0);
    }
    // a ring stage the retired group read may be overwritten by the copies that follow
    // once every warpgroup has retired it. The copies follow the block's first ring
    // reader (layout/PipelineLoops), so only its wait needs the barrier: a warpgroup
    // reaches it after retiring the previous iteration's later readers
    if ((ring_a_ || ring_b_) && !earlier_ring_reader(op_) &&
        !((!ring_a_ || freed_ring(a_)) && (!ring_b_ || freed_ring(bv_))))
      c_.cta_barrier();
  }

  // A pipelined group whose result is also read in `if`s of the body (a flattened loop's
  // epilogue) is retired at the start of the regions reading it.
  void wait_in_ifs(simt::Builder *bp) {
    std::set<const ir::Block *> blocks;
    for (const ir::Op *u : op_.result(0)->users) {
      const ir::Block *blk = u->parent();
      while (blk && blk->parent() && blk->parent()->parent() &&
             blk->parent()->parent()->parent() != op_.parent())
        blk = blk->parent()->parent()->parent();
      if (u != op_.parent()->terminator() && blk)
        blocks.insert(blk);
    }
    for (const ir::Block *blk : blocks)
      c_.on_entry(blk, [bp] { simt::wgmma_wait(*bp, 0); });
  }

  // the result registers in the accumulator layout's order
  std::vector<Reg> results() {
    const LinearLayout &lc = c_.layout_of(rt_);
    size_t n = c_.get(acc_).size();
    std::vector<Reg> out;
    std::map<Coords, Reg> unpacked;
    for (int32_t r = 0; r < static_cast<int32_t>(n); ++r) {
      Coords crd = LoweringContext::reg_coords(lc, r);
      Coords o = tile_of(crd);
      int32_t row = crd[0] - o[0], col = crd[1] - o[1];
      int i = 4 * (col / 8) + 2 * (row / 8) + col % 2;
      const std::vector<Reg> &d = d_of_[o];
      if (!f16_acc()) {
        out.push_back(d[static_cast<size_t>(i)]);
        continue;
      }
      auto it = unpacked.find(crd);
      if (it == unpacked.end()) {
        std::vector<Reg> h = b_.unpack(Ty::F16, 2, d[static_cast<size_t>(i / 2)]);
        unpacked[{crd[0], crd[1] - col % 2}] = h[0];
        unpacked[{crd[0], crd[1] - col % 2 + 1}] = h[1];
        it = unpacked.find(crd);
      }
      out.push_back(it->second);
    }
    return out;
  }

  LoweringContext &c_;
  simt::Builder &b_;
  const ir::Op &op_;
  const ir::Value *a_, *bv_, *acc_;
  const ir::Type &rt_;
  const int eb_;
  int32_t M_ = 0, N_ = 0, K_ = 0, wg_m_ = 1, wg_n_ = 1, in_ = 8;
  const ir::Op *loop_ = nullptr;
  int steps_ = 0;
  // operands
  std::map<Coords, Reg> a_held_;   // A from registers: coordinates (lane = warp = 0) -> reg
  std::optional<QuadGather> quad_; // 8-bit A from registers: the gather's lanes, selectors
  std::map<Coords, Reg> a_f32_;    // 8-bit A cast from f32: the f32 values, as a_held_
  bool a_regs_ = false, ring_a_ = false, ring_b_ = false, a_mn_ = false, b_mn_ = false;
  bool store_a_ = false, store_b_ = false;
  WgmmaOperandSmem sa_, sb_;
  int64_t buf_bytes_ = 0, base_a_ = 0, base_b_ = 0;
  Reg ring_off_a_, ring_off_b_; // the stage read: its offset from the ring's start (bytes)
  Reg buf_off_;                 // pipelined: 0 or buf_bytes_, the buffer this iteration stores to
  Reg desc_a_, desc_b_;         // 64-bit descriptors (this iteration's); invalid: low_ instead
  Reg low_a_, low_b_;           // the descriptors' low words (u32, the prologue's)
  // accumulator
  bool zero_acc_ = false;
  Reg keep_; // a zeroing select's !c: the first K step's scale-d
  std::vector<Coords> tiles_;
  std::map<Coords, std::vector<Reg>> d_of_;
  std::map<Coords, std::vector<Reg>> a_frag_;
};

} // namespace

void lower_wgmma(LoweringContext &c, const ir::Op &op) { WgmmaLowering(c, op).run(); }

} // namespace tilec::lower
