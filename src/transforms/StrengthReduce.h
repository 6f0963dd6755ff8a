// Strength reduction of pointer tiles in `for` loops (GPU path, before software
// pipelining): `addptr(P, splat(f(iv)))` with P loop-invariant and f an integer chain of
// the induction variable (sign-extending casts, + and - of invariants, * by invariants)
// becomes a carried pointer tile, started at P + f(lb) and advanced by the invariant
// f(iv + step) - f(iv) at each iteration. A tensor descriptor's load at [k, col] is this
// (base + k * stride); carried, its addresses cost one 64-bit add each per iteration, as a
// block pointer's do after tl.advance, where recomputing k * stride (64-bit) each iteration
// left ptxas with the product and every address in vector registers.
#pragma once

#include "ir/IR.h"

namespace tilec::transforms {

void strength_reduce(ir::Module &m);

} // namespace tilec::transforms
