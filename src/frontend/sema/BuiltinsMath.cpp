// Elementwise math builtins: where, minimum/maximum/clamp, exp & co (with Triton's
// dtype checks), abs, fma, umulhi, fdiv, div_rn, cdiv, sigmoid, add/sub/mul, and the
// tensor methods logical_and / logical_or.
#include <tuple>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

Val where(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  Value *c = a.tensor("condition");
  if (c->type.is_ptr() || c->type.elem != DType::I1) // Triton's words
    e.warn(loc, "tl.where with a non-boolean condition is deprecated and will error out in a "
                "future triton release. Got " + elem_name(c->type));
  Value *cond = truth(e, c, loc);
  auto [x, y] = binary_operands(e, a["x"], a["y"], true, true, true, false, loc);
  if (x->type.element() != y->type.element())
    a.fail("where(): x and y must have one type, got " + elem_name(x->type) + " and " +
           elem_name(y->type));
  ir::Shape s = broadcast_shape(cond->type.shape, x->type.shape, loc);
  cond = broadcast_to(e, cond, s, loc);
  x = broadcast_to(e, x, s, loc);
  y = broadcast_to(e, y, s, loc);
  return Val::of(emit(e, OpKind::Select, {cond, x, y}, x->type, loc));
}

// hardware has no bf16 min/max/compare: Triton computes those in fp32.
Value *promote_bf16(Emitter &e, Value *v, SourceLoc loc) {
  return !v->type.is_ptr() && v->type.elem == DType::BF16 ? cast_dtype(e, v, DType::F32, loc) : v;
}

Val min_max(Emitter &e, const Args &a, OpKind k) {
  SourceLoc loc = a.loc();
  Val x = Val::of(promote_bf16(e, a.tensor("x"), loc));
  Val y = Val::of(promote_bf16(e, a.tensor("y"), loc));
  auto [l, r] = binary_operands(e, x, y, false, false, true, false, loc);
  std::vector<ir::NamedAttr> attrs;
  if (ir::is_float(l->type.elem))
    attrs.push_back({"propagate_nan", static_cast<int64_t>(a.const_bool("propagate_nan"))});
  return Val::of(emit(e, k, {l, r}, l->type, loc, std::move(attrs)));
}

Val minimum(Emitter &e, const Args &a) { return min_max(e, a, OpKind::Min); }
Val maximum(Emitter &e, const Args &a) { return min_max(e, a, OpKind::Max); }

Val clamp(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  Value *x = promote_bf16(e, a.tensor("x"), loc);
  Value *lo = promote_bf16(e, a.tensor("min"), loc);
  Value *hi = promote_bf16(e, a.tensor("max"), loc);
  std::tie(lo, hi) = binary_operands(e, Val::of(lo), Val::of(hi), false, false, true, false, loc);
  std::tie(x, lo) = binary_operands(e, Val::of(x), Val::of(lo), false, false, true, false, loc);
  std::tie(x, hi) = binary_operands(e, Val::of(x), Val::of(hi), false, false, true, false, loc);
  if (!ir::is_float(x->type.elem))
    a.fail("Unexpected dtype " + dtype_name(x->type.elem) +
           ". Only floating point clamp is supported");
  std::tie(lo, hi) = broadcast_pair(e, lo, hi, loc);
  std::tie(x, lo) = broadcast_pair(e, x, lo, loc);
  hi = broadcast_to(e, hi, x->type.shape, loc);
  int64_t nan = a.const_bool("propagate_nan");
  // clamp(x) = min(max(x, lo), hi); NaN in x propagates when asked (NaN bounds: undefined).
  Value *m = emit(e, OpKind::Max, {x, lo}, x->type, loc, {{"propagate_nan", nan}});
  return Val::of(emit(e, OpKind::Min, {m, hi}, x->type, loc, {{"propagate_nan", nan}}));
}

void check_dtype(const Args &a, Value *x, std::initializer_list<DType> ok) {
  for (DType d : ok)
    if (!x->type.is_ptr() && x->type.elem == d)
      return;
  std::string list;
  for (DType d : ok)
    list += (list.empty() ? "'" : ", '") + dtype_name(d) + "'";
  a.fail("Expected dtype [" + list + "] but got " + elem_name(x->type) + " (in tl." + a.fn() + ")");
}

