#include "layout/WgmmaLayouts.h"

#include <algorithm>

#include "layout/Layouts.h"
#include "support/Diagnostics.h"

namespace tilec::layout {

namespace {

using Basis = LinearLayout::Basis;

bool pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

} // namespace

std::vector<int32_t> wgmma_warpgroups(int32_t m, int32_t n, int num_warps) {
  TILEC_ASSERT(num_warps >= 4 && num_warps % 4 == 0 && pow2(num_warps),
               "wgmma needs whole warpgroups (num_warps 4, 8, 16, ..)");
  TILEC_ASSERT(m % 64 == 0 && pow2(m) && pow2(n) && n >= 8, "wgmma accumulator shape");
  int32_t wg = num_warps / 4;
  int32_t wg_m = std::min(wg, m / 64);
  int32_t wg_n = wg / wg_m;
  while (wg_n > 1 && n / wg_n < 8) { // too narrow to split: the rest replicate along N
    wg_n /= 2;
  }
  return {wg_m, wg_n};
}

int32_t wgmma_instr_n(int32_t m, int32_t n, int num_warps) {
  std::vector<int32_t> wgs = wgmma_warpgroups(m, n, num_warps);
  return std::min<int32_t>(256, n / wgs[1]);
}

LinearLayout wgmma_acc(int32_t m, int32_t n, int num_warps) {
  std::vector<int32_t> wgs = wgmma_warpgroups(m, n, num_warps);
  int32_t wg_m = wgs[0], wg_n = wgs[1], in = wgmma_instr_n(m, n, num_warps);
  std::vector<Basis> reg = {{0, 1}, {8, 0}};
  for (int32_t c = 8; c < in; c *= 2)
    reg.push_back({0, c});
  for (int32_t r = 64 * wg_m; r < m; r *= 2)
    reg.push_back({r, 0});
  for (int32_t c = in * wg_n; c < n; c *= 2)
    reg.push_back({0, c});
  std::vector<Basis> lane = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  std::vector<Basis> warp = {{16, 0}, {32, 0}};
  for (int32_t i = 1; i < wg_m; i *= 2)
    warp.push_back({64 * i, 0});
  for (int32_t i = 1; i < wg_n; i *= 2)
    warp.push_back({0, in * i});
  // Warpgroups that found no work (num_warps larger than the tile needs) replicate.
  for (int32_t i = wg_m * wg_n; i < num_warps / 4; i *= 2)
    warp.push_back({0, 0});
  return LinearLayout({{kRegister, reg}, {kLane, lane}, {kWarp, warp}},
                      {{dim_name(0), m}, {dim_name(1), n}});
}

LinearLayout wgmma_acc_encoded(int32_t wg_m, int32_t wg_n, int32_t in,
                               const std::vector<int64_t> &shape) {
  TILEC_ASSERT(shape.size() == 2 && pow2(wg_m) && pow2(wg_n) && pow2(in) && in >= 8,
               "wgmma accumulator encoding");
  // one CTA tile [64 wg_m, in wg_n]; M repeats in registers before N (as wgmma_acc)
  std::vector<Basis> reg = {{0, 1}, {8, 0}};
  for (int32_t c = 8; c < in; c *= 2)
    reg.push_back({0, c});
  std::vector<Basis> lane = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  std::vector<Basis> warp = {{16, 0}, {32, 0}};
  for (int32_t i = 1; i < wg_m; i *= 2)
    warp.push_back({64 * i, 0});
  for (int32_t i = 1; i < wg_n; i *= 2)
    warp.push_back({0, in * i});
  LinearLayout cta({{kRegister, reg}, {kLane, lane}, {kWarp, warp}},
                   {{dim_name(0), 64 * wg_m}, {dim_name(1), in * wg_n}});
  return fit_to_shape(cta, shape, {0, 1}).transpose_outs({dim_name(0), dim_name(1)});
}

uint32_t WgmmaOperandSmem::byte_offset(int32_t mn_i, int32_t k_i) const {
  uint32_t e = static_cast<uint32_t>(elem_bytes), s = static_cast<uint32_t>(swizzle_bytes);
  uint32_t r = static_cast<uint32_t>(mn_i), c = static_cast<uint32_t>(k_i);
  uint32_t MN = static_cast<uint32_t>(mn);
  uint32_t a;
  if (!mn_major) {
    uint32_t kb = c * e;
    a = s ? (kb / s) * MN * s + r * s + kb % s
          : (kb / 16) * lbo + (r / 8) * sbo + (r % 8) * 16 + kb % 16;
  } else if (s) {
    uint32_t w = s / e;
    a = (c / 8) * sbo + (r / w) * lbo + (c % 8) * s + (r % w) * e;
  } else {
    uint32_t t = 16 / e;
    a = (r / t) * sbo + (r % t) * e + (c % 8) * 16 + (c / 8) * lbo;
  }
  return s ? a ^ ((a >> 3) & (s - 16)) : a;
}

uint32_t WgmmaOperandSmem::start(int32_t mn0, int32_t k0) const {
  // The swizzle of a descriptor's start is applied by the hardware to the address it
  // computes, so the start is the unswizzled offset of (mn0, k0).
  uint32_t e = static_cast<uint32_t>(elem_bytes), s = static_cast<uint32_t>(swizzle_bytes);
  uint32_t r = static_cast<uint32_t>(mn0), c = static_cast<uint32_t>(k0);
  if (!mn_major) {
    uint32_t kb = c * e;
    return s ? (kb / s) * static_cast<uint32_t>(mn) * s + r * s + kb % s
             : (kb / 16) * lbo + (r / 8) * sbo;
  }
  if (s)
    return (c / 8) * sbo + (r / (s / e)) * lbo;
  return (r / (16 / e)) * sbo + (c / 8) * lbo;
}

WgmmaOperandSmem wgmma_operand_smem(int32_t mn, int32_t k, int elem_bytes, bool mn_major,
                                    bool operand_b, int32_t mn_instr) {
  TILEC_ASSERT(pow2(mn) && pow2(k) && mn >= 8 &&
                   (elem_bytes == 1 || elem_bytes == 2 || elem_bytes == 4),
               "wgmma operand shape");
  WgmmaOperandSmem o;
  o.mn_major = mn_major;
  o.elem_bytes = elem_bytes;
  o.mn = mn;
  o.k = k;
  int64_t contiguous =
      int64_t(mn_major ? (mn_instr ? std::min(mn, mn_instr) : mn) : k) * elem_bytes;
  for (int s : {128, 64, 32})
    if (contiguous % s == 0) {
      o.swizzle_bytes = s;
      break;
    }
  TILEC_ASSERT(o.swizzle_bytes || contiguous % 16 == 0,
               "a wgmma operand's contiguous extent must be a multiple of 16 bytes");
  uint32_t s = static_cast<uint32_t>(o.swizzle_bytes), e = static_cast<uint32_t>(elem_bytes);
  if (!mn_major) {
    o.lbo = s ? 16 : 128;
    o.sbo = s ? 8 * s : static_cast<uint32_t>(k) * e / 16 * 128;
  } else if (s) {  // swizzle atoms of 8 k rows; all of a chunk's k rows, then the next chunk
    o.sbo = 8 * s; // (so a TMA box [k, S / elem] fills one chunk: layout/TmaCopies.h)
    o.lbo = static_cast<uint32_t>(k) * s;
  } else {
    o.sbo = 128;
    o.lbo = static_cast<uint32_t>(mn) / (16 / e) * 128;
  }
  // coords -> offset is linear (power-of-two strides, disjoint bits, an XOR swizzle):
  // its bases are the offsets of the coordinates' bits; the layout is its inverse.
  int32_t d0 = operand_b ? k : mn, d1 = operand_b ? mn : k;
  auto off = [&](int32_t i0, int32_t i1) {
    int32_t r = operand_b ? i1 : i0, c = operand_b ? i0 : i1;
    return static_cast<int32_t>(o.byte_offset(r, c) / e);
  };
  std::vector<Basis> b0, b1;
  for (int i = 0; i < log2i(d0); ++i)
    b0.push_back({off(1 << i, 0)});
  for (int i = 0; i < log2i(d1); ++i)
    b1.push_back({off(0, 1 << i)});
  LinearLayout to_offset({{dim_name(0), b0}, {dim_name(1), b1}},
                         {{kOffset, static_cast<int32_t>(int64_t(mn) * k)}});
  o.layout = to_offset.invert();
  return o;
}

} // namespace tilec::layout
