#include "lower/RemoveUnread.h"

namespace tilec::lower {

void remove_unread(simt::Function &f, const std::vector<std::vector<size_t>> &candidates,
                   bool (*removable)(const simt::Instr &)) {
  std::vector<int> reads(f.regs.size(), 0);
  for (const simt::Block &b : f.blocks)
    for (const simt::Instr &in : b.instrs) {
      for (const simt::Operand &o : in.src)
        if (o.is_reg())
          ++reads[o.index];
      if (in.guard.active())
        ++reads[in.guard.pred.id];
    }
  for (size_t b = 0; b < f.blocks.size() && b < candidates.size(); ++b) {
    std::vector<simt::Instr> &instrs = f.blocks[b].instrs;
    std::vector<bool> dead(instrs.size(), false);
    for (size_t i : candidates[b])
      dead[i] = removable(instrs[i]) && instrs[i].dst.size() == 1 && instrs[i].dst[0].is_reg() &&
                reads[instrs[i].dst[0].index] == 0;
    size_t w = 0;
    for (size_t i = 0; i < instrs.size(); ++i) {
      if (dead[i])
        continue;
      if (w != i)
        instrs[w] = std::move(instrs[i]);
      ++w;
    }
    instrs.resize(w);
  }
}

} // namespace tilec::lower
