// libdevice (triton.language.extra[.cuda].libdevice) composed from Tile IR ops, so the
// interpreter, the SIMT simulator and PTX run the same code. Private to src/frontend/sema.
// BuiltinsLibdevice.cpp holds the table, the dtype dispatch and the exact functions (bits,
// rounding, bit conversions); LibdeviceInt.cpp the integer bit tricks;
// LibdeviceRounding.cpp directed rounding; LibdeviceFloat.cpp the elementary transcendental
// ones; LibdeviceSpecial.cpp the error and gamma functions; LibdeviceBessel.cpp the Bessel
// functions; LibdevicePow.cpp pow.
#pragma once

#include <string>
#include <vector>

#include "frontend/sema/BuiltinsImpl.h"

namespace tilec::sema::builtins::libdevice {

// Names every libdevice file uses (this header is private to src/frontend/sema).
using ir::DType;
using ir::OpKind;
using ir::Value;
using Xs = std::vector<ir::Value *>;

// Builds elementwise ops on values of one shape (the call's broadcast shape).
struct M {
  Emitter &e;
  const Args &a;
  SourceLoc loc;
  ir::Shape shape;

  ir::Type ty(ir::DType d) const { return ir::Type(d, false, shape); }
  ir::Value *f(ir::DType d, double v) const { return make_float(e, ty(d), v, loc); }
  ir::Value *f(ir::Value *like, double v) const { return f(like->type.elem, v); }
  ir::Value *i(ir::DType d, int64_t v) const { return make_int(e, ty(d), v, loc); }
  ir::Value *i(ir::Value *like, int64_t v) const { return i(like->type.elem, v); }
  ir::Value *op(ir::OpKind k, ir::Value *x, ir::Value *y) const;
  ir::Value *op(ir::OpKind k, ir::Value *x) const;
  ir::Value *add(ir::Value *x, ir::Value *y) const { return op(ir::OpKind::Add, x, y); }
  ir::Value *sub(ir::Value *x, ir::Value *y) const { return op(ir::OpKind::Sub, x, y); }
  ir::Value *mul(ir::Value *x, ir::Value *y) const { return op(ir::OpKind::Mul, x, y); }
  ir::Value *div(ir::Value *x, ir::Value *y) const; // IEEE (rn) for floats
  ir::Value *fma(ir::Value *x, ir::Value *y, ir::Value *z) const;
  ir::Value *neg(ir::Value *x) const { return op(ir::OpKind::Neg, x); }
  ir::Value *abs(ir::Value *x) const { return op(ir::OpKind::Abs, x); }
  ir::Value *sel(ir::Value *c, ir::Value *x, ir::Value *y) const;
  ir::Value *cmp(const char *pred, ir::Value *x, ir::Value *y) const {
    return compare(e, pred, x, y, loc);
  }
  ir::Value *land(ir::Value *x, ir::Value *y) const { return op(ir::OpKind::And, x, y); }
  ir::Value *lor(ir::Value *x, ir::Value *y) const { return op(ir::OpKind::Or, x, y); }
  ir::Value *lnot(ir::Value *x) const { return op(ir::OpKind::Xor, x, i(x, 1)); } // i1
  ir::Value *cast(ir::Value *x, ir::DType d) const { return cast_dtype(e, x, d, loc); }
  ir::Value *bitcast(ir::Value *x, ir::DType d) const {
    return bitcast_elem(e, x, ir::Type(d), loc);
  }
  ir::Value *sqrt(ir::Value *x) const; // IEEE (rn)

  // Float helpers (any float dtype of the value).
  ir::Value *bits(ir::Value *x) const; // the bits as a signed int of the same width
  ir::Value *from_bits(ir::Value *b, ir::DType d) const { return bitcast(b, d); }
  ir::Value *copysign(ir::Value *x, ir::Value *y) const;
  ir::Value *signbit(ir::Value *x) const; // i1
  ir::Value *is_nan(ir::Value *x) const { return cmp("ne", x, x); }
  ir::Value *is_inf(ir::Value *x) const;
  ir::Value *rint(ir::Value *x) const;  // to nearest, ties to even
  ir::Value *trunc(ir::Value *x) const; // toward zero
  ir::Value *round(ir::Value *x) const; // to nearest, ties away from zero
  ir::Value *next_up(ir::Value *x) const;
  ir::Value *next_down(ir::Value *x) const;
  [[noreturn]] void fail(const std::string &msg) const { a.fail(msg); }
};

// One libdevice function: `body` receives the arguments with the dtypes of one of the
// forms Triton lists (checked) broadcast to one shape.
using Body = ir::Value *(*)(M &m, const std::vector<ir::Value *> &x);
struct Fn {
  const char *name;
  const char *forms; // "fp32>fp32 fp64>fp64", "fp32,int32>fp32", ...
  Body body;
};

void add_int_fns(std::vector<Fn> &t);      // LibdeviceInt.cpp
void add_rounding_fns(std::vector<Fn> &t); // LibdeviceRounding.cpp
void add_float_fns(std::vector<Fn> &t);
void add_special_fns(std::vector<Fn> &t); // LibdeviceSpecial.cpp    // LibdeviceFloat.cpp
void add_bessel_fns(std::vector<Fn> &t);  // LibdeviceBessel.cpp
void add_pow_fns(std::vector<Fn> &t);     // LibdevicePow.cpp

// An error for a form Triton has but tilec does not reach libdevice's accuracy for.
[[noreturn]] void unsupported(const M &m, const ir::Value *x, const char *why);

// An fp64 formula as a function of fp32 or fp64 x: fp32 is widened, evaluated and rounded
// once; fp64 runs the formula itself, or is an error (`f64_why`) where the formula does
// not keep a few ulp in fp64 (LibdeviceFloat.cpp).
using Core = ir::Value *(*)(M &m, ir::Value *x);
// An fp64 constant of the call's shape (the fp64 formulas' shorthand).
inline ir::Value *c(const M &m, double v) { return m.f(ir::DType::F64, v); }
ir::Value *widened(M &m, ir::Value *x, Core core, const char *f64_why = nullptr);
// sin(pi x) for fp64 x, exact at the zeros (LibdeviceFloat.cpp).
ir::Value *sinpi_f64(M &m, ir::Value *x);

} // namespace tilec::sema::builtins::libdevice
