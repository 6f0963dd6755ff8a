// Elementwise arithmetic, logic, comparison, selection and math, one element at a time.
//
// Integers narrower than 32 bits live in 16-bit registers, sign- or zero-extended from
// their width: 16-bit arithmetic wraps like the dtype for i16/u16, and i8/u8 results that
// can leave the 8-bit range are re-normalised. fp16 add/sub/mul are native (PTX rounds
// them like the tile interpreter, which computes in fp32 and rounds: fp32 has more than
// 2*11+2 bits, so the double rounding is exact); everything else on fp16/bf16/fp8 goes
// through fp32 and rounds back once. The transcendental functions are in LowerMath.cpp.
#include <map>

#include "lower/LowerMath.h"
#include "lower/LoweringContext.h"
#include "support/Env.h"

namespace tilec::lower {

namespace {

using simt::Cmp;
using simt::Op;
using K = ir::OpKind;

bool is_half(ir::DType d) {
  return d == ir::DType::F16 || d == ir::DType::BF16 || ir::is_fp8(d);
}

// Re-normalises an 8-bit value held in a 16-bit register after wrapping arithmetic.
Reg normalize(LoweringContext &c, Reg x, ir::DType d) {
  simt::Builder &b = c.b();
  if (d == ir::DType::I8)
    return b.cvt(Ty::S16, Ty::S8, x);
  if (d == ir::DType::U8)
    return b.and_(Ty::B16, x, simt::imm(0xff));
  return x;
}

// The PTX integer type of a dtype's register (signed/unsigned by the dtype).
Ty int_ty(ir::DType d) {
  Ty t = reg_ty(d);
  return t;
}

Ty bits_ty(ir::DType d) { return simt::ty_bits_of(simt::ty_reg_bits(reg_ty(d))); }

// A shift amount of dtype d as a u32 (amounts at or past the width saturate).
Reg shift_amount(LoweringContext &c, Reg a, ir::DType d) {
  simt::Builder &b = c.b();
  int w = simt::ty_reg_bits(reg_ty(d));
  if (w == 16)
    return b.cvt(Ty::U32, Ty::U16, a);
  if (w == 64) {
    Reg m = b.min(Ty::U64, a, simt::imm(64));
    return b.cvt(Ty::U32, Ty::U64, m);
  }
  return a;
}

Cmp cmp_of(const std::string &pred, bool is_float) {
  if (pred == "eq")
    return Cmp::Eq;
  if (pred == "ne")
    return is_float ? Cmp::Neu : Cmp::Ne;
  if (pred == "lt")
    return Cmp::Lt;
  if (pred == "le")
    return Cmp::Le;
  if (pred == "gt")
    return Cmp::Gt;
  if (pred == "ge")
    return Cmp::Ge;
  TILEC_ASSERT(false, "cmp: unknown predicate '" + pred + "'");
  return Cmp::Eq;
}

// Comparison of two i1 values (false < true).
Reg cmp_pred(LoweringContext &c, const std::string &pred, Reg a, Reg b) {
  simt::Builder &bb = c.b();
  if (pred == "eq")
    return bb.not_(Ty::Pred, bb.xor_(Ty::Pred, a, b));
  if (pred == "ne")
    return bb.xor_(Ty::Pred, a, b);
  if (pred == "lt")
    return bb.and_(Ty::Pred, bb.not_(Ty::Pred, a), b);
  if (pred == "le")
    return bb.or_(Ty::Pred, bb.not_(Ty::Pred, a), b);
  if (pred == "gt")
    return bb.and_(Ty::Pred, a, bb.not_(Ty::Pred, b));
  return bb.or_(Ty::Pred, a, bb.not_(Ty::Pred, b)); // ge
}

Reg select_pred(LoweringContext &c, Reg p, Reg a, Reg b) {
  simt::Builder &bb = c.b();
  Reg t = bb.and_(Ty::Pred, p, a);
  Reg f = bb.and_(Ty::Pred, bb.not_(Ty::Pred, p), b);
  return bb.or_(Ty::Pred, t, f);
}

// Float binary op on f32/f64 registers. `contract`: add/sub/mul without `.rn`, which lets
// ptxas fuse a mul into a following add (enable_fp_fusion; the simulator reads it as rn).
Reg float_binary(LoweringContext &c, const ir::Op &op, Ty t, Reg a, Reg b, bool contract = false) {
  simt::Builder &bb = c.b();
  switch (op.kind()) {
  case K::Add:
    return contract ? bb.binary(Op::Add, t, a, b, simt::Mods{}) : bb.add(t, a, b);
  case K::Sub:
    return contract ? bb.binary(Op::Sub, t, a, b, simt::Mods{}) : bb.sub(t, a, b);
  case K::Mul:
    return contract ? bb.binary(Op::Mul, t, a, b, simt::Mods{}) : bb.mul(t, a, b);
  case K::Div: {
    if (t == Ty::F32 && op.str_attr("rounding") != "rn" &&
        op.operand(0)->type.elem == ir::DType::F32) {
      simt::Mods m;
      m.full = true; // Triton's fp32 `/`: div.full.f32 (2 ulp)
      return bb.binary(Op::Div, t, a, b, m);
    }
    return bb.div(t, a, b);
  }
  case K::Rem:
    return emit_fmod(c, t, a, b);
  case K::Min:
  case K::Max: {
    bool nan = op.int_attr("propagate_nan", 0) != 0;
    bool is_min = op.kind() == K::Min;
    if (t == Ty::F64 && nan) { // no min.NaN.f64: NaN in either operand -> a + b (NaN)
      Reg m = is_min ? bb.min(t, a, b) : bb.max(t, a, b);
      Reg p = bb.setp(Cmp::Nan, t, a, b);
      return bb.selp(t, bb.add(t, a, b), m, p);
    }
    return is_min ? bb.min(t, a, b, nan) : bb.max(t, a, b, nan);
  }
  default:
    break;
  }
  TILEC_ASSERT(false, "float_binary: unexpected op");
  return Reg{};
}

Reg int_binary(LoweringContext &c, const ir::Op &op, ir::DType d, Reg a, Reg b) {
  simt::Builder &bb = c.b();
  Ty t = int_ty(d);
  if (d == ir::DType::I1) {
    switch (op.kind()) {
    case K::Add:
    case K::Sub:
    case K::Xor:
      return bb.xor_(Ty::Pred, a, b);
    case K::Mul:
    case K::And:
    case K::Min:
      return bb.and_(Ty::Pred, a, b);
    case K::Or:
    case K::Max:
      return bb.or_(Ty::Pred, a, b);
    default:
      throw CompileError(op.loc(), "'" + std::string(op.name()) +
                                       "' on int1 values is not supported on the GPU");
    }
  }
  switch (op.kind()) {
  case K::Add:
    return normalize(c, bb.add(t, a, b), d);
  case K::Sub:
    return normalize(c, bb.sub(t, a, b), d);
  case K::Mul:
    return normalize(c, bb.mul(t, a, b), d);
  case K::Div:
    return normalize(c, bb.div(t, a, b), d);
  case K::Rem:
    return bb.rem(t, a, b);
  case K::And:
    return bb.and_(bits_ty(d), a, b);
  case K::Or:
    return bb.or_(bits_ty(d), a, b);
  case K::Xor:
    return bb.xor_(bits_ty(d), a, b);
  case K::Shl:
    return normalize(c, bb.shl(bits_ty(d), a, shift_amount(c, b, d)), d);
  case K::Shr:
    return bb.shr(t, a, shift_amount(c, b, d));
  case K::Min:
    return bb.min(t, a, b);
  case K::Max:
    return bb.max(t, a, b);
  case K::Umulhi: {
    int w = ir::bits(d);
    Ty u = simt::ty_uint(simt::ty_reg_bits(t));
    if (w == 8) {
      Reg am = bb.and_(Ty::B16, a, simt::imm(0xff)), bm = bb.and_(Ty::B16, b, simt::imm(0xff));
      Reg hi = bb.shr(Ty::U16, bb.mul(Ty::U16, am, bm), simt::imm(8));
      return normalize(c, hi, d);
    }
    return bb.mul_hi(u, a, b);
  }
  default:
    break;
  }
  TILEC_ASSERT(false, "int_binary: unexpected op");
  return Reg{};
}

Reg unary(LoweringContext &c, const ir::Op &op, ir::DType d, Reg x) {
  simt::Builder &bb = c.b();
  Ty t = reg_ty(d);
  switch (op.kind()) {
  case K::Neg:
    if (d == ir::DType::I1)
      return x;
    if (ir::is_float(d)) {
      if (ir::is_fp8(d)) // the sign bit
        return bb.xor_(Ty::B16, x, simt::imm(0x80));
      return bb.neg(t, x);
    }
    return normalize(c, bb.neg(simt::ty_sint(simt::ty_reg_bits(t)), x), d);
  case K::Not:
    if (d == ir::DType::I1)
      return bb.not_(Ty::Pred, x);
    return normalize(c, bb.not_(bits_ty(d), x), d);
  case K::Abs:
    if (d == ir::DType::I1 || ir::is_unsigned_int(d))
      return x;
    if (ir::is_fp8(d))
      return bb.and_(Ty::B16, x, simt::imm(0x7f));
    if (ir::is_float(d))
      return bb.abs(t, x);
    return normalize(c, bb.abs(t, x), d);
  default:
    break;
  }
  TILEC_ASSERT(false, "unary: unexpected op");
  return Reg{};
}

// fp16 ops PTX has natively (sm_53+), rounding exactly like the interpreter.
bool native_f16(K k) { return k == K::Add || k == K::Sub || k == K::Mul; }

Reg emit_one(LoweringContext &c, const ir::Op &op, const std::vector<Reg> &in) {
  simt::Builder &b = c.b();
  K k = op.kind();
  if (k == K::Select) {
    ir::DType d = op.operand(1)->type.elem;
    if (!op.operand(1)->type.ptr && d == ir::DType::I1)
      return select_pred(c, in[0], in[1], in[2]);
    Ty t = reg_ty(op.operand(1)->type);
    if (t == Ty::F32 || t == Ty::F64) // FSEL in SASS, beside the float math it feeds
      return b.selp(t, in[1], in[2], in[0]);
    return b.selp(simt::ty_bits_of(simt::ty_reg_bits(t)), in[1], in[2], in[0]);
  }
  const ir::Type &ty = op.operand(0)->type;
  ir::DType d = ty.elem;
  TILEC_ASSERT(!ty.ptr, "elementwise op '" + std::string(op.name()) + "' on pointers");
  if (k == K::Cmp) {
    std::string pred = op.str_attr("pred");
    if (d == ir::DType::I1)
      return cmp_pred(c, pred, in[0], in[1]);
    if (ir::is_float(d)) {
      if (d == ir::DType::F16 || d == ir::DType::F32 || d == ir::DType::F64)
        return b.setp(cmp_of(pred, true), reg_ty(d), in[0], in[1]);
      return b.setp(cmp_of(pred, true), Ty::F32, to_f32(c, in[0], d), to_f32(c, in[1], d));
    }
    return b.setp(cmp_of(pred, false), reg_ty(d), in[0], in[1]);
  }
  if (k == K::Neg || k == K::Not || k == K::Abs)
    return unary(c, op, d, in[0]);
  if (!ir::is_float(d)) {
    TILEC_ASSERT(in.size() == 2, "integer op '" + std::string(op.name()) + "' arity");
    return int_binary(c, op, d, in[0], in[1]);
  }
  // floats
  bool math = k == K::Exp || k == K::Exp2 || k == K::Log || k == K::Log2 || k == K::Sqrt ||
              k == K::Rsqrt || k == K::Sin || k == K::Cos || k == K::Erf || k == K::Floor ||
              k == K::Ceil;
  if (d == ir::DType::F16 && native_f16(k))
    return float_binary(c, op, Ty::F16, in[0], in[1]);
  if (is_half(d)) { // through fp32, rounded back once
    std::vector<Reg> w;
    for (Reg r : in)
      w.push_back(to_f32(c, r, d));
    Reg r32;
    if (math)
      r32 = emit_math(c, op, Ty::F32, w[0]);
    else if (k == K::Fma)
      r32 = b.fma(Ty::F32, w[0], w[1], w[2]);
    else
      r32 = float_binary(c, op, Ty::F32, w[0], w[1]);
    return from_f32(c, r32, d, false, op.loc());
  }
  Ty t = reg_ty(d);
  if (math)
    return emit_math(c, op, t, in[0]);
  if (k == K::Fma)
    return b.fma(t, in[0], in[1], in[2]);
  return float_binary(c, op, t, in[0], in[1], c.opts().fp_fusion);
}

} // namespace

Reg select_reg(LoweringContext &c, Reg p, Reg a, Reg b) {
  Ty t = c.fn().reg_ty(a);
  if (t == Ty::Pred)
    return select_pred(c, p, a, b);
  return c.b().selp(simt::ty_bits_of(simt::ty_reg_bits(t)), a, b, p);
}

Reg emit_elementwise(LoweringContext &c, const ir::Op &op, const std::vector<Reg> &operands) {
  return emit_one(c, op, operands);
}

namespace {

// Per register, the register of this thread holding the first element of its run of equal
// values (axis info's constancy; runs start at multiples of their length), or itself.
// `cols < N` over 8 contiguous columns of a thread is then one compare, not eight: ptxas
// cannot see that N is a multiple of 16.
std::vector<int> constant_run_heads(LoweringContext &c, const ir::Value *v, int n) {
  std::vector<int> head(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    head[static_cast<size_t>(i)] = i;
  const ir::Type &t = v->type;
  if (n <= 1 || t.ptr || ir::is_float(t.elem) || !t.is_tile() || !t.layout || !c.axis_exact(v))
    return head;
  const analysis::AxisInfo &ai = c.axis().get(v);
  const layout::LinearLayout &l = c.layout_of(t);
  std::vector<int32_t> low(static_cast<size_t>(l.num_out_dims()), 0); // bits a run spans
  bool any = false;
  for (int d = 0; d < l.num_out_dims() && d < ai.rank(); ++d) {
    int64_t k = ai.constancy[static_cast<size_t>(d)];
    if (k <= 1)
      continue;
    // coordinates are R(r) ^ T(lane, warp): clearing R's bits below the run length keeps
    // an element in its run whatever T is
    low[static_cast<size_t>(d)] = static_cast<int32_t>(std::min<int64_t>(k, int64_t(1) << 30) - 1);
    any = true;
  }
  if (!any)
    return head;
  std::map<std::vector<int32_t>, int> first;
  for (int i = 0; i < n; ++i)
    first.emplace(LoweringContext::reg_coords(l, i), i);
  for (int i = 0; i < n; ++i) {
    std::vector<int32_t> rc = LoweringContext::reg_coords(l, i);
    for (size_t d = 0; d < rc.size(); ++d)
      rc[d] &= ~low[d];
    auto it = first.find(rc);
    if (it != first.end())
      head[static_cast<size_t>(i)] = it->second;
  }
  return head;
}

// tl.exp on f32 over enough elements of a thread that one test for them all (a min each)
// costs less than ptxas's subnormal handling of each (a compare and two multiplies).
bool exp_tile(const ir::Op &op, size_t n) {
  return op.kind() == K::Exp && n >= 4 && env::get(env::Var::ExpTile) != "0" &&
         !op.operand(0)->type.ptr && op.operand(0)->type.elem == ir::DType::F32;
}

} // namespace

void lower_elementwise(LoweringContext &c, const ir::Op &op) {
  const ir::Value *r = op.result(0);
  int n = c.num_regs(r->type);
  std::vector<const std::vector<Reg> *> ins;
  for (const ir::Value *v : op.operands())
    ins.push_back(&c.get(v));
  std::vector<int> head = constant_run_heads(c, r, n);
  // Elements whose operands are the same registers (splats) are computed once.
  std::map<std::vector<uint32_t>, int> memo; // operand registers -> the slot computing them
  std::vector<std::vector<Reg>> slots;       // each distinct element's operands
  std::vector<int> slot_of;                  // element -> its slot
  for (int i = 0; i < n; ++i) {
    if (int h = head[static_cast<size_t>(i)]; h < i) {
      slot_of.push_back(slot_of[static_cast<size_t>(h)]);
      continue;
    }
    std::vector<Reg> args;
    std::vector<uint32_t> key;
    for (const auto *v : ins) {
      Reg a = v->size() == 1 ? (*v)[0] : (*v)[static_cast<size_t>(i)];
      args.push_back(a);
      key.push_back(a.id);
    }
    auto [it, fresh] = memo.emplace(std::move(key), static_cast<int>(slots.size()));
    if (fresh)
      slots.push_back(std::move(args));
    slot_of.push_back(it->second);
  }
  std::vector<Reg> res;
  if (exp_tile(op, slots.size())) {
    std::vector<Reg> xs;
    for (const auto &a : slots)
      xs.push_back(a[0]);
    res = emit_exp_f32_tile(c, xs);
  } else {
    for (const auto &a : slots)
      res.push_back(emit_one(c, op, a));
  }
  std::vector<Reg> out;
  for (int s : slot_of)
    out.push_back(res[static_cast<size_t>(s)]);
  c.set(r, std::move(out));
}

} // namespace tilec::lower
