// tl.dot_scaled: the matrix product of microscaled operands (OCP MX: e2m1 packed two per
// byte, e4m3, e5m2, with one e8m0 scale per 32 elements along K; bf16/fp16 partners).
// As Triton does on GPUs without native MX instructions, each operand is upcast to a
// 16-bit float (fp16 when either side is fp16, else bf16), multiplied by its scale, and
// the product is an ordinary tl.dot with an fp32 accumulator: every back end then runs it
// (tensor cores on the GPU). The upcast is exact: e2m1/e4m3/e5m2 values are all 16-bit
// floats and a scale is a power of two.
#include <cmath>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

struct Ops {
  Emitter &e;
  SourceLoc loc;
  Value *bin(OpKind k, Value *x, Value *y) const {
    auto [l, r] = broadcast_pair(e, x, y, loc);
    return emit(e, k, {l, r}, l->type, loc);
  }
  Value *k(Value *like, int64_t v) const {
    return make_int(e, Type::scalar_of(like->type.elem), v, loc);
  }
  Value *band(Value *x, int64_t m) const { return bin(OpKind::And, x, k(x, m)); }
  Value *shl(Value *x, int64_t s) const { return bin(OpKind::Shl, x, k(x, s)); }
  Value *eq(Value *x, int64_t v) const { return compare(e, "eq", x, k(x, v), loc); }
  Value *select(Value *c, Value *x, Value *y) const {
    auto [l, r] = broadcast_pair(e, x, y, loc);
    auto [cc, ll] = broadcast_pair(e, c, l, loc);
    return emit(e, OpKind::Select, {cc, ll, r}, ll->type, loc);
  }
};

// The 16-bit float formats the upcast may target: mantissa bits and exponent bias.
struct Half {
  DType d;
  int mant, bias;
};
Half half_of(DType d) { return d == DType::F16 ? Half{d, 10, 15} : Half{d, 7, 127}; }

// One e2m1 nibble (u16, 0..15: sign, two exponent bits, one mantissa bit) as the bits of
// `h`: 0 and the subnormal 0.5 by value, the normals by moving exponent and mantissa into
// place and rebiasing (e2m1's bias is 1).
Value *e2m1_bits(const Ops &o, Value *nib, Half h) {
  Value *mag = o.band(nib, 7);
  Value *normal = o.bin(OpKind::Add, o.shl(mag, h.mant - 1), o.k(mag, (h.bias - 1) << h.mant));
  Value *half_bits = o.k(mag, static_cast<int64_t>(h.bias - 1) << h.mant);
  Value *small = o.select(o.eq(mag, 1), half_bits, o.k(mag, 0));
  Value *bits = o.select(compare(o.e, "lt", mag, o.k(mag, 2), o.loc), small, normal);
  return o.bin(OpKind::Or, bits, o.shl(o.band(nib, 8), 12));
}

// Interleaves x0 and x1 (x0 first) along `axis`: join on a new last dim, move it after
// `axis`, merge the two.
Value *interleave_along(Emitter &e, Value *x0, Value *x1, int axis, SourceLoc loc) {
  Val j = call(e, "join", {Val::of(x0), Val::of(x1)}, loc);
  int r = x0->type.rank();
  std::vector<int64_t> perm;
  for (int i = 0; i < r; ++i) {
    perm.push_back(i);
    if (i == axis)
      perm.push_back(r);
  }
  Value *t = j.tensor;
  if (axis != r - 1)
    t = call(e, "permute", {j, Val::int_tuple(perm)}, loc).tensor;
  ir::Shape s = x0->type.shape;
  s[axis] *= 2;
  return reshape(e, t, s, loc);
}

