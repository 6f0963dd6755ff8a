// reduce and scan. A tile is viewed as [outer, R, inner] around the axis. Common
// one-op combiners (sum, max, ...) run as tight loops; a combiner made of elementwise
// ops only (argmax's compares and selects) runs batched: its region, planned with
// vector-wide values, combines many independent pairs per pass; any other combiner runs
// on scalars, once per element pair. All three combine the same pairs in the same order.
//
// Reduction order (Interpreter.h): a pairwise halving tree. With len elements left,
// element i (i < len - ceil(len/2)) becomes combine(e[i], e[i + ceil(len/2)]), and len
// becomes ceil(len/2). Scan is sequential: r[i] = combine(r[i-1], x[i]) (reverse: from
// the end, r[i] = combine(r[i+1], x[i])).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "interp/tile/DTypeTraits.h"
#include "interp/tile/Runtime.h"

namespace tilec::interp {

namespace {

struct Geometry {
  int64_t outer = 1, r = 1, inner = 1;
};

Geometry geometry(const Node &n) {
  Geometry g;
  auto axis = static_cast<size_t>(n.a);
  for (size_t d = 0; d < n.shape.size(); ++d) {
    if (d < axis)
      g.outer *= n.shape[d];
    else if (d == axis)
      g.r = n.shape[d];
    else
      g.inner *= n.shape[d];
  }
  return g;
}

// Calls f with the combiner as a function of two compute values.
template <class D, class F> void with_combiner(FastCombiner k, F &&f) {
  using C = typename D::C;
  switch (k) {
  case FastCombiner::Add:
    if constexpr (D::is_float)
      return f([](C x, C y) { return x + y; });
    else
      return f([](C x, C y) { return C(typename D::U(x) + typename D::U(y)); });
  case FastCombiner::Mul:
    if constexpr (D::is_float) {
      return f([](C x, C y) { return x * y; });
    } else {
      using W = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, typename D::U>;
      return f([](C x, C y) { return C(W(typename D::U(x)) * W(typename D::U(y))); });
    }
  case FastCombiner::Max:
    if constexpr (D::is_float)
      return f([](C x, C y) { return std::fmax(x, y); });
    else
      return f([](C x, C y) { return x > y ? x : y; });
  case FastCombiner::Min:
    if constexpr (D::is_float)
      return f([](C x, C y) { return std::fmin(x, y); });
    else
      return f([](C x, C y) { return x < y ? x : y; });
  case FastCombiner::MaxNan:
    return f([](C x, C y) { return x != x || y != y ? C(x + y) : (x > y ? x : y); });
  case FastCombiner::MinNan:
    return f([](C x, C y) { return x != x || y != y ? C(x + y) : (x < y ? x : y); });
  default:
    break;
  }
  if constexpr (!D::is_float) {
    switch (k) {
    case FastCombiner::And:
      return f([](C x, C y) { return C(x & y); });
    case FastCombiner::Or:
      return f([](C x, C y) { return C(x | y); });
    case FastCombiner::Xor:
      return f([](C x, C y) { return C(x ^ y); });
    default:
      break;
    }
  }
  throw_internal(__FILE__, __LINE__, "bad fast combiner for this dtype");
}

template <class D> void fast_reduce(Exec &ex, const Node &n, Geometry g) {
  using S = typename D::S;
  const S *x = ex.ptr<S>(n.in[0]);
  S *out = ex.ptr<S>(n.out[0]);
  auto *w = reinterpret_cast<S *>(ex.scratch(0, static_cast<size_t>(g.r * g.inner) * sizeof(S)));
  with_combiner<D>(n.fast, [&](auto f) {
    for (int64_t o = 0; o < g.outer; ++o) {
      std::memcpy(w, x + o * g.r * g.inner, static_cast<size_t>(g.r * g.inner) * sizeof(S));
      for (int64_t len = g.r; len > 1;) {
        int64_t h = (len + 1) / 2, span = (len - h) * g.inner, off = h * g.inner;
        for (int64_t k = 0; k < span; ++k)
          w[k] = D::st(f(D::ld(w[k]), D::ld(w[k + off])));
        len = h;
      }
      std::memcpy(out + o * g.inner, w, static_cast<size_t>(g.inner) * sizeof(S));
    }
  });
}

template <class D> void fast_scan(Exec &ex, const Node &n, Geometry g) {
  using S = typename D::S;
  const S *x = ex.ptr<S>(n.in[0]);
  S *out = ex.ptr<S>(n.out[0]);
  bool rev = n.b != 0;
  with_combiner<D>(n.fast, [&](auto f) {
    for (int64_t o = 0; o < g.outer; ++o) {
      const S *xo = x + o * g.r * g.inner;
      S *ro = out + o * g.r * g.inner;
      int64_t first = rev ? g.r - 1 : 0, step = rev ? -1 : 1;
      std::memcpy(ro + first * g.inner, xo + first * g.inner,
                  static_cast<size_t>(g.inner) * sizeof(S));
      for (int64_t i = first + step; i >= 0 && i < g.r; i += step) {
        const S *prev = ro + (i - step) * g.inner;
        for (int64_t j = 0; j < g.inner; ++j)
          ro[i * g.inner + j] = D::st(f(D::ld(prev[j]), D::ld(xo[i * g.inner + j])));
      }
    }
  });
}

// The combiner region applied to (acc_k = a_k[ia], x_k = b_k[ib]) for every operand k,
// results written to d_k[id]. a, b, d: per-operand base pointers.
struct Combine {
  Exec &ex;
  const Node &n;
  const BlockPlan &region;
  size_t nops;
  void operator()(uint8_t *const *a, int64_t ia, uint8_t *const *b, int64_t ib, uint8_t *const *d,
                  int64_t id) {
    for (size_t k = 0; k < nops; ++k) {
      auto esz = static_cast<size_t>(ex.slot(n.in[k]).elem_bytes);
      std::memcpy(ex.ptr<uint8_t>(region.args[k]), a[k] + static_cast<size_t>(ia) * esz, esz);
      std::memcpy(ex.ptr<uint8_t>(region.args[nops + k]), b[k] + static_cast<size_t>(ib) * esz,
                  esz);
    }
    ex.exec_block(region);
    for (size_t k = 0; k < nops; ++k) {
      auto esz = static_cast<size_t>(ex.slot(n.in[k]).elem_bytes);
      std::memcpy(d[k] + static_cast<size_t>(id) * esz, ex.ptr<uint8_t>(region.yields[k]), esz);
    }
  }
};

constexpr size_t kMaxOperands = 16;

void generic_reduce(Exec &ex, const Node &n, Geometry g) {
  size_t nops = n.in.size();
  TILEC_ASSERT(nops <= kMaxOperands, "too many reduce operands");
  // Own storage, not the shared scratch: the combiner may itself run a fast reduce.
  std::vector<uint8_t> buf;
  std::array<size_t, kMaxOperands> off{}, esz{};
  size_t total = 0;
  for (size_t k = 0; k < nops; ++k) {
    esz[k] = static_cast<size_t>(ex.slot(n.in[k]).elem_bytes);
    off[k] = total;
    total += static_cast<size_t>(g.r * g.inner) * esz[k];
  }
  buf.resize(total);
  std::array<uint8_t *, kMaxOperands> w{};
  for (size_t k = 0; k < nops; ++k)
    w[k] = buf.data() + off[k];
  Combine comb{ex, n, *n.regions[0], nops};
  size_t block = static_cast<size_t>(g.r * g.inner);
  for (int64_t o = 0; o < g.outer; ++o) {
    for (size_t k = 0; k < nops; ++k)
      std::memcpy(w[k], ex.ptr<uint8_t>(n.in[k]) + static_cast<size_t>(o) * block * esz[k],
                  block * esz[k]);
    for (int64_t len = g.r; len > 1;) {
      int64_t h = (len + 1) / 2, span = (len - h) * g.inner, off_h = h * g.inner;
      for (int64_t e = 0; e < span; ++e)
        comb(w.data(), e, w.data(), e + off_h, w.data(), e);
      len = h;
    }
    for (size_t k = 0; k < nops; ++k)
      std::memcpy(ex.ptr<uint8_t>(n.out[k]) + static_cast<size_t>(o * g.inner) * esz[k], w[k],
                  static_cast<size_t>(g.inner) * esz[k]);
  }
}

void generic_scan(Exec &ex, const Node &n, Geometry g) {
  size_t nops = n.in.size();
  TILEC_ASSERT(nops <= kMaxOperands, "too many scan operands");
  std::array<uint8_t *, kMaxOperands> x{}, r{};
  for (size_t k = 0; k < nops; ++k) {
    x[k] = ex.ptr<uint8_t>(n.in[k]);
    r[k] = ex.ptr<uint8_t>(n.out[k]);
  }
  Combine comb{ex, n, *n.regions[0], nops};
  bool rev = n.b != 0;
  int64_t first = rev ? g.r - 1 : 0, step = rev ? -1 : 1;
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t j = 0; j < g.inner; ++j) {
      auto at = [&](int64_t i) { return (o * g.r + i) * g.inner + j; };
      for (size_t k = 0; k < nops; ++k) {
        auto esz = static_cast<size_t>(ex.slot(n.in[k]).elem_bytes);
        std::memcpy(r[k] + static_cast<size_t>(at(first)) * esz,
                    x[k] + static_cast<size_t>(at(first)) * esz, esz);
      }
      for (int64_t i = first + step; i >= 0 && i < g.r; i += step)
        comb(r.data(), at(i - step), x.data(), at(i), r.data(), at(i));
    }
}

// The batched combiner: lane l of a pass combines pair c + l. Each pass uses the narrowest
// planned width that holds its pairs; lanes past the last pair repeat pair c, so they
// cannot fault where a real pair would not.
struct BatchedCombine {
  Exec &ex;
  const Node &n;
  size_t nops;

