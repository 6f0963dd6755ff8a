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
// 3. wgmma.fence; per K step of 16 and per instruction tile (64 rows x n of a warpgroup,
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
// and columns of B) computed once, plus a compile-time offset per (tile, k) added to the
// 64-bit descriptor (the start is its low 14 bits, no carry out for shared addresses).
#include <map>
#include <tuple>

#include "layout/Layouts.h"
#include "layout/MmaLayouts.h"
#include "layout/WgmmaLayouts.h"
#include "lower/LowerRing.h"
#include "lower/LoweringContext.h"
#include "simt/AsyncInstrs.h"

namespace tilec::lower {

using layout::log2i;

// Registers from r on whose offsets in `l` are consecutive in every thread (LowerDotOperand.cpp).
int smem_store_run(LoweringContext &c, const layout::LinearLayout &l, int32_t r,
                   const std::vector<bool> &uniq, int max_run = 8);

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

// Whether the source holds the operand's MN dim more contiguously than its K dim.
bool mn_major_source(const LinearLayout &src, bool operand_b) {
  int kdim = operand_b ? 0 : 1;
  return layout::contiguous_per_thread(src, 1 - kdim) > layout::contiguous_per_thread(src, kdim);
}

// Stores every element this thread holds first of `v` at its offset in `s` (bytes from
// `base`, plus `buf_off` when valid: the buffer in use), 16-byte stores where the
// offsets run on. fp32 (tf32) elements are rounded to tf32 first (cvt.rna, as mma.sync's
// operands are).
void store_operand(LoweringContext &c, const ir::Value *v, const WgmmaOperandSmem &s, int64_t base,
                   Reg buf_off) {
  simt::Builder &b = c.b();
  const LinearLayout &src = c.layout_of(v->type);
  LinearLayout src_off = src.compose(s.layout.invert());
  std::map<uint32_t, Reg> moved; // address register -> + buf_off
  auto addr = [&](int32_t r) {
    Operand o = c.smem_operand(src_off, base, s.elem_bytes, r);
    if (!buf_off.valid())
      return o;
    auto it = moved.find(o.reg().id);
    if (it == moved.end())
      it = moved.emplace(o.reg().id, b.add(Ty::U32, o.reg(), buf_off)).first;
    return Operand::addr(it->second, o.value);
  };
  const std::vector<Reg> &regs = c.get(v);
  std::vector<bool> uniq = LoweringContext::unique_regs(src);
  int eb = s.elem_bytes;
  for (int32_t r = 0; r < static_cast<int32_t>(regs.size());) {
    if (!uniq[static_cast<size_t>(r)]) {
      ++r;
      continue;
    }
    int n = smem_store_run(c, src_off, r, uniq, 16 / eb);
    if (eb == 1 && n < 4) { // single bytes
      for (int j = 0; j < n; ++j) {
        Operand o = addr(r);
        o.value += j;
        c.smem_store(o, regs[static_cast<size_t>(r + j)], v->type.element());
      }
    } else if (eb == 1) { // four bytes (held sign-extended in 16-bit registers) a word
      std::vector<Operand> words;
      for (int j = 0; j < n; j += 4) {
        auto at = [&](int i) { return regs[static_cast<size_t>(r + j + i)]; };
        Reg lo = b.pack(Ty::B32, {at(0), at(1)}), hi = b.pack(Ty::B32, {at(2), at(3)});
        words.push_back(b.ternary(simt::Op::Prmt, Ty::B32, lo, hi, simt::imm(0x6420)));
      }
      b.st(simt::Space::Shared, Ty::B32, addr(r), std::move(words));
    } else if (eb == 4) {
      std::vector<Operand> words;
      for (int j = 0; j < n; ++j)
        words.push_back(b.cvt(Ty::TF32, Ty::F32, regs[static_cast<size_t>(r + j)], simt::Rnd::Rna));
      b.st(simt::Space::Shared, Ty::B32, addr(r), std::move(words));
    } else if (n == 1) {
      b.st(simt::Space::Shared, Ty::B16, addr(r), {regs[static_cast<size_t>(r)]});
    } else {
      std::vector<Operand> words;
      for (int j = 0; j < n; j += 2)
        words.push_back(b.pack(
            Ty::B32, {regs[static_cast<size_t>(r + j)], regs[static_cast<size_t>(r + j + 1)]}));
      b.st(simt::Space::Shared, Ty::B32, addr(r), std::move(words));
    }
    r += n;
  }
}

bool ring_operand(const ir::Value *v) { return v->def && v->def->kind() == ir::OpKind::LocalLoad; }

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

} // namespace

