// A Thread IR pass run at the end of lowering (sm_80+): two f32 -> f16 (or bf16)
// conversions whose results are only packed into one 32-bit register,
//   cvt.rn.f16.f32 a, x;  cvt.rn.f16.f32 b, y;  mov.b32 d, {a, b};
// become one packed conversion, cvt.rn.f16x2.f32 d, y, x (d = {y:hi, x:lo}). The
// rounding of each half is the scalar one (same mode, no other modifiers), so results
// are bit-identical; the scalar cvts are deleted when nothing else reads them. Likewise
// two f32 -> fp8 encodings (cvt.rn.satfinite.e4m3x2.f32 a, 0, x) that are only put side
// by side in a b16 (LowerConvert's byte pairs: or(and(a, 0xff), shl(b, 8))) become one
// cvt.rn.satfinite.e4m3x2.f32 d, y, x (e5m2 alike).
#pragma once

#include "simt/ThreadIR.h"

namespace tilec::lower {

// Returns the number of packs replaced.
int fuse_cvt_packs(simt::Function &f, int sm);

} // namespace tilec::lower
