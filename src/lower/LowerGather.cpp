// gather and histogram, through the op's shared-memory scratch (AllocateShared.h):
//
// gather:    every thread stores the source elements it owns, row-major (16-byte vectors
//            where its registers run along the row); barrier; each result element is one
//            ld.shared at its own coordinates with the axis' coordinate replaced by the
//            index (masked to the axis' length, so a bad index reads another element of
//            the source rather than outside the scratch).
// histogram: the bins are zeroed (in the result's layout, stored as gather stages);
//            barrier; each input element in [0, bins), mask on, is counted by its owner
//            with red.shared.add.u32; barrier; each thread reads its result bins.
//
// O(elements) instructions a thread either way, as Triton's shared-memory lowering; the
// bank conflicts of data-dependent addresses are the data's.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "layout/Layouts.h"
#include "lower/LoweringContext.h"

namespace tilec::lower {

using layout::LinearLayout;
using layout::log2i;

namespace {

int64_t align16(int64_t v) { return (v + 15) & ~int64_t{15}; }

// An integer register of element type `d` as u32: 64-bit ones truncated, narrower signed
// ones sign-extended (a negative value becomes >= 2^31), i1 as 0 / 1.
Reg to_u32(LoweringContext &c, Reg v, ir::DType d) {
  simt::Builder &b = c.b();
  Ty t = reg_ty(d);
  switch (simt::ty_bits(t)) {
  case 1:
    return b.selp(Ty::U32, simt::imm(1), simt::imm(0), v);
  case 16:
    return b.cvt(Ty::U32, t, v);
  case 64:
    return b.cvt(Ty::U32, t, v);
  default:
    return v;
  }
}

// Registers in `l` computed once per element: replicas copy their first copy's register.
std::vector<Reg> per_element(const LinearLayout &l, const std::function<Reg(int32_t)> &f) {
  int32_t n = l.in_dim_size(layout::kRegister);
  std::vector<bool> uniq = LoweringContext::unique_regs(l);
  std::vector<Reg> out(static_cast<size_t>(n));
  std::map<std::vector<int32_t>, Reg> first;
  for (int32_t r = 0; r < n; ++r)
    if (uniq[static_cast<size_t>(r)])
      first[LoweringContext::reg_coords(l, r)] = out[static_cast<size_t>(r)] = f(r);
  for (int32_t r = 0; r < n; ++r)
    if (!uniq[static_cast<size_t>(r)])
      out[static_cast<size_t>(r)] = first.at(LoweringContext::reg_coords(l, r));
  return out;
}

// Stores the unique registers of a tile in layout `l` at its row-major place in scratch
// (owners only): runs of registers consecutive in the tile whose thread part leaves the
// run's bits alone go as one st.shared.v2/.v4 (up to 16 bytes).
void stage_tile(LoweringContext &c, const LinearLayout &l, int64_t base, const ir::Type &et,
                const std::vector<Reg> &regs) {
  simt::Builder &b = c.b();
  int es = mem_bytes(et);
  const ThreadCoords &tc = c.thread_coords(l);
  int32_t n = l.in_dim_size(layout::kRegister);
  std::vector<bool> uniq = LoweringContext::unique_regs(l);
  std::map<int64_t, int32_t> at; // flat index -> register, immediate-offset ones only
  std::vector<int64_t> flat(static_cast<size_t>(n));
  for (int32_t r = 0; r < n; ++r) {
    flat[static_cast<size_t>(r)] =
        LoweringContext::flat_index(l, LoweringContext::reg_coords(l, r));
    if (uniq[static_cast<size_t>(r)] && (flat[static_cast<size_t>(r)] & tc.flat_span) == 0)
      at[flat[static_cast<size_t>(r)]] = r;
  }
  int max_vec = reg_ty(et) == Ty::Pred || es < 2 ? 1 : std::min(4, 16 / es);
  Reg owner = c.owner_pred(l);
  std::optional<simt::Builder::GuardScope> g;
  if (owner.valid())
    g.emplace(b, simt::Guard{owner, false});
  std::vector<bool> done(static_cast<size_t>(n), false);
  for (int32_t r = 0; r < n; ++r) {
    if (!uniq[static_cast<size_t>(r)] || done[static_cast<size_t>(r)])
      continue;
    int64_t f = flat[static_cast<size_t>(r)];
    int vec = 1;
    for (int v = max_vec; v > 1 && vec == 1 && at.count(f); v /= 2) {
      bool ok = f % v == 0 && (tc.flat_span & (v - 1)) == 0;
      for (int j = 0; j < v && ok; ++j)
        ok = at.count(f + j) && !done[static_cast<size_t>(at.at(f + j))];
      if (ok)
        vec = v;
    }
    Operand addr = c.smem_operand(l, base, es, r);
    if (vec == 1) {
      c.smem_store(addr, regs[static_cast<size_t>(r)], et);
      continue;
    }
    std::vector<Operand> vals;
    for (int j = 0; j < vec; ++j) {
      int32_t rj = at.at(f + j);
      vals.push_back(regs[static_cast<size_t>(rj)]);
      done[static_cast<size_t>(rj)] = true;
    }
    b.st(simt::Space::Shared, simt::ty_bits_of(es * 8), addr, vals);
  }
}

void lower_gather(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  const ir::Value *src = op.operand(0), *index = op.operand(1);
  const ir::Type &st = src->type, &it = index->type, &rt = op.result(0)->type;
  size_t axis = static_cast<size_t>(op.int_attr("axis"));
  ir::Type et = st.element();
  int es = mem_bytes(et);
  const LinearLayout &li = c.layout_of(it);
  int64_t base = c.scratch(op, align16(st.numel() * es));

  c.smem_before_write();
  stage_tile(c, c.layout_of(st), base, et, c.get(src));
  c.smem_after_write();

  // Read. With the result's flat index f = (outer << idx_bits | j) << inner_bits | inner,
  // the source's is g(f) | index << inner_bits, g(f) = outer << (src_bits + inner_bits) |
  // inner. g moves bits, so g(T ^ R) = g(T) ^ g(R) for the thread and register parts of f:
  // when those share no bit outside the axis, g(T) is computed once and g(R) is an
  // immediate offset, leaving an and + mad (+ a cvt for other index widths) an element.
  int inner_bits = 0;
  for (size_t d = axis + 1; d < st.shape.size(); ++d)
    inner_bits += log2i(st.shape[d]);
  int src_bits = log2i(st.shape[axis]), idx_bits = log2i(it.shape[axis]);
  int64_t inner_mask = (int64_t{1} << inner_bits) - 1;
  int64_t axis_mask = ((int64_t{1} << idx_bits) - 1) << inner_bits;
  auto g_imm = [&](int64_t f) {
    return ((f >> (idx_bits + inner_bits)) << (src_bits + inner_bits)) | (f & inner_mask);
  };
  auto g_reg = [&](Reg f) { // invalid when g is 0 (a 1-D gather)
    Reg o, in;
    if (axis > 0)
      o = b.shl(Ty::B32, b.shr(Ty::U32, f, simt::imm(idx_bits + inner_bits)),
                simt::imm(src_bits + inner_bits));
    if (inner_bits > 0)
      in = b.and_(Ty::B32, f, simt::imm(inner_mask));
    return o.valid() && in.valid() ? b.or_(Ty::B32, o, in) : o.valid() ? o : in;
  };
  const ThreadCoords &tc = c.thread_coords(li);
  Reg sbase = b.shared_addr(base);
  Reg tbase; // sbase + g(T) * es
  const std::vector<Reg> &iv = c.get(index);
  std::vector<Reg> out = per_element(li, [&](int32_t r) {
    Reg k = to_u32(c, iv[static_cast<size_t>(r)], it.elem);
    k = b.and_(Ty::B32, k, simt::imm((int64_t{1} << src_bits) - 1));
    int64_t rf = LoweringContext::flat_index(li, LoweringContext::reg_coords(li, r));
    if ((rf & ~axis_mask & tc.flat_span) == 0) {
      if (!tbase.valid()) {
        Reg gt = g_reg(tc.flat);
        tbase = gt.valid() ? b.mad(Ty::U32, gt, simt::imm(es), sbase) : sbase;
      }
      Reg a = b.mad(Ty::U32, k, simt::imm(int64_t{es} << inner_bits), tbase);
      return c.smem_load(Operand::addr(a, g_imm(rf) * es), et);
    }
    Reg gf = g_reg(c.flat(li, r)), ks = b.shl(Ty::B32, k, simt::imm(inner_bits));
    Reg sf = gf.valid() ? b.or_(Ty::B32, gf, ks) : ks;
    return c.smem_load(Operand::addr(b.mad(Ty::U32, sf, simt::imm(es), sbase)), et);
  });
  c.set(op.result(0), convert_regs(c, op, out, li, c.layout_of(rt), et));
}

void lower_histogram(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  const ir::Value *x = op.operand(0);
  const ir::Value *mask = op.num_operands() > 1 ? op.operand(1) : nullptr;
  expect_same_layout(c, op, {x, mask});
  const ir::Type &rt = op.result(0)->type;
  const LinearLayout &lx = c.layout_of(x->type), &lr = c.layout_of(rt);
  int64_t bins = rt.shape[0];
  int64_t base = c.scratch(op, align16(bins * 4));
  ir::Type bin_t(ir::DType::I32);

  c.smem_before_write();
  stage_tile(c, lr, base, bin_t,
             std::vector<Reg>(static_cast<size_t>(lr.in_dim_size(layout::kRegister)),
                              c.imm_reg(Ty::U32, 0)));
  c.smem_after_write();

  const std::vector<Reg> &xv = c.get(x);
  Ty xt = reg_ty(x->type.elem);
  Reg owner = c.owner_pred(lx);
  Reg one = c.imm_reg(Ty::U32, 1);
  Reg sbase = b.shared_addr(base);
  std::vector<bool> uniq = LoweringContext::unique_regs(lx);
  for (int32_t r = 0; r < lx.in_dim_size(layout::kRegister); ++r) {
    if (!uniq[static_cast<size_t>(r)])
      continue;
    Reg v = xv[static_cast<size_t>(r)];
    Reg k = to_u32(c, v, x->type.elem);
    // unsigned compare: negative values are huge; 64-bit ones before truncation
    Reg ok = simt::ty_bits(xt) == 64 ? b.setp(simt::Cmp::Lt, Ty::U64, v, simt::imm(bins))
                                     : b.setp(simt::Cmp::Lt, Ty::U32, k, simt::imm(bins));
    if (mask)
      ok = b.and_(Ty::Pred, ok, c.get(mask)[static_cast<size_t>(r)]);
    if (owner.valid())
      ok = b.and_(Ty::Pred, ok, owner);
    Reg a = b.mad(Ty::U32, k, simt::imm(4), sbase);
    auto g = b.guarded(ok);
    b.red(simt::AtomOp::Add, Ty::U32, Operand::addr(a), one, simt::Sem::None, simt::Scope::None,
          simt::Space::Shared);
  }
  c.smem_after_write();

  std::vector<Reg> out = per_element(
      lr, [&](int32_t r) { return c.smem_load(c.smem_operand(lr, base, 4, r), bin_t); });
  c.set(op.result(0), std::move(out));
}

} // namespace

void lower_gather_histogram(LoweringContext &c, const ir::Op &op) {
  if (op.kind() == ir::OpKind::Gather)
    lower_gather(c, op);
  else
    lower_histogram(c, op);
}

} // namespace tilec::lower
