// Lowering: Tile IR (after layout assignment and shared-memory allocation) -> Thread IR,
// the program of one thread (docs/ARCHITECTURE.md, "lower/").
//
// Every tile value becomes one register per element its layout gives the thread (the
// layout's "register" index); scalars are one register, uniform across the CTA. Ops are
// lowered one family per file (LowerElementwise.cpp, LowerMemory.cpp, ...); the framework
// (values, layouts, thread coordinates, scratch shared memory) is LoweringContext.h.
#pragma once

#include <string>

#include "ir/IR.h"
#include "simt/ThreadIR.h"

namespace tilec::lower {

struct LowerOptions {
  int sm = 90; // the target's compute capability (80, 89, 90, ...): picks instructions
  // enable_fp_fusion: the user's f32/f64 add/sub/mul get no rounding modifier, so ptxas may
  // contract mul+add into fma (Triton's default); off: `.rn`, which forbids it.
  bool fp_fusion = true;
  // enable_reflect_ftz (Triton's libdevice __CUDA_FTZ): tl.math.exp2 in f32 is
  // ex2.approx.ftz (subnormal results flush to 0); off: ex2.approx, which keeps them
  // at the cost of a range check and two multiplies per element.
  bool reflect_ftz = true;
};

// Lowers `fn` of `m` (which carries num_warps and, after allocate_shared, shared_bytes).
// Constructs the GPU path cannot compile (tl.dot with M, N or K < 16) and target limits
// (fp8 on sm_80) throw CompileError at the op's location; a layout or IR the lowering does
// not expect is an InternalError.
simt::Function lower_function(const ir::Module &m, const ir::Function &fn,
                              const LowerOptions &opts = {});

} // namespace tilec::lower
