// libdevice's integer functions: popc, clz, brev, ffs, mulhi, mul24, hadd, rhadd, sad,
// byte_perm, as shifts, masks and multiplies of the Tile IR (exact on every back end).
#include "frontend/sema/Libdevice.h"

namespace tilec::sema::builtins::libdevice {

namespace {

DType unsigned_of(DType d) { return ir::bits(d) == 64 ? DType::U64 : DType::U32; }
Value *as_unsigned(M &m, Value *v) { return m.bitcast(v, unsigned_of(v->type.elem)); }

Value *popc_u(M &m, Value *v) { // v unsigned
  bool w = v->type.elem == DType::U64;
  auto k = [&](uint64_t c) { return m.i(v, static_cast<int64_t>(c)); };
  auto shr = [&](Value *x, int s) { return m.op(OpKind::Shr, x, k(s)); };
  v = m.sub(v, m.land(shr(v, 1), k(0x5555555555555555ull)));
  v = m.add(m.land(v, k(0x3333333333333333ull)), m.land(shr(v, 2), k(0x3333333333333333ull)));
  v = m.land(m.add(v, shr(v, 4)), k(0x0F0F0F0F0F0F0F0Full));
  v = shr(m.mul(v, k(0x0101010101010101ull)), w ? 56 : 24);
  return m.cast(v, DType::I32);
}

Value *b_popc(M &m, const Xs &x) { return popc_u(m, as_unsigned(m, x[0])); }

Value *b_clz(M &m, const Xs &x) {
  Value *v = as_unsigned(m, x[0]);
  int w = v->type.elem == DType::U64 ? 64 : 32;
  Value *n = m.i(DType::I32, 0);
  for (int s = w / 2; s >= 1; s /= 2) {
    Value *top = m.op(OpKind::Shr, v, m.i(v, w - s));
    Value *z = m.cmp("eq", top, m.i(v, 0));
    n = m.sel(z, m.add(n, m.i(DType::I32, s)), n);
    v = m.sel(z, m.op(OpKind::Shl, v, m.i(v, s)), v);
  }
  // After the halvings the top bit is set unless x was 0 (then n = w - 1).
  Value *top = m.op(OpKind::Shr, v, m.i(v, w - 1));
  return m.sel(m.cmp("eq", top, m.i(v, 0)), m.add(n, m.i(DType::I32, 1)), n);
}

Value *b_brev(M &m, const Xs &x) {
  Value *v = as_unsigned(m, x[0]);
  bool w = v->type.elem == DType::U64;
  static const uint64_t masks[] = {0x5555555555555555ull, 0x3333333333333333ull,
                                   0x0F0F0F0F0F0F0F0Full, 0x00FF00FF00FF00FFull,
                                   0x0000FFFF0000FFFFull, 0x00000000FFFFFFFFull};
  for (int k = 0, s = 1; k < (w ? 6 : 5); ++k, s *= 2) {
    Value *mk = m.i(v, static_cast<int64_t>(masks[k]));
    Value *lo = m.op(OpKind::Shl, m.land(v, mk), m.i(v, s));
    Value *hi = m.land(m.op(OpKind::Shr, v, m.i(v, s)), mk);
    v = m.lor(lo, hi);
  }
  return m.bitcast(v, x[0]->type.elem);
}

// ffs: 1 + the index of the lowest set bit, 0 for 0: popc(x ^ (x - 1)).
Value *b_ffs(M &m, const Xs &x) {
  Value *v = as_unsigned(m, x[0]);
  Value *p = popc_u(m, m.op(OpKind::Xor, v, m.sub(v, m.i(v, 1))));
  return m.sel(m.cmp("eq", v, m.i(v, 0)), m.i(DType::I32, 0), p);
}

Value *b_mulhi(M &m, const Xs &x) {
  Value *a = x[0], *b = x[1];
  DType d = a->type.elem;
  if (d == DType::U32 || d == DType::U64)
    return m.op(OpKind::Umulhi, a, b);
  if (d == DType::I32) {
    Value *p = m.mul(m.cast(a, DType::I64), m.cast(b, DType::I64));
    return m.cast(m.op(OpKind::Shr, p, m.i(DType::I64, 32)), DType::I32);
  }
  // signed 64: the unsigned high word minus the other operand for each negative one.
  Value *ua = as_unsigned(m, a), *ub = as_unsigned(m, b);
  Value *h = m.op(OpKind::Umulhi, ua, ub);
  Value *zero = m.i(DType::U64, 0);
  h = m.sub(h, m.sel(m.cmp("lt", a, m.i(a, 0)), ub, zero));
  h = m.sub(h, m.sel(m.cmp("lt", b, m.i(b, 0)), ua, zero));
  return m.bitcast(h, DType::I64);
}

// The low 24 bits of each (sign-extended for int32) multiplied, low 32 bits kept.
Value *b_mul24(M &m, const Xs &x) {
  auto low24 = [&](Value *v) {
    return m.op(OpKind::Shr, m.op(OpKind::Shl, v, m.i(v, 8)), m.i(v, 8));
  };
  return m.mul(low24(x[0]), low24(x[1]));
}

Value *b_hadd(M &m, const Xs &x) { // floor((a + b) / 2) without overflow
  Value *h = m.op(OpKind::Shr, m.op(OpKind::Xor, x[0], x[1]), m.i(x[0], 1));
  return m.add(m.land(x[0], x[1]), h);
}

Value *b_rhadd(M &m, const Xs &x) { // ceil((a + b) / 2)
  Value *h = m.op(OpKind::Shr, m.op(OpKind::Xor, x[0], x[1]), m.i(x[0], 1));
  return m.sub(m.lor(x[0], x[1]), h);
}

Value *b_sad(M &m, const Xs &x) { // |a - b| + c
  Value *d = m.sel(m.cmp("gt", x[0], x[1]), m.sub(x[0], x[1]), m.sub(x[1], x[0]));
  Value *r = m.add(m.bitcast(d, DType::U32), x[2]);
  return m.bitcast(r, x[0]->type.elem);
}

// byte_perm(x, y, s): result byte k is byte (s >> 4k) & 7 of the 8 bytes y:x.
Value *b_byte_perm(M &m, const Xs &x) {
  Value *lo = m.cast(m.bitcast(x[0], DType::U32), DType::U64);
  Value *hi = m.cast(m.bitcast(x[1], DType::U32), DType::U64);
  Value *v = m.lor(m.op(OpKind::Shl, hi, m.i(hi, 32)), lo);
  Value *s = m.cast(m.bitcast(x[2], DType::U32), DType::U64);
  Value *r = m.i(DType::U64, 0);
  for (int k = 0; k < 4; ++k) {
    Value *selk = m.land(m.op(OpKind::Shr, s, m.i(s, 4 * k)), m.i(s, 7));
    Value *byte = m.land(m.op(OpKind::Shr, v, m.mul(selk, m.i(s, 8))), m.i(s, 0xFF));
    r = m.lor(r, m.op(OpKind::Shl, byte, m.i(s, 8 * k)));
  }
  return m.cast(r, DType::I32);
}

} // namespace

void add_int_fns(std::vector<Fn> &t) {
  t.insert(
      t.end(),
      {
          {"clz", "int32>int32 int64>int32", b_clz},
          {"popc", "int32>int32 int64>int32", b_popc},
          {"byte_perm", "int32,int32,int32>int32", b_byte_perm},
          {"mulhi", "int32,int32>int32 uint32,uint32>uint32 int64,int64>int64 uint64,uint64>uint64",
           b_mulhi},
          {"mul24", "int32,int32>int32 uint32,uint32>uint32", b_mul24},
          {"brev", "int32>int32 int64>int64", b_brev},
          {"sad", "int32,int32,uint32>int32 uint32,uint32,uint32>uint32", b_sad},
          {"hadd", "int32,int32>int32 uint32,uint32>uint32", b_hadd},
          {"rhadd", "int32,int32>int32 uint32,uint32>uint32", b_rhadd},
          {"ffs", "int32>int32 int64>int32", b_ffs},
      });
}

} // namespace tilec::sema::builtins::libdevice
