#include "lower/CoalesceCopies.h"

namespace tilec::lower {

namespace {

using simt::Instr;
using simt::Op;

bool is_reg(const simt::Operand &o, uint32_t r) { return o.is_reg() && o.index == r; }

void rename(Instr &in, uint32_t from, uint32_t to) {
  for (simt::Operand &o : in.src)
    if (is_reg(o, from))
      o.index = to;
  for (simt::Operand &o : in.dst)
    if (is_reg(o, from))
      o.index = to;
  if (in.guard.active() && in.guard.pred.id == from)
    in.guard.pred.id = to;
}

constexpr int kNone = -1, kSeveral = -2;

// Tries to remove the copy at `m` of block `b`; `home[r]`: the block accessing register r
// (kNone, kSeveral).
bool coalesce_at(const simt::Function &f, std::vector<Instr> &ins, size_t m, int b,
                 std::vector<int> &home) {
  const Instr &mv = ins[m];
  if (mv.op != Op::Mov || mv.guard.active() || mv.src.size() != 1 || mv.dst.size() != 1 ||
      !mv.src[0].is_reg() || !mv.dst[0].is_reg() || mv.src[0].value != 0)
    return false;
  uint32_t s = mv.src[0].index, d = mv.dst[0].index;
  if (s == d || home[s] != b ||
      simt::ty_reg_bits(f.reg_ty(simt::Reg{s})) != simt::ty_reg_bits(f.reg_ty(simt::Reg{d})))
    return false;
  size_t first = 0;
  while (first < m && !simt::instr_reads(ins[first], s) && !simt::instr_writes(ins[first], s))
    ++first;
  // s must start its life here with a plain write that does not touch d.
  if (first >= m || simt::instr_reads(ins[first], s) || simt::instr_writes(ins[first], d))
    return false;
  for (size_t i = m + 1; i < ins.size(); ++i)
    if (simt::instr_reads(ins[i], s) || simt::instr_writes(ins[i], s))
      return false;
  for (size_t i = first + 1; i < m; ++i)
    if (simt::instr_reads(ins[i], d) || simt::instr_writes(ins[i], d) || simt::leaves_block(ins[i]))
      return false;
  for (size_t i = first; i < m; ++i)
    rename(ins[i], s, d);
  ins.erase(ins.begin() + static_cast<long>(m));
  home[s] = kNone;
  return true;
}

} // namespace

int coalesce_copies(simt::Function &f) {
  std::vector<int> home(f.regs.size(), kNone);
  auto note = [&](const simt::Operand &o, int b) {
    if (!o.is_reg())
      return;
    int &h = home[o.index];
    h = h == kNone || h == b ? b : kSeveral;
  };
  for (size_t b = 0; b < f.blocks.size(); ++b)
    for (const Instr &in : f.blocks[b].instrs) {
      for (const simt::Operand &o : in.src)
        note(o, static_cast<int>(b));
      for (const simt::Operand &o : in.dst)
        note(o, static_cast<int>(b));
      if (in.guard.active())
        note(simt::Operand(in.guard.pred), static_cast<int>(b));
    }
  int n = 0;
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    std::vector<Instr> &ins = f.blocks[b].instrs;
    // From the last copy back: the yield's copies first, which frees the copies feeding
    // the values they moved.
    for (size_t m = ins.size(); m-- > 0;) {
      if (coalesce_at(f, ins, m, static_cast<int>(b), home)) {
        ++n;
        m = ins.size(); // the block changed: look again from its end
      }
    }
  }
  return n;
}

} // namespace tilec::lower
