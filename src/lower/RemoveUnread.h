// Shared by the Thread IR peepholes that rewrite an instruction's use of another: the
// instructions they may have left dead are removed once nothing reads their result.
#pragma once

#include <vector>

#include "simt/ThreadIR.h"

namespace tilec::lower {

// Removes from each block b the instructions at candidates[b] that `removable` accepts and
// whose destination register nothing in `f` reads (registers may be read in other blocks,
// by stores or by loop-carried copies, so reads are counted over the whole function),
// again until none is left whose readers were all removed.
void remove_unread(simt::Function &f, const std::vector<std::vector<size_t>> &candidates,
                   bool (*removable)(const simt::Instr &));

} // namespace tilec::lower
