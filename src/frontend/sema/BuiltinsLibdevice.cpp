// libdevice's table (Triton 3.6's names, parameters arg0.., and dtype forms), the
// dispatch on argument dtypes, and the functions that are exact: bit reinterpretation,
// rounding to integers, classification and bit conversions (the integer bit tricks are
// in LibdeviceInt.cpp, directed-rounding arithmetic and conversions in
// LibdeviceRounding.cpp). Triton picks the form whose dtypes equal the
// arguments' exactly (no promotion: an fp16 or mixed fp32/fp64 call is an error), as here.
#include <cmath>
#include <cstring>
#include <map>

#include "frontend/sema/Libdevice.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins::libdevice {

Value *M::op(OpKind k, Value *x, Value *y) const {
  std::vector<ir::NamedAttr> attrs;
  if ((k == OpKind::Min || k == OpKind::Max) && ir::is_float(x->type.elem))
    attrs.push_back({"propagate_nan", int64_t{0}});
  return emit(e, k, {x, y}, x->type, loc, std::move(attrs));
}

Value *M::op(OpKind k, Value *x) const { return emit(e, k, {x}, x->type, loc); }

Value *M::div(Value *x, Value *y) const {
  std::vector<ir::NamedAttr> attrs;
  if (x->type.elem == DType::F32)
    attrs.push_back({"rounding", std::string("rn")});
  return emit(e, OpKind::Div, {x, y}, x->type, loc, std::move(attrs));
}

Value *M::fma(Value *x, Value *y, Value *z) const {
  return emit(e, OpKind::Fma, {x, y, z}, x->type, loc);
}

Value *M::sel(Value *c, Value *x, Value *y) const {
  return emit(e, OpKind::Select, {c, x, y}, x->type, loc);
}

Value *M::sqrt(Value *x) const {
  std::vector<ir::NamedAttr> attrs;
  if (x->type.elem == DType::F32)
    attrs.push_back({"rounding", std::string("rn")});
  return emit(e, OpKind::Sqrt, {x}, x->type, loc, std::move(attrs));
}

Value *M::bits(Value *x) const {
  return bitcast(x, x->type.elem == DType::F64 ? DType::I64 : DType::I32);
}

Value *M::signbit(Value *x) const { return cmp("lt", bits(x), i(bits(x)->type.elem, 0)); }

Value *M::copysign(Value *x, Value *y) const {
  Value *bx = bits(x), *by = bits(y);
  DType it = bx->type.elem;
  int64_t sign = it == DType::I64 ? INT64_MIN : int64_t{INT32_MIN};
  Value *mag = land(bx, i(it, ~sign));
  return from_bits(lor(mag, land(by, i(it, sign))), x->type.elem);
}

Value *M::is_inf(Value *x) const { return cmp("eq", abs(x), f(x, INFINITY)); }

// |x| + 2^(p-1) - 2^(p-1) rounds |x| to an integer (p: the mantissa's bits); larger |x|
// are integers already. The sign (and -0) is copied back.
Value *M::rint(Value *x) const {
  double big = x->type.elem == DType::F64 ? 4503599627370496.0 : 8388608.0;
  Value *ax = abs(x);
  Value *r = sub(add(ax, f(x, big)), f(x, big));
  return copysign(sel(cmp("lt", ax, f(x, big)), r, ax), x);
}

Value *M::trunc(Value *x) const {
  return sel(cmp("lt", x, f(x, 0.0)), op(OpKind::Ceil, x), op(OpKind::Floor, x));
}

Value *M::round(Value *x) const {
  Value *ax = abs(x);
  Value *t = op(OpKind::Floor, ax);
  Value *up = cmp("ge", sub(ax, t), f(x, 0.5)); // ax - t is exact
  return copysign(sel(up, add(t, f(x, 1.0)), t), x);
}

