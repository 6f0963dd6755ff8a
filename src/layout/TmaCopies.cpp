#include "layout/TmaCopies.h"

namespace tilec::layout {

int64_t tma_element_offset(const TmaCopyPlan &p, int64_t r, int64_t c, int elem_bytes) {
  int64_t k = c / p.box1, cc = c % p.box1;
  int64_t byte = (k * p.box0 * p.box1 + r * p.box1 + cc) * elem_bytes;
  if (p.swizzle_bytes)
    byte ^= ((byte >> 7) & (p.swizzle_bytes / 16 - 1)) << 4;
  return byte / elem_bytes;
}

std::optional<TmaCopyPlan> tma_copy_plan(const LinearLayout &stage, int64_t rows, int64_t cols,
                                         bool transposed, int elem_bytes) {
  if (rows < 1 || cols < 1 || rows > 256 || stage.total_in_size() != rows * cols)
    return std::nullopt;
  for (int swz : {128, 64, 32, 0}) {
    TmaCopyPlan p;
    p.box0 = rows;
    p.box1 = swz ? swz / elem_bytes : cols;
    p.swizzle_bytes = swz;
    // whole swizzle rows; boxes of at most 256 per dim and 16-byte multiples; every panel
    // aligned to its swizzle pattern (8 rows of S bytes; 128 bytes without a swizzle)
    if (p.box1 < 1 || cols % p.box1 || p.box1 > 256 || (p.box1 * elem_bytes) % 16)
      continue;
    p.panels = cols / p.box1;
    if ((rows * p.box1 * elem_bytes) % (swz ? 8 * swz : 128))
      continue;
    bool same = true;
    for (int64_t r = 0; r < rows && same; ++r)
      for (int64_t c = 0; c < cols && same; ++c) {
        int64_t off = tma_element_offset(p, r, c, elem_bytes);
        std::vector<int32_t> at = stage.apply(std::vector<int32_t>{static_cast<int32_t>(off)});
        same = transposed ? at[0] == c && at[1] == r : at[0] == r && at[1] == c;
      }
    if (same)
      return p;
  }
  return std::nullopt;
}

} // namespace tilec::layout
