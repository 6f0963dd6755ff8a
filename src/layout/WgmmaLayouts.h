// wgmma (sm_90a) layouts as linear layouts: the accumulator ("#mma_v3") and the
// shared-memory layouts of the A and B operands that wgmma reads through matrix
// descriptors (docs/ARCHITECTURE.md, "The fast matmul path"; simt/AsyncInstrs.h).
//
// Accumulator [M, N], per warpgroup (4 consecutive warps) a 64 x n_instr instruction tile,
// the PTX ISA's D fragment (row 16 (warp % 4) + lane / 4 + 8 ((r / 2) % 2), column
// 8 (r / 4) + 2 (lane % 4) + r % 2):
//   register: n+1, m+8, n+8, n+16, .. (n_instr), then m+64*wg_m .. (M repeats), n+n_instr*wg_n ..
//   lane:     n+2, n+4, m+1, m+2, m+4
//   warp:     m+16, m+32, then warpgroups: m+64 .. (wg_m), then n+n_instr .. (wg_n)
//
// Operands: tile [M, K] (A) or [K, N] (B); "offset" counts elements from the buffer's
// start (a 1024-byte aligned .shared address). With S the swizzle width in bytes and
// e the element size, the canonical layouts, densely packed:
//   K-major, S > 0:   byte (kb / S) * MN*S + mn*S + kb % S, kb = k*e, then the 16-byte
//                     chunk bits [4, 4+log2(S/16)) XOR the row bits [7, ..)
//                     (LBO unused, SBO = 8*S)
//   K-major, none:    (kb / 16) * 128 + (mn / 8) * SBO + (mn % 8) * 16 + kb % 16
//                     (LBO = 128, SBO = K*e / 16 * 128)
//   MN-major, S > 0:  W = S / e: (k / 8) * SBO + (mn / W) * 8*S + (k % 8) * S + (mn % W) * e,
//                     swizzled (LBO = 8*S, SBO = MN / W * 8*S)
//   MN-major, none:   T = 16 / e: (mn / T) * 128 + (mn % T) * e + (k % 8) * 16 + (k / 8) * LBO
//                     (SBO = 128, LBO = MN / T * 128)
// The swizzle is the largest of 128/64/32 bytes that the contiguous extent (K*e for
// K-major, MN*e for MN-major) is a multiple of; none below 32 bytes.
#pragma once

#include <cstdint>

#include "layout/LinearLayout.h"

namespace tilec::layout {

// warps_per_cta of the accumulator: {warpgroups along M, along N} (num_warps / 4 in all).
std::vector<int32_t> wgmma_warpgroups(int32_t m, int32_t n, int num_warps);
// The N of one wgmma instruction for an accumulator [m, n] (<= 256, a power of two).
int32_t wgmma_instr_n(int32_t m, int32_t n, int num_warps);
// The accumulator layout ("register", "lane", "warp") -> (dim0 = m, dim1 = n).
LinearLayout wgmma_acc(int32_t m, int32_t n, int num_warps);
// The same from the #mma<v=3, wpc=[4 wg_m, wg_n], instr=[64, instr_n]> encoding, fitted
// to `shape` (a dim of 1: broadcast, as slices of the accumulator need).
LinearLayout wgmma_acc_encoded(int32_t wg_m, int32_t wg_n, int32_t instr_n,
                               const std::vector<int64_t> &shape);

struct WgmmaOperandSmem {
  int swizzle_bytes = 0; // 128, 64, 32 or 0
  bool mn_major = false;
  int elem_bytes = 2;
  int32_t mn = 0, k = 0; // extents (A: M, B: N)
  uint32_t lbo = 0, sbo = 0;
  LinearLayout layout; // "offset" (elements) -> tile dims (A: (m, k); B: (k, n))

  int64_t bytes() const { return int64_t(mn) * k * elem_bytes; }
  // Byte offset of element (mn, k) (the layout's inverse, in bytes).
  uint32_t byte_offset(int32_t mn_i, int32_t k_i) const;
  // The descriptor start, relative to the buffer, of the sub-matrix whose first element is
  // (mn0, k0): mn0 a multiple of 64 (a warpgroup's rows of A), k0 of the instruction's K.
  uint32_t start(int32_t mn0, int32_t k0) const;
};

// The shared layout of operand A ([m, k], `operand_b` false) or B ([k, n]) of elem_bytes
// elements, K- or MN-major. `mn_instr` (MN-major only): the MN extent one instruction
// reads (a warpgroup's N of B): the swizzle is no wider than it, so that every
// instruction's descriptor starts on a swizzle atom.
WgmmaOperandSmem wgmma_operand_smem(int32_t mn, int32_t k, int elem_bytes, bool mn_major,
                                    bool operand_b, int32_t mn_instr = 0);

} // namespace tilec::layout