// The neighbours of finite x (next_up(max) = inf); zeros step to the smallest subnormal.
Value *M::next_up(Value *x) const {
  Value *b = bits(x);
  Value *one = i(b, 1);
  Value *r = from_bits(sel(cmp("lt", b, i(b, 0)), sub(b, one), add(b, one)), x->type.elem);
  return sel(cmp("eq", x, f(x, 0.0)), from_bits(one, x->type.elem), r);
}

Value *M::next_down(Value *x) const { return neg(next_up(neg(x))); }

void unsupported(const M &m, const Value *x, const char *why) {
  m.fail("libdevice." + m.a.fn() + "(): the " + dtype_name(x->type.elem) +
         " form is not supported by tilec (" + why + ")");
}

namespace {

std::vector<Fn> &registry();

DType parse_dtype(const std::string &s) {
  static const std::map<std::string, DType> m = {
      {"fp32", DType::F32},  {"fp64", DType::F64},   {"int1", DType::I1},   {"int32", DType::I32},
      {"int64", DType::I64}, {"uint32", DType::U32}, {"uint64", DType::U64}};
  auto it = m.find(s);
  TILEC_ASSERT(it != m.end(), "libdevice form names an unknown dtype: " + s);
  return it->second;
}

struct Form {
  std::vector<DType> args;
  DType ret;
};

std::vector<Form> parse_forms(const char *forms) {
  std::vector<Form> out;
  std::string s(forms);
  size_t p = 0;
  while (p < s.size()) {
    size_t end = s.find(' ', p);
    std::string one = s.substr(p, end == std::string::npos ? std::string::npos : end - p);
    p = end == std::string::npos ? s.size() : end + 1;
    if (one.empty())
      continue;
    size_t gt = one.find('>');
    Form f;
    f.ret = parse_dtype(one.substr(gt + 1));
    std::string args = one.substr(0, gt);
    size_t q = 0;
    while (q <= args.size()) {
      size_t c = args.find(',', q);
      f.args.push_back(
          parse_dtype(args.substr(q, c == std::string::npos ? std::string::npos : c - q)));
      if (c == std::string::npos)
        break;
      q = c + 1;
    }
    out.push_back(std::move(f));
  }
  return out;
}

struct Entry {
  Fn fn;
  std::vector<Form> forms;
  std::string signature;
};

const std::map<std::string, Entry, std::less<>> &entries() {
  static const std::map<std::string, Entry, std::less<>> m = [] {
    std::map<std::string, Entry, std::less<>> out;
    for (const Fn &f : registry()) {
      Entry en{f, parse_forms(f.forms), ""};
      for (size_t k = 0; k < en.forms.at(0).args.size(); ++k)
        en.signature += (k ? ", arg" : "arg") + std::to_string(k);
      TILEC_ASSERT(!out.count(f.name), std::string("libdevice function twice: ") + f.name);
      out.emplace(f.name, std::move(en));
    }
    return out;
  }();
  return m;
}

std::string form_list(const std::vector<DType> &ds) {
  std::string s = "(";
  for (size_t k = 0; k < ds.size(); ++k)
    s += (k ? ", " : "") + dtype_name(ds[k]);
  return s + ")";
}

Val call(Emitter &e, const Args &a) {
  const Entry &en = entries().at(a.fn());
  std::vector<Value *> xs;
  std::vector<DType> got;
  for (size_t k = 0; k < en.forms[0].args.size(); ++k) {
    Value *v = a.tensor("arg" + std::to_string(k));
    xs.push_back(v);
    got.push_back(v->type.elem);
    if (v->type.is_ptr())
      a.fail("libdevice." + a.fn() + "(): arg" + std::to_string(k) + " is a pointer (" +
             elem_name(v->type) + ")");
  }
  const Form *form = nullptr;
  for (const Form &f : en.forms)
    if (f.args == got)
      form = &f;
  if (!form) {
    std::string want;
    for (size_t k = 0; k < en.forms.size(); ++k)
      want += (k ? ", " : "") + form_list(en.forms[k].args);
    a.fail("libdevice." + a.fn() + "(): no form for argument dtypes " + form_list(got) +
           "; it takes " + want);
  }
  ir::Shape shape;
  for (Value *v : xs)
    shape = broadcast_shape(shape, v->type.shape, a.loc());
  for (Value *&v : xs)
    v = broadcast_to(e, v, shape, a.loc());
  M m{e, a, a.loc(), shape};
  Value *r = en.fn.body(m, xs);
  TILEC_ASSERT(r->type.elem == form->ret, "libdevice." + a.fn() + " returned the wrong dtype");
  return Val::of(r);
}

// ---- exact float functions --------------------------------------------------------------

Value *b_abs(M &m, const Xs &x) { return m.abs(x[0]); }
Value *b_floor(M &m, const Xs &x) { return m.op(OpKind::Floor, x[0]); }
Value *b_ceil(M &m, const Xs &x) { return m.op(OpKind::Ceil, x[0]); }
Value *b_trunc(M &m, const Xs &x) { return m.trunc(x[0]); }
Value *b_rint(M &m, const Xs &x) { return m.rint(x[0]); }
Value *b_round(M &m, const Xs &x) { return m.round(x[0]); }
Value *b_llrint(M &m, const Xs &x) { return m.cast(m.rint(x[0]), DType::I64); }
Value *b_llround(M &m, const Xs &x) { return m.cast(m.round(x[0]), DType::I64); }
Value *b_isnan(M &m, const Xs &x) { return m.is_nan(x[0]); }
Value *b_isinf(M &m, const Xs &x) { return m.is_inf(x[0]); }
Value *b_isfinite(M &m, const Xs &x) { return m.cmp("lt", m.abs(x[0]), m.f(x[0], INFINITY)); }
Value *b_signbit(M &m, const Xs &x) { return m.cast(m.signbit(x[0]), DType::I32); }
Value *b_copysign(M &m, const Xs &x) { return m.copysign(x[0], x[1]); }
Value *b_fma(M &m, const Xs &x) { return m.fma(x[0], x[1], x[2]); }
// fmod exactly, for any quotient: each step takes a multiple of |y| 2^s (s chosen so the
// quotient has at most `bits` bits) off |x| with one exact fma, then corrects a quotient
// the division rounded up. fp32 runs in fp64 (20-bit steps), fp64 in 50-bit steps: as many
// steps as the exponent range needs.
// The unbiased exponent of a non-negative fp64 (subnormals normalised first).
Value *exponent(M &m, Value *v) {
  Value *tiny = m.cmp("lt", v, m.f(v, 2.2250738585072014e-308));
  Value *vs = m.sel(tiny, m.mul(v, m.f(v, 18014398509481984.0)), v); // 2^54
  Value *e = m.op(OpKind::Shr, m.bits(vs), m.i(DType::I64, 52));
  return m.sub(e, m.sel(tiny, m.i(DType::I64, 1023 + 54), m.i(DType::I64, 1023)));
}

Value *pow2(M &m, Value *n) { // 2^n, 0 <= n <= 1023
  return m.from_bits(m.op(OpKind::Shl, m.add(n, m.i(DType::I64, 1023)), m.i(DType::I64, 52)),
                     DType::F64);
}

Value *fmod_exact(M &m, Value *x, Value *y) {
  bool f32 = x->type.elem == DType::F32;
  Value *X = f32 ? m.cast(x, DType::F64) : x, *Y = f32 ? m.cast(y, DType::F64) : y;
  Value *ay = m.abs(Y), *r = m.abs(X);
  int bits = f32 ? 20 : 50;
  int steps = f32 ? 16 : 44;
  Value *ey = exponent(m, ay);
  for (int k = 0; k < steps; ++k) {
    Value *sh = m.sub(m.sub(exponent(m, r), ey), m.i(DType::I64, bits));
    sh = m.op(OpKind::Max, sh, m.i(DType::I64, 0));
    Value *h = m.op(OpKind::Shr, sh, m.i(DType::I64, 1));
    Value *yy = m.mul(m.mul(ay, pow2(m, h)), pow2(m, m.sub(sh, h))); // |y| 2^sh, exact
    Value *q = m.trunc(m.div(r, yy));
    Value *nr = m.fma(m.neg(q), yy, r);
    nr = m.sel(m.cmp("lt", nr, m.f(nr, 0.0)), m.add(nr, yy), nr);
    r = m.sel(m.cmp("ge", r, ay), nr, r);
  }
  Value *res = m.copysign(r, X);
  // fmod(x, 0), fmod(inf, y), NaNs: NaN; fmod(finite x, inf) = x.
  Value *bad =
      m.lor(m.cmp("eq", ay, m.f(ay, 0.0)), m.lor(m.is_inf(X), m.lor(m.is_nan(X), m.is_nan(Y))));
  res = m.sel(m.land(m.is_inf(Y), m.lnot(m.is_inf(X))), X, res);
  res = m.sel(bad, m.f(res, NAN), res);
  return f32 ? m.cast(res, DType::F32) : res;
}

Value *b_fmod(M &m, const Xs &x) { return fmod_exact(m, x[0], x[1]); }

// saturate(x) = clamp(x, 0, 1), NaN -> 0.
Value *b_saturatef(M &m, const Xs &x) {
  return m.sel(m.cmp("gt", x[0], m.f(x[0], 0.0)), m.op(OpKind::Min, x[0], m.f(x[0], 1.0)),
               m.f(x[0], 0.0));
}

// x - y when x > y, +0 when x <= y, NaN when unordered.
Value *b_fdim(M &m, const Xs &x) {
  Value *zero_or_nan = m.sel(m.cmp("le", x[0], x[1]), m.f(x[0], 0.0), m.add(x[0], x[1]));
  return m.sel(m.cmp("gt", x[0], x[1]), m.sub(x[0], x[1]), zero_or_nan);
}

// remainder(x, y) = x - n y, n = x / y rounded to even, from a = |fmod(x, 2|y|)| (exact):
// every difference below is exact (Sterbenz).
Value *b_remainder(M &m, const Xs &x) {
  Value *ay = m.abs(x[1]);
  Value *a = m.abs(fmod_exact(m, x[0], m.add(ay, ay)));
  Value *d = m.sub(a, ay);
  Value *low = m.cmp("le", m.add(a, a), ay); // a <= |y|/2
  Value *mid = m.cmp("lt", m.add(d, d), ay); // a - |y| < |y|/2
  Value *r = m.sel(low, a, m.sel(mid, d, m.sub(d, ay)));
  Value *s = m.sel(m.signbit(x[0]), m.neg(r), r);
  // fmod's NaN (x infinite, y zero or NaN) passes through a.
  return m.sel(m.is_nan(a), a, s);
}

Value *b_nextafter(M &m, const Xs &x) {
  Value *r = m.sel(m.cmp("lt", x[0], x[1]), m.next_up(x[0]), m.next_down(x[0]));
  r = m.sel(m.cmp("eq", x[0], x[1]), x[1], r);
  Value *nan = m.lor(m.is_nan(x[0]), m.is_nan(x[1]));
  return m.sel(nan, m.add(x[0], x[1]), r);
}

// ldexp / scalbn as musl's scalbn: at most two pre-scalings keep every product but the
// last exact, so the result rounds once.
Value *b_ldexp(M &m, const Xs &x) {
  bool d = x[0]->type.elem == DType::F64;
  int emax = d ? 1023 : 127, emin = d ? -1022 : -126, mant = d ? 53 : 24;
  DType it = d ? DType::I64 : DType::I32;
  auto pow2 = [&](Value *n) { // 2^n for n in [emin, emax]
    Value *b = m.add(m.cast(n, it), m.i(it, emax));
    return m.from_bits(m.op(OpKind::Shl, b, m.i(it, mant - 1)), x[0]->type.elem);
  };
  Value *n = m.op(OpKind::Max, m.op(OpKind::Min, x[1], m.i(DType::I32, 3 * emax)),
                  m.i(DType::I32, -3 * emax));
  Value *y = x[0];
  for (int k = 0; k < 2; ++k) {
    Value *big = m.cmp("gt", n, m.i(DType::I32, emax));
    Value *small = m.cmp("lt", n, m.i(DType::I32, emin));
    double down = std::ldexp(1.0, emin + mant - 1);
    y = m.sel(big, m.mul(y, m.f(y, std::ldexp(1.0, emax))),
              m.sel(small, m.mul(y, m.f(y, down)), y));
    n = m.sel(big, m.sub(n, m.i(DType::I32, emax)),
              m.sel(small, m.add(n, m.i(DType::I32, -(emin + mant - 1))), n));
  }
  n = m.op(OpKind::Max, m.op(OpKind::Min, n, m.i(DType::I32, emax)), m.i(DType::I32, emin));
  return m.mul(y, pow2(n));
}

// ilogb: the unbiased exponent (subnormals scaled up first); 0 and NaN -> INT_MIN,
// inf -> INT_MAX (CUDA's values).
Value *ilogb_core(M &m, Value *x) {
  bool d = x->type.elem == DType::F64;
  int mant = d ? 53 : 24, bias = d ? 1023 : 127;
  Value *ax = m.abs(x);
  Value *sub = m.cmp("lt", ax, m.f(x, d ? 2.2250738585072014e-308 : 1.17549435e-38));
  Value *xs = m.sel(sub, m.mul(ax, m.f(x, std::ldexp(1.0, mant))), ax);
  Value *b = m.bits(xs);
  Value *ex = m.op(OpKind::Shr, b, m.i(b, mant - 1)); // sign bit is 0
  Value *e = m.cast(ex, DType::I32);
  e = m.sub(e, m.i(DType::I32, bias));
  e = m.sel(sub, m.sub(e, m.i(DType::I32, mant)), e);
  e = m.sel(m.cmp("eq", ax, m.f(x, 0.0)), m.i(DType::I32, INT32_MIN), e);
  e = m.sel(m.is_nan(x), m.i(DType::I32, INT32_MIN), e);
  return m.sel(m.is_inf(x), m.i(DType::I32, INT32_MAX), e);
}

Value *b_ilogb(M &m, const Xs &x) { return ilogb_core(m, x[0]); }

Value *b_logb(M &m, const Xs &x) {
  Value *r = m.cast(ilogb_core(m, x[0]), x[0]->type.elem);
  Value *ax = m.abs(x[0]);
  r = m.sel(m.cmp("eq", ax, m.f(ax, 0.0)), m.f(ax, -INFINITY), r);
  return m.sel(m.cmp("ge", ax, m.f(ax, INFINITY)), ax, m.sel(m.is_nan(ax), ax, r));
}

template <DType d> Value *b_cast(M &m, const Xs &x) { return m.cast(x[0], d); }
template <DType d> Value *b_bitcast(M &m, const Xs &x) { return m.bitcast(x[0], d); }

Value *b_hiloint2double(M &m, const Xs &x) {
  Value *hi = m.op(OpKind::Shl, m.cast(x[0], DType::I64), m.i(DType::I64, 32));
  Value *lo = m.land(m.cast(x[1], DType::I64), m.i(DType::I64, 0xFFFFFFFFll));
  return m.bitcast(m.lor(hi, lo), DType::F64);
}

Value *b_double2loint(M &m, const Xs &x) { return m.cast(m.bits(x[0]), DType::I32); }
Value *b_double2hiint(M &m, const Xs &x) {
  return m.cast(m.op(OpKind::Shr, m.bits(x[0]), m.i(DType::I64, 32)), DType::I32);
}

std::vector<Fn> &registry() {
  static std::vector<Fn> t = [] {
    std::vector<Fn> v = {
        {"abs", "int32>int32 int64>int64 fp32>fp32 fp64>fp64", b_abs},
        {"floor", "fp32>fp32 fp64>fp64", b_floor},
        {"ceil", "fp64>fp64 fp32>fp32", b_ceil},
        {"trunc", "fp64>fp64 fp32>fp32", b_trunc},
        {"rint", "fp32>fp32 fp64>fp64", b_rint},
        {"nearbyint", "fp32>fp32 fp64>fp64", b_rint},
        {"round", "fp32>fp32 fp64>fp64", b_round},
        {"llrint", "fp32>int64 fp64>int64", b_llrint},
        {"llround", "fp32>int64 fp64>int64", b_llround},
        {"isnan", "fp32>int1 fp64>int1", b_isnan}, // Triton: int32, cast to int1
        {"isinf", "fp32>int1 fp64>int1", b_isinf},
        {"finitef", "fp32>int1", b_isfinite},
        {"isfinited", "fp64>int1", b_isfinite},
        {"signbit", "fp32>int32 fp64>int32", b_signbit},
        {"copysign", "fp32,fp32>fp32 fp64,fp64>fp64", b_copysign},
        {"nextafter", "fp32,fp32>fp32 fp64,fp64>fp64", b_nextafter},
        {"saturatef", "fp32>fp32", b_saturatef},
        {"fma", "fp32,fp32,fp32>fp32 fp64,fp64,fp64>fp64", b_fma},
        {"fma_rn", "fp32,fp32,fp32>fp32 fp64,fp64,fp64>fp64", b_fma},
        {"fmod", "fp32,fp32>fp32 fp64,fp64>fp64", b_fmod},
        {"remainder", "fp32,fp32>fp32 fp64,fp64>fp64", b_remainder},
        {"fdim", "fp32,fp32>fp32 fp64,fp64>fp64", b_fdim},
        {"ldexp", "fp32,int32>fp32 fp64,int32>fp64", b_ldexp},
        {"scalbn", "fp32,int32>fp32 fp64,int32>fp64", b_ldexp},
        {"ilogb", "fp32>int32 fp64>int32", b_ilogb},
        {"logb", "fp32>fp32 fp64>fp64", b_logb},
        {"int_as_float", "int32>fp32", b_bitcast<DType::F32>},
        {"float_as_int", "fp32>int32", b_bitcast<DType::I32>},
        {"uint_as_float", "uint32>fp32", b_bitcast<DType::F32>},
        {"float_as_uint", "fp32>int32", b_bitcast<DType::I32>},
        {"longlong_as_double", "int64>fp64", b_bitcast<DType::F64>},
        {"double_as_longlong", "fp64>int64", b_bitcast<DType::I64>},
        {"hiloint2double", "int32,int32>fp64", b_hiloint2double},
        {"double2loint", "fp64>int32", b_double2loint},
        {"double2hiint", "fp64>int32", b_double2hiint},
        {"int2double_rn", "int32>fp64", b_cast<DType::F64>},
        {"uint2double_rn", "uint32>fp64", b_cast<DType::F64>},
    };
    add_rounding_fns(v);
    add_int_fns(v);
    add_float_fns(v);
    add_special_fns(v);
    add_bessel_fns(v);
    add_pow_fns(v);
    return v;
  }();
  return t;
}

} // namespace
} // namespace tilec::sema::builtins::libdevice

namespace tilec::sema::builtins {

void add_libdevice_builtins(std::vector<Def> &t) {
  for (const auto &[name, en] : libdevice::entries())
    t.push_back({en.fn.name, en.signature.c_str(), libdevice::call, kLibdevice});
}

} // namespace tilec::sema::builtins
