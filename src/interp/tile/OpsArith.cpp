// Elementwise arithmetic, math, comparison and select. One dtype dispatch per op, then a
// tight loop over the tile; integer ops wrap by computing in the unsigned type.
#include <cmath>
#include <limits>

#include "interp/tile/DTypeTraits.h"
#include "interp/tile/Runtime.h"

namespace tilec::interp {

using ir::OpKind;

namespace {

// r[i] = st(f(ld(a[i]), ld(b[i]))); a one-element operand is used for every i.
template <class D, class R = D, class F> void map2(Exec &ex, const Node &n, F f) {
  using S = typename D::S;
  const S *a = ex.ptr<S>(n.in[0]);
  const S *b = ex.ptr<S>(n.in[1]);
  auto *r = ex.ptr<typename R::S>(n.out[0]);
  int64_t N = n.numel;
  if (!n.bcast[0] && !n.bcast[1]) {
    for (int64_t i = 0; i < N; ++i)
      r[i] = R::st(f(D::ld(a[i]), D::ld(b[i])));
  } else {
    int64_t sa = !n.bcast[0], sb = !n.bcast[1];
    for (int64_t i = 0; i < N; ++i)
      r[i] = R::st(f(D::ld(a[i * sa]), D::ld(b[i * sb])));
  }
}

template <class D, class F> void map1(Exec &ex, const Node &n, F f) {
  using S = typename D::S;
  const S *a = ex.ptr<S>(n.in[0]);
  S *r = ex.ptr<S>(n.out[0]);
  int64_t N = n.numel, sa = !n.bcast[0];
  for (int64_t i = 0; i < N; ++i)
    r[i] = D::st(f(D::ld(a[i * sa])));
}

template <class D> void binary(Exec &ex, const Node &n) {
  using C = typename D::C;
  constexpr int kBits = D::is_bool ? 1 : static_cast<int>(8 * sizeof(C));
  switch (n.kind) {
  case OpKind::Add:
    if constexpr (D::is_float)
      return map2<D>(ex, n, [](C x, C y) { return x + y; });
    else
      return map2<D>(ex, n, [](C x, C y) { return C(typename D::U(x) + typename D::U(y)); });
  case OpKind::Sub:
    if constexpr (D::is_float)
      return map2<D>(ex, n, [](C x, C y) { return x - y; });
    else
      return map2<D>(ex, n, [](C x, C y) { return C(typename D::U(x) - typename D::U(y)); });
  case OpKind::Mul:
    if constexpr (D::is_float) {
      return map2<D>(ex, n, [](C x, C y) { return x * y; });
    } else {
      // Multiply in at least unsigned int so uint16*uint16 cannot overflow a signed int.
      using W = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, typename D::U>;
      return map2<D>(ex, n, [](C x, C y) { return C(W(typename D::U(x)) * W(typename D::U(y))); });
    }
  case OpKind::Min:
  case OpKind::Max: {
    bool is_max = n.kind == OpKind::Max;
    if constexpr (D::is_float) {
      if (n.a) { // propagate_nan: any NaN operand gives NaN
        if (is_max)
          return map2<D>(ex, n,
                         [](C x, C y) { return x != x || y != y ? x + y : (x > y ? x : y); });
        return map2<D>(ex, n, [](C x, C y) { return x != x || y != y ? x + y : (x < y ? x : y); });
      }
      if (is_max) // a NaN operand gives the other operand, as fmax
        return map2<D>(ex, n, [](C x, C y) { return std::fmax(x, y); });
      return map2<D>(ex, n, [](C x, C y) { return std::fmin(x, y); });
    } else {
      if (is_max)
        return map2<D>(ex, n, [](C x, C y) { return x > y ? x : y; });
      return map2<D>(ex, n, [](C x, C y) { return x < y ? x : y; });
    }
  }
  default:
    break;
  }
  if constexpr (!D::is_float) {
    using U = typename D::U;
    switch (n.kind) {
    case OpKind::And:
      return map2<D>(ex, n, [](C x, C y) { return C(x & y); });
    case OpKind::Or:
      return map2<D>(ex, n, [](C x, C y) { return C(x | y); });
    case OpKind::Xor:
      return map2<D>(ex, n, [](C x, C y) { return C(x ^ y); });
    case OpKind::Shl:
      return map2<D>(ex, n, [](C x, C y) { return U(y) >= kBits ? C(0) : C(U(x) << U(y)); });
    case OpKind::Shr:
      if constexpr (D::is_signed)
        return map2<D>(ex, n, [](C x, C y) {
          return U(y) >= kBits ? C(x < 0 ? -1 : 0) : C(x >> U(y)); // arithmetic
        });
      else
        return map2<D>(ex, n, [](C x, C y) { return U(y) >= kBits ? C(0) : C(U(x) >> U(y)); });
    case OpKind::Umulhi:
      if constexpr (sizeof(C) == 8)
        return map2<D>(ex, n, [](C x, C y) {
          return C(static_cast<uint64_t>((static_cast<unsigned __int128>(U(x)) * U(y)) >> 64));
        });
      else
        return map2<D>(ex, n, [](C x, C y) {
          return C((static_cast<uint64_t>(U(x)) * static_cast<uint64_t>(U(y))) >> kBits);
        });
    default:
      break;
    }
  }
  throw_internal(__FILE__, __LINE__,
                 std::string(n.op->name()) + " is not defined on " +
                     std::string(ir::ir_name(D::dtype)));
}

template <class D> void divrem(Exec &ex, const Node &n) {
  using C = typename D::C;
  bool div = n.kind == OpKind::Div;
  if constexpr (D::is_float) {
    if (div)
      return map2<D>(ex, n, [](C x, C y) { return x / y; });
    return map2<D>(ex, n, [](C x, C y) { return std::fmod(x, y); });
  } else {
    // Find a zero divisor first, so the loop below has no exit and the error an index.
    const C *b = ex.ptr<C>(n.in[1]);
    int64_t sb = !n.bcast[1];
    for (int64_t i = 0; i < n.numel; ++i)
      if (b[i * sb] == 0)
        ex.fail(n, std::string(div ? "integer division by zero" : "integer remainder by zero") +
                       ex.element_suffix(n.out[0], i));
    if constexpr (D::is_signed) {
      constexpr C kMin = std::numeric_limits<C>::min();
      if (div) // kMin / -1 overflows: it wraps to kMin
        return map2<D>(ex, n, [](C x, C y) { return x == kMin && y == -1 ? kMin : C(x / y); });
      return map2<D>(ex, n, [](C x, C y) { return y == -1 ? C(0) : C(x % y); });
    } else {
      if (div)
        return map2<D>(ex, n, [](C x, C y) { return C(x / y); });
      return map2<D>(ex, n, [](C x, C y) { return C(x % y); });
    }
  }
}

// Sign operations of an fp8 act on its sign bit, as on the GPU: through a float and back,
// fp8e4b15's 0x7f (1.875, above what its encoding makes) would come back as 1.75.
template <class D> bool fp8_sign_op(Exec &ex, const Node &n) {
  if constexpr (D::is_float && sizeof(typename D::S) == 1) {
    if (n.kind != OpKind::Neg && n.kind != OpKind::Abs)
      return false;
    using S = typename D::S;
    const S *a = ex.ptr<S>(n.in[0]);
    S *r = ex.ptr<S>(n.out[0]);
    int64_t sa = !n.bcast[0];
    bool neg = n.kind == OpKind::Neg;
    for (int64_t i = 0; i < n.numel; ++i)
      r[i] = S(neg ? a[i * sa] ^ 0x80 : a[i * sa] & 0x7f);
    return true;
  }
  return false;
}

template <class D> void unary(Exec &ex, const Node &n) {
  using C = typename D::C;
  if (fp8_sign_op<D>(ex, n))
    return;
  switch (n.kind) {
  case OpKind::Neg:
    if constexpr (D::is_float)
      return map1<D>(ex, n, [](C x) { return -x; });
    else
      return map1<D>(ex, n, [](C x) { return C(typename D::U(0) - typename D::U(x)); });
  case OpKind::Abs:
    if constexpr (D::is_float)
      return map1<D>(ex, n, [](C x) { return std::fabs(x); });
    else if constexpr (D::is_signed)
      return map1<D>(ex, n, [](C x) { return x < 0 ? C(typename D::U(0) - typename D::U(x)) : x; });
    else
      return map1<D>(ex, n, [](C x) { return x; });
  case OpKind::Not:
    if constexpr (!D::is_float)
      return map1<D>(ex, n, [](C x) { return C(~x); });
    break;
  default:
    break;
  }
  if constexpr (D::is_float) {
    switch (n.kind) {
    case OpKind::Exp:
      return map1<D>(ex, n, [](C x) { return std::exp(x); });
    case OpKind::Exp2:
      return map1<D>(ex, n, [](C x) { return std::exp2(x); });
    case OpKind::Log:
      return map1<D>(ex, n, [](C x) { return std::log(x); });
    case OpKind::Log2:
      return map1<D>(ex, n, [](C x) { return std::log2(x); });
    case OpKind::Sqrt:
      return map1<D>(ex, n, [](C x) { return std::sqrt(x); });
    case OpKind::Rsqrt:
      return map1<D>(ex, n, [](C x) { return C(1) / std::sqrt(x); });
    case OpKind::Sin:
      return map1<D>(ex, n, [](C x) { return std::sin(x); });
    case OpKind::Cos:
      return map1<D>(ex, n, [](C x) { return std::cos(x); });
    case OpKind::Erf:
      return map1<D>(ex, n, [](C x) { return std::erf(x); });
    case OpKind::Floor:
      return map1<D>(ex, n, [](C x) { return std::floor(x); });
    case OpKind::Ceil:
      return map1<D>(ex, n, [](C x) { return std::ceil(x); });
    default:
      break;
    }
  }
  throw_internal(__FILE__, __LINE__,
                 std::string(n.op->name()) + " is not defined on " +
                     std::string(ir::ir_name(D::dtype)));
}

template <class D> void fma(Exec &ex, const Node &n) {
  using S = typename D::S;
  using C = typename D::C;
  const S *a = ex.ptr<S>(n.in[0]), *b = ex.ptr<S>(n.in[1]), *c = ex.ptr<S>(n.in[2]);
  S *r = ex.ptr<S>(n.out[0]);
  int64_t sa = !n.bcast[0], sb = !n.bcast[1], sc = !n.bcast[2];
  for (int64_t i = 0; i < n.numel; ++i) {
    C x = D::ld(a[i * sa]), y = D::ld(b[i * sb]), z = D::ld(c[i * sc]);
    if constexpr (is_small_float_v<D>) // exact product and sum in double, one rounding
      r[i] = D::st_d(std::fma(double(x), double(y), double(z)), FloatRound::Nearest);
    else if constexpr (D::is_float)
      r[i] = std::fma(x, y, z);
    else
      r[i] = D::st(C(typename D::U(x) * typename D::U(y) + typename D::U(z)));
  }
}

template <class D> void cmp(Exec &ex, const Node &n) {
  using C = typename D::C;
  switch (n.a) {
  case 0:
    return map2<D, I1T>(ex, n, [](C x, C y) { return uint8_t(x == y); });
  case 1:
    return map2<D, I1T>(ex, n, [](C x, C y) { return uint8_t(!(x == y)); }); // unordered
  case 2:
    return map2<D, I1T>(ex, n, [](C x, C y) { return uint8_t(x < y); });
  case 3:
    return map2<D, I1T>(ex, n, [](C x, C y) { return uint8_t(x <= y); });
  case 4:
    return map2<D, I1T>(ex, n, [](C x, C y) { return uint8_t(x > y); });
  default:
    return map2<D, I1T>(ex, n, [](C x, C y) { return uint8_t(x >= y); });
  }
}

template <class T> void select(Exec &ex, const Node &n) {
  const uint8_t *c = ex.ptr<uint8_t>(n.in[0]);
  const T *a = ex.ptr<T>(n.in[1]), *b = ex.ptr<T>(n.in[2]);
  T *r = ex.ptr<T>(n.out[0]);
  int64_t sc = !n.bcast[0], sa = !n.bcast[1], sb = !n.bcast[2];
  for (int64_t i = 0; i < n.numel; ++i)
    r[i] = c[i * sc] ? a[i * sa] : b[i * sb];
}

} // namespace

void exec_arith(Exec &ex, const Node &n) {
  switch (n.kind) {
  case OpKind::Select:
    return dispatch_bytes(ex.slot(n.out[0]).elem_bytes,
                          [&](auto t) { select<decltype(t)>(ex, n); });
  case OpKind::Cmp:
    return dispatch_dtype(n.dt, [&](auto d) { cmp<decltype(d)>(ex, n); });
  case OpKind::Fma:
    return dispatch_dtype(n.dt, [&](auto d) { fma<decltype(d)>(ex, n); });
  case OpKind::Div:
  case OpKind::Rem:
    return dispatch_dtype(n.dt, [&](auto d) { divrem<decltype(d)>(ex, n); });
  default:
    break;
  }
  TILEC_ASSERT(ir::is_elementwise(n.kind),
               std::string("no executor for op ") + std::string(n.op->name()));
  if (n.in.size() == 2)
    return dispatch_dtype(n.dt, [&](auto d) { binary<decltype(d)>(ex, n); });
  TILEC_ASSERT(n.in.size() == 1, std::string(n.op->name()) + ": wrong operand count");
  dispatch_dtype(n.dt, [&](auto d) { unary<decltype(d)>(ex, n); });
}

} // namespace tilec::interp
