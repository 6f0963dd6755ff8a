// Triton's counter-based random numbers (tl.randint, rand, randn and their 4x forms,
// philox): Philox4x32-10 (or 4x64 for 64-bit counters) keyed by the seed, one counter per
// offset, composed from integer ops every back end already runs. The values are Triton's,
// bit for bit (tests/python/test_random.py holds values taken from Triton 3.6).
#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

// Philox's multipliers and Weyl key increments (Salmon et al., SC'11), for 32- and 64-bit
// words.
struct PhiloxConsts {
  uint64_t round_a, round_b, key_a, key_b;
};
constexpr PhiloxConsts kPhilox32{0xD2511F53u, 0xCD9E8D57u, 0x9E3779B9u, 0xBB67AE85u};
constexpr PhiloxConsts kPhilox64{0xD2E7470EE14C6C93ull, 0xCA5A826395121157ull,
                                 0x9E3779B97F4A7C15ull, 0xBB67AE8584CAA73Bull};

// Ops on unsigned words that wrap, as Triton's (sanitize_overflow=False) do.
struct Words {
  Emitter &e;
  SourceLoc loc;
  Value *op(OpKind k, Value *x, Value *y) const {
    auto [l, r] = broadcast_pair(e, x, y, loc);
    return emit(e, k, {l, r}, l->type, loc);
  }
  Value *konst(DType d, uint64_t v) const {
    return make_int(e, Type::scalar_of(d), static_cast<int64_t>(v), loc);
  }
};

int rounds(const Args &a) {
  int64_t n = a.const_int("n_rounds");
  if (n < 0)
    a.fail(a.fn() + "(): n_rounds must be >= 0, got " + std::to_string(n));
  // Every round is unrolled (as Triton's static_range loop does): cap the code it makes.
  constexpr int64_t kMaxRounds = 1024;
  if (n > kMaxRounds)
    a.fail(a.fn() + "(): n_rounds = " + std::to_string(n) +
           " is too many rounds to unroll (at most " + std::to_string(kMaxRounds) +
           "; Philox uses 10)");
  return static_cast<int>(n);
}

Value *int_tensor(const Args &a, std::string_view name) {
  Value *v = a.tensor(name);
  if (v->type.is_ptr() || !ir::is_int(v->type.elem) || v->type.elem == DType::I1)
    a.fail(a.fn() + "(): " + std::string(name) + " must be an integer, got " + elem_name(v->type));
  return v;
}

std::vector<Value *> philox_rounds(const Words &w, DType d, std::vector<Value *> c, Value *k0,
                                   Value *k1, int n) {
  const PhiloxConsts &p = d == DType::U32 ? kPhilox32 : kPhilox64;
  Value *ra = w.konst(d, p.round_a), *rb = w.konst(d, p.round_b);
  Value *ka = w.konst(d, p.key_a), *kb = w.konst(d, p.key_b);
  for (int i = 0; i < n; ++i) {
    Value *c0 = w.op(OpKind::Xor, w.op(OpKind::Xor, w.op(OpKind::Umulhi, rb, c[2]), c[1]), k0);
    Value *c2 = w.op(OpKind::Xor, w.op(OpKind::Xor, w.op(OpKind::Umulhi, ra, c[0]), c[3]), k1);
    Value *c1 = w.op(OpKind::Mul, rb, c[2]);
    Value *c3 = w.op(OpKind::Mul, ra, c[0]);
    c = {c0, c1, c2, c3};
    k0 = w.op(OpKind::Add, k0, ka);
    k1 = w.op(OpKind::Add, k1, kb);
  }
  return c;
}

Val tuple_of(const std::vector<Value *> &v) {
  std::vector<Val> out;
  for (Value *x : v)
    out.push_back(Val::of(x));
  return Val::tuple(std::move(out));
}

