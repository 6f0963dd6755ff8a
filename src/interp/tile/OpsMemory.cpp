// addptr, load, store and atomics. Every unmasked lane's address is checked against the
// launch's buffers (the last buffer hit is tried first, so the common case is two
// compares); masked-off lanes are never checked or touched.
#include <cmath>
#include <cstring>
#include <mutex>

#include "interp/tile/DTypeTraits.h"
#include "interp/tile/Runtime.h"

namespace tilec::interp {

using ir::OpKind;

namespace {

// Atomics of all threads serialise on a lock chosen by the address's 8-byte granule.
std::mutex g_atomic_locks[64];
std::mutex &lock_for(uint64_t addr) { return g_atomic_locks[(addr >> 3) & 63]; }

struct Lanes {
  const uint64_t *ptr;
  int64_t sp;
  const uint8_t *mask = nullptr;
  int64_t sm = 0;
  bool on(int64_t i) const { return !mask || mask[i * sm]; }
  uint64_t addr(int64_t i) const { return ptr[i * sp]; }
};

Lanes lanes(Exec &ex, const Node &n, int mask_operand) {
  Lanes l{ex.ptr<uint64_t>(n.in[0]), !n.bcast[0]};
  if (mask_operand >= 0 && static_cast<size_t>(mask_operand) < n.in.size()) {
    l.mask = ex.ptr<uint8_t>(n.in[static_cast<size_t>(mask_operand)]);
    l.sm = !n.bcast[static_cast<size_t>(mask_operand)];
  }
  return l;
}

// The slot whose shape names a lane in errors: the first operand that is a whole tile.
int32_t lane_slot(const Node &n) {
  if (!n.out.empty())
    return n.out[0];
  for (size_t i = 0; i < n.in.size(); ++i)
    if (!n.bcast[i])
      return n.in[i];
  return n.in[0];
}

// Write: the access modifies memory, so the buffer must be writable (checked when the
// access moves to another buffer, before the first byte is written there).
template <class T, bool Write = false>
inline void check(Exec &ex, const Node &n, const BufferRange *&cur, uint64_t a, int64_t i,
                  const char *what) {
  if (!cur || !cur->contains(a, sizeof(T)) || (a & (sizeof(T) - 1))) {
    cur = &ex.check_access(n, a, sizeof(T), lane_slot(n), i, what);
    if (Write && !cur->writable)
      ex.fail_read_only(n, *cur, what, lane_slot(n), i);
  }
}

template <class T> void load(Exec &ex, const Node &n) {
  Lanes l = lanes(ex, n, 1);
  const T *other = n.in.size() > 2 ? ex.ptr<T>(n.in[2]) : nullptr;
  int64_t so = n.in.size() > 2 ? !n.bcast[2] : 0;
  T *r = ex.ptr<T>(n.out[0]);
  const BufferRange *cur = nullptr;
  for (int64_t i = 0; i < n.numel; ++i) {
    if (!l.on(i)) {
      r[i] = other ? other[i * so] : T(0);
      if (ex.log)
        ex.log_masked(l.addr(i), sizeof(T), AccessEvent::Load);
      continue;
    }
    uint64_t a = l.addr(i);
    check<T>(ex, n, cur, a, i, "load from");
    if (ex.log)
      ex.log_access(*cur, a, AccessEvent::Load);
    if (ex.race)
      ex.race_access(n, *cur, a, sizeof(T), false, lane_slot(n), i);
    std::memcpy(&r[i], reinterpret_cast<const void *>(a), sizeof(T));
  }
  if (n.rdt == ir::DType::I1) // memory may hold any nonzero byte for true
    for (int64_t i = 0; i < n.numel; ++i)
      r[i] = r[i] != 0;
}

template <class T> void store(Exec &ex, const Node &n) {
  Lanes l = lanes(ex, n, 2);
  const T *v = ex.ptr<T>(n.in[1]);
  int64_t sv = !n.bcast[1];
  const BufferRange *cur = nullptr;
  for (int64_t i = 0; i < n.numel; ++i) {
    if (!l.on(i)) {
      if (ex.log)
        ex.log_masked(l.addr(i), sizeof(T), AccessEvent::Store);
      continue;
    }
    uint64_t a = l.addr(i);
    check<T, true>(ex, n, cur, a, i, "store to");
    if (ex.log)
      ex.log_access(*cur, a, AccessEvent::Store);
    // a store that leaves the bytes as they are cannot make the result order-dependent
    if (ex.race && std::memcmp(reinterpret_cast<const void *>(a), &v[i * sv], sizeof(T)) != 0)
      ex.race_access(n, *cur, a, sizeof(T), true, lane_slot(n), i);
    std::memcpy(reinterpret_cast<void *>(a), &v[i * sv], sizeof(T));
  }
}

template <class D> typename D::S rmw(AtomicKind k, typename D::S old_s, typename D::S val_s) {
  using C = typename D::C;
  if (k == AtomicKind::Xchg)
    return val_s;
  C o = D::ld(old_s), v = D::ld(val_s);
  if constexpr (D::is_float) {
    switch (k) {
    case AtomicKind::Add:
      return D::st(o + v);
    case AtomicKind::Max:
      return D::st(std::fmax(o, v));
    case AtomicKind::Min:
      return D::st(std::fmin(o, v));
    default:
      throw_internal(__FILE__, __LINE__, "bitwise atomic on a float");
    }
  } else {
    using U = typename D::U;
    switch (k) {
    case AtomicKind::Add:
      return D::st(C(U(o) + U(v)));
    case AtomicKind::Max:
      return o > v ? o : v;
    case AtomicKind::Min:
      return o < v ? o : v;
    case AtomicKind::And:
      return C(o & v);
    case AtomicKind::Or:
      return C(o | v);
    case AtomicKind::Xor:
      return D::st(C(o ^ v));
    default:
      return val_s;
    }
  }
}

template <class D> void atomic_rmw(Exec &ex, const Node &n) {
  using S = typename D::S;
  Lanes l = lanes(ex, n, 2);
  if (ex.race)
    ex.race_atomic(n);
  const S *v = ex.ptr<S>(n.in[1]);
  int64_t sv = !n.bcast[1];
  S *r = ex.ptr<S>(n.out[0]);
  const BufferRange *cur = nullptr;
  for (int64_t i = 0; i < n.numel; ++i) {
    if (!l.on(i)) {
      r[i] = S(0);
      if (ex.log)
        ex.log_masked(l.addr(i), sizeof(S), AccessEvent::Atomic);
      continue;
    }
    uint64_t a = l.addr(i);
    check<S, true>(ex, n, cur, a, i, "atomic operation on");
    if (ex.log)
      ex.log_access(*cur, a, AccessEvent::Atomic);
    auto *p = reinterpret_cast<S *>(a);
    std::lock_guard<std::mutex> g(lock_for(a));
    S old;
    std::memcpy(&old, p, sizeof(S));
    S nv = rmw<D>(n.atomic, old, v[i * sv]);
    std::memcpy(p, &nv, sizeof(S));
    r[i] = old;
  }
}

template <class T> void atomic_cas(Exec &ex, const Node &n) {
  Lanes l = lanes(ex, n, -1);
  if (ex.race)
    ex.race_atomic(n);
  const T *cmp = ex.ptr<T>(n.in[1]), *val = ex.ptr<T>(n.in[2]);
  int64_t sc = !n.bcast[1], sv = !n.bcast[2];
  T *r = ex.ptr<T>(n.out[0]);
  const BufferRange *cur = nullptr;
  for (int64_t i = 0; i < n.numel; ++i) {
    uint64_t a = l.addr(i);
    check<T, true>(ex, n, cur, a, i, "atomic operation on");
    if (ex.log)
      ex.log_access(*cur, a, AccessEvent::Atomic);
    auto *p = reinterpret_cast<T *>(a);
    std::lock_guard<std::mutex> g(lock_for(a));
    T old;
    std::memcpy(&old, p, sizeof(T));
    if (old == cmp[i * sc]) // bitwise, also for floats
      std::memcpy(p, &val[i * sv], sizeof(T));
    r[i] = old;
  }
}

void addptr(Exec &ex, const Node &n) {
  const ir::Type &rt = *ex.slot(n.out[0]).type;
  uint64_t esz = static_cast<uint64_t>(ir::byte_size(rt.elem));
  const uint64_t *p = ex.ptr<uint64_t>(n.in[0]);
  uint64_t *r = ex.ptr<uint64_t>(n.out[0]);
  int64_t sp = !n.bcast[0], so = !n.bcast[1];
  dispatch_dtype(ex.slot(n.in[1]).key, [&](auto d) {
    using D = decltype(d);
    if constexpr (D::is_float) {
      throw_internal(__FILE__, __LINE__, "addptr with float offsets");
    } else {
      using Wide = std::conditional_t<D::is_signed, int64_t, uint64_t>;
      const auto *o = ex.ptr<typename D::S>(n.in[1]);
      for (int64_t i = 0; i < n.numel; ++i) // wraps modulo 2^64 like the hardware
        r[i] = p[i * sp] + static_cast<uint64_t>(static_cast<Wide>(o[i * so])) * esz;
    }
  });
}

} // namespace

void exec_memory(Exec &ex, const Node &n) {
  switch (n.kind) {
  case OpKind::AddPtr:
    return addptr(ex, n);
  case OpKind::Load:
    return dispatch_bytes(ex.slot(n.out[0]).elem_bytes, [&](auto t) { load<decltype(t)>(ex, n); });
  case OpKind::Store:
    return dispatch_bytes(ex.slot(n.in[1]).elem_bytes, [&](auto t) { store<decltype(t)>(ex, n); });
  case OpKind::AtomicRmw:
    return dispatch_dtype(ex.slot(n.in[1]).key, [&](auto d) { atomic_rmw<decltype(d)>(ex, n); });
  case OpKind::AtomicCas:
    return dispatch_bytes(ex.slot(n.in[1]).elem_bytes,
                          [&](auto t) { atomic_cas<decltype(t)>(ex, n); });
  default:
    throw_internal(__FILE__, __LINE__, "not a memory op");
  }
}

} // namespace tilec::interp
