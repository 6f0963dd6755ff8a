// A wgmma operand held in registers, stored into its canonical shared-memory layout
// (layout::wgmma_operand_smem) for LowerWgmma's descriptors to read.
#pragma once

#include <cstdint>

#include "layout/WgmmaLayouts.h"
#include "lower/LoweringContext.h"

namespace tilec::lower {

// Stores every element this thread holds first of `v` at its offset in `s` (bytes from
// `base`, plus `buf_off` when valid: the buffer in use), 16-byte stores where the
// offsets run on. fp32 (tf32) elements are rounded to tf32 first (cvt.rna, as mma.sync's
// operands are).
void store_operand(LoweringContext &c, const ir::Value *v, const layout::WgmmaOperandSmem &s,
                   int64_t base, Reg buf_off);

} // namespace tilec::lower
