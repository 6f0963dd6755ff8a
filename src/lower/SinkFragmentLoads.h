// A Thread IR pass run at the end of lowering: shared-memory loads (ldmatrix, ld.shared),
// warp shuffles and the register packing and copies that follow them move down to just before their
// first reader in the same block, so an mma chain's operand fragments (an FMA dot's K
// steps) are loaded step by step instead of all before the first mma (fewer live
// registers; ptxas schedules from there). A load of one scratch buffer (Instr::smem_lo /
// smem_hi, set by layout conversions) also passes other buffers' stores and the barriers
// between them, and the integer ops making its address, read by nothing else, follow it:
// an FMA dot's A operand, converted before B's conversion stores, reaches its K steps.
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::lower {

void sink_fragment_loads(simt::Function &f);

} // namespace tilec::lower
