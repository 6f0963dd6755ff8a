// dot: [M,K] x [K,N] + [M,N] (batched: a leading dim), on the tensor cores or with FMA.
//
// Layout assignment (layout/MmaLayouts.h) gives a dot the operand and result layouts it
// lowers from; convert_layout ops (already lowered) moved the operands into them:
//  - mma path (result #mma, operands #dot_op of it): every thread holds, for each of its
//    instruction tiles, the elements the PTX ISA's fragment tables give its lane. The
//    registers of a tile are found by their compile-time coordinates (lane = warp = 0:
//    the thread-dependent part is the same for all of them), packed into b32 registers
//    (two 16-bit, four 8-bit or one tf32 element each; fp64 ones stay f64 registers), and
//    for every (m, n) tile the K tiles are chained through mma.sync, k ascending.
//  - FMA path (result blocked, operands #dot_op of it holding whole K rows / columns):
//    per result element, acc = fma(a[m,k], b[k,n], acc) for k ascending, in fp32 (fp64
//    for fp64, wrapping s32 for int8); fp32 "ieee"/"tf32x3" inputs are used exactly. The
//    fmas are emitted K step by K step (all elements' step k, then k + 1).
//
// Operand staging today is the generic convert_layout (through shared memory, swizzled
// by the conversion's own bank-conflict choice); ldmatrix staging is the next step.
#include <map>

#include "layout/Layouts.h"
#include "layout/MmaLayouts.h"
#include "lower/LoweringContext.h"

