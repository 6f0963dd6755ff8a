// dot: [M,K] x [K,N] + [M,N] (optionally batched). Inputs are widened once into scratch
// arrays of the accumulation type (float for fp32/fp16/bf16/fp8 accumulators, double for
// fp64, int32/int64 for integers), then an i-k-j loop with a contiguous inner loop adds
// the products to acc in k order.
#include <cstring>

#include "interp/tile/DTypeTraits.h"
#include "interp/tile/Runtime.h"

namespace tilec::interp {

namespace {

template <class D> struct Acc {
  using T = std::conditional_t<std::is_same_v<typename D::C, double>, double, float>;
};
template <class D>
requires(!D::is_float) struct Acc<D> {
  using T = std::conditional_t<sizeof(typename D::S) == 8, uint64_t, uint32_t>; // wraps
};

// Widens an operand tile into the accumulation type.
template <class T> void widen(Exec &ex, int32_t slot, T *dst, bool tf32) {
  const SlotInfo &s = ex.slot(slot);
  dispatch_dtype(s.key, [&](auto d) {
    using D = decltype(d);
    const auto *src = ex.ptr<typename D::S>(slot);
    for (int64_t i = 0; i < s.numel; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        T v = static_cast<T>(D::ld(src[i]));
        if constexpr (std::is_same_v<T, float> && std::is_same_v<typename D::S, float>)
          if (tf32)
            v = round_to_tf32(v);
        dst[i] = v;
      } else {
        if constexpr (D::is_float)
          throw_internal(__FILE__, __LINE__, "integer dot with float inputs");
        else // sign- or zero-extend by the input type, then wrap in T
          dst[i] = static_cast<T>(
              static_cast<std::conditional_t<D::is_signed, int64_t, uint64_t>>(src[i]));
      }
    }
  });
}

template <class T> void matmul(const T *a, const T *b, T *c, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    T *crow = c + i * n;
    for (int64_t kk = 0; kk < k; ++kk) {
      T av = a[i * k + kk];
      const T *brow = b + kk * n;
      int64_t j = 0;
      if constexpr (std::is_same_v<T, float>) {
        typedef float V8 __attribute__((vector_size(32)));
        for (; j + 8 <= n; j += 8) {
          V8 bv, cv;
          std::memcpy(&bv, brow + j, sizeof bv);
          std::memcpy(&cv, crow + j, sizeof cv);
          cv += bv * av;
          std::memcpy(crow + j, &cv, sizeof cv);
        }
      }
      for (; j < n; ++j)
        crow[j] += av * brow[j];
    }
  }
}

} // namespace

void exec_dot(Exec &ex, const Node &n) {
  const std::vector<int64_t> &as = n.shape, &bs = n.ints;
  TILEC_ASSERT((as.size() == 2 || as.size() == 3) && bs.size() == as.size(),
               "dot operands must be 2-D or batched 3-D");
  size_t r = as.size();
  int64_t batch = r == 3 ? as[0] : 1, m = as[r - 2], k = as[r - 1], nn = bs[r - 1];
  TILEC_ASSERT(bs[r - 2] == k && (r == 2 || bs[0] == batch), "dot: inner dimensions differ");
  TILEC_ASSERT(ex.slot(n.out[0]).numel == batch * m * nn, "dot: result shape");
  dispatch_dtype(n.rdt, [&](auto rd) {
    using R = decltype(rd);
    using T = typename Acc<R>::T;
    auto *a = reinterpret_cast<T *>(ex.scratch(0, static_cast<size_t>(batch * m * k) * sizeof(T)));
    auto *b = reinterpret_cast<T *>(ex.scratch(1, static_cast<size_t>(batch * k * nn) * sizeof(T)));
    auto *c = reinterpret_cast<T *>(ex.scratch(2, static_cast<size_t>(batch * m * nn) * sizeof(T)));
    widen<T>(ex, n.in[0], a, n.a != 0);
    widen<T>(ex, n.in[1], b, n.a != 0);
    widen<T>(ex, n.in[2], c, false);
    for (int64_t bi = 0; bi < batch; ++bi)
      matmul<T>(a + bi * m * k, b + bi * k * nn, c + bi * m * nn, m, k, nn);
    auto *out = ex.ptr<typename R::S>(n.out[0]);
    for (int64_t i = 0; i < batch * m * nn; ++i) {
      if constexpr (R::is_float)
        out[i] = R::st(static_cast<typename R::C>(c[i]));
      else
        out[i] = static_cast<typename R::S>(c[i]);
    }
  });
}

} // namespace tilec::interp
