// Shared by the Thread IR peepholes that rewrite an instruction's use of another
// (FoldXorPairs, ContractFma, FuseCvtPacks): the walk of a block's latest writes, and the
// instructions they may have left dead, removed once nothing reads their result.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "simt/ThreadIR.h"

namespace tilec::lower {

// A block's instructions walked in order: the latest write of each register so far (where
// an operand was defined, and whether it was written again since).
class BlockWrites {
public:
  std::optional<size_t> last(uint32_t reg) const {
    auto it = last_.find(reg);
    return it == last_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }
  // Whether `o` is a register written after instruction `at`.
  bool written_after(const simt::Operand &o, size_t at) const {
    auto l = o.is_reg() ? last(o.index) : std::nullopt;
    return l && *l > at;
  }
  // After looking at instruction `at`: its results.
  void note(const simt::Instr &in, size_t at) {
    for (const simt::Operand &o : in.dst)
      if (o.is_reg())
        last_[o.index] = at;
  }

private:
  std::unordered_map<uint32_t, size_t> last_;
};

// Removes from each block b the instructions at candidates[b] that `removable` accepts and
// whose destination register nothing in `f` reads (registers may be read in other blocks,
// by stores or by loop-carried copies, so reads are counted over the whole function),
// again until none is left whose readers were all removed.
void remove_unread(simt::Function &f, const std::vector<std::vector<size_t>> &candidates,
                   bool (*removable)(const simt::Instr &));

} // namespace tilec::lower