  const BlockPlan &plan_for(int64_t cnt, int64_t &width) const {
    size_t i = 0;
    width = n.batch;
    while (i + 1 < n.batched.size() && (width + 1) / 2 >= cnt) {
      width = (width + 1) / 2;
      ++i;
    }
    return *n.batched[i];
  }

  // pair(e) -> {acc index, x index, destination index} into the per-operand arrays.
  template <class Pair>
  void run(int64_t total, uint8_t *const *acc, uint8_t *const *x, uint8_t *const *dst, Pair pair) {
    for (int64_t c = 0; c < total; c += n.batch) {
      int64_t cnt = std::min(n.batch, total - c), width = 0;
      const BlockPlan &bp = plan_for(cnt, width);
      for (size_t k = 0; k < nops; ++k)
        dispatch_bytes(ex.slot(n.in[k]).elem_bytes, [&](auto t) {
          using T = decltype(t);
          T *sa = ex.ptr<T>(bp.args[k]), *sx = ex.ptr<T>(bp.args[nops + k]);
          const T *ak = reinterpret_cast<const T *>(acc[k]),
                  *xk = reinterpret_cast<const T *>(x[k]);
          for (int64_t l = 0; l < width; ++l) {
            std::array<int64_t, 3> p = pair(c + (l < cnt ? l : 0));
            sa[l] = ak[p[0]];
            sx[l] = xk[p[1]];
          }
        });
      ex.exec_block(bp);
      for (size_t k = 0; k < nops; ++k)
        dispatch_bytes(ex.slot(n.in[k]).elem_bytes, [&](auto t) {
          using T = decltype(t);
          const T *sy = ex.ptr<T>(bp.yields[k]);
          T *dk = reinterpret_cast<T *>(dst[k]);
          for (int64_t l = 0; l < cnt; ++l)
            dk[pair(c + l)[2]] = sy[l];
        });
    }
  }
};

void batched_reduce(Exec &ex, const Node &n, Geometry g) {
  size_t nops = n.in.size();
  TILEC_ASSERT(nops <= kMaxOperands, "too many reduce operands");
  std::vector<uint8_t> buf; // own storage: see generic_reduce
  std::array<size_t, kMaxOperands> esz{};
  std::array<uint8_t *, kMaxOperands> w{};
  size_t total = 0, numel = static_cast<size_t>(g.outer * g.r * g.inner);
  for (size_t k = 0; k < nops; ++k) {
    esz[k] = static_cast<size_t>(ex.slot(n.in[k]).elem_bytes);
    total += numel * esz[k];
  }
  buf.resize(total);
  for (size_t k = 0, off = 0; k < nops; off += numel * esz[k], ++k) {
    w[k] = buf.data() + off;
    std::memcpy(w[k], ex.ptr<uint8_t>(n.in[k]), numel * esz[k]);
  }
  BatchedCombine comb{ex, n, nops};
  int64_t block = g.r * g.inner;
  for (int64_t len = g.r; len > 1;) {
    int64_t h = (len + 1) / 2, per_o = (len - h) * g.inner, off_h = h * g.inner;
    comb.run(g.outer * per_o, w.data(), w.data(), w.data(), [&](int64_t e) {
      int64_t a = (e / per_o) * block + e % per_o;
      return std::array<int64_t, 3>{a, a + off_h, a};
    });
    len = h;
  }
  for (size_t k = 0; k < nops; ++k)
    for (int64_t o = 0; o < g.outer; ++o)
      std::memcpy(ex.ptr<uint8_t>(n.out[k]) + static_cast<size_t>(o * g.inner) * esz[k],
                  w[k] + static_cast<size_t>(o * block) * esz[k],
                  static_cast<size_t>(g.inner) * esz[k]);
}

void batched_scan(Exec &ex, const Node &n, Geometry g) {
  size_t nops = n.in.size();
  TILEC_ASSERT(nops <= kMaxOperands, "too many scan operands");
  std::array<uint8_t *, kMaxOperands> x{}, r{};
  for (size_t k = 0; k < nops; ++k) {
    x[k] = ex.ptr<uint8_t>(n.in[k]);
    r[k] = ex.ptr<uint8_t>(n.out[k]);
  }
  bool rev = n.b != 0;
  int64_t first = rev ? g.r - 1 : 0, step = rev ? -1 : 1;
  auto at = [&](int64_t lane, int64_t i) {
    return ((lane / g.inner) * g.r + i) * g.inner + lane % g.inner;
  };
  int64_t lanes = g.outer * g.inner;
  for (size_t k = 0; k < nops; ++k) {
    auto esz = static_cast<size_t>(ex.slot(n.in[k]).elem_bytes);
    for (int64_t l = 0; l < lanes; ++l)
      std::memcpy(r[k] + static_cast<size_t>(at(l, first)) * esz,
                  x[k] + static_cast<size_t>(at(l, first)) * esz, esz);
  }
  BatchedCombine comb{ex, n, nops};
  for (int64_t i = first + step; i >= 0 && i < g.r; i += step)
    comb.run(lanes, r.data(), x.data(), r.data(), [&](int64_t l) {
      return std::array<int64_t, 3>{at(l, i - step), at(l, i), at(l, i)};
    });
}

} // namespace

void exec_reduce_scan(Exec &ex, const Node &n) {
  Geometry g = geometry(n);
  bool reduce = n.kind == ir::OpKind::Reduce;
  if (n.fast != FastCombiner::None) {
    return dispatch_dtype(n.dt, [&](auto d) {
      if (reduce)
        fast_reduce<decltype(d)>(ex, n, g);
      else
        fast_scan<decltype(d)>(ex, n, g);
    });
  }
  if (!n.batched.empty())
    return reduce ? batched_reduce(ex, n, g) : batched_scan(ex, n, g);
  if (reduce)
    generic_reduce(ex, n, g);
  else
    generic_scan(ex, n, g);
}

} // namespace tilec::interp