// The operand's values as `h`, unpacked (e2m1 along `pack_axis`) or bitcast from their
// storage integers.
Value *upcast(Emitter &e, const Args &a, Value *v, const std::string &fmt, int pack_axis, Half h,
              const char *side) {
  SourceLoc loc = a.loc();
  Ops o{e, loc};
  if (fmt == "e2m1") {
    if (v->type.elem != DType::U8)
      a.fail(std::string("dot_scaled: e2m1 format must be packed as uint8. Got ") +
             dtype_name(v->type.elem) + " for " + side);
    Value *w = cast_dtype(e, v, DType::U16, loc);
    Value *lo = e2m1_bits(o, o.band(w, 0xF), h);
    Value *hi = e2m1_bits(o, o.bin(OpKind::Shr, w, o.k(w, 4)), h);
    Value *bits = interleave_along(e, lo, hi, pack_axis, loc);
    return bitcast_elem(e, bits, Type::scalar_of(h.d), loc);
  }
  DType fp = fmt == "e4m3"   ? DType::F8E4NV
             : fmt == "e5m2" ? DType::F8E5
             : fmt == "bf16" ? DType::BF16
                             : DType::F16;
  DType storage = (fp == DType::F8E4NV || fp == DType::F8E5) ? DType::U8 : DType::U16;
  if (v->type.elem != fp) {
    if (v->type.elem != storage)
      a.fail("dot_scaled: unexpected dtype for " + fmt + ". Got " + dtype_name(v->type.elem) +
             " for " + side);
    v = bitcast_elem(e, v, Type::scalar_of(fp), loc);
  }
  return fp == h.d ? v : cast_dtype(e, v, h.d, loc);
}

// Multiplies `x` ([.., M, K] for the lhs; [.., N, K]-major scales for the rhs, whose `x`
// is [.., K, N]) by its scales: e8m0 (uint8, 2^(s-127), 0xFF is NaN unless fast_math)
// per 32 elements along K, or fp8e4m3 values per 16.
Value *apply_scale(Emitter &e, const Args &a, Value *x, Value *scale, bool rhs, Half h,
                   bool fast_math) {
  SourceLoc loc = a.loc();
  Ops o{e, loc};
  int r = x->type.rank();
  int64_t rows = x->type.shape[rhs ? r - 1 : r - 2], K = x->type.shape[rhs ? r - 2 : r - 1];
  bool e8m0 = scale->type.elem == DType::U8;
  if (!e8m0 && scale->type.elem != DType::F8E4NV)
    a.fail(std::string("dot_scaled: ") + (rhs ? "rhs" : "lhs") +
           "_scale must be uint8 (e8m0) or float8e4nv, got " + dtype_name(scale->type.elem));
  int64_t group = e8m0 ? 32 : 16;
  ir::Shape want(x->type.shape.begin(), x->type.shape.end() - 2);
  want.push_back(rows);
  want.push_back(K / group);
  if (K % group != 0 || scale->type.shape != want) {
    // Triton's words, which its tests compare (the shape it got printed as a list of strings)
    std::string got;
    for (int64_t d : scale->type.shape)
      got += (got.empty() ? "'" : ", '") + std::to_string(d) + "'";
    a.fail(std::string(rhs ? "rhs" : "lhs") + "_scale must be a tensor of shape " +
           shape_str(want) + ". Got [" + got + "]");
  }

  Value *factor;
  if (e8m0 && h.d == DType::BF16) {
    // bf16 shares fp32's 8-bit exponent: the scale byte is the exponent field.
    factor = bitcast_elem(e, o.shl(cast_dtype(e, scale, DType::U16, loc), 7),
                          Type::scalar_of(DType::BF16), loc);
  } else if (e8m0) {
    Value *f32 = bitcast_elem(e, o.shl(cast_dtype(e, scale, DType::U32, loc), 23),
                              Type::scalar_of(DType::F32), loc);
    factor = cast_dtype(e, f32, h.d, loc);
  } else {
    factor = cast_dtype(e, scale, h.d, loc);
  }
  // [.., rows, K/g] -> [.., rows, K/g, g] -> [.., rows, K], transposed for the rhs.
  auto expand = [&](Value *s) {
    ir::Shape b = s->type.shape;
    s = expand_dims(e, s, r, loc);
    b.push_back(group);
    s = broadcast_to(e, s, b, loc);
    ir::Shape m(want.begin(), want.end() - 1);
    m.push_back(K);
    s = reshape(e, s, m, loc);
    if (!rhs)
      return s;
    std::vector<int64_t> perm;
    for (int i = 0; i < r - 2; ++i)
      perm.push_back(i);
    perm.push_back(r - 1);
    perm.push_back(r - 2);
    return call(e, "permute", {Val::of(s), Val::int_tuple(perm)}, loc).tensor;
  };
  Value *y = o.bin(OpKind::Mul, x, expand(factor));
  if (e8m0 && !fast_math) {
    Value *nan = make_float(e, Type::scalar_of(h.d), std::nan(""), loc);
    y = o.select(expand(o.eq(scale, 0xFF)), nan, y);
  }
  return y;
}

