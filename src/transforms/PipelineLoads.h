// Software pipelining, first step (docs/ARCHITECTURE.md, "The fast matmul path"): in a
// `for` loop that computes a dot, each load whose pointer, mask and `other` are pure
// functions of the induction variable, the carried values and loop invariants is issued
// one iteration ahead, at the top of the previous iteration (before its dot), and its
// tile carried to the next one:
//
//   x0 = load(p(lb), m(lb) & lb < ub)                         # prologue
//   for i, (.., x): use x; x' = load(p(i+step), m(i+step) & i+step < ub); yield .., x'
//
// so the loads of iteration i+1 are in flight while iteration i computes. Loops with a
// store or atomic in them, volatile loads, and num_stages < 2 (module attribute, or the
// loop's own) are left alone, and so are the loads marked `ring` by the stage "plan-rings":
// those the cp.async ring in shared memory (layout/PipelineLoops, num_stages - 1
// iterations ahead) will take. So are loads of fewer elements than the CTA has threads
// (attention backward's m and Di rows): "remove-conversions" loads them in the layout
// their user wants (a slice of the mma layout), where carried they would hold that
// layout's registers across the iteration, as Triton leaves them too.
#pragma once

#include "ir/IR.h"

namespace tilec::transforms {

// Whether the loads of `loop` may be moved between its iterations (this stage, and
// prefetch-loads): a dot in its body, num_stages >= 2 (its own, else `module_stages`), a
// constant positive step (the bound test is `iv < ub`) and no stores, atomics, barriers,
// prints or asserts in it.
bool pipelinable_dot_loop(ir::Op &loop, int64_t module_stages);

void pipeline_loads(ir::Module &m);

} // namespace tilec::transforms
