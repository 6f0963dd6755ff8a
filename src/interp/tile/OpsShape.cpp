// Creation and shape ops: constant, arange, splat, broadcast, expand_dims, reshape,
// permute, join, split, cat, hint. Data movement only, dispatched on element size.
#include <algorithm>
#include <array>
#include <variant>

#include "interp/tile/DTypeTraits.h"
#include "interp/tile/Runtime.h"

namespace tilec::interp {

using ir::OpKind;

void exec_constant(Exec &ex, const Node &n) {
  const ir::AttrValue *attr = n.op->attr("value");
  bool is_f = attr && std::holds_alternative<double>(*attr);
  int64_t iv = n.op->int_attr("value", 0);
  double fv = n.op->float_attr("value", 0);
  dispatch_dtype(n.rdt, [&](auto d) {
    using D = decltype(d);
    using S = typename D::S;
    S v;
    if constexpr (D::is_float) {
      double x = is_f ? fv : static_cast<double>(iv);
      if constexpr (is_small_float_v<D>)
        v = D::st_d(x, FloatRound::Nearest);
      else
        v = static_cast<S>(x);
    } else if constexpr (D::is_bool) {
      v = is_f ? fv != 0 : iv != 0;
    } else {
      v = is_f ? float_to_int_sat<S>(fv) : static_cast<S>(iv);
    }
    std::fill_n(ex.ptr<S>(n.out[0]), n.numel, v);
  });
}

namespace {

constexpr size_t kMaxRank = 16;

// dst (row-major over `shape`) [i] = src[sum(i_k * sstride[k])].
template <class T>
void gather(T *dst, const T *src, const std::vector<int64_t> &shape,
            const std::vector<int64_t> &sstride) {
  size_t rank = shape.size();
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  TILEC_ASSERT(rank <= kMaxRank, "tile rank too large");
  int64_t inner = shape[rank - 1], is = sstride[rank - 1];
  int64_t outer = 1;
  for (size_t k = 0; k + 1 < rank; ++k)
    outer *= shape[k];
  std::array<int64_t, kMaxRank> idx{};
  int64_t base = 0;
  for (int64_t o = 0; o < outer; ++o) {
    T *d = dst + o * inner;
    const T *s = src + base;
    if (is == 1)
      std::copy_n(s, inner, d);
    else if (is == 0)
      std::fill_n(d, inner, s[0]);
    else
      for (int64_t j = 0; j < inner; ++j)
        d[j] = s[j * is];
    for (size_t k = rank - 1; k-- > 0;) { // odometer over the outer dims
      base += sstride[k];
      if (++idx[k] < shape[k])
        break;
      base -= sstride[k] * shape[k];
      idx[k] = 0;
    }
  }
}

} // namespace

void exec_shape(Exec &ex, const Node &n) {
  int32_t r = n.out[0];
  const SlotInfo &rs = ex.slot(r);
  dispatch_bytes(rs.elem_bytes, [&](auto t) {
    using T = decltype(t);
    T *dst = ex.ptr<T>(r);
    switch (n.kind) {
    case OpKind::Arange: {
      auto *d = ex.ptr<int32_t>(r);
      for (int64_t i = 0; i < n.numel; ++i)
        d[i] = static_cast<int32_t>(n.a + i);
      return;
    }
    case OpKind::Splat:
      std::fill_n(dst, n.numel, ex.ptr<T>(n.in[0])[0]);
      return;
    case OpKind::ExpandDims:
    case OpKind::Reshape:
    case OpKind::Hint:
      TILEC_ASSERT(ex.slot(n.in[0]).numel == n.numel, "reshape must keep the element count");
      std::copy_n(ex.ptr<T>(n.in[0]), n.numel, dst);
      return;
    case OpKind::Broadcast:
    case OpKind::Permute:
      gather(dst, ex.ptr<T>(n.in[0]), rs.type->shape, n.ints);
      return;
    case OpKind::Join: {
      const T *a = ex.ptr<T>(n.in[0]), *b = ex.ptr<T>(n.in[1]);
      for (int64_t i = 0; i < n.numel / 2; ++i) {
        dst[2 * i] = a[i];
        dst[2 * i + 1] = b[i];
      }
      return;
    }
    case OpKind::Split: {
      const T *x = ex.ptr<T>(n.in[0]);
      T *b = ex.ptr<T>(n.out[1]);
      for (int64_t i = 0; i < n.numel; ++i) {
        dst[i] = x[2 * i];
        b[i] = x[2 * i + 1];
      }
      return;
    }
    case OpKind::Cat: {
      int64_t na = ex.slot(n.in[0]).numel, nb = ex.slot(n.in[1]).numel;
      TILEC_ASSERT(na + nb == n.numel, "cat: element counts do not add up");
      std::copy_n(ex.ptr<T>(n.in[0]), na, dst);
      std::copy_n(ex.ptr<T>(n.in[1]), nb, dst + na);
      return;
    }
    default:
      throw_internal(__FILE__, __LINE__, "not a shape op");
    }
  });
}

} // namespace tilec::interp
