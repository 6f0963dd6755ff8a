// 8-bit wgmma A from registers (FP8 attention's p, as Triton does). Register i + 2h of a
// k32 A fragment holds the bytes (row g + 8i, k0 + 16h + 4q + 0..3), g = lane / 4,
// q = lane % 4; the accumulator layout p arrives in gives lane q the pairs
// (k0 + 16h + 8j + 2q, +1), j = 0, 1. So each register is two pairs, from lanes 2q % 4 and
// (2q + 1) % 4 of the quad, both at j = q / 2. Two shuffle rounds deliver them: in round A
// lane q reads lane ((q & 1) << 1 | q >> 1) of its quad, which offers its pairs at j = its
// own lane & 1 (rows g and g + 8 in one word); in round B it reads that lane ^ 1, which
// offers j = 1 - its lane & 1. Lanes q < 2 get their low pair in round A, lanes q >= 2 their
// high pair: a prmt chosen by q puts the bytes in order. Per fragment: 4 selp, 4
// shfl.sync.idx, 4 prmt.
#pragma once

#include <functional>
#include <vector>

#include "ir/IR.h"
#include "lower/LoweringContext.h"

namespace tilec::lower {

// The f32 registers an fp8 tile `v` was cast from (round to nearest; its layout's), or null:
// its bytes then convert pairwise from them (the cast's own per-element cvts go dead).
const std::vector<Reg> *fp8_cast_source(LoweringContext &c, const ir::Value *v);

// Two bytes of an 8-bit tile of `elem` as one b16, `lo` in the low byte: converted as one
// cvt.rn.satfinite pair from their f32 sources when given (fp8 only), else packed.
Reg byte_pair(LoweringContext &c, ir::DType elem, Reg lo, Reg hi, Reg f32_lo = {}, Reg f32_hi = {});

// What every fragment's gather uses: this lane's parity, the two rounds' source lanes and
// the prmt selectors of the low / high register (made once, in the kernel's prologue).
struct QuadGather {
  Reg odd, src_a, src_b, sel_lo, sel_hi;
};
QuadGather quad_gather(LoweringContext &c);

// The 4 b32 registers of the k32 fragment at (m0, k0) of a warp's 64-row tile. pair(row,
// col): a b16 holding the bytes (row, col) (low) and (row, col + 1) at lane 0's coordinates.
std::vector<Reg> byte_fragment(LoweringContext &c, const QuadGather &q,
                               const std::function<Reg(int32_t, int32_t)> &pair, int32_t m0,
                               int32_t k0);

} // namespace tilec::lower
