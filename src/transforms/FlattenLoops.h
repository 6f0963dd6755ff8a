// tl.range(..., flatten=True) (GPU stage "flatten-loops"; also tl.range(...,
// warp_specialize=True) when TILEC_WARP_SPECIALIZE is set, WarpSpecialize.h): a loop whose body is
// straight-line pure code ("pre"), one inner loop, then any code ("post",
// e.g. a persistent matmul's epilogue) becomes one loop over every (outer, inner)
// iteration pair, as Triton's loop fusion does. The inner loop's software pipeline then
// runs on across the outer iterations: the rings fetch the next tile's first blocks while
// the current tile's last ones compute, instead of refilling at every tile.
//
//   for t in range(lo, hi, st):           x = pre(lo); q, r = 0, 0  (outer / inner index)
//     pre(t)                              for _ in range(n_out * n_in):
//     for k in range(lb, ub, s):            t = lo + q * st;  k = lb + r * s
//       c = B(k, c)           (c from pre)  x = pre(t) if r == 0 else x   (a caching `if`)
//     post(t, c) -> outer carried           c = B(k, select(r == 0, c_init, c))
//                                           if r == n_in - 1: post(t, c) -> outer carried
//                                           q, r = (q + 1, 0) if r == n_in - 1 else (q, r + 1)
//
// pre's values are computed once a tile (its integer divisions, e.g. tutorial 09's
// _compute_pid, stay off the K steps); the rings recompute them ahead with one branch
// (LoopShift.h, kCacheAttr). A wgmma accumulator's select becomes the first wgmma's scale-d
// (MmaLayouts.h). The inner bounds must not depend on the outer loop. When the inner loop
// may run no iteration (n_in <= 0, unknown at compile time) the nest runs as written,
// without its inner loop (versioned on it). An inner loop reading through pointers is
// flattened too: its pointer tiles are recomputed from the flat loop's indices instead of
// strength-reduced, and the cp.async rings run across tiles (tutorial 09's pointer
// kernel, H200: fp8 +8 % at K 512, -1 % at K 4096; TILEC_FLATTEN=tma leaves such nests
// as written). The flattened loop carries
// attribute `flattened`: its loads may be issued ahead of the epilogue's stores (the
// ordering the user gave up with flatten=True, as in Triton). A nest of another shape is
// left as it is. TILEC_FLATTEN=0 turns the stage off.
#pragma once

#include "ir/IR.h"

namespace tilec::transforms {

inline constexpr const char *kFlattenedAttr = "flattened";

void flatten_loops(ir::Module &m);

} // namespace tilec::transforms
