// tl.dot: shape and dtype rules of semantic.py's dot, for [M,K]x[K,N] and batched
// [B,M,K]x[B,K,N] operands.
#include <algorithm>
#include <cctype>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

using ir::is_fp8;

// `v` as the sum of `parts` bf16 values, each the rounding of what the previous ones
// leave. (As in Triton, an infinite operand then gives NaN: inf - inf in the parts.)
std::vector<Value *> bf16_parts(Emitter &e, Value *v, int parts, SourceLoc loc) {
  std::vector<Value *> out;
  for (int i = 0; i < parts; ++i) {
    Value *p = cast_dtype(e, v, DType::BF16, loc);
    out.push_back(p);
    if (i + 1 == parts)
      break;
    v = emit(e, OpKind::Sub, {v, cast_dtype(e, p, DType::F32, loc)}, v->type, loc);
  }
  return out;
}

// input_precision="bf16x3" / "bf16x6": fp32 operands split into 2 / 3 bf16 parts whose
// 3 / 6 largest cross products run on bf16 tensor cores, the smallest terms first.
Value *bf16_split_dot(Emitter &e, Value *x, Value *y, Value *acc, int parts, SourceLoc loc) {
  std::vector<Value *> xs = bf16_parts(e, x, parts, loc), ys = bf16_parts(e, y, parts, loc);
  std::vector<std::pair<int, int>> terms =
      parts == 2 ? std::vector<std::pair<int, int>>{{1, 0}, {0, 1}, {0, 0}}
                 : std::vector<std::pair<int, int>>{{2, 0}, {1, 1}, {0, 2}, {1, 0}, {0, 1}, {0, 0}};
  for (auto [i, j] : terms)
    acc = emit(e, OpKind::Dot, {xs[i], ys[j], acc}, acc->type, loc,
               {{"input_precision", std::string("ieee")}, {"max_num_imprecise_acc", int64_t{0}}});
  return acc;
}

Val dot(Emitter &e, const Args &a);

// input_precision="tf32x3": each fp32 operand is a tf32 head (its low 13 mantissa bits
// cleared) plus the remainder; three tf32 tensor-core products, the small ones first.
Value *tf32x3_dot(Emitter &e, Value *x, Value *y, Value *acc, SourceLoc loc) {
  auto split = [&](Value *v) {
    Type u = v->type.with_elem(DType::U32);
    Value *bits = bitcast_elem(e, v, Type::scalar_of(DType::U32), loc);
    Value *head = emit(e, OpKind::And, {bits, make_int(e, u, 0xFFFFE000LL, loc)}, u, loc);
    Value *hi = bitcast_elem(e, head, Type::scalar_of(DType::F32), loc);
    return std::pair{hi, emit(e, OpKind::Sub, {v, hi}, v->type, loc)};
  };
  auto [xh, xl] = split(x);
  auto [yh, yl] = split(y);
  std::pair<Value *, Value *> terms[] = {{xl, yh}, {xh, yl}, {xh, yh}};
  for (auto [p, q] : terms)
    acc = emit(e, OpKind::Dot, {p, q, acc}, acc->type, loc,
               {{"input_precision", std::string("tf32")}, {"max_num_imprecise_acc", int64_t{0}}});
  return acc;
}

// Rank >= 4: the leading dims are one batch dim for the 3-D dot, as in Triton's core.py.
Val batched_dot(Emitter &e, const Args &a, Value *x, Value *y) {
  SourceLoc loc = a.loc();
  const ir::Shape &xs = x->type.shape, &ys = y->type.shape;
  int r = static_cast<int>(xs.size());
  if (!std::equal(xs.begin(), xs.end() - 2, ys.begin()))
    a.fail("dot: input and other must have equal batch shapes, got " + shape_str(xs) + " and " +
           shape_str(ys));
  int64_t batch = 1;
  for (int i = 0; i < r - 2; ++i)
    batch *= xs[i];
  ir::Shape cs(xs.begin(), xs.end() - 1);
  cs.push_back(ys[r - 1]);
  auto flat = [&](Value *v, int64_t d0, int64_t d1) {
    return Val::of(reshape(e, v, {batch, d0, d1}, loc));
  };
  std::vector<std::pair<std::string, Val>> kw;
  for (const char *n : {"input_precision", "allow_tf32", "max_num_imprecise_acc", "out_dtype"})
    if (a.passed(n))
      kw.emplace_back(n, a[n]);
  Val acc = a["acc"];
  if (Value *c = a.tensor_or_null("acc")) {
    if (c->type.shape != cs)
      a.fail("dot: the accumulator shape " + shape_str(c->type.shape) + " is incompatible with " +
             shape_str(cs));
    acc = flat(c, cs[r - 2], cs[r - 1]);
  }
  Val res =
      call(e, "dot", {flat(x, xs[r - 2], xs[r - 1]), flat(y, ys[r - 2], ys[r - 1]), acc}, loc, kw);
  return Val::of(reshape(e, res.tensor, cs, loc));
}

