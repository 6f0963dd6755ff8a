// The Thread IR stage "exp-vote-tail" (after "coalesce-copies", whose rewrites of a block
// it then copies): tl.exp's exact path gets its own copy of the code that follows, so that
// the common path runs straight on.
//
// tl.exp on f32 tiles is Triton's ex2.approx.f32, which ex2.approx.ftz.f32 (one MUFU.EX2)
// matches unless an input is below -126; a warp votes on that and branches (LowerMath.h).
// When the inputs are `a - b` of the same block, the lowering takes the vote from a and b
// before the subtraction and emits
//
//   V: ... vote; @!any bra F      X (exp_vote_exact): mul, ex2 ...; bra J
//   F (exp_vote_ftz): mul, ex2.ftz ...                 J (exp_vote_done): rest
//
// Here J is cut before its first instruction that a warpgroup or the CTA executes
// together (wgmma, bar, inline asm, calls) or that leaves the block; F takes J's part
// before the cut, and X moves to the end of the function with a copy of that part and a
// branch to the cut:
//
//   V: ... vote; @any bra X   F: mul, ex2.ftz ..., J[..cut)   J: J[cut..)  ...
//   X: mul, ex2 ..., J[..cut) copy; bra J
//
// A warp with an input below -126 runs the copy; the warps of a warpgroup meet again at the cut,
// so a warpgroup instruction is one instruction for all of them. ptxas then schedules the
// ex2s of the common path among the reductions, conversions and multiplies after them
// (the seed attention, H200: +5 % at N 1024 and 4096;
// benchmarks/attention_ptx_ab.py).
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::lower {

// The labels (prefixes: the builder makes them unique) of the three blocks above.
inline constexpr const char *kExpVoteExact = "exp_vote_exact";
inline constexpr const char *kExpVoteFtz = "exp_vote_ftz";
inline constexpr const char *kExpVoteDone = "exp_vote_done";
// The fewest inputs a thread's tile needs for the early vote (a smaller tile's branches
// cost more than its ex2s' wait).
inline constexpr size_t kEarlyVoteMin = 16;

// The longest stretch copied: beyond it the copy's code size is not worth the common path's
// scheduling (the exact path then keeps its branch back to the join).
inline constexpr size_t kExpVoteMaxCopy = 4096;

// Returns the number of exact paths given their own copy.
int exp_vote_tail(simt::Function &f);

} // namespace tilec::lower