// philox(seed, c0..c3): the counters' width picks 32- or 64-bit words; a 32-bit key is
// the seed's two halves, a 64-bit one the seed and 0 (a (1,) tile, as in Triton).
std::vector<Value *> philox_words(Emitter &e, const Args &a, Value *seed, std::vector<Value *> c,
                                  int n) {
  Words w{e, a.loc()};
  int bits = ir::bits(c[0]->type.elem);
  if (bits != 32 && bits != 64)
    a.fail(a.fn() + "(): counters of " + std::to_string(bits) +
           " bits are not supported (32 or 64)");
  DType d = bits == 32 ? DType::U32 : DType::U64;
  Value *s = cast_dtype(e, seed, DType::U64, a.loc());
  Value *k0, *k1;
  if (d == DType::U32) {
    k0 = cast_dtype(e, s, DType::U32, a.loc());
    k1 = cast_dtype(e, w.op(OpKind::Shr, s, w.konst(DType::U64, 32)), DType::U32, a.loc());
  } else {
    k0 = s;
    k1 = make_int(e, Type(DType::U64, false, {1}), 0, a.loc());
  }
  for (Value *&x : c) {
    if (ir::bits(x->type.elem) != bits)
      a.fail(a.fn() + "(): the counters must have one width, got " + elem_name(c[0]->type) +
             " and " + elem_name(x->type));
    x = bitcast_elem(e, x, Type(d), a.loc());
  }
  return philox_rounds(w, d, std::move(c), k0, k1, n);
}

Val philox(Emitter &e, const Args &a) {
  std::vector<Value *> c;
  for (const char *n : {"c0", "c1", "c2", "c3"})
    c.push_back(int_tensor(a, n));
  return tuple_of(philox_words(e, a, int_tensor(a, "seed"), std::move(c), rounds(a)));
}

// philox_impl(c0..c3, k0, k1): the rounds alone, on uint32 or uint64 words.
Val philox_impl(Emitter &e, const Args &a) {
  std::vector<Value *> c;
  for (const char *n : {"c0", "c1", "c2", "c3"})
    c.push_back(int_tensor(a, n));
  DType d = c[0]->type.elem;
  if (d != DType::U32 && d != DType::U64)
    a.fail("philox_impl(): counters must be uint32 or uint64, got " + elem_name(c[0]->type));
  Words w{e, a.loc()};
  for (Value *&x : c)
    x = cast_dtype(e, x, d, a.loc());
  Value *k0 = cast_dtype(e, int_tensor(a, "k0"), d, a.loc());
  Value *k1 = cast_dtype(e, int_tensor(a, "k1"), d, a.loc());
  return tuple_of(philox_rounds(w, d, std::move(c), k0, k1, rounds(a)));
}

// randint4x(seed, offset): counters (offset's low 32 bits, its high 32 bits or 0, 0, 0).
std::vector<Value *> randint4x_words(Emitter &e, const Args &a) {
  Value *off = int_tensor(a, "offset");
  Value *lo = cast_dtype(e, off, DType::U32, a.loc());
  Value *zero = make_int(e, lo->type, 0, a.loc());
  Value *hi = zero;
  if (ir::bits(off->type.elem) > 32) {
    Words w{e, a.loc()};
    hi = cast_dtype(e, w.op(OpKind::Shr, off, w.konst(off->type.elem, 32)), DType::U32, a.loc());
  }
  return philox_words(e, a, int_tensor(a, "seed"), {lo, hi, zero, zero}, rounds(a));
}

// A random word to a float in [0, 1): its two's-complement magnitude, scaled.
Value *to_uniform(Emitter &e, Value *x, const Args &a) {
  SourceLoc loc = a.loc();
  bool narrow = x->type.elem == DType::U32 || x->type.elem == DType::I32;
  if (!narrow && x->type.elem != DType::U64 && x->type.elem != DType::I64)
    a.fail(a.fn() + "(): expects 32- or 64-bit integers, got " + elem_name(x->type));
  Value *s = bitcast_elem(e, x, Type(narrow ? DType::I32 : DType::I64), loc);
  Val v = Val::of(s);
  Val neg = compare_op(e, ast::CmpOp::Lt, v, Val::integer(0), loc);
  Val flipped =
      binary_op(e, ast::BinOp::Sub, unary_op(e, ast::UnaryOp::Neg, v, loc), Val::integer(1), loc);
  Val mag = call(e, "where", {neg, flipped, v}, loc);
  return as_tensor(e,
                   binary_op(e, ast::BinOp::Mul, mag,
                             Val::floating(narrow ? 4.6566127342e-10 : 1.0842020432385337e-19),
                             loc),
                   loc);
}

