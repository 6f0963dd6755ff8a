// gather and histogram: data-dependent indexing within one tile.
#include <algorithm>

#include "interp/tile/DTypeTraits.h"
#include "interp/tile/Runtime.h"

namespace tilec::interp {

using ir::OpKind;

namespace {

// Integer tile elements as int64 (unsigned ones zero-extended; u64 above 2^63 wraps
// negative, which every range check below rejects).
std::vector<int64_t> int_values(Exec &ex, int32_t s) {
  std::vector<int64_t> v(static_cast<size_t>(ex.slot(s).numel));
  dispatch_dtype(ex.slot(s).key, [&](auto d) {
    using D = decltype(d);
    if constexpr (D::is_float) {
      throw_internal(__FILE__, __LINE__, "expected an integer tile");
    } else {
      const auto *p = ex.ptr<typename D::S>(s);
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<int64_t>(p[i]);
    }
  });
  return v;
}

// r[o, j, i] = src[o, index[o, j, i], i]: o runs over the dims before the axis, i over
// those after it (row-major; index and src differ only in the axis' length).
void exec_gather(Exec &ex, const Node &n) {
  const std::vector<int64_t> &ss = n.shape, &is = n.op->operand(1)->type.shape;
  size_t axis = static_cast<size_t>(n.a);
  int64_t inner = 1, outer = 1;
  for (size_t d = axis + 1; d < ss.size(); ++d)
    inner *= ss[d];
  for (size_t d = 0; d < axis; ++d)
    outer *= ss[d];
  int64_t sn = ss[axis], in = is[axis];
  std::vector<int64_t> idx = int_values(ex, n.in[1]);
  for (size_t f = 0; f < idx.size(); ++f)
    if (idx[f] < 0 || idx[f] >= sn)
      ex.fail(n, "gather index " + std::to_string(idx[f]) + " is out of range [0, " +
                     std::to_string(sn) + ") along axis " + std::to_string(axis) +
                     ex.element_suffix(n.in[1], static_cast<int64_t>(f)));
  dispatch_bytes(ex.slot(n.out[0]).elem_bytes, [&](auto t) {
    using T = decltype(t);
    const T *src = ex.ptr<T>(n.in[0]);
    T *dst = ex.ptr<T>(n.out[0]);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < in; ++j)
        for (int64_t i = 0; i < inner; ++i) {
          int64_t f = (o * in + j) * inner + i;
          dst[f] = src[(o * sn + idx[static_cast<size_t>(f)]) * inner + i];
        }
  });
}

void exec_histogram(Exec &ex, const Node &n) {
  std::vector<int64_t> x = int_values(ex, n.in[0]);
  const uint8_t *mask = n.in.size() > 1 ? ex.ptr<uint8_t>(n.in[1]) : nullptr;
  auto *bins = ex.ptr<int32_t>(n.out[0]);
  std::fill_n(bins, n.numel, 0);
  for (size_t i = 0; i < x.size(); ++i)
    if ((!mask || mask[i]) && x[i] >= 0 && x[i] < n.numel)
      ++bins[x[i]];
}

} // namespace

void exec_gather_histogram(Exec &ex, const Node &n) {
  if (n.kind == OpKind::Gather)
    exec_gather(ex, n);
  else
    exec_histogram(ex, n);
}

} // namespace tilec::interp
