// Values of a `for` loop's body recomputed for another iteration: the pointers and masks
// of loads issued ahead of the iteration that uses them (transforms/PipelineLoads: one
// iteration ahead in registers; layout/PipelineLoops: num_stages - 1 ahead into a
// shared-memory ring). The recomputation clones the pure ops between the value and the
// loop's induction variable, carried values and invariants, with their types (layouts
// included).
#pragma once

#include <map>
#include <set>
#include <tuple>

#include "ir/IR.h"

namespace tilec::transforms {

class LoopShift {
public:
  // `reuse_current`: a body value of the current iteration (d = 0) is used as it is (the
  // ops are emitted where it is visible, e.g. before the yield); otherwise it is
  // recomputed (the ops are emitted before it is defined, e.g. at the top of the body).
  LoopShift(ir::Op &loop, bool reuse_current);

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
  ir::Value *clone(ir::Op *op, unsigned index, bool start, int d, ir::Builder &b);

  ir::Op &loop_;
  ir::Block &body_;
  bool reuse_current_;
  std::map<std::tuple<ir::Value *, bool, int>, ir::Value *> memo_; // (v, from start, d)
  std::map<ir::Value *, bool> ok_;
};

} // namespace tilec::transforms