// Box-Muller: two uniforms to two standard normals.
std::pair<Value *, Value *> to_normal(Emitter &e, Value *u1, Value *u2, SourceLoc loc) {
  Val a = call(e, "maximum", {Val::floating(1.0e-7), Val::of(u1)}, loc);
  Val th = binary_op(e, ast::BinOp::Mul, Val::floating(6.283185307179586), Val::of(u2), loc);
  Val lg = call(e, "log", {a}, loc);
  Val r = call(e, "sqrt", {binary_op(e, ast::BinOp::Mul, Val::floating(-2.0), lg, loc)}, loc);
  Val c = binary_op(e, ast::BinOp::Mul, r, call(e, "cos", {th}, loc), loc);
  Val s = binary_op(e, ast::BinOp::Mul, r, call(e, "sin", {th}, loc), loc);
  return {as_tensor(e, c, loc), as_tensor(e, s, loc)};
}

Val randint(Emitter &e, const Args &a) { return Val::of(randint4x_words(e, a)[0]); }

Val randint4x(Emitter &e, const Args &a) { return tuple_of(randint4x_words(e, a)); }

Val rand(Emitter &e, const Args &a) { return Val::of(to_uniform(e, randint4x_words(e, a)[0], a)); }

Val rand4x(Emitter &e, const Args &a) {
  std::vector<Value *> w = randint4x_words(e, a);
  for (Value *&x : w)
    x = to_uniform(e, x, a);
  return tuple_of(w);
}

Val randn(Emitter &e, const Args &a) {
  std::vector<Value *> w = randint4x_words(e, a);
  return Val::of(to_normal(e, to_uniform(e, w[0], a), to_uniform(e, w[1], a), a.loc()).first);
}

Val randn4x(Emitter &e, const Args &a) {
  std::vector<Value *> w = randint4x_words(e, a);
  for (Value *&x : w)
    x = to_uniform(e, x, a);
  auto [n1, n2] = to_normal(e, w[0], w[1], a.loc());
  auto [n3, n4] = to_normal(e, w[2], w[3], a.loc());
  return tuple_of({n1, n2, n3, n4});
}

Val uint_to_uniform_float(Emitter &e, const Args &a) {
  return Val::of(to_uniform(e, a.tensor("x"), a));
}

Val pair_uniform_to_normal(Emitter &e, const Args &a) {
  auto [n1, n2] = to_normal(e, a.tensor("u1"), a.tensor("u2"), a.loc());
  return tuple_of({n1, n2});
}

} // namespace

void add_random_builtins(std::vector<Def> &t) {
  t.insert(t.end(), {
                        {"randint", "seed, offset, n_rounds=10", randint, kTl},
                        {"randint4x", "seed, offset, n_rounds=10", randint4x, kTl},
                        {"rand", "seed, offset, n_rounds=10", rand, kTl},
                        {"rand4x", "seed, offset, n_rounds=10", rand4x, kTl},
                        {"randn", "seed, offset, n_rounds=10", randn, kTl},
                        {"randn4x", "seed, offset, n_rounds=10", randn4x, kTl},
                        {"philox", "seed, c0, c1, c2, c3, n_rounds=10", philox, kTl},
                        {"philox_impl", "c0, c1, c2, c3, k0, k1, n_rounds=10", philox_impl, kTl},
                        {"uint_to_uniform_float", "x", uint_to_uniform_float, kTl},
                        {"pair_uniform_to_normal", "u1, u2", pair_uniform_to_normal, kTl},
                    });
}

} // namespace tilec::sema::builtins