bool is_none(const Val &v) { return v.kind == Val::Kind::None; }

Val dot_scaled(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  Value *lhs = a.tensor("lhs"), *rhs = a.tensor("rhs");
  std::string lf = a.const_str("lhs_format"), rf = a.const_str("rhs_format");
  for (const std::string &f : {lf, rf})
    if (f != "e2m1" && f != "e4m3" && f != "e5m2" && f != "bf16" && f != "fp16")
      a.fail("dot_scaled: unsupported format '" + f +
             "' (expected one of e2m1, e4m3, e5m2, bf16, fp16)");
  int r = lhs->type.rank();
  if (!((r == 2 || r == 3) && rhs->type.rank() == r))
    a.fail("dot_scaled: both inputs must be either 2D or 3D; (lhs: " + shape_str(lhs->type.shape) +
           " vs rhs: " + shape_str(rhs->type.shape) + ")");
  bool lk = a.const_bool("lhs_k_pack"), rk = a.const_bool("rhs_k_pack");
  if ((!lk && lf != "e2m1") || (!rk && rf != "e2m1"))
    a.fail("dot_scaled: only mxfp4 inputs can be packed along a dimension different than K");
  if (a.const_dtype("out_dtype").elem != DType::F32)
    a.fail("dot_scaled: only float32 is supported for out_dtype at the moment");

  // Packed e2m1 holds two values per byte along K, or along M/N when not k-packed.
  int64_t lpack = lf == "e2m1" ? 2 : 1, rpack = rf == "e2m1" ? 2 : 1;
  int64_t KL = lhs->type.shape[r - 1] * (lk ? lpack : 1);
  int64_t KR = rhs->type.shape[r - 2] * (rk ? rpack : 1);
  if (KL != KR)
    a.fail("dot_scaled: reduction dimension should pack the same number of elements; (lhs: " +
           shape_str(lhs->type.shape) + " vs rhs: " + shape_str(rhs->type.shape) + ")");

  Half h = half_of(lf == "fp16" || rf == "fp16" ? DType::F16 : DType::BF16);
  Value *x = upcast(e, a, lhs, lf, lk ? r - 1 : r - 2, h, "lhs");
  Value *y = upcast(e, a, rhs, rf, rk ? r - 2 : r - 1, h, "rhs");
  bool fast = a.const_bool("fast_math");
  if (!is_none(a["lhs_scale"]))
    x = apply_scale(e, a, x, a.tensor("lhs_scale"), false, h, fast);
  if (!is_none(a["rhs_scale"]))
    y = apply_scale(e, a, y, a.tensor("rhs_scale"), true, h, fast);
  return call(e, "dot", {Val::of(x), Val::of(y), a["acc"]}, loc);
}

} // namespace

void add_scaled_dot_builtins(std::vector<Def> &t) {
  t.push_back({"dot_scaled",
               "lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, "
               "fast_math=False, lhs_k_pack=True, rhs_k_pack=True, out_dtype=float32",
               dot_scaled, kTl});
}

} // namespace tilec::sema::builtins
