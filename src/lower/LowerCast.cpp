// cast and bitcast (Ops.def semantics, matching the tile interpreter):
//  - int -> int wraps, extending by the source's signedness;
//  - float -> int truncates toward zero and saturates (NaN -> 0): cvt.rzi does both;
//  - -> i1 is x != 0 (NaN != 0 is true); i1 -> T is 0 or 1;
//  - float -> float rounds once, to nearest even (or toward zero with rounding "rtz").
//    Where PTX has no direct conversion, fp64 goes to fp32 rounding to odd first (exact
//    for a second rounding to a format at least two bits narrower: bf16, fp8).
// fp8 values decode in software (every target); encoding needs sm_89's cvt ... e4m3x2 /
// e5m2x2 .satfinite: overflow and inf saturate to the largest finite value (fp8e5 too, as
// in Triton's GPU code; the interpreter rounds the same way).
#include <cmath>

#include "lower/LowerMath.h"

namespace tilec::lower {

namespace {

using ir::DType;
using simt::Cmp;
using simt::Rnd;

using ir::is_fp8;

// The value of an fp8 byte (in a b16 register) as f32, exactly.
Reg fp8_to_f32(LoweringContext &c, Reg x, DType d) {
  simt::Builder &b = c.b();
  if (d == DType::F8E5) { // e5m2 is the top byte of an fp16
    Reg h = b.shl(Ty::B16, x, simt::imm(8));
    return b.cvt(Ty::F32, Ty::F16, h);
  }
  // e4m3fn: (x & 0x7f) << 7 is an fp16 with the same exponent field and mantissa, whose
  // value is 2^-8 of the fp8 value (bias 15 vs 7), normal or subnormal alike.
  Reg mag = b.and_(Ty::B16, x, simt::imm(0x7f));
  Reg h = b.shl(Ty::B16, mag, simt::imm(7));
  Reg f = b.mul(Ty::F32, b.cvt(Ty::F32, Ty::F16, h), Operand::f32(256.0f));
  Reg nan = b.setp(Cmp::Eq, Ty::U16, mag, simt::imm(0x7f));
  f = b.selp(Ty::F32, Operand::f32(NAN), f, nan);
  Reg neg = b.setp(Cmp::Ne, Ty::U16, b.and_(Ty::B16, x, simt::imm(0x80)), simt::imm(0));
  return b.selp(Ty::F32, b.neg(Ty::F32, f), f, neg);
}

// fp8e4b15 (FloatFormats.h): its bits moved into an fp16's (the same bias), exactly.
Reg fp8e4b15_to_f16(LoweringContext &c, Reg x) {
  simt::Builder &b = c.b();
  Reg sign = b.shl(Ty::B16, b.and_(Ty::B16, x, simt::imm(0x80)), simt::imm(8));
  Reg rest = b.shl(Ty::B16, b.and_(Ty::B16, x, simt::imm(0x7f)), simt::imm(7));
  return b.or_(Ty::B16, sign, rest);
}

// Triton's software encoding of fp8e4b15 (FloatFormats.h): the value toward zero to fp16,
// its magnitude clamped to 1.75 (0x3f00; inf and NaN lie above it as integers), doubled
// plus 0x80 and the top byte kept (3 mantissa bits, ties away from zero); the sign is the
// source's (a NaN's too, whatever cvt makes of it).
Reg to_fp8e4b15(LoweringContext &c, Reg x, DType from) {
  simt::Builder &b = c.b();
  Reg h, sign;
  if (from == DType::F16 || from == DType::BF16) {
    sign = b.and_(Ty::B16, x, simt::imm(0x8000));
    h = from == DType::F16 ? x : b.cvt(Ty::F16, Ty::F32, b.cvt(Ty::F32, Ty::BF16, x), Rnd::Rz);
  } else if (from == DType::F32 || from == DType::F64) {
    int w = from == DType::F32 ? 32 : 64;
    Reg top = b.shr(simt::ty_bits_of(w), x, simt::imm(w - 16));
    sign = b.and_(Ty::B16, b.cvt(Ty::U16, simt::ty_uint(w), top), simt::imm(0x8000));
    h = b.cvt(Ty::F16, reg_ty(from), x, Rnd::Rz);
  } else { // another fp8: exact in fp16
    sign = b.shl(Ty::B16, b.and_(Ty::B16, x, simt::imm(0x80)), simt::imm(8));
    h = b.cvt(Ty::F16, Ty::F32, to_f32(c, x, from), Rnd::Rz);
  }
  Reg mag = b.min(Ty::U16, b.and_(Ty::B16, h, simt::imm(0x7fff)), simt::imm(0x3f00));
  Reg up = b.add(Ty::U16, b.shl(Ty::B16, mag, simt::imm(1)), simt::imm(0x80));
  return b.shr(Ty::B16, b.or_(Ty::B16, up, sign), simt::imm(8));
}

// f64 -> f32 rounded to odd (toward zero, then the last bit set when inexact).
Reg f64_to_f32_odd(LoweringContext &c, Reg x) {
  simt::Builder &b = c.b();
  Reg f = b.cvt(Ty::F32, Ty::F64, x, Rnd::Rz);
  Reg back = b.cvt(Ty::F64, Ty::F32, f);
  Reg inexact = b.setp(Cmp::Neu, Ty::F64, back, x);
  Reg odd = b.or_(Ty::B32, f, simt::imm(1));
  return b.selp(Ty::B32, odd, f, inexact);
}

// Float of dtype `from` (f16/f32/f64 register) to f32/f64 `to` exactly or rounded.
Reg float_to_float(LoweringContext &c, Reg x, DType from, DType to, bool rtz, SourceLoc loc) {
  simt::Builder &b = c.b();
  if (from == to)
    return x;
  if (to == DType::F8E4B15) // one rounding, Triton's, whatever fp_downcast_rounding says
    return to_fp8e4b15(c, x, from);
  Rnd r = rtz ? Rnd::Rz : Rnd::Rn;
  auto widening = [](DType f, DType t) { return ir::mantissa_bits(t) >= ir::mantissa_bits(f); };
  // Sources PTX cannot convert from directly become f32 first (exactly).
  if (from == DType::BF16 || is_fp8(from)) {
    Reg f = to_f32(c, x, from);
    return float_to_float(c, f, DType::F32, to, rtz, loc);
  }
  if (to == DType::BF16 || is_fp8(to)) {
    if (from == DType::F64) {
      if (rtz) {
        Reg f = b.cvt(Ty::F32, Ty::F64, x, Rnd::Rz);
        return from_f32(c, f, to, true, loc);
      }
      return from_f32(c, f64_to_f32_odd(c, x), to, false, loc);
    }
    Reg f = from == DType::F32 ? x : b.cvt(Ty::F32, reg_ty(from), x); // f16: exact
    return from_f32(c, f, to, rtz, loc);
  }
  // f16 / f32 / f64 among themselves: one cvt (widening needs no rounding mode).
  if (widening(from, to))
    return b.cvt(reg_ty(to), reg_ty(from), x);
  return b.cvt(reg_ty(to), reg_ty(from), x, r);
}

// Normalises an integer held in a 16-bit register to dtype d (8-bit: extend the low byte).
Reg narrow16(LoweringContext &c, Reg x, DType d) {
  if (d == DType::I8)
    return c.b().cvt(Ty::S16, Ty::S8, x);
  if (d == DType::U8)
    return c.b().and_(Ty::B16, x, simt::imm(0xff));
  return x;
}

Reg int_to_int(LoweringContext &c, Reg x, DType from, DType to) {
  simt::Builder &b = c.b();
  Ty fs = reg_ty(from), ts = reg_ty(to);
  int fw = simt::ty_reg_bits(fs), tw = simt::ty_reg_bits(ts);
  if (fw == tw)
    return tw == 16 ? narrow16(c, x, to) : x;
  if (fw < tw) // extend by the source's signedness
    return b.cvt(ir::is_signed_int(from) ? simt::ty_sint(tw) : simt::ty_uint(tw),
                 ir::is_signed_int(from) ? simt::ty_sint(fw) : simt::ty_uint(fw), x);
  Reg t = b.cvt(simt::ty_uint(tw), simt::ty_uint(fw), x); // chop
  return tw == 16 ? narrow16(c, t, to) : t;
}

Reg float_to_int(LoweringContext &c, Reg x, DType from, DType to) {
  simt::Builder &b = c.b();
  Ty src = reg_ty(from);
  if (from == DType::BF16 || is_fp8(from)) {
    x = to_f32(c, x, from);
    src = Ty::F32;
  }
  Ty dt = reg_ty(to);
  Reg r = b.cvt(dt, src, x, Rnd::Rzi); // saturates to dt's range, NaN -> 0
  if (to == DType::I8) {
    r = b.max(Ty::S16, r, simt::imm(-128));
    r = b.min(Ty::S16, r, simt::imm(127));
  } else if (to == DType::U8) {
    r = b.min(Ty::U16, r, simt::imm(255));
  }
  return r;
}

Reg int_to_float(LoweringContext &c, Reg x, DType from, DType to, bool rtz, SourceLoc loc) {
  simt::Builder &b = c.b();
  Ty src = reg_ty(from);
  Rnd r = rtz ? Rnd::Rz : Rnd::Rn;
  if (to == DType::F16 || to == DType::F32 || to == DType::F64)
    return b.cvt(reg_ty(to), src, x, r);
  // bf16 / fp8: through f64 (exact up to 2^53), then once more to the narrow format.
  Reg d = b.cvt(Ty::F64, src, x, Rnd::Rn);
  return float_to_float(c, d, DType::F64, to, rtz, loc);
}

} // namespace

Reg to_f32(LoweringContext &c, Reg x, DType d) {
  switch (d) {
  case DType::F32:
    return x;
  case DType::F16:
    return c.b().cvt(Ty::F32, Ty::F16, x);
  case DType::BF16:
    return c.b().cvt(Ty::F32, Ty::BF16, x);
  case DType::F8E4NV:
  case DType::F8E5:
    return fp8_to_f32(c, x, d);
  case DType::F8E4B15:
    return c.b().cvt(Ty::F32, Ty::F16, fp8e4b15_to_f16(c, x));
  case DType::F64:
    return c.b().cvt(Ty::F32, Ty::F64, x, Rnd::Rn);
  default:
    break;
  }
  TILEC_ASSERT(false, "to_f32: not a float dtype");
  return Reg{};
}

Reg from_f32(LoweringContext &c, Reg x, DType d, bool rtz, SourceLoc loc) {
  simt::Builder &b = c.b();
  Rnd r = rtz ? Rnd::Rz : Rnd::Rn;
  switch (d) {
  case DType::F32:
    return x;
  case DType::F16:
    return b.cvt(Ty::F16, Ty::F32, x, r);
  case DType::BF16:
    return b.cvt(Ty::BF16, Ty::F32, x, r);
  case DType::F64:
    return b.cvt(Ty::F64, Ty::F32, x);
  case DType::F8E4B15:
    return to_fp8e4b15(c, x, DType::F32);
  case DType::F8E4NV:
  case DType::F8E5: {
    if (c.opts().sm < 89)
      throw CompileError(
          loc, std::string("conversion to ") + (d == DType::F8E4NV ? "float8e4nv" : "float8e5") +
                   " needs sm_89 or newer (the target is sm_" + std::to_string(c.opts().sm) + ")");
    if (rtz && d == DType::F8E4NV) // as Triton: e4m3 rounds to nearest even only
      throw CompileError(loc, "rounding toward zero to float8e4nv is not supported: "
                              "fp_downcast_rounding='rtz' converts to float8e5 (or 16-bit "
                              "floats) only");
    if (rtz) {
      // e5m2 is the top byte of a binary16 (the same exponent, the first 2 of its 10
      // mantissa bits): toward zero to f16 (an overflow gives its largest finite value,
      // whose top byte is e5m2's), then the low byte dropped -- toward zero again, so one
      // truncation in all; inf and NaN keep theirs
      Reg h = b.cvt(Ty::F16, Ty::F32, x, Rnd::Rz);
      return b.shr(Ty::B16, h, simt::imm(8));
    }
    Ty packed = d == DType::F8E4NV ? Ty::E4M3x2 : Ty::E5M2x2;
    Reg zero = b.mov(Ty::F32, Operand::f32(0.0f));
    return b.cvt_pack(packed, Ty::F32, zero, x, Rnd::Rn, /*satfinite=*/true);
  }
  default:
    break;
  }
  TILEC_ASSERT(false, "from_f32: not a float dtype");
  return Reg{};
}

Reg emit_cast(LoweringContext &c, Reg x, const ir::Type &from, const ir::Type &to, bool rtz,
              SourceLoc loc) {
  simt::Builder &b = c.b();
  if (from.ptr || to.ptr || from.elem == to.elem)
    return x;
  DType f = from.elem, t = to.elem;
  if (t == DType::I1) {
    if (!ir::is_float(f))
      return b.setp(Cmp::Ne, reg_ty(f), x, simt::imm(0));
    if (f == DType::F32)
      return b.setp(Cmp::Neu, Ty::F32, x, Operand::f32(0.0f));
    if (f == DType::F64)
      return b.setp(Cmp::Neu, Ty::F64, x, Operand::f64(0.0));
    return b.setp(Cmp::Neu, Ty::F32, to_f32(c, x, f), Operand::f32(0.0f));
  }
  if (f == DType::I1) {
    Ty tt = reg_ty(t);
    Ty sel = simt::ty_bits_of(simt::ty_reg_bits(tt));
    if (ir::is_float(t)) {
      if (t == DType::F32)
        return b.selp(Ty::F32, Operand::f32(1.0f), Operand::f32(0.0f), x);
      if (t == DType::F64)
        return b.selp(Ty::F64, Operand::f64(1.0), Operand::f64(0.0), x);
      return b.selp(sel, simt::imm(static_cast<int64_t>(ir::float_bits(1.0, t))), simt::imm(0), x);
    }
    return b.selp(sel, simt::imm(1), simt::imm(0), x);
  }
  bool fi = ir::is_float(f), ti = ir::is_float(t);
  if (!fi && !ti)
    return int_to_int(c, x, f, t);
  if (fi && !ti)
    return float_to_int(c, x, f, t);
  if (!fi && ti)
    return int_to_float(c, x, f, t, rtz, loc);
  return float_to_float(c, x, f, t, rtz, loc);
}

namespace {

Reg emit_bitcast(LoweringContext &c, Reg x, const ir::Type &from, const ir::Type &to) {
  if (from.ptr || to.ptr)
    return x;
  int bits = ir::bits(to.elem);
  if (bits != 8)
    return x; // same register width, same bits
  if (to.elem == DType::I8)
    return c.b().cvt(Ty::S16, Ty::S8, x);
  return c.b().and_(Ty::B16, x, simt::imm(0xff));
}

} // namespace

void lower_cast(LoweringContext &c, const ir::Op &op) {
  const ir::Value *x = op.operand(0), *r = op.result(0);
  bool rtz = op.str_attr("rounding") == "rtz";
  const std::vector<Reg> &in = c.get(x);
  std::vector<Reg> out;
  std::vector<std::pair<uint32_t, Reg>> memo; // splats: convert each register once
  for (Reg v : in) {
    Reg res;
    for (const auto &[id, done] : memo)
      if (id == v.id)
        res = done;
    if (!res.valid()) {
      res = op.kind() == ir::OpKind::Bitcast
                ? emit_bitcast(c, v, x->type.element(), r->type.element())
                : emit_cast(c, v, x->type.element(), r->type.element(), rtz, op.loc());
      memo.emplace_back(v.id, res);
    }
    out.push_back(res);
  }
  c.set(r, std::move(out));
}

} // namespace tilec::lower
