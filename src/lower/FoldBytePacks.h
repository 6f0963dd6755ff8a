// A Thread IR pass run at the end of lowering: a 32-bit word assembled from bytes of at
// most two other words becomes one prmt.
//
// Bytes travel one to a register (in 16 bits), so a tile of bytes loaded as words and
// stored as words is taken apart and put back together: shr, cvt and and a byte on the
// way in, and, cvt, shl and or on the way out (an fp8 matmul's epilogue, through its
// conversion's scratch: 16 bytes a thread, about 50 instructions that ptxas keeps). The
// pass follows, per block, which byte of which word each byte of a 16- or 32-bit register
// holds (or zero) through those instructions, mov and prmt; a word whose four bytes come
// from at most two words (zero bytes from one) becomes
//   prmt.b32 d, w1, w2 (or 0), selector
// when w1 and w2 still hold those bytes there. The instructions left unread are removed.
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::lower {

// Returns the number of words rewritten.
int fold_byte_packs(simt::Function &f);

} // namespace tilec::lower
