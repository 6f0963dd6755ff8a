// scan (inclusive, forward or reverse) over one axis.
//
// The axis' coordinate bits are each provided by one hardware bit (a register, lane or
// warp bit; the layouts lowering sees step one dim per basis). The scan goes bit by bit
// from the lowest: after level b, every run of 2^(b+1) elements along the axis is scanned.
// At level b the elements in the upper half of each run (bit b = 1; reverse: the lower
// half, bit b = 0) combine the last element of the other half into themselves:
//   x[e] = combine(x[e'], x[e]),  e' = e with bit b flipped and bits below b all 1 (0)
// e' lives in the same thread when every bit involved is a register bit, in another lane
// of the warp when lanes are involved (shfl.sync.idx from a computed lane), else in
// another warp (through shared memory, a barrier on each side).
#include <map>

#include "layout/Layouts.h"
#include "lower/LoweringContext.h"

namespace tilec::lower {

using layout::LinearLayout;
using layout::log2i;

namespace {

using Vals = std::vector<Reg>;
enum class Hw { Reg, Lane, Warp };

struct HwBit {
  Hw kind = Hw::Reg;
  int bit = 0;
};

Vals combine(LoweringContext &c, const ir::Block &blk, const Vals &acc, const Vals &x) {
  Vals args = acc;
  args.insert(args.end(), x.begin(), x.end());
  return c.inline_region(blk, args);
}

// Which hardware bit provides each coordinate bit of `axis`.
std::vector<HwBit> axis_hardware(const LinearLayout &l, int axis) {
  int nbits = log2i(l.out_dims()[static_cast<size_t>(axis)].size);
  std::vector<HwBit> hw(static_cast<size_t>(nbits));
  std::vector<bool> found(static_cast<size_t>(nbits), false);
  const std::pair<const char *, Hw> dims[] = {
      {layout::kRegister, Hw::Reg}, {layout::kLane, Hw::Lane}, {layout::kWarp, Hw::Warp}};
  for (const auto &[name, kind] : dims) {
    if (!l.has_in_dim(name))
      continue;
    int32_t free = l.free_variable_mask(name);
    for (int i = 0; i < l.in_dim_bits(name); ++i) {
      const LinearLayout::Basis &b = l.basis(name, i);
      int32_t v = b[static_cast<size_t>(axis)];
      if ((free >> i) & 1 || v == 0)
        continue;
      bool single = (v & (v - 1)) == 0;
      for (size_t d = 0; d < b.size() && single; ++d)
        single = static_cast<int>(d) == axis || b[d] == 0;
      TILEC_ASSERT(single, "scan: a layout basis mixes the scanned dim with others: " + l.str());
      int k = log2i(v);
      hw[static_cast<size_t>(k)] = {kind, i};
      found[static_cast<size_t>(k)] = true;
    }
  }
  for (bool f : found)
    TILEC_ASSERT(f, "scan: the layout does not cover the scanned dim: " + l.str());
  return hw;
}

} // namespace

void lower_scan(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  int axis = static_cast<int>(op.int_attr("axis", 0));
  bool reverse = op.int_attr("reverse", 0) != 0;
  size_t nv = op.num_operands();
  const ir::Block &blk = *op.region(0)->block();
  const ir::Type &xt = op.operand(0)->type;
  const LinearLayout &l = c.layout_of(xt);
  int nreg = l.in_dim_size(layout::kRegister);
  std::vector<bool> uniq = LoweringContext::unique_regs(l);
  std::vector<HwBit> hw = axis_hardware(l, axis);
  int flat_pos = 0; // the axis' lowest bit in the row-major flat index
  for (int d = axis + 1; d < l.num_out_dims(); ++d)
    flat_pos += log2i(l.out_dims()[static_cast<size_t>(d)].size);

  // vals[r]: the values of register r (unique registers only).
  std::vector<Vals> vals(static_cast<size_t>(nreg));
  for (int32_t r = 0; r < nreg; ++r)
    if (uniq[static_cast<size_t>(r)])
      for (size_t i = 0; i < nv; ++i)
        vals[static_cast<size_t>(r)].push_back(c.get(op.operand(i))[static_cast<size_t>(r)]);

  int want = reverse ? 0 : 1; // bit b of the elements that update
  int64_t smem_base = -1;
  std::vector<int64_t> region;
  for (size_t lev = 0; lev < hw.size(); ++lev) {
    // Hardware bits that differ between e and e': forced below, flipped at lev.
    int32_t reg_clear = 0, reg_set = 0, lane_clear = 0, lane_set = 0;
    bool warps = false;
    for (size_t k = 0; k <= lev; ++k) {
      int v = k < lev ? want : 1 - want; // the value e' has at coordinate bit k
      const HwBit &h = hw[k];
      if (h.kind == Hw::Reg) {
        reg_clear |= 1 << h.bit;
        reg_set |= v << h.bit;
      } else if (h.kind == Hw::Lane) {
        lane_clear |= 1 << h.bit;
        lane_set |= v << h.bit;
      } else {
        warps = true;
      }
    }
    const HwBit &hb = hw[lev];
    // Per register: does it update (compile-time when hb is a register bit)?
    Reg upd_rt; // runtime predicate when hb is a lane or warp bit
    if (hb.kind != Hw::Reg) {
      Reg src = hb.kind == Hw::Lane ? c.lane() : c.warp();
      Reg bit = b.and_(Ty::B32, b.shr(Ty::U32, src, simt::imm(hb.bit)), simt::imm(1));
      upd_rt = b.setp(simt::Cmp::Eq, Ty::U32, bit, simt::imm(want));
    }
    auto updates = [&](int32_t r) { return hb.kind != Hw::Reg || ((r >> hb.bit) & 1) == want; };
    auto apply = [&](int32_t r, const Vals &src) {
      Vals &v = vals[static_cast<size_t>(r)];
      Vals nw = combine(c, blk, src, v);
      if (upd_rt.valid())
        for (size_t i = 0; i < nv; ++i)
          nw[i] = select_reg(c, upd_rt, nw[i], v[i]);
      v = nw;
    };
    if (!warps && lane_clear == 0) { // inside the thread
      for (int32_t r = 0; r < nreg; ++r) {
        if (!uniq[static_cast<size_t>(r)] || !updates(r))
          continue;
        int32_t rs = (r & ~reg_clear) | reg_set;
        apply(r, vals[static_cast<size_t>(rs)]);
      }
      continue;
    }
    if (!warps) { // across lanes: shfl.idx from the lane holding e'
      Reg src_lane = b.or_(Ty::B32, b.and_(Ty::B32, c.lane(), simt::imm(~lane_clear & 31)),
                           simt::imm(lane_set));
      std::vector<Vals> fetched(static_cast<size_t>(nreg));
      for (int32_t r = 0; r < nreg; ++r) {
        if (!uniq[static_cast<size_t>(r)] || !updates(r))
          continue;
        int32_t rs = (r & ~reg_clear) | reg_set;
        for (Reg x : vals[static_cast<size_t>(rs)])
          fetched[static_cast<size_t>(r)].push_back(
              shfl_any(c, simt::ShflMode::Idx, x, src_lane, simt::imm(0x1f)));
      }
      for (int32_t r = 0; r < nreg; ++r)
        if (!fetched[static_cast<size_t>(r)].empty())
          apply(r, fetched[static_cast<size_t>(r)]);
      continue;
    }
    // across warps: every element to shared memory, then read e'.
    if (smem_base < 0) {
      int64_t bytes = 0;
      for (size_t i = 0; i < nv; ++i) {
        region.push_back(bytes);
        bytes += (xt.numel() * mem_bytes(op.operand(i)->type.element()) + 15) & ~int64_t{15};
      }
      smem_base = c.scratch(op, bytes);
    }
    c.smem_before_write();
    for (int32_t r = 0; r < nreg; ++r) {
      if (!uniq[static_cast<size_t>(r)])
        continue;
      for (size_t i = 0; i < nv; ++i) {
        ir::Type et = op.operand(i)->type.element();
        c.smem_store(c.smem_operand(l, smem_base + region[i], mem_bytes(et), r),
                     vals[static_cast<size_t>(r)][i], et);
      }
    }
    c.smem_after_write();
    int64_t fclear = ((int64_t{2} << lev) - 1) << flat_pos;
    int64_t fset = (reverse ? (int64_t{1} << lev) : ((int64_t{1} << lev) - 1)) << flat_pos;
    for (int32_t r = 0; r < nreg; ++r) {
      if (!uniq[static_cast<size_t>(r)] || !updates(r))
        continue;
      Reg f = c.flat(l, r);
      Reg sf = b.or_(Ty::B32, b.and_(Ty::B32, f, simt::imm(~fclear & 0xffffffff)), simt::imm(fset));
      Vals src;
      for (size_t i = 0; i < nv; ++i) {
        ir::Type et = op.operand(i)->type.element();
        int es = mem_bytes(et);
        Reg a = b.mad(Ty::U32, sf, simt::imm(es), b.shared_addr(smem_base + region[i]));
        src.push_back(c.smem_load(Operand::addr(a), et));
      }
      apply(r, src);
    }
  }
  c.set_loc(op.loc());
  // Replicated registers take their first copy's values.
  std::map<std::vector<int32_t>, int32_t> first;
  for (int32_t r = 0; r < nreg; ++r)
    if (uniq[static_cast<size_t>(r)])
      first.emplace(LoweringContext::reg_coords(l, r), r);
  for (size_t i = 0; i < nv; ++i) {
    std::vector<Reg> out;
    for (int32_t r = 0; r < nreg; ++r)
      out.push_back(vals[static_cast<size_t>(first.at(LoweringContext::reg_coords(l, r)))][i]);
    const ir::Value *res = op.result(i);
    c.set(res, convert_regs(c, op, out, l, c.layout_of(res->type), res->type.element()));
  }
}

} // namespace tilec::lower
