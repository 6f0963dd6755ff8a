#include "lower/ContractFma.h"

#include "lower/RemoveUnread.h"

namespace tilec::lower {

namespace {

using simt::Instr;
using simt::Op;
using simt::Ty;

// An unguarded f32 / f64 `op` without modifiers (contractable) of a register result.
bool contractable(const Instr &in, Op op) {
  return in.op == op && (in.ty == Ty::F32 || in.ty == Ty::F64) && in.m == simt::Mods{} &&
         !in.guard.active() && in.dst.size() == 1 && in.dst[0].is_reg() && in.src.size() == 2;
}

bool contractable_mul(const Instr &in) { return contractable(in, Op::Mul); }

int contract_block(std::vector<Instr> &instrs, const std::vector<int> &reads,
                   const std::vector<int> &writes, std::vector<size_t> &muls) {
  int n = 0;
  BlockWrites writes_so_far;
  for (size_t i = 0; i < instrs.size(); ++i) {
    Instr &in = instrs[i];
    if (contractable(in, Op::Add))
      for (int side = 0; side < 2; ++side) {
        const simt::Operand &t = in.src[side];
        if (!t.is_reg() || reads[t.index] != 1 || writes[t.index] != 1)
          continue;
        std::optional<size_t> def = writes_so_far.last(t.index);
        if (!def || !contractable_mul(instrs[*def]))
          continue;
        const Instr &mul = instrs[*def];
        // the product's factors must still hold what it was computed from
        if (mul.ty != in.ty || writes_so_far.written_after(mul.src[0], *def) ||
            writes_so_far.written_after(mul.src[1], *def))
          continue;
        Instr fma;
        fma.op = Op::Fma;
        fma.ty = in.ty;
        fma.m.rnd = simt::Rnd::Rn;
        fma.dst = in.dst;
        fma.src = {mul.src[0], mul.src[1], in.src[1 - side]};
        fma.loc = in.loc;
        muls.push_back(*def);
        in = std::move(fma);
        ++n;
        break;
      }
    writes_so_far.note(instrs[i], i);
  }
  return n;
}

} // namespace

int contract_fma(simt::Function &f) {
  std::vector<int> reads(f.regs.size(), 0), writes(f.regs.size(), 0);
  for (const simt::Block &b : f.blocks)
    for (const Instr &in : b.instrs) {
      for (const simt::Operand &o : in.src)
        if (o.is_reg())
          ++reads[o.index];
      if (in.guard.active())
        ++reads[in.guard.pred.id];
      for (const simt::Operand &o : in.dst)
        if (o.is_reg())
          ++writes[o.index];
    }
  int n = 0;
  std::vector<std::vector<size_t>> muls(f.blocks.size());
  for (size_t b = 0; b < f.blocks.size(); ++b)
    n += contract_block(f.blocks[b].instrs, reads, writes, muls[b]);
  if (n)
    remove_unread(f, muls, contractable_mul); // the products the fmas now compute
  return n;
}

} // namespace tilec::lower
