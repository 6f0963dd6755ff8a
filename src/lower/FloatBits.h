// Host-side encoding of constants in the kernel's float formats (round to nearest even,
// once, from double), so a constant's bits match what the tile interpreter stores.
#pragma once

#include <cstdint>

#include "ir/Type.h"

namespace tilec::lower {

// The bits of `v` in float dtype `d` (fp8e4nv saturates to +-448 and has no inf, as the
// GPU's cvt .satfinite does; fp8e5 and fp16/bf16 overflow to inf).
uint64_t encode_float(double v, ir::DType d);

} // namespace tilec::lower
