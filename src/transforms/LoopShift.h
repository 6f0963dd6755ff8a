// Values of a `for` loop's body recomputed for another iteration: the pointers and masks
// of loads issued ahead of the iteration that uses them (transforms/PipelineLoads: one
// iteration ahead in registers; layout/PipelineLoops: num_stages - 1 ahead into a
// shared-memory ring). The recomputation clones the pure ops between the value and the
// loop's induction variable, carried values and invariants, with their types (layouts
// included), and `if`s whose regions hold only such ops (a flattened loop's once-a-tile
// prologue, transforms/FlattenLoops.h), cloned whole.
#pragma once

#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/IR.h"

namespace tilec::transforms {

// On an `if` in a loop body: its results are always what its then-region computes from
// the region's inputs, the else-region yielding the previous iteration's (a cache: a
// flattened loop's once-a-tile prologue, FlattenLoops.h). Ahead of the current iteration
// they are recomputed only when an input differs (one branch), not through the chain of
// earlier iterations' `if`s. With `carry_caches`, the comparison is with the inputs of
// the iteration before the shifted one, carried with its results: d iterations ahead of
// a once-a-tile prologue, it recomputes once a tile, not on each of the d iterations
// whose shifted tile differs from the current one (tutorial 09: 2 of a tile's 8 K steps),
// and the current iteration's `if` is left to those who read it.
inline constexpr const char *kCacheAttr = "cache";

class LoopShift {
public:
  // `reuse_current`: a body value of the current iteration (d = 0) is used as it is (the
  // ops are emitted where it is visible, e.g. before the yield); otherwise it is
  // recomputed (the ops are emitted before it is defined, e.g. at the top of the body).
  // `visible`: body ops whose results may be used as they are in the current iteration
  // even without reuse_current (those before the insertion point).
  LoopShift(ir::Op &loop, bool reuse_current, std::set<const ir::Op *> visible = {},
            bool carry_caches = false);

  // With carry_caches: appends the yields of the values it carried (after the caller's
  // own carried values, which it must have added to the body before any `ahead`).
  void close();
  // The carried values' initial ones through `other`'s from_start (which may have them
  // already: the prologue's copies of a ring), not recomputed before the loop.
  void starts_from(LoopShift &other) { start_ = &other; }

  // Whether `v` can be recomputed for any iteration: it depends on the body only through
  // pure ops without regions, the induction variable and carried values whose yields are
  // such themselves.
  bool recomputable(ir::Value *v);

  // `v` in iteration i + d (i the current one, d >= 0), emitted with `b` inside the body.
  ir::Value *ahead(ir::Value *v, int d, ir::Builder &b);
  // `v` in iteration s (0: the first), from the loop's operands, emitted with `b` before
  // the loop.
  ir::Value *from_start(ir::Value *v, int s, ir::Builder &b);

  bool inside(const ir::Value *v) const;

private:
  // iv + d * step (from_start: lb + d * step)
  ir::Value *offset_iv(ir::Value *base, int d, ir::Builder &b);
  // A carried pointer whose next value is addptr(itself, s), s an invariant signed integer
  // or a splat of one, d >= 3 iterations ahead: addptr(v, sext64(s) * d) (the product
  // before the loop), the address the chain of d addptrs reaches (their offsets extend to
  // 64 bits too) in one add; null otherwise. (At d = 2 ptxas adds the chain's two offsets
  // with one three-input add already: tutorial 03's 3-stage loop gets 2 more instructions
  // from the product.)
  ir::Value *stepped_ahead(ir::Value *v, int d, ir::Builder &b);
  ir::Value *clone(ir::Op *op, unsigned index, bool start, int d, ir::Builder &b);
  // a kCacheAttr `if` d >= 1 iterations ahead, compared with the carried iteration before
  // (carry_caches) or its current results when visible; null when its inputs are not
  // scalar numbers or neither applies
  ir::Value *cached_ahead(ir::Op *op, unsigned index, int d, ir::Builder &b);
  ir::Value *carry(ir::Value *initial); // a new carried value, yielded at close()
  // the values `op`'s then-region reads from outside it, d iterations ahead, into `map`;
  // those defined in the body also into `varying` (input, shifted); false when one is not
  // a recomputable scalar number
  bool shifted_inputs(ir::Op *op, int d, ir::Builder &b,
                      std::map<const ir::Value *, ir::Value *> &map,
                      std::vector<std::pair<ir::Value *, ir::Value *>> &varying);

  ir::Op &loop_;
  ir::Block &body_;
  bool reuse_current_;
  std::set<const ir::Op *> visible_;
  std::map<std::tuple<ir::Value *, bool, int>, ir::Value *> memo_; // (v, from start, d)
  std::map<ir::Value *, bool> ok_;
  bool carry_caches_;
  LoopShift *start_ = this;
  std::vector<std::pair<ir::Value *, ir::Value *>> carried_; // (body arg, its next value)
};

} // namespace tilec::transforms
