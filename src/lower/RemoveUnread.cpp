#include "lower/RemoveUnread.h"

namespace tilec::lower {

void remove_unread(simt::Function &f, const std::vector<std::vector<size_t>> &candidates,
                   bool (*removable)(const simt::Instr &)) {
  std::vector<std::vector<bool>> dead(f.blocks.size());
  for (size_t b = 0; b < f.blocks.size(); ++b)
    dead[b].assign(f.blocks[b].instrs.size(), false);
  // to a fixed point: a candidate may be read only by another candidate removed first
  for (bool more = true; more;) {
    more = false;
    std::vector<int> reads(f.regs.size(), 0);
    for (size_t b = 0; b < f.blocks.size(); ++b)
      for (size_t i = 0; i < f.blocks[b].instrs.size(); ++i) {
        if (dead[b][i])
          continue;
        const simt::Instr &in = f.blocks[b].instrs[i];
        for (const simt::Operand &o : in.src)
          if (o.is_reg())
            ++reads[o.index];
        if (in.guard.active())
          ++reads[in.guard.pred.id];
      }
    for (size_t b = 0; b < f.blocks.size() && b < candidates.size(); ++b)
      for (size_t i : candidates[b]) {
        const simt::Instr &in = f.blocks[b].instrs[i];
        if (!dead[b][i] && removable(in) && in.dst.size() == 1 && in.dst[0].is_reg() &&
            reads[in.dst[0].index] == 0)
          dead[b][i] = more = true;
      }
  }
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    std::vector<simt::Instr> &instrs = f.blocks[b].instrs;
    size_t w = 0;
    for (size_t i = 0; i < instrs.size(); ++i) {
      if (dead[b][i])
        continue;
      if (w != i) // not onto itself: a self-move empties its vectors
        instrs[w] = std::move(instrs[i]);
      ++w;
    }
    instrs.resize(w);
  }
}

} // namespace tilec::lower