void lower_wgmma(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  const ir::Value *a = op.operand(0), *bv = op.operand(1), *acc = op.operand(2);
  const ir::Type &rt = op.result(0)->type;
  const ir::Layout &enc = *rt.layout;
  const int eb = mem_bytes(a->type.element());
  const bool tf32 = a->type.elem == ir::DType::F32, s8 = a->type.elem == ir::DType::I8;
  const bool fp8 = eb == 1 && !s8;
  TILEC_ASSERT(c.opts().sm >= 90 && enc.mma_version == 3 && rt.rank() == 2 &&
                   (eb == 2 || (tf32 && eb == 4) || eb == 1) && mem_bytes(bv->type.element()) == eb,
               "wgmma lowering: an sm_90a dot of 16-bit, tf32, int8 or fp8 operands");
  const int32_t M = static_cast<int32_t>(rt.shape[0]), N = static_cast<int32_t>(rt.shape[1]);
  const int32_t K = static_cast<int32_t>(a->type.shape[1]);
  const int32_t wg_m = enc.warps_per_cta[0] / 4, wg_n = enc.warps_per_cta[1];
  const int32_t in = enc.instr_shape[1];
  TILEC_ASSERT(wg_m * wg_n * 4 == c.num_warps(), "wgmma lowering: warpgroups do not cover the CTA");

  // 1. the operands in shared memory (A in registers when they hold its fragments); a
  // pipelined K loop alternates two buffers
  const ir::Op *loop = layout::wgmma_pipelined_loop(op);
  const LinearLayout &lc = c.layout_of(rt);
  std::map<Coords, Reg> a_held; // A from registers: coordinates (lane = warp = 0) -> register
  if (layout::wgmma_a_from_registers(op) && !ring_operand(a)) {
    const LinearLayout &la = c.layout_of(a->type);
    const std::vector<Reg> &ar = c.get(a);
    for (int32_t r = 0; r < static_cast<int32_t>(ar.size()); ++r)
      a_held.emplace(LoweringContext::reg_coords(la, r), ar[static_cast<size_t>(r)]);
  }
  bool a_regs = !a_held.empty();
  // an operand from a ring stage (local_load) is read in place: its placement is the
  // stage's (the pass chose it with wgmma_operand_smem; K- or MN-major, found here)
  const bool ring_a = !a_regs && ring_operand(a), ring_b = ring_operand(bv);
  // tf32 and 8-bit operands are K-major only
  bool a_mn = eb == 2 && mn_major_source(c.layout_of(a->type), false);
  bool b_mn = eb == 2 && mn_major_source(c.layout_of(bv->type), true);
  RingView ra, rb;
  if (ring_a)
    ra = ring_view(c, a->def->operand(0));
  if (ring_b)
    rb = ring_view(c, bv->def->operand(0));
  if (ring_a)
    a_mn = ring_major(ra, M, K, eb, false, 64);
  if (ring_b)
    b_mn = ring_major(rb, N, K, eb, true, in);
  WgmmaOperandSmem sa = layout::wgmma_operand_smem(M, K, eb, a_mn, false, 64);
  WgmmaOperandSmem sb = layout::wgmma_operand_smem(N, K, eb, b_mn, true, in);
  int64_t a_bytes = a_regs || ring_a ? 0 : (sa.bytes() + 1023) & ~int64_t{1023};
  int64_t b_bytes = ring_b ? 0 : (sb.bytes() + 1023) & ~int64_t{1023};
  int64_t buf_bytes = layout::wgmma_dot_buffer_bytes(op);
  TILEC_ASSERT(buf_bytes == a_bytes + b_bytes,
               "wgmma lowering: operand buffers differ from the allocation");
  int64_t base_a =
      buf_bytes ? (c.scratch(op, layout::wgmma_dot_smem_bytes(op)) + 1023) & ~int64_t{1023} : 0;
  int64_t base_b = base_a + a_bytes;
  Reg ring_off_a, ring_off_b; // the stage read: its offset from the ring's start (bytes)
  if (ring_a)
    std::tie(base_a, ring_off_a) = ring_stage_start(c, ra, a->def->operand(1));
  if (ring_b)
    std::tie(base_b, ring_off_b) = ring_stage_start(c, rb, bv->def->operand(1));
  Reg buf_off; // pipelined: 0 or buf_bytes, the buffer this iteration stores to
  if (loop && buf_bytes)
    c.in_prologue([&] { buf_off = b.mov(Ty::U32, simt::imm(0)); });
  if (loop && buf_bytes)
    c.smem_unknown(); // the previous iteration's wgmma read the other buffer: a barrier
  // an operand defined outside the loop around the dot (attention's q) is stored once,
  // before that loop (its scratch is the dot's for the whole loop)
  const ir::Op *hoist_a = a_regs ? nullptr : layout::wgmma_invariant_operand_loop(op, 0);
  const ir::Op *hoist_b = layout::wgmma_invariant_operand_loop(op, 1);
  if (hoist_a || hoist_b) {
    simt::BlockId here = b.block();
    b.set_block(c.block_before(hoist_a ? hoist_a : hoist_b));
    b.bar_sync(0); // earlier readers of this scratch
    if (hoist_a)
      store_operand(c, a, sa, base_a, Reg{});
    if (hoist_b)
      store_operand(c, bv, sb, base_b, Reg{});
    simt::fence_proxy_async(b);
    b.bar_sync(0);
    b.set_block(here);
  }
  bool store_a = !a_regs && !hoist_a && !ring_a, store_b = !hoist_b && !ring_b;
  if (store_a || store_b) {
    c.smem_before_write();
    if (store_a)
      store_operand(c, a, sa, base_a, buf_off);
    if (store_b)
      store_operand(c, bv, sb, base_b, buf_off);
    simt::fence_proxy_async(b);
    c.smem_after_write();
  }

  // 2. descriptors: this warpgroup's rows of A and columns of B
  Reg desc_a, desc_b;
  Reg w = c.warp();
  c.in_prologue([&] {
    Reg wg = b.shr(Ty::U32, w, simt::imm(2));
    Reg start_a = b.shared_addr(base_a), start_b = b.shared_addr(base_b);
    if (wg_m > 1) {
      Reg i = b.and_(Ty::B32, wg, simt::imm(wg_m - 1));
      start_a = b.mad(Ty::U32, i, simt::imm(sa.start(64, 0)), start_a);
    }
    if (wg_n > 1) {
      Reg j = b.and_(Ty::B32, b.shr(Ty::U32, wg, simt::imm(log2i(wg_m))), simt::imm(wg_n - 1));
      start_b = b.mad(Ty::U32, j, simt::imm(sb.start(in, 0)), start_b);
    }
    simt::MatrixDesc da, db;
    da.lbo = sa.lbo;
    da.sbo = sa.sbo;
    da.swizzle = swizzle_of(sa.swizzle_bytes);
    db.lbo = sb.lbo;
    db.sbo = sb.sbo;
    db.swizzle = swizzle_of(sb.swizzle_bytes);
    desc_a = simt::wgmma_desc(b, start_a, da);
    desc_b = simt::wgmma_desc(b, start_b, db);
  });
  // the start field (address >> 4) of this iteration's buffer or ring stage
  auto shifted = [&](Reg desc, Reg off_bytes) {
    if (!off_bytes.valid())
      return desc;
    return b.add(Ty::U64, desc, b.cvt(Ty::U64, Ty::U32, b.shr(Ty::U32, off_bytes, simt::imm(4))));
  };
  desc_a = shifted(desc_a, ring_a ? ring_off_a : store_a ? buf_off : Reg{});
  desc_b = shifted(desc_b, ring_b ? ring_off_b : store_b ? buf_off : Reg{});
  auto desc_at = [&](Reg base, uint32_t start) -> Operand {
    if (start == 0)
      return base;
    return b.add(Ty::U64, base, simt::imm(int64_t{start >> 4}));
  };

  // 3. accumulator tiles (64 x in at lane = warp = 0), in the order their registers appear
  TILEC_ASSERT(c.layout_of(acc->type) == lc, "wgmma lowering: acc and result layouts differ");
  bool f16_acc = rt.elem == ir::DType::F16;
  Ty acc_ty = f16_acc ? Ty::F16 : s8 ? Ty::S32 : Ty::F32;
  auto operand_ty = [&](ir::DType d) {
    return tf32                   ? Ty::TF32
           : s8                   ? Ty::S8
           : fp8                  ? (d == ir::DType::F8E4NV ? Ty::E4M3x2 : Ty::E5M2x2)
           : d == ir::DType::BF16 ? Ty::BF16
                                  : Ty::F16;
  };
  simt::WgmmaShape shape{in, acc_ty, operand_ty(a->type.elem), operand_ty(bv->type.elem)};
  const std::vector<Reg> &acc_regs = c.get(acc);
  std::map<Coords, Reg> accm;
  std::vector<Coords> tiles;
  std::map<Coords, std::vector<Reg>> d_of;
  for (int32_t r = 0; r < static_cast<int32_t>(acc_regs.size()); ++r) {
    Coords crd = LoweringContext::reg_coords(lc, r);
    accm.emplace(crd, acc_regs[static_cast<size_t>(r)]);
    Coords o = {crd[0] & ~63, crd[1] & ~(in - 1)};
    if (!d_of.count(o)) {
      d_of[o] = {};
      tiles.push_back(o);
    }
  }
  // fragment register i of a tile: row 8 ((i / 2) % 2), column 8 (i / 4) + i % 2 (lane 0)
  auto elem = [&](const Coords &o, int i) {
    Coords crd = {o[0] + 8 * ((i / 2) % 2), o[1] + 8 * (i / 4) + i % 2};
    auto it = accm.find(crd);
    TILEC_ASSERT(it != accm.end(), "wgmma lowering: an accumulator element no register holds");
    return it->second;
  };
  // pipelined: the accumulator stays in the loop-carried registers (in flight between
  // iterations, nothing else may touch them); a zero accumulator is not filled in (the
  // first K step scales D by 0); else fresh copies
  const ir::Op *acc_def = acc->def;
  bool zero_acc =
      acc_def && acc_def->kind() == ir::OpKind::Constant && acc_def->float_attr("value", 1) == 0;
  int nfrag = in / 2; // elements per thread per tile
  for (const Coords &o : tiles) {
    std::vector<Reg> &d = d_of[o];
    for (int i = 0; i < nfrag; i += f16_acc ? 2 : 1)
      d.push_back(zero_acc  ? b.reg(f16_acc ? Ty::F16x2 : acc_ty)
                  : f16_acc ? b.pack(Ty::F16x2, {elem(o, i), elem(o, i + 1)})
                  : loop    ? elem(o, i)
                            : b.mov(acc_ty, elem(o, i)));
  }

  // A from registers: the 4 b32 of (m0, k0): pairs at rows +0 / +8, columns +0 / +8 (lane 0)
  std::map<Coords, std::vector<Reg>> a_frag;
  auto a_tile = [&](int32_t m0, int32_t k0) -> const std::vector<Reg> & {
    std::vector<Reg> &f = a_frag[{m0, k0}];
    if (f.empty())
      for (int i = 0; i < 4; ++i) {
        int32_t row = m0 + 8 * (i % 2), col = k0 + 8 * (i / 2);
        auto lo = a_held.find({row, col}), hi = a_held.find({row, col + 1});
        TILEC_ASSERT(lo != a_held.end() && hi != a_held.end(),
                     "wgmma lowering: an A fragment element no register holds");
        f.push_back(b.pack(Ty::B32, {lo->second, hi->second}));
      }
    return f;
  };
  simt::wgmma_fence(b);
  for (int32_t k0 = 0; k0 < K; k0 += shape.k())
    for (const Coords &o : tiles) {
      Operand b_desc = desc_at(desc_b, sb.start(o[1], k0));
      Operand scale_d = simt::imm(zero_acc && k0 == 0 ? 0 : 1);
      if (a_regs)
        simt::wgmma(b, shape, d_of[o], {}, a_tile(o[0], k0), b_desc, scale_d, false, b_mn);
      else
        simt::wgmma(b, shape, d_of[o], desc_at(desc_a, sa.start(o[0], k0)), {}, b_desc, scale_d,
                    a_mn, b_mn);
    }
  simt::wgmma_commit(b);
  if (loop) {
    // this group runs on while the next iteration stores its operands to the other
    // buffer; the previous group, which read that buffer, is done
    simt::wgmma_wait(b, 1);
    if (buf_off.valid())
      b.mov_to(buf_off, b.xor_(Ty::B32, buf_off, simt::imm(buf_bytes)));
    simt::Builder *bp = &b;
    c.defer_past(loop, [bp] { simt::wgmma_wait(*bp, 0); });
  } else {
    simt::wgmma_wait(b, 0);
  }
  // a ring stage the retired group read may be overwritten by the copies that follow once
  // every warpgroup has retired it
  if (ring_a || ring_b)
    b.bar_sync(0);

  // the result registers in the accumulator layout's order
  std::vector<Reg> out;
  std::map<Coords, Reg> unpacked;
  for (int32_t r = 0; r < static_cast<int32_t>(acc_regs.size()); ++r) {
    Coords crd = LoweringContext::reg_coords(lc, r);
    Coords o = {crd[0] & ~63, crd[1] & ~(in - 1)};
    int32_t row = crd[0] - o[0], col = crd[1] - o[1];
    int i = 4 * (col / 8) + 2 * (row / 8) + col % 2;
    const std::vector<Reg> &d = d_of[o];
    if (!f16_acc) {
      out.push_back(d[static_cast<size_t>(i)]);
      continue;
    }
    auto it = unpacked.find(crd);
    if (it == unpacked.end()) {
      std::vector<Reg> h = b.unpack(Ty::F16, 2, d[static_cast<size_t>(i / 2)]);
      unpacked[{crd[0], crd[1] - col % 2}] = h[0];
      unpacked[{crd[0], crd[1] - col % 2 + 1}] = h[1];
      it = unpacked.find(crd);
    }
    out.push_back(it->second);
  }
  c.set(op.result(0), std::move(out));
}

} // namespace tilec::lower
