// reduce: in-thread, then across lanes (shfl.sync.bfly), then across warps (shared memory).
//
// Every input bit of the operand's layout that is not free (a replica) and steps the
// reduced dim is combined away: register bits inside the thread (running chains over the
// thread's elements in axis order, then a tree over the chains), lane bits with a
// butterfly shuffle, warp bits through shared memory — each warp writes its partials at
// [warp-along-axis][result element], a barrier, then every thread combines the partials
// of the elements it holds, in warp order. Afterwards every thread holds its elements of
// the "reduced layout" (the operand's with the axis dropped, the lanes and warps along it
// now replicas), which is relabelled into the result's layout (the slice layout: no data
// movement).
// Combiner regions are lowered by re-emitting their ops on scalar registers. As in
// Triton, the combiner is taken to be associative and commutative.
#include <algorithm>
#include <map>

#include "lower/LoweringContext.h"

namespace tilec::lower {

using layout::LinearLayout;

Reg shfl_any(LoweringContext &c, simt::ShflMode mode, Reg v, Operand b, Operand clamp) {
  simt::Builder &bb = c.b();
  Ty t = c.fn().reg_ty(v);
  int w = simt::ty_reg_bits(t);
  if (t == Ty::Pred) {
    Reg u = bb.selp(Ty::U32, simt::imm(1), simt::imm(0), v);
    Reg s = bb.shfl(mode, u, b, clamp);
    return bb.setp(simt::Cmp::Ne, Ty::U32, s, simt::imm(0));
  }
  if (w == 32)
    return bb.shfl(mode, v, b, clamp);
  if (w == 16) {
    Reg u = bb.cvt(Ty::U32, Ty::U16, v);
    Reg s = bb.shfl(mode, u, b, clamp);
    Reg h = bb.cvt(Ty::U16, Ty::U32, s);
    Reg d = bb.reg(t);
    bb.mov_to(d, h);
    return d;
  }
  std::vector<Reg> parts = bb.unpack(Ty::B32, 2, v);
  Reg lo = bb.shfl(mode, parts[0], b, clamp), hi = bb.shfl(mode, parts[1], b, clamp);
  Reg d = bb.reg(t);
  simt::Instr in;
  in.op = simt::Op::Pack;
  in.ty = Ty::B64;
  in.dst = {d};
  in.src = {lo, hi};
  bb.emit(std::move(in));
  return d;
}

namespace {

using Vals = std::vector<Reg>; // one register per reduced value

Vals combine(LoweringContext &c, const ir::Block &blk, const Vals &acc, const Vals &x) {
  Vals args = acc;
  args.insert(args.end(), x.begin(), x.end());
  return c.inline_region(blk, args);
}

bool axis_only(const LinearLayout::Basis &b, int axis) {
  for (size_t d = 0; d < b.size(); ++d)
    if (static_cast<int>(d) != axis && b[d] != 0)
      return false;
  return true;
}

// The layout with tile dim `axis` removed from every basis (its steps become replicas).
LinearLayout drop_axis(const LinearLayout &l, int axis) {
  std::vector<LinearLayout::InDim> ins;
  for (const LinearLayout::InDim &in : l.in_dims()) {
    LinearLayout::InDim n{in.name, {}};
    for (const LinearLayout::Basis &b : in.bases) {
      LinearLayout::Basis nb;
      for (size_t d = 0; d < b.size(); ++d)
        if (static_cast<int>(d) != axis)
          nb.push_back(b[d]);
      n.bases.push_back(std::move(nb));
    }
    ins.push_back(std::move(n));
  }
  std::vector<LinearLayout::OutDim> outs;
  int k = 0;
  for (int d = 0; d < l.num_out_dims(); ++d)
    if (d != axis)
      outs.push_back({layout::dim_name(k++), l.out_dims()[static_cast<size_t>(d)].size});
  return LinearLayout(std::move(ins), std::move(outs));
}

// A combiner that is one commutative op of its two arguments (sum, max, ...).
bool commutative_combiner(const ir::Block &blk) {
  const ir::Op *only = nullptr;
  for (const auto &op : blk.ops()) {
    if (ir::is_terminator(op->kind()))
      continue;
    if (only)
      return false;
    only = op.get();
  }
  if (!only || blk.num_args() != 2)
    return false;
  switch (only->kind()) {
  case ir::OpKind::Add:
  case ir::OpKind::Mul:
  case ir::OpKind::Max:
  case ir::OpKind::Min:
  case ir::OpKind::And:
  case ir::OpKind::Or:
  case ir::OpKind::Xor:
    break;
  default:
    return false;
  }
  const ir::Op *term = blk.terminator();
  return term && term->num_operands() == 1 && term->operand(0) == only->result(0) &&
         only->num_operands() == 2 && only->operand(0)->is_block_arg() &&
         only->operand(1)->is_block_arg();
}

// A combiner that is one max or min of its two arguments.
bool minmax_combiner(const ir::Block &blk) {
  if (!commutative_combiner(blk))
    return false;
  for (const auto &op : blk.ops())
    if (op->kind() == ir::OpKind::Max || op->kind() == ir::OpKind::Min)
      return true;
  return false;
}

std::vector<int32_t> without(const std::vector<int32_t> &v, int axis) {
  std::vector<int32_t> r;
  for (size_t d = 0; d < v.size(); ++d)
    if (static_cast<int>(d) != axis)
      r.push_back(v[d]);
  return r;
}

// The non-free bits of input dim `name` whose basis steps the axis.
std::vector<int> axis_bits(const LinearLayout &l, const char *name, int axis) {
  std::vector<int> bits;
  if (!l.has_in_dim(name))
    return bits;
  int32_t free = l.free_variable_mask(name);
  for (int i = 0; i < l.in_dim_bits(name); ++i) {
    const LinearLayout::Basis &b = l.basis(name, i);
    if ((free >> i) & 1 || b[static_cast<size_t>(axis)] == 0)
      continue;
    TILEC_ASSERT(axis_only(b, axis),
                 "reduce: a layout basis mixes the reduced dim with others: " + l.str());
    bits.push_back(i);
  }
  return bits;
}

using Partials = std::map<std::vector<int32_t>, Vals>;

// 1. In the thread: registers grouped by their coordinates off the axis, each group
// combined into one partial per value.
Partials reduce_in_thread(LoweringContext &c, const ir::Op &op, const LinearLayout &l, int axis) {
  const ir::Block &blk = *op.region(0)->block();
  size_t nv = op.num_operands();
  int nreg = l.in_dim_size(layout::kRegister);
  std::vector<bool> uniq = LoweringContext::unique_regs(l);
  std::map<std::vector<int32_t>, std::vector<std::pair<int32_t, int32_t>>>
      groups; // key -> (axis, reg)
  for (int32_t r = 0; r < nreg; ++r) {
    if (!uniq[static_cast<size_t>(r)])
      continue;
    std::vector<int32_t> rc = LoweringContext::reg_coords(l, r);
    groups[without(rc, axis)].push_back({rc[static_cast<size_t>(axis)], r});
  }
  Partials partial;
  const bool minmax = minmax_combiner(blk);
  for (auto &[key, members] : groups) {
    std::sort(members.begin(), members.end());
    std::vector<Vals> items;
    for (const auto &[ax, r] : members) {
      Vals v;
      for (size_t i = 0; i < nv; ++i)
        v.push_back(c.get(op.operand(i))[static_cast<size_t>(r)]);
      items.push_back(std::move(v));
    }
    // Running accumulators (element i into chain i % chains), then a tree over the chains.
    // Other combiners get four: a chain lets ptxas fuse a sum of products into one fma per
    // element, and four keep the adds independent. A max or min (nothing to fuse) is one
    // chain in element order, as Triton's is: ptxas then issues the loads feeding it in
    // address order, the first one earliest (four chains moved softmax's first load from
    // the 27th instruction to the 45th and cost 0.25 % on 1024x16384).
    const size_t chains = minmax ? 1 : 4;
    for (size_t i = chains; i < items.size(); ++i)
      items[i % chains] = combine(c, blk, items[i % chains], items[i]);
    items.resize(std::min(items.size(), chains));
    while (items.size() > 1) { // element i with element i + ceil(n/2)
      size_t half = (items.size() + 1) / 2;
      for (size_t i = 0; i + half < items.size(); ++i)
        items[i] = combine(c, blk, items[i], items[i + half]);
      items.resize(half);
    }
    partial[key] = items[0];
  }

  return partial;
}

// 2. Across lanes: butterflies over the lane bits along the axis, highest first.
void reduce_across_lanes(LoweringContext &c, const ir::Op &op, const LinearLayout &l, int axis,
                         Partials &partial) {
  simt::Builder &b = c.b();
  const ir::Block &blk = *op.region(0)->block();
  // Both lanes of a pair must compute the same value: unless the combiner is commutative, the
  // partial of the lower lane (lower axis indices) goes on the left.
  std::vector<int> lane_bits = axis_bits(l, layout::kLane, axis);
  bool commutative = commutative_combiner(blk);
  for (auto it = lane_bits.rbegin(); it != lane_bits.rend(); ++it) {
    Reg upper;
    if (!commutative)
      upper = b.setp(simt::Cmp::Ne, Ty::U32,
                     b.and_(Ty::B32, c.lane(), simt::imm(int64_t{1} << *it)), simt::imm(0));
    for (auto &[key, v] : partial) {
      Vals other;
      for (Reg x : v)
        other.push_back(
            shfl_any(c, simt::ShflMode::Bfly, x, simt::imm(int64_t{1} << *it), simt::imm(0x1f)));
      if (commutative) {
        v = combine(c, blk, v, other);
        continue;
      }
      Vals lo, hi;
      for (size_t i = 0; i < v.size(); ++i) {
        lo.push_back(select_reg(c, upper, other[i], v[i]));
        hi.push_back(select_reg(c, upper, v[i], other[i]));
      }
      v = combine(c, blk, lo, hi);
    }
  }
}

// 3. Across warps: partials through shared memory; `red` is the reduced layout.
void reduce_across_warps(LoweringContext &c, const ir::Op &op, const LinearLayout &l, int axis,
                         const LinearLayout &red, Partials &partial) {
  simt::Builder &b = c.b();
  const ir::Block &blk = *op.region(0)->block();
  const ir::Type &xt = op.operand(0)->type;
  size_t nv = op.num_operands();
  std::vector<int> warp_bits = axis_bits(l, layout::kWarp, axis);
  if (!warp_bits.empty()) {
    int64_t nwarp = int64_t{1} << warp_bits.size();
    int64_t nres = xt.rank() > 1 ? red.total_out_size() : 1;
    std::vector<int64_t> region;
    int64_t bytes = 0;
    for (size_t i = 0; i < nv; ++i) {
      region.push_back(bytes);
      bytes += (nres * nwarp * mem_bytes(op.operand(i)->type.element()) + 15) & ~int64_t{15};
    }
    int64_t base = c.scratch(op, bytes);
    // This warp's index along the axis: its axis warp bits, packed (one bit field when
    // they are consecutive, as in blocked layouts).
    Reg w;
    bool run = true;
    for (size_t t = 1; t < warp_bits.size(); ++t)
      run = run && warp_bits[t] == warp_bits[t - 1] + 1;
    if (run) {
      w = warp_bits[0] ? b.shr(Ty::U32, c.warp(), simt::imm(warp_bits[0])) : c.warp();
      if ((int64_t{1} << (warp_bits[0] + static_cast<int>(warp_bits.size()))) < c.num_warps())
        w = b.and_(Ty::B32, w, simt::imm(nwarp - 1));
    } else {
      for (size_t t = 0; t < warp_bits.size(); ++t) {
        Reg bit = b.and_(Ty::B32, b.shr(Ty::U32, c.warp(), simt::imm(warp_bits[t])), simt::imm(1));
        Reg part = t ? b.shl(Ty::B32, bit, simt::imm(static_cast<int64_t>(t))) : bit;
        w = w.valid() ? b.or_(Ty::B32, w, part) : part;
      }
    }
    // The flat result index of each group: the reduced layout's thread part plus the
    // group's compile-time coordinates.
    Reg tflat;
    int64_t tspan = 0;
    if (xt.rank() > 1) {
      const ThreadCoords &tc = c.thread_coords(red);
      tflat = tc.flat;
      tspan = tc.flat_span;
    }
    Reg row = nres == 1 ? w : b.mul(Ty::U32, w, simt::imm(nres)); // w * nres
    Reg thread_idx = tflat.valid() ? b.add(Ty::U32, row, tflat) : row;
    c.smem_before_write();
    for (auto &[key, v] : partial) {
      int64_t kf = xt.rank() > 1 ? LoweringContext::flat_index(red, key) : 0;
      Reg idx = thread_idx;
      if (kf) {
        idx = (kf & tspan) == 0 ? b.add(Ty::U32, thread_idx, simt::imm(kf))
                                : b.add(Ty::U32, row, b.xor_(Ty::B32, tflat, simt::imm(kf)));
      }
      for (size_t i = 0; i < nv; ++i) {
        const ir::Type et = op.operand(i)->type.element();
        int es = mem_bytes(et);
        Reg addr = b.mad(Ty::U32, idx, simt::imm(es), b.shared_addr(base + region[i]));
        c.smem_store(Operand::addr(addr), v[i], et);
      }
    }
    c.smem_after_write();
    for (auto &[key, v] : partial) {
      int64_t kf = xt.rank() > 1 ? LoweringContext::flat_index(red, key) : 0;
      Reg idx;
      if (tflat.valid())
        idx = kf == 0 ? tflat
                      : ((kf & tspan) == 0 ? b.add(Ty::U32, tflat, simt::imm(kf))
                                           : b.xor_(Ty::B32, tflat, simt::imm(kf)));
      Vals acc;
      for (int64_t k = 0; k < nwarp; ++k) {
        Vals x;
        for (size_t i = 0; i < nv; ++i) {
          const ir::Type et = op.operand(i)->type.element();
          int es = mem_bytes(et);
          int64_t off = base + region[i] + k * nres * es;
          Operand a = idx.valid()
                          ? Operand::addr(b.mad(Ty::U32, idx, simt::imm(es), b.shared_addr(off)))
                          : Operand::shared(off);
          x.push_back(c.smem_load(a, et));
        }
        acc = k == 0 ? x : combine(c, blk, acc, x);
      }
      v = acc;
    }
  }
}

} // namespace

void lower_reduce(LoweringContext &c, const ir::Op &op) {
  int axis = static_cast<int>(op.int_attr("axis", 0));
  size_t nv = op.num_operands();
  const ir::Type &xt = op.operand(0)->type;
  const LinearLayout &l = c.layout_of(xt);
  int nreg = l.in_dim_size(layout::kRegister);
  (void)axis_bits(l, layout::kRegister, axis); // validates the register bases

  Partials partial = reduce_in_thread(c, op, l, axis);
  reduce_across_lanes(c, op, l, axis, partial);
  LinearLayout red = xt.rank() > 1 ? drop_axis(l, axis) : LinearLayout();
  reduce_across_warps(c, op, l, axis, red, partial);
  c.set_loc(op.loc());

  // 4. Results: relabel the reduced layout's registers into the result layout.
  for (size_t i = 0; i < nv; ++i) {
    const ir::Value *res = op.result(i);
    if (!res->type.is_tile()) {
      TILEC_ASSERT(partial.size() == 1, "reduce to a scalar left several groups");
      c.set(res, {partial.begin()->second[i]});
      continue;
    }
    std::vector<Reg> full(static_cast<size_t>(nreg));
    for (int32_t r = 0; r < nreg; ++r) {
      auto it = partial.find(without(LoweringContext::reg_coords(l, r), axis));
      TILEC_ASSERT(it != partial.end(), "reduce: a register without a group");
      full[static_cast<size_t>(r)] = it->second[i];
    }
    c.set(res, convert_regs(c, op, full, red, c.layout_of(res->type), res->type.element()));
  }
}

} // namespace tilec::lower