Val unary_math(Emitter &e, const Args &a, OpKind k, bool fp32_only = false) {
  Value *x = a.tensor("x");
  if (fp32_only)
    check_dtype(a, x, {DType::F32});
  else
    check_dtype(a, x, {DType::F32, DType::F64});
  std::vector<ir::NamedAttr> attrs;
  if (fp32_only)
    attrs.push_back({"rounding", std::string("rn")});
  return Val::of(emit(e, k, {x}, x->type, a.loc(), std::move(attrs)));
}

Val exp_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Exp); }
Val exp2_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Exp2); }
Val log_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Log); }
Val log2_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Log2); }
Val sqrt_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Sqrt); }
Val sqrt_rn(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Sqrt, true); }
Val rsqrt_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Rsqrt); }
Val sin_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Sin); }
Val cos_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Cos); }
Val erf_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Erf); }
Val floor_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Floor); }
Val ceil_(Emitter &e, const Args &a) { return unary_math(e, a, OpKind::Ceil); }

Val abs_(Emitter &e, const Args &a) {
  Value *x = a.tensor("x");
  if (x->type.is_ptr())
    a.fail("abs(): unexpected dtype " + elem_name(x->type));
  if (ir::is_unsigned_int(x->type.elem) || ir::is_bool(x->type.elem))
    return Val::of(x);
  return Val::of(emit(e, OpKind::Abs, {x}, x->type, a.loc()));
}

Val fma_(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  Value *x = a.tensor("x"), *y = a.tensor("y"), *z = a.tensor("z");
  std::tie(x, y) = binary_operands(e, Val::of(x), Val::of(y), false, false, true, false, loc);
  std::tie(z, x) = binary_operands(e, Val::of(z), Val::of(x), false, false, true, false, loc);
  std::tie(z, y) = binary_operands(e, Val::of(z), Val::of(y), false, false, true, false, loc);
  std::tie(x, y) = broadcast_pair(e, x, y, loc);
  z = broadcast_to(e, z, x->type.shape, loc);
  if (!ir::is_float(x->type.elem))
    a.fail("fma(): expects floating point operands, got " + dtype_name(x->type.elem));
  return Val::of(emit(e, OpKind::Fma, {x, y, z}, x->type, loc));
}

Val umulhi(Emitter &e, const Args &a) {
  Value *x = a.tensor("x"), *y = a.tensor("y");
  check_dtype(a, x, {DType::I32, DType::I64, DType::U32, DType::U64});
  check_dtype(a, y, {DType::I32, DType::I64, DType::U32, DType::U64});
  auto [l, r] = binary_operands(e, Val::of(x), Val::of(y), false, false, true, false, a.loc());
  return Val::of(emit(e, OpKind::Umulhi, {l, r}, l->type, a.loc()));
}

Val fdiv(Emitter &e, const Args &a) {
  Value *x = a.tensor("x"), *y = a.tensor("y");
  if (x->type.is_ptr() || y->type.is_ptr() || !ir::is_float(x->type.elem) ||
      !ir::is_float(y->type.elem))
    a.fail("both operands of fdiv must have floating scalar type, got " + elem_name(x->type) +
           " and " + elem_name(y->type));
  auto [l, r] = binary_operands(e, Val::of(x), Val::of(y), false, false, true, false, a.loc());
  std::vector<ir::NamedAttr> attrs;
  if (a.const_bool("ieee_rounding"))
    attrs.push_back({"rounding", std::string("rn")});
  return Val::of(emit(e, OpKind::Div, {l, r}, l->type, a.loc(), std::move(attrs)));
}

Val div_rn(Emitter &e, const Args &a) {
  Value *x = a.tensor("x"), *y = a.tensor("y");
  check_dtype(a, x, {DType::F32});
  check_dtype(a, y, {DType::F32});
  auto [l, r] = broadcast_pair(e, x, y, a.loc());
  return Val::of(emit(e, OpKind::Div, {l, r}, l->type, a.loc(), {{"rounding", std::string("rn")}}));
}

// cdiv and sigmoid are @jit functions in Triton: compose them from the operators.
Val cdiv(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  const Val &x = a["x"], &d = a["div"];
  Val t = binary_op(e, ast::BinOp::Add, x, d, loc);
  t = binary_op(e, ast::BinOp::Sub, t, Val::integer(1), loc);
  return binary_op(e, ast::BinOp::FloorDiv, t, d, loc);
}

