// libdevice's directed-rounding arithmetic and conversions (add_rz, div_ru, sqrt_rd,
// fma_rz, int2float_rd, double2ll_ru, ...): the round-to-nearest result and its exact
// error (TwoSum / FMA residuals, or a wider type), then a step to the neighbour the mode
// asks for.
#include <cmath>

#include "frontend/sema/Libdevice.h"

namespace tilec::sema::builtins::libdevice {

namespace {

// r is the rounded-to-nearest result, err has the sign of (exact - r), ovf marks results
// that overflowed from finite operands. Moves r to the neighbour the mode asks for.
enum class Mode { Rn, Rz, Rd, Ru };

Value *directed(M &m, Mode mode, Value *r, Value *err, Value *ovf) {
  if (mode == Mode::Rn)
    return r;
  Value *zero = m.f(err, 0.0);
  Value *pos = m.cmp("gt", err, zero), *negv = m.cmp("lt", err, zero);
  Value *fin = m.lnot(ovf);
  Value *maxf = m.f(r, r->type.elem == DType::F64 ? 1.7976931348623157e308 : 3.4028234663852886e38);
  Value *rneg = m.cmp("lt", r, m.f(r, 0.0)), *rpos = m.cmp("gt", r, m.f(r, 0.0));
  if (mode == Mode::Ru) {
    r = m.sel(m.land(fin, pos), m.next_up(r), r);
    return m.sel(m.land(ovf, rneg), m.neg(maxf), r);
  }
  if (mode == Mode::Rd) {
    r = m.sel(m.land(fin, negv), m.next_down(r), r);
    return m.sel(m.land(ovf, rpos), maxf, r);
  }
  Value *toward = m.lor(m.land(rpos, negv), m.land(rneg, pos));
  r = m.sel(m.land(fin, toward), m.sel(rpos, m.next_down(r), m.next_up(r)), r);
  return m.sel(ovf, m.copysign(maxf, r), r);
}

Value *finite(M &m, Value *x) { return m.cmp("lt", m.abs(x), m.f(x, INFINITY)); }

// Overflow: an infinite result from finite operands.
Value *overflowed(M &m, Value *r, std::initializer_list<Value *> ops) {
  Value *o = m.is_inf(r);
  for (Value *v : ops)
    o = m.land(o, finite(m, v));
  return o;
}

template <Mode mode> Value *b_add(M &m, const Xs &x) {
  Value *a = x[0], *b = x[1];
  Value *s = m.add(a, b);
  Value *bb = m.sub(s, a); // TwoSum: s + err = a + b exactly
  Value *err = m.add(m.sub(a, m.sub(s, bb)), m.sub(b, bb));
  return directed(m, mode, s, err, overflowed(m, s, {a, b}));
}

template <Mode mode> Value *b_sub(M &m, const Xs &x) { return b_add<mode>(m, {x[0], m.neg(x[1])}); }

template <Mode mode> Value *b_mul(M &m, const Xs &x) {
  Value *p = m.mul(x[0], x[1]);
  Value *err;
  if (x[0]->type.elem == DType::F32) { // the product is exact in fp64
    Value *pd = m.mul(m.cast(x[0], DType::F64), m.cast(x[1], DType::F64));
    err = m.sub(pd, m.cast(p, DType::F64));
  } else {
    err = m.fma(x[0], x[1], m.neg(p));
  }
  return directed(m, mode, p, err, overflowed(m, p, {x[0], x[1]}));
}

// q = a/b rounded; a - q b (exact by fma) has the sign of b (a/b - q).
template <Mode mode> Value *b_div(M &m, const Xs &x) {
  Value *a = x[0], *b = x[1];
  Value *q = m.div(a, b);
  Value *rem;
  if (a->type.elem == DType::F32) {
    Value *ad = m.cast(a, DType::F64), *bd = m.cast(b, DType::F64);
    rem = m.fma(m.neg(m.cast(q, DType::F64)), bd, ad);
    rem = m.sel(m.signbit(b), m.neg(rem), rem);
  } else {
    rem = m.fma(m.neg(q), b, a);
    rem = m.sel(m.signbit(b), m.neg(rem), rem);
  }
  Value *ovf = m.land(overflowed(m, q, {a, b}), m.cmp("ne", b, m.f(b, 0.0)));
  return directed(m, mode, q, rem, ovf);
}

template <Mode mode> Value *b_rcp(M &m, const Xs &x) {
  return b_div<mode>(m, {m.f(x[0], 1.0), x[0]});
}

template <Mode mode> Value *b_sqrt_r(M &m, const Xs &x) {
  Value *s = m.sqrt(x[0]);
  Value *err;
  if (x[0]->type.elem == DType::F32) {
    Value *sd = m.cast(s, DType::F64);
    err = m.sub(m.cast(x[0], DType::F64), m.mul(sd, sd));
  } else {
    err = m.fma(m.neg(s), s, x[0]);
  }
  return directed(m, mode, s, err, m.cmp("ne", s, s)); // never overflows
}

// fma in a mode, fp32: a b is exact in fp64; + c by TwoSum; then rounded to fp32 with the
// sign of everything left over (the ll2float argument). fp64 has no such exact path.
template <Mode mode> Value *b_fma_r(M &m, const Xs &x) {
  if (x[0]->type.elem == DType::F64)
    unsupported(m, x[0], "an fp64 fma in a directed mode needs a three-term exact sum");
  Value *p = m.mul(m.cast(x[0], DType::F64), m.cast(x[1], DType::F64));
  Value *cc = m.cast(x[2], DType::F64);
  Value *s = m.add(p, cc);
  Value *bb = m.sub(s, p);
  Value *err = m.add(m.sub(p, m.sub(s, bb)), m.sub(cc, bb));
  err = m.sel(m.is_nan(err), m.f(err, 0.0), err);
  Value *f = m.cast(s, DType::F32);
  Value *total = m.add(m.sub(s, m.cast(f, DType::F64)), err);
  total = m.sel(m.is_nan(total), m.f(total, 0.0), total);
  return directed(m, mode, f, total, overflowed(m, f, {x[0], x[1], x[2]}));
}

// fp64 -> fp32 in a mode: the difference to the rounded value is exact in fp64.
template <Mode mode> Value *to_f32(M &m, Value *d) {
  Value *f = m.cast(d, DType::F32);
  Value *err = m.sub(d, m.cast(f, DType::F64)); // kept in fp64: it may be below fp32's range
  err = m.sel(m.is_nan(err), m.f(err, 0.0), err);
  return directed(m, mode, f, err, overflowed(m, f, {d}));
}

template <Mode mode> Value *b_d2f(M &m, const Xs &x) { return to_f32<mode>(m, x[0]); }

// int32 / uint32 -> fp32: exact in fp64 first.
template <Mode mode> Value *b_i2f(M &m, const Xs &x) {
  return to_f32<mode>(m, m.cast(x[0], DType::F64));
}

// 64-bit ints -> fp64 (or fp32): hi 2^32 + lo, each exact, summed with TwoSum.
template <Mode mode, DType to> Value *b_ll2f(M &m, const Xs &x) {
  if (mode == Mode::Rn)
    return m.cast(x[0], to);
  Value *v = x[0];
  Value *hi =
      m.mul(m.cast(m.op(OpKind::Shr, v, m.i(v, 32)), DType::F64), m.f(DType::F64, 4294967296.0));
  Value *lo = m.cast(m.land(v, m.i(v, 0xFFFFFFFFll)), DType::F64);
  Value *s = m.add(hi, lo);
  Value *bb = m.sub(s, hi);
  Value *err = m.add(m.sub(hi, m.sub(s, bb)), m.sub(lo, bb));
  if (to == DType::F64)
    return directed(m, mode, s, err, m.cmp("ne", s, s));
  Value *f = m.cast(s, DType::F32);
  Value *total = m.add(m.sub(s, m.cast(f, DType::F64)), err);
  return directed(m, mode, f, total, m.cmp("ne", f, f));
}

// float -> int in a mode: round to an integer in that mode, then convert (exact).
template <Mode mode> Value *round_mode(M &m, Value *x) {
  switch (mode) {
  case Mode::Rn:
    return m.rint(x);
  case Mode::Rz:
    return m.trunc(x);
  case Mode::Rd:
    return m.op(OpKind::Floor, x);
  case Mode::Ru:
    return m.op(OpKind::Ceil, x);
  }
  return x;
}

// Triton declares the unsigned results as signed ints of the same width (bits kept).
template <Mode mode, DType via, DType ret> Value *b_f2i(M &m, const Xs &x) {
  Value *v = m.cast(round_mode<mode>(m, x[0]), via);
  return via == ret ? v : m.bitcast(v, ret);
}

} // namespace

void add_rounding_fns(std::vector<Fn> &t) {
#define TILEC_LD_MODES(NAME, FORMS, BODY)                                                          \
  t.push_back({NAME "_rn", FORMS, BODY<Mode::Rn>});                                                \
  t.push_back({NAME "_rz", FORMS, BODY<Mode::Rz>});                                                \
  t.push_back({NAME "_rd", FORMS, BODY<Mode::Rd>});                                                \
  t.push_back({NAME "_ru", FORMS, BODY<Mode::Ru>});
  TILEC_LD_MODES("add", "fp64,fp64>fp64 fp32,fp32>fp32", b_add)
  TILEC_LD_MODES("sub", "fp32,fp32>fp32 fp64,fp64>fp64", b_sub)
  TILEC_LD_MODES("mul", "fp64,fp64>fp64 fp32,fp32>fp32", b_mul)
  TILEC_LD_MODES("div", "fp32,fp32>fp32 fp64,fp64>fp64", b_div)
  TILEC_LD_MODES("rcp", "fp32>fp32 fp64>fp64", b_rcp)
  TILEC_LD_MODES("sqrt", "fp32>fp32 fp64>fp64", b_sqrt_r)
  TILEC_LD_MODES("double2float", "fp64>fp32", b_d2f)
  t.push_back({"fma_rz", "fp32,fp32,fp32>fp32 fp64,fp64,fp64>fp64", b_fma_r<Mode::Rz>});
  t.push_back({"fma_rd", "fp32,fp32,fp32>fp32 fp64,fp64,fp64>fp64", b_fma_r<Mode::Rd>});
  t.push_back({"fma_ru", "fp32,fp32,fp32>fp32 fp64,fp64,fp64>fp64", b_fma_r<Mode::Ru>});
  TILEC_LD_MODES("int2float", "int32>fp32", b_i2f)
  TILEC_LD_MODES("uint2float", "uint32>fp32", b_i2f)
#undef TILEC_LD_MODES
#define TILEC_LD_MODES(NAME, FORMS, BODY, ...)                                                     \
  t.push_back({NAME "_rn", FORMS, BODY<Mode::Rn, __VA_ARGS__>});                                   \
  t.push_back({NAME "_rz", FORMS, BODY<Mode::Rz, __VA_ARGS__>});                                   \
  t.push_back({NAME "_rd", FORMS, BODY<Mode::Rd, __VA_ARGS__>});                                   \
  t.push_back({NAME "_ru", FORMS, BODY<Mode::Ru, __VA_ARGS__>});
  TILEC_LD_MODES("float2int", "fp32>int32", b_f2i, DType::I32, DType::I32)
  TILEC_LD_MODES("float2uint", "fp32>int32", b_f2i, DType::U32, DType::I32)
  TILEC_LD_MODES("double2int", "fp64>int32", b_f2i, DType::I32, DType::I32)
  TILEC_LD_MODES("double2uint", "fp64>int32", b_f2i, DType::U32, DType::I32)
  TILEC_LD_MODES("float2ll", "fp32>int64", b_f2i, DType::I64, DType::I64)
  TILEC_LD_MODES("float2ull", "fp32>int64", b_f2i, DType::U64, DType::I64)
  TILEC_LD_MODES("double2ll", "fp64>int64", b_f2i, DType::I64, DType::I64)
  TILEC_LD_MODES("double2ull", "fp64>int64", b_f2i, DType::U64, DType::I64)
  TILEC_LD_MODES("ll2float", "int64>fp32", b_ll2f, DType::F32)
  TILEC_LD_MODES("ull2float", "uint64>fp32", b_ll2f, DType::F32)
  TILEC_LD_MODES("ll2double", "int64>fp64", b_ll2f, DType::F64)
  TILEC_LD_MODES("ull2double", "uint64>fp64", b_ll2f, DType::F64)
#undef TILEC_LD_MODES
}

} // namespace tilec::sema::builtins::libdevice
