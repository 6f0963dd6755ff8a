// A Thread IR pass (enable_fp_fusion): a contractable f32 / f64 `mul` (no rounding
// modifier: LowerElementwise's float_binary) whose only reader is a contractable `add` of
// its block becomes one `fma.rn` with it, as LLVM contracts them for Triton:
//   mul.f32 t, a, b;  add.f32 d, t, c;   ->   fma.rn.f32 d, a, b, c;
// ptxas contracts such pairs itself (the SASS of the 16 reference kernels of
// scripts/ptx_reference.sh is byte-identical either way), so the GPU computes what it did;
// now the PTX says so (Triton's test_enable_fp_fusion reads it), and the SIMT simulator,
// which rounds a contractable mul and add separately, computes the fused result too.
// With enable_fp_fusion=False every float add and mul carries .rn: nothing matches.
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::lower {

// Returns the number of pairs contracted.
int contract_fma(simt::Function &f);

} // namespace tilec::lower
