// inline_asm: the user's PTX once per `pack` consecutive element registers of a thread
// (which elements form a group is unspecified, as in Triton). Elements under 32 bits
// travel packed, low element first (support/InlineAsm.h); 8-bit ones sit one per 16-bit
// register everywhere else, so they are packed and unpacked with shifts (one alone: in
// the low byte of a 32-bit register).
#include "lower/LoweringContext.h"
#include "support/InlineAsm.h"

namespace tilec::lower {

namespace {

namespace ia = tilec::inline_asm;

int elem_bits(const ir::Type &t) { return t.ptr ? 64 : ir::bits(t.elem); }

Reg pack_in(simt::Builder &b, const std::vector<Reg> &xs, int bits) {
  if (xs.size() == 1 && bits != 8) // a lone 8-bit element: zero-extended to 32 bits below
    return xs[0];
  if (bits == 16)
    return b.pack(Ty::B32, {xs[0], xs[1]});
  Reg acc;
  for (size_t j = 0; j < xs.size(); ++j) {
    Reg x = b.and_(Ty::B32, b.cvt(Ty::U32, Ty::U16, xs[j]), simt::imm(0xff));
    if (j)
      x = b.shl(Ty::B32, x, simt::imm(static_cast<int64_t>(8 * j)));
    acc = j ? b.or_(Ty::B32, acc, x) : x;
  }
  return xs.size() == 2 ? b.cvt(Ty::U16, Ty::U32, acc) : acc;
}

std::vector<Reg> unpack_out(simt::Builder &b, Reg r, int bits, int n, ir::DType d) {
  if (n == 1 && bits != 8)
    return {r};
  if (bits == 16)
    return b.unpack(Ty::B16, n, r);
  Reg x = n == 2 ? b.cvt(Ty::U32, Ty::U16, r) : r;
  std::vector<Reg> out;
  for (int j = 0; j < n; ++j) {
    Reg y = j ? b.shr(Ty::U32, x, simt::imm(8 * j)) : x;
    Reg e = b.cvt(Ty::U16, Ty::U32, b.and_(Ty::B32, y, simt::imm(0xff)));
    out.push_back(ir::is_signed_int(d) ? b.cvt(Ty::S16, Ty::S8, e) : e);
  }
  return out;
}

} // namespace

void lower_inline_asm(LoweringContext &c, const ir::Op &op) {
  std::vector<const ir::Value *> vals(op.operands().begin(), op.operands().end());
  for (size_t i = 0; i < op.num_results(); ++i)
    vals.push_back(op.result(i));
  expect_same_layout(c, op, vals);
  simt::Builder &b = c.b();
  int64_t pack = op.int_attr("pack", 1);
  int n = c.num_regs(op.result(0)->type);
  if (n % pack != 0)
    throw CompileError(op.loc(), "inline_asm_elementwise(): pack=" + std::to_string(pack) +
                                     " needs a multiple of " + std::to_string(pack) +
                                     " elements in each thread, but this tile of " +
                                     std::to_string(op.result(0)->type.numel()) + " gives " +
                                     std::to_string(n) +
                                     " (use a larger tile, fewer warps or "
                                     "a smaller pack)");
  std::string text = op.str_attr("asm");
  std::vector<std::vector<Reg>> out(op.num_results());
  for (int g = 0; g < n; g += static_cast<int>(pack)) {
    std::vector<Reg> srcs, dsts;
    for (const ir::Value *v : op.operands()) {
      const std::vector<Reg> &regs = c.get(v);
      int bits = elem_bits(v->type), epr = ia::elems_per_reg(bits, pack);
      for (int j = 0; j < pack; j += epr) {
        std::vector<Reg> xs;
        for (int k = 0; k < epr; ++k)
          xs.push_back(regs.size() == 1 ? regs[0] : regs[static_cast<size_t>(g + j + k)]);
        srcs.push_back(pack_in(b, xs, bits));
      }
    }
    for (size_t i = 0; i < op.num_results(); ++i) {
      const ir::Type &t = op.result(i)->type;
      int bits = elem_bits(t), epr = ia::elems_per_reg(bits, pack);
      for (int j = 0; j < pack; j += epr)
        dsts.push_back(b.reg(epr == 1 && bits != 8            ? reg_ty(t)
                             : ia::reg_bits(bits, pack) == 16 ? Ty::B16
                                                              : Ty::B32));
    }
    b.inline_asm(text, dsts, srcs);
    size_t d = 0;
    for (size_t i = 0; i < op.num_results(); ++i) {
      const ir::Type &t = op.result(i)->type;
      int bits = elem_bits(t), epr = ia::elems_per_reg(bits, pack);
      for (int j = 0; j < pack; j += epr)
        for (Reg r : unpack_out(b, dsts[d++], bits, epr, t.elem))
          out[i].push_back(r);
    }
  }
  for (size_t i = 0; i < op.num_results(); ++i)
    c.set(op.result(i), std::move(out[i]));
}

} // namespace tilec::lower
