#include "lower/WgmmaByteFragments.h"

namespace tilec::lower {

const std::vector<Reg> *fp8_cast_source(LoweringContext &c, const ir::Value *v) {
  const ir::Op *d = v->def;
  bool fp8 = v->type.elem == ir::DType::F8E5 || v->type.elem == ir::DType::F8E4NV;
  if (!fp8 || !d || d->kind() != ir::OpKind::Cast || d->operand(0)->type.elem != ir::DType::F32 ||
      d->str_attr("rounding") == "rtz")
    return nullptr;
  return &c.get(d->operand(0));
}

Reg byte_pair(LoweringContext &c, ir::DType elem, Reg lo, Reg hi, Reg f32_lo, Reg f32_hi) {
  simt::Builder &b = c.b();
  if (f32_lo.valid())
    return b.cvt_pack(elem == ir::DType::F8E5 ? Ty::E5M2x2 : Ty::E4M3x2, Ty::F32, f32_hi, f32_lo,
                      simt::Rnd::Rn, /*satfinite=*/true);
  Reg w = b.pack(Ty::B32, {lo, hi});
  w = b.ternary(simt::Op::Prmt, Ty::B32, w, simt::imm(0), simt::imm(0x0020));
  return b.cvt(Ty::U16, Ty::U32, w);
}

QuadGather quad_gather(LoweringContext &c) {
  simt::Builder &b = c.b();
  QuadGather g;
  c.in_prologue([&] {
    Reg lane = c.lane();
    Reg q = b.and_(Ty::B32, lane, simt::imm(3));
    g.odd = b.setp(simt::Cmp::Ne, Ty::U32, b.and_(Ty::B32, lane, simt::imm(1)), simt::imm(0));
    Reg swapped = b.or_(Ty::B32, b.shl(Ty::B32, b.and_(Ty::B32, q, simt::imm(1)), simt::imm(1)),
                        b.shr(Ty::U32, q, simt::imm(1)));
    g.src_a = b.or_(Ty::B32, b.and_(Ty::B32, lane, simt::imm(~3)), swapped);
    g.src_b = b.xor_(Ty::B32, g.src_a, simt::imm(1));
    // low register: q < 2 [a.b0 a.b1 b.b0 b.b1], q >= 2 [b.b0 b.b1 a.b0 a.b1]; high: bytes 2-3
    Reg high = b.setp(simt::Cmp::Ge, Ty::U32, q, simt::imm(2));
    g.sel_lo = b.selp(Ty::B32, simt::imm(0x1054), simt::imm(0x5410), high);
    g.sel_hi = b.add(Ty::U32, g.sel_lo, simt::imm(0x2222));
  });
  return g;
}

std::vector<Reg> byte_fragment(LoweringContext &c, const QuadGather &q,
                               const std::function<Reg(int32_t, int32_t)> &pair, int32_t m0,
                               int32_t k0) {
  simt::Builder &b = c.b();
  std::vector<Reg> f(4);
  for (int32_t h = 0; h < 2; ++h) {
    Reg w[2]; // the word a lane offers for j: [row g pair | row g + 8 pair]
    for (int32_t j = 0; j < 2; ++j) {
      int32_t col = k0 + 16 * h + 8 * j;
      w[j] = b.pack(Ty::B32, {pair(m0, col), pair(m0 + 8, col)});
    }
    Reg xa = shfl_any(c, simt::ShflMode::Idx, b.selp(Ty::B32, w[1], w[0], q.odd), q.src_a,
                      simt::imm(0x1f));
    Reg xb = shfl_any(c, simt::ShflMode::Idx, b.selp(Ty::B32, w[0], w[1], q.odd), q.src_b,
                      simt::imm(0x1f));
    f[static_cast<size_t>(2 * h)] = b.ternary(simt::Op::Prmt, Ty::B32, xa, xb, q.sel_lo);
    f[static_cast<size_t>(2 * h + 1)] = b.ternary(simt::Op::Prmt, Ty::B32, xa, xb, q.sel_hi);
  }
  return f;
}

} // namespace tilec::lower
