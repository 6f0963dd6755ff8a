#include "simt/TensorMap.h"

namespace tilec::simt {

std::string tma_box_text(const TmaBox &b) {
  std::string s = "b" + std::to_string(b.rank);
  for (int i = 0; i < b.rank; ++i)
    s += "x" + std::to_string(b.box[i]);
  s += "s" + std::to_string(b.swizzle_bytes);
  return b.nan_fill ? s + "n" : s;
}

bool parse_tma_box(std::string_view t, TmaBox &out) {
  TmaBox b;
  auto num = [&](int64_t &v) {
    size_t i = 0;
    v = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9' && v < (int64_t{1} << 20))
      v = v * 10 + (t[i++] - '0');
    t.remove_prefix(i);
    return i > 0;
  };
  int64_t v = 0;
  if (t.empty() || t[0] != 'b')
    return false;
  t.remove_prefix(1);
  if (!num(v) || v < 1 || v > kTensorMapMaxRank)
    return false;
  b.rank = static_cast<int>(v);
  for (int i = 0; i < b.rank; ++i) {
    if (t.empty() || t[0] != 'x')
      return false;
    t.remove_prefix(1);
    if (!num(v) || v < 1 || v > kTensorMapMaxBox)
      return false;
    b.box[i] = static_cast<int32_t>(v);
  }
  if (t.empty() || t[0] != 's')
    return false;
  t.remove_prefix(1);
  if (!num(v) || (v != 0 && v != 32 && v != 64 && v != 128))
    return false;
  b.swizzle_bytes = static_cast<int>(v);
  if (!t.empty() && t[0] == 'n') {
    b.nan_fill = true;
    t.remove_prefix(1);
  }
  if (!t.empty())
    return false;
  out = b;
  return true;
}

} // namespace tilec::simt
