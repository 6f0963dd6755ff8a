// A Thread IR pass run at the end of lowering: two wgmma dots in one block, the second
// fed by register work on the first's result (attention: s = dot(q, k^T); softmax;
// acc = dot(p, v, acc * alpha)), are interleaved by their instruction tiles so the tensor
// cores run while the register work does:
//
//   before: D1(all tiles) wait 0 | X | D2(all tiles) wait n
//   after:  D1 tile 0, commit, D1 tile 1, commit, ...   (one wgmma group per tile)
//           X's work on no tile
//           wait (tile 0 done) | X's work on tile 0 | [wait 0, X's memory work] | D2 tiles
//           that need only that, commit | wait (tile 1 done) | X's work on tile 1 | ...
//           wait n
//
// A tile is the set of wgmmas writing one set of accumulator registers (64 rows of a
// warpgroup). X's instructions are ordered by the last tile they depend on through
// registers (read after write, write after read, write after write); X's instructions
// that touch memory, barriers included, keep their order and run once every D1 tile is
// retired and before any D2 tile is issued, as they did. Matched only when X has no
// control flow, its memory work depends on no tile and nothing in X depends on that
// memory work; otherwise the block is left as it was. Each instruction computes what it
// did; only the order and the wait_group counts change. Opt-in (TILEC_WGMMA_OVERLAP=1):
// on an H100 it made the seed attention 2 % faster at 2 CTAs per SM, but it holds more
// registers (the copies' addresses are computed early), and with the occupancy cap's
// third CTA (runtime/OccupancyCap.h) it spilled more and ran 8 % slower.
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::lower {

// Returns the number of dot pairs interleaved.
int overlap_wgmma(simt::Function &f);

} // namespace tilec::lower
