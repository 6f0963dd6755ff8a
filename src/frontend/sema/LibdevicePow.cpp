// libdevice.pow. fp32 forms evaluate 2^(y log2|x|) in fp64 and round once (the product
// keeps far more bits than fp32 needs). pow(fp64, int32) squares in double-double.
// pow(fp64, fp64) needs y log|x| to ~2^-63 relative (|y log x| reaches 745 before the
// result overflows): log|x| is taken in double-double (|x| = m 2^k, log m = 2 atanh(s),
// s = (m - 1) / (m + 1) carried as s_hi + s_lo, the series tail in fp64), multiplied by y
// with an fma for the low part, and e^(z_hi + z_lo) = e^z_hi (1 + z_lo): a few ulp, bounded
// by the fp64 exp op. C99's special cases (zeros, infinities, NaN, negative bases) are
// applied to every form alike.
#include <cmath>

#include "frontend/sema/Libdevice.h"

namespace tilec::sema::builtins::libdevice {

namespace {

// C99's pow rules around r = |x|^y (finite nonzero |x|; r's own inf/0/NaN otherwise).
Value *pow_specials(M &m, Value *x, Value *y, Value *r) {
  Value *ax = m.abs(x);
  Value *yint = m.cmp("eq", y, m.op(OpKind::Floor, y));
  Value *yodd = m.land(m.land(yint, m.cmp("lt", m.abs(y), c(m, 9007199254740992.0))),
                       m.cmp("ne", m.op(OpKind::Rem, y, c(m, 2.0)), c(m, 0.0)));
  Value *neg_finite = m.land(m.cmp("lt", x, c(m, 0.0)), m.lnot(m.is_inf(x)));
  r = m.sel(m.land(neg_finite, m.lnot(yint)), c(m, NAN), r);
  r = m.sel(m.land(m.signbit(x), yodd), m.neg(r), r);
  r = m.sel(m.land(m.cmp("eq", ax, c(m, 1.0)), m.is_inf(y)), c(m, 1.0), r);
  r = m.sel(m.cmp("eq", x, c(m, 1.0)), c(m, 1.0), r);
  return m.sel(m.cmp("eq", y, c(m, 0.0)), c(m, 1.0), r);
}

// |x|^y = 2^(y log2|x|) in plain fp64: exact enough for fp32 results, and right for the
// zeros, infinities and NaN of every form.
Value *pow_plain(M &m, Value *x, Value *y) {
  return m.op(OpKind::Exp2, m.mul(y, m.op(OpKind::Log2, m.abs(x))));
}

// Double-double values (hi + lo, |lo| <= ulp(hi)/2 unless said otherwise).
struct DD {
  Value *hi, *lo;
};

DD dd_mul(M &m, DD a, DD b) {
  Value *h = m.mul(a.hi, b.hi);
  Value *l = m.add(m.fma(a.hi, b.hi, m.neg(h)), m.add(m.mul(a.hi, b.lo), m.mul(a.lo, b.hi)));
  Value *s = m.add(h, l);
  // inf, 0 or NaN products carry no low part (the fma above is NaN or 0 there).
  Value *ok = m.land(m.cmp("lt", m.abs(h), c(m, INFINITY)), m.cmp("ne", h, c(m, 0.0)));
  return {m.sel(ok, s, h), m.sel(ok, m.sub(l, m.sub(s, h)), c(m, 0.0))};
}

// log|x| for finite nonzero fp64 x as a double-double (~2^-62 relative).
DD log_dd(M &m, Value *x) {
  auto i64 = [&](int64_t v) { return m.i(DType::I64, v); };
  Value *ax = m.abs(x);
  Value *sub = m.cmp("lt", ax, c(m, 2.2250738585072014e-308)); // subnormal: scale by 2^54
  Value *xs = m.sel(sub, m.mul(ax, c(m, 18014398509481984.0)), ax);
  Value *bits = m.bits(xs);
  Value *k = m.sub(m.op(OpKind::Shr, bits, i64(52)), m.sel(sub, i64(1023 + 54), i64(1023)));
  Value *mant = m.from_bits(m.lor(m.land(bits, i64(0x000FFFFFFFFFFFFF)), i64(0x3FF0000000000000)),
                            DType::F64); // [1, 2)
  Value *big = m.cmp("gt", mant, c(m, 1.4142135623730951));
  mant = m.sel(big, m.mul(mant, c(m, 0.5)), mant); // [sqrt(1/2), sqrt(2)]
  k = m.sel(big, m.add(k, i64(1)), k);
  // s = (mant - 1) / (mant + 1): mant - 1 is exact (Sterbenz), mant + 1 as hi + lo.
  Value *b = m.sub(mant, c(m, 1.0));
  Value *a_hi = m.add(mant, c(m, 1.0));
  Value *a_lo = m.sub(mant, m.sub(a_hi, c(m, 1.0)));
  Value *s_hi = m.div(b, a_hi);
  Value *res = m.sub(m.fma(m.neg(s_hi), a_hi, b), m.mul(s_hi, a_lo));
  Value *s_lo = m.div(res, a_hi);
  // log mant = 2 s + (2/3) s^3 + s^5 P(s^2), P = 2/5 + 2 s^2/7 + ...: |s| <= 0.172, so the
  // s^3 term is up to 1% of the whole and is carried in double-double; P's 10 terms reach
  // 2^-56 of the s^5 term, itself under 2^-13 of the whole.
  Value *z = m.mul(s_hi, s_hi);
  Value *z_lo = m.fma(s_hi, s_hi, m.neg(z));
  Value *s3 = m.mul(s_hi, z);
  Value *s3_lo =
      m.add(m.fma(s_hi, z, m.neg(s3)), m.add(m.mul(s_hi, z_lo), m.mul(m.mul(c(m, 3.0), z), s_lo)));
  constexpr double kTwoThirds = 0.6666666666666666, kTwoThirdsLo = 3.700743415417188e-17;
  Value *t1 = m.mul(s3, c(m, kTwoThirds));
  Value *t1_lo = m.add(m.fma(s3, c(m, kTwoThirds), m.neg(t1)),
                       m.add(m.mul(s3, c(m, kTwoThirdsLo)), m.mul(s3_lo, c(m, kTwoThirds))));
  Value *p = c(m, 2.0 / 23.0);
  for (int j = 10; j >= 2; --j)
    p = m.fma(p, z, c(m, 2.0 / (2 * j + 1)));
  Value *rest = m.mul(m.mul(s3, z), p);
  auto two_sum = [&](Value *a, Value *b2, Value *&err) { // a + b2 = sum + err exactly
    Value *sum = m.add(a, b2), *bv = m.sub(sum, a);
    err = m.add(m.sub(a, m.sub(sum, bv)), m.sub(b2, bv));
    return sum;
  };
  Value *e1 = nullptr;
  Value *lm_hi = two_sum(m.add(s_hi, s_hi), t1, e1);
  Value *lm_lo = m.add(e1, m.add(m.add(s_lo, s_lo), m.add(t1_lo, rest)));
  // + k ln2, ln2 in two parts (the high one has 32 bits: k * ln2_hi is exact).
  Value *kf = m.cast(k, DType::F64);
  Value *k_hi = m.mul(kf, c(m, 6.93147180369123816490e-01));
  Value *k_lo = m.mul(kf, c(m, 1.90821492927058770002e-10));
  Value *err = nullptr;
  Value *sum = two_sum(k_hi, lm_hi, err);
  Value *lo = m.add(err, m.add(lm_lo, k_lo));
  Value *hi = m.add(sum, lo); // normalise (fast two-sum: |lo| is far below |sum|)
  return {hi, m.sub(lo, m.sub(hi, sum))};
}

// |x|^y for fp64 x, y: e^(y log|x|) with the product in double-double.
Value *pow_abs_f64(M &m, Value *x, Value *y) {
  DD l = log_dd(m, x);
  Value *zh = m.mul(y, l.hi);
  Value *zl = m.add(m.fma(y, l.hi, m.neg(zh)), m.mul(y, l.lo));
  Value *e = m.op(OpKind::Exp, zh);
  Value *r = m.fma(e, zl, e);
  return m.sel(m.lor(m.is_inf(e), m.cmp("eq", e, c(m, 0.0))), e, r);
}

// pow(fp64, int32): x^|n| by repeated squaring in double-double (of 1/x for negative n,
// itself as hi + lo), rounded once at the end.
Value *pow_f64_int(M &m, Value *v, Value *n) {
  Value *negn = m.cmp("lt", n, m.i(n, 0));
  Value *e = m.bitcast(m.sel(negn, m.neg(n), n), DType::U32);
  Value *q = m.div(c(m, 1.0), v);
  Value *ql = m.mul(q, m.fma(m.neg(v), q, c(m, 1.0)));
  ql = m.sel(m.lor(m.is_inf(q), m.cmp("eq", q, c(m, 0.0))), c(m, 0.0), ql);
  DD p{m.sel(negn, q, v), m.sel(negn, ql, c(m, 0.0))};
  DD r{c(m, 1.0), c(m, 0.0)};
  for (int k = 0; k < 32; ++k) {
    Value *bit = m.cmp("ne", m.land(m.op(OpKind::Shr, e, m.i(e, k)), m.i(e, 1)), m.i(e, 0));
    DD rp = dd_mul(m, r, p);
    r = {m.sel(bit, rp.hi, r.hi), m.sel(bit, rp.lo, r.lo)};
    if (k < 31)
      p = dd_mul(m, p, p);
  }
  // Overflow, underflow, zeros, inf and NaN: the plain high part (its lo is NaN or 0).
  Value *plain =
      m.lor(m.cmp("ne", r.lo, r.lo), m.lor(m.is_inf(r.hi), m.cmp("eq", r.hi, c(m, 0.0))));
  Value *res = m.sel(plain, r.hi, m.add(r.hi, r.lo));
  return m.sel(m.cmp("eq", e, m.i(e, 0)), c(m, 1.0), res);
}

Value *b_pow(M &m, const Xs &x) {
  if (x[0]->type.elem == DType::F32) {
    Value *v = m.cast(x[0], DType::F64), *y = m.cast(x[1], DType::F64);
    return m.cast(pow_specials(m, v, y, pow_plain(m, v, y)), DType::F32);
  }
  if (x[1]->type.elem != DType::F64)
    return pow_f64_int(m, x[0], x[1]);
  Value *v = x[0], *y = x[1];
  Value *ax = m.abs(v);
  Value *regular = m.land(m.cmp("lt", ax, c(m, INFINITY)), m.cmp("gt", ax, c(m, 0.0)));
  Value *r = m.sel(regular, pow_abs_f64(m, v, y), pow_plain(m, v, y));
  return pow_specials(m, v, y, r);
}

} // namespace

void add_pow_fns(std::vector<Fn> &t) {
  t.push_back({"pow", "fp32,int32>fp32 fp64,int32>fp64 fp32,fp32>fp32 fp64,fp64>fp64", b_pow});
}

} // namespace tilec::sema::builtins::libdevice