// triton.language.standard's constexpr helpers (Triton's constexpr_function), which
// Inductor imports for its sort and scan helpers: floor(log2(i)), and whether i is a
// power of two.
Val log2_const(Emitter &, const Args &a) {
  int64_t n = a.const_int("i"), r = 0;
  for (; n > 1; n >>= 1)
    ++r;
  return Val::integer(r);
}

Val is_power_of_two_const(Emitter &, const Args &a) {
  int64_t n = a.const_int("i");
  return Val::boolean(n != 0 && (n & (n - 1)) == 0);
}

// tl.core.get_int_dtype(bitwidth, signed): the integer dtype of that width (Inductor's
// bitonic sort bitcasts its keys with it).
Val get_int_dtype(Emitter &, const Args &a) {
  int64_t bits = a.const_int("bitwidth");
  bool is_signed = a.const_bool("signed");
  if (bits == 1)
    return Val::dtype(ir::Type(ir::DType::I1));
  std::string name = (is_signed ? "int" : "uint") + std::to_string(bits);
  std::optional<ir::DType> d = ir::dtype_from_python_name(name);
  if (!d || bits < 8)
    a.fail("unsupported bitwidth " + std::to_string(bits) + " (1, 8, 16, 32 or 64)");
  return Val::dtype(ir::Type(*d));
}

Val sigmoid(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  Val neg = unary_op(e, ast::UnaryOp::Neg, Val::of(a.tensor("x")), loc);
  Val ex = call(e, "exp", {neg}, loc);
  Val den = binary_op(e, ast::BinOp::Add, Val::integer(1), ex, loc);
  return binary_op(e, ast::BinOp::Div, Val::integer(1), den, loc);
}

// tl.add/sub/mul: the operators `+ - *` (Triton's semantic.add/sub/mul). As for the
// operators, tilec does not check integer overflow (Triton asserts on it only in debug
// mode with sanitize_overflow), so the flag is checked to be a constexpr and ignored.
Val arith(Emitter &e, const Args &a, ast::BinOp op) {
  (void)a.const_bool("sanitize_overflow");
  Val x = a["x"];
  if (is_number(x) && is_number(a["y"])) // Triton makes tensors of two numbers
    x = Val::of(a.tensor("x"));
  else if (!x.is_tensor() && !is_number(x))
    (void)a.tensor("x"); // names the bad argument
  if (!a["y"].is_tensor() && !is_number(a["y"]))
    (void)a.tensor("y");
  return binary_op(e, op, x, a["y"], a.loc());
}
Val add(Emitter &e, const Args &a) { return arith(e, a, ast::BinOp::Add); }
Val sub(Emitter &e, const Args &a) { return arith(e, a, ast::BinOp::Sub); }
Val mul(Emitter &e, const Args &a) { return arith(e, a, ast::BinOp::Mul); }

// standard.py's swizzle2d: row-major indices of a size_i x size_j matrix to indices that
// are column-major within each group of size_g rows.
Val swizzle2d(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  auto op = [&](ast::BinOp o, const Val &x, const Val &y) { return binary_op(e, o, x, y, loc); };
  Val ij = op(ast::BinOp::Add, op(ast::BinOp::Mul, a["i"], a["size_j"]), a["j"]);
  Val size_gj = op(ast::BinOp::Mul, a["size_g"], a["size_j"]);
  Val group_id = op(ast::BinOp::FloorDiv, ij, size_gj);
  Val off_i = op(ast::BinOp::Mul, group_id, a["size_g"]);
  Val rows = op(ast::BinOp::Sub, a["size_i"], off_i);
  Val size_g = rows.is_tensor() || a["size_g"].is_tensor()
                   ? call(e, "minimum", {rows, a["size_g"]}, loc)
                   : (rows.kind == Val::Kind::Int && rows.i < a["size_g"].i ? rows : a["size_g"]);
  ij = op(ast::BinOp::Mod, ij, size_gj);
  Val new_i = op(ast::BinOp::Add, off_i, op(ast::BinOp::Mod, ij, size_g));
  Val new_j = op(ast::BinOp::FloorDiv, ij, size_g);
  return Val::tuple({new_i, new_j});
}

// tl.assume only informs the optimiser; the condition is evaluated and dropped.
Val assume(Emitter &e, const Args &a) {
  (void)a.tensor("cond");
  (void)e;
  return Val::none();
}

