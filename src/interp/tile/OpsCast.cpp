// cast and bitcast. A float -> float cast goes through double (every format's values are
// exact there), so it rounds once, in the requested mode.
#include <cstring>

#include "interp/tile/DTypeTraits.h"
#include "interp/tile/Runtime.h"

namespace tilec::interp {

namespace {

template <class D, class R> void cast(Exec &ex, const Node &n) {
  using SS = typename D::S;
  using RS = typename R::S;
  const SS *a = ex.ptr<SS>(n.in[0]);
  RS *r = ex.ptr<RS>(n.out[0]);
  int64_t N = n.numel, sa = !n.bcast[0];
  FloatRound rnd = n.a ? FloatRound::TowardZero : FloatRound::Nearest;
  for (int64_t i = 0; i < N; ++i) {
    auto x = D::ld(a[i * sa]);
    if constexpr (R::is_bool) {
      r[i] = x != 0; // NaN != 0 too
    } else if constexpr (!D::is_float && !R::is_float) {
      r[i] = static_cast<RS>(x); // modular; sign- or zero-extends by the source type
    } else if constexpr (!R::is_float) {
      r[i] = float_to_int_sat<RS>(static_cast<double>(x));
    } else if constexpr (std::is_same_v<RS, double>) {
      r[i] = static_cast<double>(x);
    } else if constexpr (std::is_same_v<RS, float>) {
      if constexpr (D::is_float)
        r[i] = float_from_double(static_cast<double>(x), rnd);
      else
        r[i] = static_cast<float>(x); // one hardware rounding from the integer
    } else {
      r[i] = R::st_d(static_cast<double>(x), rnd);
    }
  }
}

} // namespace

void exec_cast(Exec &ex, const Node &n) {
  if (n.kind == ir::OpKind::Bitcast) {
    const SlotInfo &s = ex.slot(n.in[0]), &r = ex.slot(n.out[0]);
    TILEC_ASSERT(s.elem_bytes == r.elem_bytes && s.numel == r.numel,
                 "bitcast between types of different sizes");
    std::memcpy(ex.ptr<uint8_t>(n.out[0]), ex.ptr<uint8_t>(n.in[0]), r.bytes());
    return;
  }
  dispatch_dtype(n.dt, [&](auto d) {
    dispatch_dtype(n.rdt, [&](auto r) { cast<decltype(d), decltype(r)>(ex, n); });
  });
}

} // namespace tilec::interp
