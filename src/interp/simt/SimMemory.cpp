// ld / st / atom / red / createpolicy: bounds-checked accesses to global, shared and
// param memory.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "interp/simt/SimFloat.h"
#include "interp/simt/SimInternal.h"

namespace tilec::simt::sim {

namespace {

uint64_t read_bytes(const uint8_t *p, size_t n) {
  uint64_t v = 0;
  std::memcpy(&v, p, n); // little endian, as the GPU
  return v;
}

// Register bits of a loaded value of type t (s8 sign-extends into its 16-bit register).
uint64_t extend(uint64_t v, Ty t) {
  if (t == Ty::S8 && (v & 0x80))
    v |= 0xff00;
  return v;
}

uint64_t atom_int(AtomOp op, Ty t, uint64_t old, uint64_t b, uint64_t c) {
  int bits = ty_bits(t);
  uint64_t m = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  auto s = [&](uint64_t v) {
    return bits >= 64
               ? static_cast<int64_t>(v)
               : static_cast<int64_t>(((v & m) ^ (1ull << (bits - 1))) - (1ull << (bits - 1)));
  };
  bool sgn = ty_is_signed(t);
  old &= m;
  b &= m;
  switch (op) {
  case AtomOp::Add:
    return (old + b) & m;
  case AtomOp::Min:
    return sgn ? (s(old) < s(b) ? old : b) : std::min(old, b);
  case AtomOp::Max:
    return sgn ? (s(old) > s(b) ? old : b) : std::max(old, b);
  case AtomOp::Inc:
    return old >= b ? 0 : old + 1;
  case AtomOp::Dec:
    return (old == 0 || old > b) ? b : old - 1;
  case AtomOp::And:
    return old & b;
  case AtomOp::Or:
    return old | b;
  case AtomOp::Xor:
    return old ^ b;
  case AtomOp::Exch:
    return b;
  case AtomOp::Cas:
    return old == b ? (c & m) : old;
  default:
    return old;
  }
}

uint64_t atom_float_lane(AtomOp op, Ty t, uint64_t old, uint64_t b) {
  double x = float_value(old, t), y = float_value(b, t);
  switch (op) {
  case AtomOp::Add: {
    // atom.add.f32 flushes subnormal inputs and results; .noftz f16/bf16 and f64 do not.
    if (t == Ty::F32) {
      float fx = flush_f32(static_cast<float>(x)), fy = flush_f32(static_cast<float>(y));
      return round_f32(exact_add(fx, fy), Rnd::Rn, true);
    }
    return round_to(exact_add(x, y), t, Rnd::Rn);
  }
  case AtomOp::Min:
  case AtomOp::Max: {
    if (std::isnan(x) || std::isnan(y))
      return std::isnan(x) ? b : old;
    bool take_b = op == AtomOp::Min ? y < x : y > x;
    return take_b ? b : old;
  }
  case AtomOp::Exch:
    return b;
  default:
    return old;
  }
}

uint64_t atom_apply(AtomOp op, Ty t, uint64_t old, uint64_t b, uint64_t c) {
  if (op == AtomOp::Exch || op == AtomOp::Cas || ty_is_int(t))
    return atom_int(op, ty_is_int(t) ? t : ty_bits_of(ty_bits(t)), old, b, c);
  if (t == Ty::F16x2 || t == Ty::BF16x2) {
    Ty h = t == Ty::F16x2 ? Ty::F16 : Ty::BF16;
    return atom_float_lane(op, h, old & 0xffff, b & 0xffff) |
           atom_float_lane(op, h, old >> 16, b >> 16) << 16;
  }
  return atom_float_lane(op, t, old, b);
}

void atomic(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask, bool has_dst) {
  uint32_t act = m.guarded(c, d, warp, mask);
  const Instr &in = *d.in;
  size_t bytes = static_cast<size_t>(ty_bits(in.ty) / 8);
  if (m.space_of(d) != Space::Global && m.space_of(d) != Space::Shared)
    m.fault(c, d, warp * kWarp, "atomics address global or shared memory");
  size_t vec = in.m.vec;            // atom.v2/.v4.f32: each element its own atomic add
  for_lanes(act, warp, [&](int t) { // lanes in order: each sees the previous lane's update
    uint8_t *p = m.memory(c, d, t, m.address(c, d, t), bytes * vec, true);
    for (size_t k = 0; k < vec; ++k) {
      uint64_t old = read_bytes(p + k * bytes, bytes);
      uint64_t b = m.src(c, d, 1 + k, t);
      uint64_t cv = vec == 1 && in.src.size() > 2 ? m.src(c, d, 2, t) : 0;
      uint64_t nv = atom_apply(in.m.atom, in.ty, old, b, cv);
      std::memcpy(p + k * bytes, &nv, bytes);
      if (has_dst)
        m.set_dst(c, d, k, t, old);
    }
  });
}

} // namespace

void exec_Ld(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  const Instr &in = *d.in;
  size_t bytes = static_cast<size_t>(ty_bits(in.ty) / 8);
  size_t vec = in.dst.size();
  for_lanes(act, warp, [&](int t) {
    const uint8_t *p = m.memory(c, d, t, m.address(c, d, t), bytes * vec, false);
    for (size_t k = 0; k < vec; ++k)
      m.set_dst(c, d, k, t, extend(read_bytes(p + k * bytes, bytes), in.ty));
  });
}

// A cache hint with no effect on results. Its address is checked as a 1-byte load's all
// the same: the lowering prefetches only bytes the next iteration loads (PrefetchLoads.h),
// so a prefetch out of bounds is a lowering bug the simulator reports.
void exec_Prefetch(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  for_lanes(act, warp, [&](int t) { m.memory(c, d, t, m.address(c, d, t), 1, false); });
}

void exec_St(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  const Instr &in = *d.in;
  size_t bytes = static_cast<size_t>(ty_bits(in.ty) / 8);
  size_t vec = in.m.vec;
  for_lanes(act, warp, [&](int t) {
    uint8_t *p = m.memory(c, d, t, m.address(c, d, t), bytes * vec, true);
    for (size_t k = 0; k < vec; ++k) {
      uint64_t v = m.src(c, d, 1 + k, t);
      std::memcpy(p + k * bytes, &v, bytes);
    }
  });
}

void exec_Atom(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  atomic(m, c, d, warp, mask, true);
}
void exec_Red(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  atomic(m, c, d, warp, mask, false);
}

// A cache policy is an opaque 64-bit value; the simulator has no caches.
void exec_CreatePolicy(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  for_lanes(act, warp, [&](int t) { m.set_dst(c, d, 0, t, 0); });
}

} // namespace tilec::simt::sim