// libdevice's tanh (tl.math.tanh in older Triton), from exp without overflow:
// tanh(x) = sign(x) * (1 - e) / (1 + e) with e = exp(-2|x|).
Val tanh_(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  Value *x = a.tensor("x");
  check_dtype(a, x, {DType::F32, DType::F64});
  Value *ax = emit(e, OpKind::Abs, {x}, x->type, loc);
  Value *m2 = make_float(e, x->type, -2.0, loc);
  Value *ex = emit(e, OpKind::Exp, {emit(e, OpKind::Mul, {ax, m2}, x->type, loc)}, x->type, loc);
  Value *one = make_float(e, x->type, 1.0, loc);
  Value *num = emit(e, OpKind::Sub, {one, ex}, x->type, loc);
  Value *den = emit(e, OpKind::Add, {one, ex}, x->type, loc);
  Value *t = emit(e, OpKind::Div, {num, den}, x->type, loc);
  Value *neg = compare(e, "lt", x, make_float(e, x->type, 0.0, loc), loc);
  return Val::of(
      emit(e, OpKind::Select, {neg, emit(e, OpKind::Neg, {t}, x->type, loc), t}, x->type, loc));
}

// x.logical_and(y) / x.logical_or(y): elementwise on truth values (Inductor's helpers use
// them on masks).
Val logical(Emitter &e, const Args &a, bool is_and) {
  SourceLoc loc = a.loc();
  Value *x = truth(e, a.tensor("input"), loc);
  Value *y = truth(e, a.tensor("other"), loc);
  return binary_op(e, is_and ? ast::BinOp::BitAnd : ast::BinOp::BitOr, Val::of(x), Val::of(y), loc);
}

Val logical_and(Emitter &e, const Args &a) { return logical(e, a, true); }
Val logical_or(Emitter &e, const Args &a) { return logical(e, a, false); }

} // namespace

void add_math_builtins(std::vector<Def> &t) {
  const unsigned fn = kTl | kMath | kMethod;
  t.insert(t.end(), {
                        {"where", "condition, x, y", where, kTl},
                        {"logical_and", "input, other", logical_and, kMethod},
                        {"logical_or", "input, other", logical_or, kMethod},
                        {"minimum", "x, y, propagate_nan=0", minimum, kTl},
                        {"maximum", "x, y, propagate_nan=0", maximum, kTl},
                        {"clamp", "x, min, max, propagate_nan=0", clamp, kTl},
                        {"exp", "x", exp_, fn},
                        {"exp2", "x", exp2_, fn},
                        {"log", "x", log_, fn},
                        {"log2", "x", log2_, fn},
                        {"sqrt", "x", sqrt_, fn},
                        {"sqrt_rn", "x", sqrt_rn, fn},
                        {"rsqrt", "x", rsqrt_, fn},
                        {"sin", "x", sin_, fn},
                        {"cos", "x", cos_, fn},
                        {"erf", "x", erf_, fn},
                        {"floor", "x", floor_, fn},
                        {"ceil", "x", ceil_, fn},
                        {"abs", "x", abs_, fn},
                        {"fma", "x, y, z", fma_, kTl | kMath},
                        {"umulhi", "x, y", umulhi, kTl | kMath},
                        {"fdiv", "x, y, ieee_rounding=False", fdiv, kTl | kMath},
                        {"div_rn", "x, y", div_rn, kTl | kMath},
                        {"cdiv", "x, div", cdiv, kTl | kMethod},
                        {"add", "x, y, sanitize_overflow=True", add, kTl},
                        {"sub", "x, y, sanitize_overflow=True", sub, kTl},
                        {"mul", "x, y, sanitize_overflow=True", mul, kTl},
                        {"sigmoid", "x", sigmoid, kTl | kMethod},
                        {"tanh", "x", tanh_, kMath},
                        {"swizzle2d", "i, j, size_i, size_j, size_g", swizzle2d, kTl},
                        {"assume", "cond", assume, kTl},
                        {"_log2", "i", log2_const, kTl},
                        {"_is_power_of_two", "i", is_power_of_two_const, kTl},
                        {"get_int_dtype", "bitwidth, signed", get_int_dtype, kTl},
                    });
}

} // namespace tilec::sema::builtins