namespace tilec::lower {

using layout::LinearLayout;

void lower_wgmma(LoweringContext &c, const ir::Op &op); // LowerWgmma.cpp

namespace {

using Coords = std::vector<int32_t>;

std::string shape_str(const ir::Shape &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// coordinates (lane = warp = 0) -> register, for every register of a value
std::map<Coords, Reg> by_coords(const LinearLayout &l, const std::vector<Reg> &regs) {
  std::map<Coords, Reg> m;
  for (int32_t r = 0; r < static_cast<int32_t>(regs.size()); ++r)
    m.emplace(LoweringContext::reg_coords(l, r), regs[static_cast<size_t>(r)]);
  return m;
}

Reg lookup(const std::map<Coords, Reg> &m, const Coords &c, const char *what) {
  auto it = m.find(c);
  TILEC_ASSERT(it != m.end(),
               std::string("dot lowering: ") + what + " register missing for a fragment element");
  return it->second;
}

// (.., row, col) with the last two dims replaced
Coords at(Coords base, int32_t row, int32_t col) {
  base[base.size() - 2] += row;
  base[base.size() - 1] += col;
  return base;
}

// The origin of the instruction tile holding `c` (rows of `rt`, cols of `ct`).
Coords tile_origin(Coords c, int32_t rt, int32_t ct) {
  c[c.size() - 2] &= ~(rt - 1);
  c[c.size() - 1] &= ~(ct - 1);
  return c;
}

class MmaLowering {
public:
  MmaLowering(LoweringContext &c, const ir::Op &op) : c_(c), b_(c.b()), op_(op) {}

  void run() {
    const ir::Value *a = op_.operand(0), *bv = op_.operand(1), *acc = op_.operand(2);
    const ir::Type &rt = op_.result(0)->type;
    ir::DType e = a->type.elem;
    kw_ = layout::mma_k_width(e);
    kinstr_ = 8 * kw_;
    ab_ = e == ir::DType::F16    ? Ty::F16
          : e == ir::DType::BF16 ? Ty::BF16
          : e == ir::DType::F32  ? Ty::TF32
          : e == ir::DType::F64  ? Ty::F64
                                 : Ty::S8;
    acc_ty_ = rt.elem == ir::DType::F16   ? Ty::F16
              : rt.elem == ir::DType::I32 ? Ty::S32
              : rt.elem == ir::DType::F64 ? Ty::F64
                                          : Ty::F32;
    const LinearLayout &lc = c_.layout_of(rt);
    TILEC_ASSERT(c_.layout_of(acc->type) == lc, "dot lowering: acc and result layouts differ");
    a_ = by_coords(c_.layout_of(a->type), c_.get(a));
    b_regs_ = by_coords(c_.layout_of(bv->type), c_.get(bv));
    const std::vector<Reg> &acc_regs = c_.get(acc);
    std::map<Coords, Reg> accm = by_coords(lc, acc_regs);
    int64_t K = a->type.shape.back();

    // one chain of mma per accumulator tile (tiles in the order their registers first
    // appear); K outermost, so consecutive mma are independent and the tensor cores
    // overlap them
    std::map<Coords, std::vector<Reg>> d_of;
    std::vector<Coords> tiles;
    for (int32_t r = 0; r < static_cast<int32_t>(acc_regs.size()); ++r) {
      Coords o = tile_origin(LoweringContext::reg_coords(lc, r), 16, 8);
      if (!d_of.count(o)) {
        d_of[o] = {};
        tiles.push_back(o);
      }
    }
    std::map<Coords, std::vector<Operand>> chain;
    for (const Coords &o : tiles) {
      std::vector<Operand> &cregs = chain[o];
      if (acc_ty_ == Ty::F16) { // c0,c1 / c2,c3 as f16x2
        for (int i = 0; i < 2; ++i)
          cregs.push_back(b_.pack(Ty::F16x2, {lookup(accm, at(o, 8 * i, 0), "acc"),
                                              lookup(accm, at(o, 8 * i, 1), "acc")}));
      } else {
        for (int i = 0; i < 4; ++i)
          cregs.push_back(lookup(accm, at(o, 8 * (i / 2), i % 2), "acc"));
      }
    }
    for (int64_t k0 = 0; k0 < K; k0 += kinstr_)
      for (const Coords &o : tiles) {
        Coords ao = o, bo = o;
        ao.back() = static_cast<int32_t>(k0);
        bo[bo.size() - 2] = static_cast<int32_t>(k0);
        std::vector<Reg> d = ab_ == Ty::F64 && c_.opts().sm < 90
                                 ? f64_by_quarters(a_tile(ao), b_tile(bo), chain[o])
                                 : b_.mma({16, 8, static_cast<uint16_t>(kinstr_)}, acc_ty_, ab_,
                                          a_tile(ao), b_tile(bo), chain[o]);
        chain[o].assign(d.begin(), d.end());
        d_of[o] = d;
      }
    // the result registers, in the result layout's order
    std::vector<Reg> out;
    std::map<Coords, Reg> unpacked;
    for (int32_t r = 0; r < static_cast<int32_t>(acc_regs.size()); ++r) {
      Coords crd = LoweringContext::reg_coords(lc, r);
      Coords o = tile_origin(crd, 16, 8);
      int32_t row = crd[crd.size() - 2] - o[o.size() - 2], col = crd.back() - o.back();
      int slot = (row / 8) * 2 + col; // c_i: (g + 8 (i/2), 2t + i%2) at lane 0
      const std::vector<Reg> &d = d_of[o];
      if (acc_ty_ != Ty::F16) {
        out.push_back(d[static_cast<size_t>(slot)]);
        continue;
      }
      auto it = unpacked.find(crd);
      if (it == unpacked.end()) {
        std::vector<Reg> h = b_.unpack(Ty::F16, 2, d[static_cast<size_t>(slot / 2)]);
        unpacked[at(o, row, 0)] = h[0];
        unpacked[at(o, row, 1)] = h[1];
        it = unpacked.find(crd);
      }
      out.push_back(it->second);
    }
    c_.set(op_.result(0), std::move(out));
  }

private:
  // An fp64 m16n8k8 tile on sm_80, which has only m8n8k4: its fragments are those of four
  // m8n8k4 (A a0..a3 = rows 0-7 / 8-15 of k 0-3, then of k 4-7; B b0, b1 = k 0-3, 4-7;
  // C c0,c1 / c2,c3 = rows 0-7 / 8-15), each row half chained over the two K halves.
  std::vector<Reg> f64_by_quarters(const std::vector<Reg> &a, const std::vector<Reg> &b,
                                   const std::vector<Operand> &c) {
    std::vector<Reg> d;
    for (size_t h = 0; h < 2; ++h) {
      std::vector<Operand> acc = {c[2 * h], c[2 * h + 1]};
      for (size_t k = 0; k < 2; ++k) {
        std::vector<Reg> r = b_.mma({8, 8, 4}, Ty::F64, Ty::F64, {a[h + 2 * k]}, {b[k]}, acc);
        acc.assign(r.begin(), r.end());
      }
      d.push_back(acc[0].reg());
      d.push_back(acc[1].reg());
    }
    return d;
  }
  // A fragment of the tile at `o` (.., m0, k0): a_e at (m0 + 8 ((e / kw) % 2),
  // k0 + e % kw + 4 kw (e / 2kw)) for lane 0.
  std::vector<Reg> a_tile(const Coords &o) {
    auto it = a_tiles_.find(o);
    if (it != a_tiles_.end())
      return it->second;
    std::vector<Reg> elems;
    for (int e = 0; e < 4 * kw_; ++e)
      elems.push_back(
          lookup(a_, at(o, 8 * ((e / kw_) % 2), e % kw_ + 4 * kw_ * (e / (2 * kw_))), "A"));
    return a_tiles_[o] = pack(elems);
  }
  // B fragment at (.., k0, n0): b_e at (k0 + e % kw + 4 kw (e / kw), n0).
  std::vector<Reg> b_tile(const Coords &o) {
    auto it = b_tiles_.find(o);
    if (it != b_tiles_.end())
      return it->second;
    std::vector<Reg> elems;
    for (int e = 0; e < 2 * kw_; ++e)
      elems.push_back(lookup(b_regs_, at(o, e % kw_ + 4 * kw_ * (e / kw_), 0), "B"));
    return b_tiles_[o] = pack(elems);
  }
  // kw consecutive elements per b32 register, the lowest-indexed in the low bits.
  std::vector<Reg> pack(const std::vector<Reg> &elems) {
    std::vector<Reg> out;
    if (ab_ == Ty::F64)
      return elems; // one element a register
    for (size_t i = 0; i < elems.size(); i += static_cast<size_t>(kw_)) {
      if (kw_ == 1) {
        out.push_back(b_.cvt(Ty::TF32, Ty::F32, elems[i], simt::Rnd::Rna));
      } else if (kw_ == 2) {
        out.push_back(b_.pack(Ty::B32, {elems[i], elems[i + 1]}));
      } else { // four bytes held sign-extended in 16-bit registers
        Reg lo = b_.pack(Ty::B32, {elems[i], elems[i + 1]});
        Reg hi = b_.pack(Ty::B32, {elems[i + 2], elems[i + 3]});
        out.push_back(b_.ternary(simt::Op::Prmt, Ty::B32, lo, hi, simt::imm(0x6420)));
      }
    }
    return out;
  }

  LoweringContext &c_;
  simt::Builder &b_;
  const ir::Op &op_;
  int kw_ = 2, kinstr_ = 16;
  Ty ab_ = Ty::F16, acc_ty_ = Ty::F32;
  std::map<Coords, Reg> a_, b_regs_;
  std::map<Coords, std::vector<Reg>> a_tiles_, b_tiles_;
};

void lower_fma(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  const ir::Value *a = op.operand(0), *bv = op.operand(1), *acc = op.operand(2);
  const ir::Type &rt = op.result(0)->type;
  const LinearLayout &lc = c.layout_of(rt);
  TILEC_ASSERT(c.layout_of(acc->type) == lc, "dot lowering: acc and result layouts differ");
  ir::DType e = a->type.elem;
  bool is_int = ir::is_int(e);
  ir::DType work = is_int                      ? ir::DType::I32
                   : rt.elem == ir::DType::F64 ? ir::DType::F64
                                               : ir::DType::F32;
  ir::Type wt(work, false, {}), ot(rt.elem, false, {});
  Ty t = reg_ty(work);
  std::map<Coords, Reg> am = by_coords(c.layout_of(a->type), c.get(a));
  std::map<Coords, Reg> bm = by_coords(c.layout_of(bv->type), c.get(bv));
  // operand register -> in the working type (fp8 operands may mix e4m3 and e5m2)
  std::map<std::pair<uint32_t, ir::DType>, Reg> widened;
  auto widen = [&](Reg x, ir::DType from) {
    auto key = std::make_pair(x.id, from);
    auto it = widened.find(key);
    if (it != widened.end())
      return it->second;
    Reg w = from == work ? x : emit_cast(c, x, ir::Type(from, false, {}), wt, false, op.loc());
    widened[key] = w;
    return w;
  };
  int64_t K = a->type.shape.back();
  const std::vector<Reg> &acc_regs = c.get(acc);
  size_t n = acc_regs.size();
  std::vector<Reg> sums(n);
  std::vector<Coords> crds(n);
  for (size_t r = 0; r < n; ++r) {
    crds[r] = LoweringContext::reg_coords(lc, static_cast<int32_t>(r));
    sums[r] = rt.elem == work ? acc_regs[r] : emit_cast(c, acc_regs[r], ot, wt, false, op.loc());
  }
  // K outermost: each element's chain is still k ascending, but a K step's operand values
  // are read right before its fmas (sink-fragment-loads moves their loads and shuffles
  // there), so a thread holds its accumulators and one step's operands, not every
  // operand value at once (ptxas spilled kilobytes and took minutes on 128 x 128 x 64)
  for (int32_t k = 0; k < K; ++k)
    for (size_t r = 0; r < n; ++r) {
      Coords ac = crds[r], bc = crds[r];
      ac.back() = k;
      bc[bc.size() - 2] = k;
      Reg x = widen(lookup(am, ac, "A"), e), y = widen(lookup(bm, bc, "B"), bv->type.elem);
      sums[r] = is_int ? b.mad(t, x, y, sums[r]) : b.fma(t, x, y, sums[r]);
    }
  std::vector<Reg> out;
  for (Reg s : sums)
    out.push_back(rt.elem == work ? s : emit_cast(c, s, wt, ot, false, op.loc()));
  c.set(op.result(0), std::move(out));
}

} // namespace

void lower_dot(LoweringContext &c, const ir::Op &op) {
  const ir::Type &at = op.operand(0)->type, &bt = op.operand(1)->type;
  int rank = at.rank();
  int64_t M = at.shape[static_cast<size_t>(rank - 2)], K = at.shape[static_cast<size_t>(rank - 1)];
  int64_t N = bt.shape[static_cast<size_t>(rank - 1)];
  // Triton's bounds on NVIDIA GPUs: any M and N (shapes the tensor cores cannot take run
  // on FMA units), K >= 16 (Triton asks 32 of 8-bit operands; their K = 16 runs here too).
  int64_t min_k = 16;
  if (M < 1 || N < 1 || K < min_k)
    throw CompileError(
        op.loc(), "Input shapes should have M >= 1, N >= 1 and K >= " + std::to_string(min_k) +
                      "; got input shapes " + shape_str(at.shape) + " and " + shape_str(bt.shape));
  const ir::LayoutRef &rl = op.result(0)->type.layout;
  TILEC_ASSERT(rl, "dot lowering: the result has no layout");
  if (rl->kind == ir::LayoutKind::Mma && rl->mma_version == 3) {
    lower_wgmma(c, op);
    return;
  }
  if (rl->kind == ir::LayoutKind::Mma) {
    if (c.opts().sm < 80)
      throw CompileError(op.loc(), "tl.dot on tensor cores needs sm_80 or newer");
    MmaLowering(c, op).run();
    return;
  }
  lower_fma(c, op);
}

} // namespace tilec::lower
