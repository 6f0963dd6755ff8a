// gather and histogram, through the op's shared-memory scratch (AllocateShared.h):
//
// gather:    every thread stores the source elements it owns, row-major; barrier; each
//            result element is one ld.shared at its own coordinates with the axis'
//            coordinate replaced by the index (masked to the axis' length, so a bad index
//            reads another element of the source rather than outside the scratch).
// histogram: the bins are zeroed (in the result's layout); barrier; each input element
//            in [0, bins), mask on, is counted by its owner with red.shared.add.u32;
//            barrier; each thread reads its result bins.
//
// O(elements) instructions a thread either way, as Triton's shared-memory lowering; the
// bank conflicts of data-dependent addresses are the data's.
#include <functional>
#include <map>
#include <optional>

#include "lower/LoweringContext.h"

namespace tilec::lower {

using layout::LinearLayout;

namespace {

int log2i(int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) < v)
    ++k;
  return k;
}

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

void lower_gather(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  const ir::Value *src = op.operand(0), *index = op.operand(1);
  const ir::Type &st = src->type, &it = index->type, &rt = op.result(0)->type;
  size_t axis = static_cast<size_t>(op.int_attr("axis"));
  ir::Type et = st.element();
  int es = mem_bytes(et);
  const LinearLayout &ls = c.layout_of(st), &li = c.layout_of(it);
  int64_t base = c.scratch(op, align16(st.numel() * es));

  // Stage the source: owners store their unique registers, row-major.
  c.smem_before_write();
  {
    const std::vector<Reg> &sv = c.get(src);
    std::vector<bool> uniq = LoweringContext::unique_regs(ls);
    Reg owner = c.owner_pred(ls);
    std::optional<simt::Builder::GuardScope> g;
    if (owner.valid())
      g.emplace(b, simt::Guard{owner, false});
    for (int32_t r = 0; r < ls.in_dim_size(layout::kRegister); ++r)
      if (uniq[static_cast<size_t>(r)])
        c.smem_store(c.smem_operand(ls, base, es, r), sv[static_cast<size_t>(r)], et);
  }
  c.smem_after_write();

  // Read: source flat index = ((outer << src_bits) | index) << inner_bits | inner, where
  // the result's flat index is (outer << idx_bits | j) << inner_bits | inner.
  int inner_bits = 0;
  for (size_t d = axis + 1; d < st.shape.size(); ++d)
    inner_bits += log2i(st.shape[d]);
  int src_bits = log2i(st.shape[axis]), idx_bits = log2i(it.shape[axis]);
  bool has_outer = axis > 0;
  const std::vector<Reg> &iv = c.get(index);
  Reg sbase = b.shared_addr(base);
  std::vector<Reg> out = per_element(li, [&](int32_t r) {
    Reg k = to_u32(c, iv[static_cast<size_t>(r)], it.elem);
    k = b.and_(Ty::B32, k, simt::imm((int64_t{1} << src_bits) - 1));
    Reg f = has_outer || inner_bits > 0 ? c.flat(li, r) : Reg{};
    Reg sf = k;
    if (has_outer) {
      Reg o = b.shr(Ty::U32, f, simt::imm(idx_bits + inner_bits));
      sf = b.or_(Ty::B32, b.shl(Ty::B32, o, simt::imm(src_bits)), k);
    }
    if (inner_bits > 0) {
      Reg in = b.and_(Ty::B32, f, simt::imm((int64_t{1} << inner_bits) - 1));
      sf = b.or_(Ty::B32, b.shl(Ty::B32, sf, simt::imm(inner_bits)), in);
    }
    Reg a = b.mad(Ty::U32, sf, simt::imm(es), sbase);
    return c.smem_load(Operand::addr(a), et);
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
  {
    Reg zero = c.imm_reg(Ty::U32, 0);
    std::vector<bool> uniq = LoweringContext::unique_regs(lr);
    for (int32_t r = 0; r < lr.in_dim_size(layout::kRegister); ++r)
      if (uniq[static_cast<size_t>(r)])
        c.smem_store(c.smem_operand(lr, base, 4, r), zero, bin_t);
  }
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