Val dot(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  Value *x = a.tensor("input"), *y = a.tensor("other");
  const Type &xt = x->type, &yt = y->type;
  if (xt.is_ptr() || yt.is_ptr())
    a.fail("dot: operands must be numeric tensors, got " + tensor_str(xt) + " and " +
           tensor_str(yt));
  int r = xt.rank();
  if (r >= 4 && yt.rank() == r)
    return batched_dot(e, a, x, y);
  if (!((r == 2 || r == 3) && yt.rank() == r))
    a.fail("dot: both inputs must be either 2D or 3D; got shapes " + shape_str(xt.shape) + " and " +
           shape_str(yt.shape));
  DType xd = xt.elem, yd = yt.elem;
  if (is_fp8(xd) && is_fp8(yd) && (xd == DType::F8E4B15 || yd == DType::F8E4B15)) {
    // as Triton: no tensor core takes it; both operands go to fp16 (exactly)
    if (e.options().gpu)
      e.warn(loc, "the use of fp8e4b15 is deprecated on Hopper and later architectures and "
                  "can cause significant slow down. It will be removed in a future triton "
                  "release");
    x = cast_elem(e, x, Type(DType::F16), loc);
    y = cast_elem(e, y, Type(DType::F16), loc);
    xd = yd = DType::F16;
  }
  if (!(is_fp8(xd) && is_fp8(yd))) {
    for (DType d : {xd, yd})
      if (d != DType::I8 && d != DType::U8 && d != DType::F16 && d != DType::BF16 &&
          d != DType::F32 && d != DType::F64)
        a.fail("dot: unsupported operand dtype " + dtype_name(d));
    if (xd != yd)
      a.fail("dot: both operands must have the same dtype, got " + dtype_name(xd) + " and " +
             dtype_name(yd));
  }
  int64_t M = xt.shape[r - 2], K = xt.shape[r - 1], K2 = yt.shape[r - 2], N = yt.shape[r - 1];
  if (K != K2)
    a.fail("dot: incompatible inner dimensions " + std::to_string(K) + " and " +
           std::to_string(K2) + " (shapes " + shape_str(xt.shape) + " and " + shape_str(yt.shape) +
           ")");
  if (r == 3 && xt.shape[0] != yt.shape[0])
    a.fail("dot: batch dimensions differ: " + shape_str(xt.shape) + " and " + shape_str(yt.shape));
  // Triton's bound on NVIDIA GPUs, checked where the dot is written (a dot whose result is
  // unused is an error too); lowering checks it again for IR that did not come from here.
  // 8-bit operands: K >= 16 as well (Triton asks 32; tilec runs K 16 on mma.sync)
  if (e.options().gpu && (M < 1 || N < 1 || K < 16))
    a.fail("Input shapes should have M >= 1, N >= 1 and K >= 16; got input shapes " +
           shape_str(xt.shape) + " and " + shape_str(yt.shape));

  // input_precision (or the deprecated allow_tf32) only matters for fp32 operands.
  const Val &ip = a["input_precision"], &tf32 = a["allow_tf32"];
  if (ip.kind != Val::Kind::None && tf32.kind != Val::Kind::None)
    a.fail("dot: only one of input_precision and allow_tf32 can be specified");
  std::string precision = "tf32";
  if (ip.kind != Val::Kind::None) {
    precision = a.const_str("input_precision");
    for (char &c : precision)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (precision != "tf32" && precision != "tf32x3" && precision != "ieee" &&
        precision != "bf16x3" && precision != "bf16x6")
      a.fail("dot: input_precision must be one of ('tf32', 'tf32x3', 'ieee', 'bf16x3', "
             "'bf16x6'). Got " +
             a.const_str("input_precision"));
  } else if (tf32.kind != Val::Kind::None && !a.const_bool("allow_tf32")) {
    precision = "ieee";
  }

  DType out = a.const_dtype("out_dtype").elem;
  DType ret;
  if (ir::is_int(xd)) {
    if (xd != DType::I8)
      a.fail("dot: only int8 integer operands are supported, got " + dtype_name(xd));
    ret = DType::I32;
  } else if (out == DType::BF16) {
    a.fail("out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and cast "
           "with `.to(tl.bfloat16)`");
  } else if (xd == DType::F32 || xd == DType::BF16) {
    ret = DType::F32;
  } else if (xd == DType::F64) {
    ret = DType::F64;
  } else {
    if (out != DType::F32 && out != DType::F16)
      a.fail("dot: out_dtype must be float32 or float16, got " + dtype_name(out));
    ret = out;
  }
  ir::Shape rs = r == 3 ? ir::Shape{xt.shape[0], M, N} : ir::Shape{M, N};
  Type rt(ret, false, rs);

  Value *acc = a.tensor_or_null("acc");
  if (acc) {
    if (acc->type != rt)
      a.fail("dot: the accumulator must be " + tensor_str(rt) + ", got " + tensor_str(acc->type));
  } else {
    acc = ir::is_float(ret) ? make_float(e, rt, 0.0, loc) : make_int(e, rt, 0, loc);
  }

  int64_t imprecise = 0;
  if (std::optional<int64_t> m = a.const_int_or_none("max_num_imprecise_acc")) {
    if (is_fp8(xd) && *m > K)
      a.fail("max_num_imprecise_acc (" + std::to_string(*m) + ") must be <= K (" +
             std::to_string(K) + ")");
    imprecise = *m == 0 ? 1 : *m; // 0 adds after every instruction, as 1 does (None: 0)
  }
  if (xd == DType::F32 && (precision == "bf16x3" || precision == "bf16x6"))
    return Val::of(bf16_split_dot(e, x, y, acc, precision == "bf16x6" ? 3 : 2, loc));
  if (xd == DType::F32 && precision == "tf32x3")
    return Val::of(tf32x3_dot(e, x, y, acc, loc));
  if (precision == "bf16x3" || precision == "bf16x6" || precision == "tf32x3")
    precision = "tf32"; // only fp32 operands are split; others ignore it, as for tf32
  return Val::of(emit(e, OpKind::Dot, {x, y, acc}, rt, loc,
                      {{"input_precision", precision}, {"max_num_imprecise_acc", imprecise}}));
}

} // namespace

void add_linalg_builtins(std::vector<Def> &t) {
  t.push_back({"dot",
               "input, other, acc=None, input_precision=None, allow_tf32=None, "
               "max_num_imprecise_acc=None, out_dtype=float32",
               dot, kTl});
}

} // namespace tilec::sema::builtins
