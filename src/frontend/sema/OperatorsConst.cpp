// Constexpr folding with Python's semantics. Ints are those Triton can type: int64, and
// uint64 for 2**63..2**64-1 (Val::u64); the arithmetic is exact in 128 bits and a result
// outside that range is reported rather than silently wrapped.
#include <cmath>
#include <limits>

#include "frontend/sema/ConstFold.h"
#include "frontend/sema/EmitUtil.h"

namespace tilec::sema {

using ast::BinOp;
using K = Val::Kind;

namespace {

[[noreturn]] void overflow(SourceLoc loc) {
  throw CompileError(loc, "integer overflow in constant expression: the result does not fit "
                          "in 64 bits");
}

[[noreturn]] void bad_operands(const char *op, const Val &a, const Val &b, SourceLoc loc) {
  throw CompileError(loc, std::string("unsupported operand type(s) for ") + op + ": '" +
                              py_type_name(a) + "' and '" + py_type_name(b) + "'");
}

using Wide = __int128;

Wide as_int(const Val &v) { return int_value(v); }
double as_double(const Val &v) { return v.kind == K::Float ? v.f : static_cast<double>(as_int(v)); }

// An exact result as an int Val: int64, or uint64 from 2**63 on; beyond: an error.
Val from_wide(Wide r, SourceLoc loc) {
  if (r < std::numeric_limits<int64_t>::min() || r > std::numeric_limits<uint64_t>::max())
    overflow(loc);
  return r > std::numeric_limits<int64_t>::max() ? Val::uint64(static_cast<uint64_t>(r))
                                                 : Val::integer(static_cast<int64_t>(r));
}

Wide floor_div(Wide a, Wide b, SourceLoc loc) {
  if (b == 0)
    throw CompileError(loc, "integer division or modulo by zero");
  Wide q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

Wide floor_mod(Wide a, Wide b, SourceLoc loc) {
  if (b == 0)
    throw CompileError(loc, "integer division or modulo by zero");
  if (b == -1)
    return 0;
  Wide r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

// CPython's float floor division and modulo (Objects/floatobject.c: float_divmod).
std::pair<double, double> float_divmod(double vx, double wx, SourceLoc loc) {
  if (wx == 0.0)
    throw CompileError(loc, "float division by zero");
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0.0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, wx);
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5)
      floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, vx / wx);
  }
  return {floordiv, mod};
}

Val int_pow(Wide base, Wide exp, SourceLoc loc) {
  if (exp < 0) {
    if (base == 0)
      throw CompileError(loc, "0.0 cannot be raised to a negative power");
    return Val::floating(std::pow(static_cast<double>(base), static_cast<double>(exp)));
  }
  Wide r = 1;
  Wide b = base;
  while (exp > 0) {
    if (exp & 1)
      if (__builtin_mul_overflow(r, b, &r))
        overflow(loc);
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(b, b, &b))
      overflow(loc);
  }
  return from_wide(r, loc);
}

Val fold_float(BinOp op, double x, double y, const Val &a, const Val &b, SourceLoc loc) {
  switch (op) {
  case BinOp::Add:
    return Val::floating(x + y);
  case BinOp::Sub:
    return Val::floating(x - y);
  case BinOp::Mul:
    return Val::floating(x * y);
  case BinOp::Div:
    if (y == 0.0)
      throw CompileError(loc, "float division by zero");
    return Val::floating(x / y);
  case BinOp::FloorDiv:
    return Val::floating(float_divmod(x, y, loc).first);
  case BinOp::Mod:
    return Val::floating(float_divmod(x, y, loc).second);
  case BinOp::Pow:
    if (x == 0.0 && y < 0)
      throw CompileError(loc, "0.0 cannot be raised to a negative power");
    if (x < 0 && std::isfinite(y) && y != std::floor(y))
      throw CompileError(loc, "a negative number raised to a fractional power is complex, "
                              "which is not supported");
    return Val::floating(std::pow(x, y));
  default:
    bad_operands(ast::binop_symbol(op), a, b, loc);
  }
}

Val fold_int(BinOp op, Wide x, Wide y, const Val &a, const Val &b, SourceLoc loc) {
  Wide r = 0; // operands are within [-2**63, 2**64): only products can leave 128 bits
  switch (op) {
  case BinOp::Add:
    return from_wide(x + y, loc);
  case BinOp::Sub:
    return from_wide(x - y, loc);
  case BinOp::Mul:
    if (__builtin_mul_overflow(x, y, &r))
      overflow(loc);
    return from_wide(r, loc);
  case BinOp::Div:
    if (y == 0)
      throw CompileError(loc, "division by zero");
    return Val::floating(
        static_cast<double>(static_cast<long double>(x) / static_cast<long double>(y)));
  case BinOp::FloorDiv:
    return from_wide(floor_div(x, y, loc), loc);
  case BinOp::Mod:
    return from_wide(floor_mod(x, y, loc), loc);
  case BinOp::Pow:
    return int_pow(x, y, loc);
  case BinOp::LShift:
    if (y < 0)
      throw CompileError(loc, "negative shift count");
    if (x == 0)
      return Val::integer(0);
    if (y >= 64) // |x| << 64 is past 2**64
      overflow(loc);
    return from_wide(x * (static_cast<Wide>(1) << y), loc);
  case BinOp::RShift:
    if (y < 0)
      throw CompileError(loc, "negative shift count");
    return from_wide(y >= 127 ? (x < 0 ? -1 : 0) : (x >> y), loc);
  case BinOp::BitAnd:
  case BinOp::BitOr:
  case BinOp::BitXor: {
    r = op == BinOp::BitAnd ? (x & y) : op == BinOp::BitOr ? (x | y) : (x ^ y);
    if (a.kind == K::Bool && b.kind == K::Bool)
      return Val::boolean(r != 0);
    return from_wide(r, loc);
  }
  default:
    bad_operands(ast::binop_symbol(op), a, b, loc);
  }
}

Val repeat(const Val &seq, int64_t n) {
  if (seq.kind == K::Str) {
    std::string s;
    for (int64_t i = 0; i < n; ++i)
      s += seq.str;
    return Val::string(s);
  }
  std::vector<Val> elems;
  for (int64_t i = 0; i < n; ++i)
    elems.insert(elems.end(), seq.elems.begin(), seq.elems.end());
  return Val::tuple(std::move(elems));
}

// Compares two numbers exactly (an int64 or uint64 is exact in a long double's 64-bit
// mantissa).
int num_order(const Val &a, const Val &b) {
  long double x = a.kind == K::Float ? a.f : as_int(a);
  long double y = b.kind == K::Float ? b.f : as_int(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

} // namespace

bool truthy(const Val &v) {
  switch (v.kind) {
  case K::None:
    return false;
  case K::Bool:
    return v.b;
  case K::Int:
    return v.i != 0;
  case K::Float:
    return v.f != 0.0;
  case K::Str:
    return !v.str.empty();
  case K::Tuple:
    return !v.elems.empty();
  default:
    return true;
  }
}

bool py_equal(const Val &a, const Val &b) {
  if (is_number(a) && is_number(b)) {
    if ((a.kind == K::Float && std::isnan(a.f)) || (b.kind == K::Float && std::isnan(b.f)))
      return false;
    return num_order(a, b) == 0;
  }
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case K::None:
    return true;
  case K::Str:
    return a.str == b.str;
  case K::DType:
    return a.type == b.type;
  case K::Tensor:
    return a.tensor == b.tensor;
  case K::Function:
    return a.fn == b.fn;
  case K::Module:
  case K::Builtin:
    return a.str == b.str;
  case K::Tuple:
  case K::Slice:
    if (a.elems.size() != b.elems.size() || is_constexpr_type(a) != is_constexpr_type(b))
      return false;
    for (size_t i = 0; i < a.elems.size(); ++i)
      if (!py_equal(a.elems[i], b.elems[i]))
        return false;
    return true;
  case K::Method:
    return a.str == b.str && py_equal(a.elems[0], b.elems[0]);
  case K::TupleClass:
    return a.named == b.named;
  default:
    return false;
  }
}

int py_order(const Val &a, const Val &b, const char *op, SourceLoc loc) {
  if (is_number(a) && is_number(b))
    return num_order(a, b);
  if (a.kind == K::Str && b.kind == K::Str)
    return a.str < b.str ? -1 : a.str > b.str ? 1 : 0;
  if (a.kind == K::Tuple && b.kind == K::Tuple) {
    size_t n = std::min(a.elems.size(), b.elems.size());
    for (size_t i = 0; i < n; ++i)
      if (!py_equal(a.elems[i], b.elems[i]))
        return py_order(a.elems[i], b.elems[i], op, loc);
    return a.elems.size() < b.elems.size() ? -1 : a.elems.size() > b.elems.size() ? 1 : 0;
  }
  throw CompileError(loc, std::string("'") + op + "' not supported between instances of '" +
                              py_type_name(a) + "' and '" + py_type_name(b) + "'");
}

Val fold_binary(BinOp op, const Val &a, const Val &b, SourceLoc loc) {
  const char *sym = ast::binop_symbol(op);
  if (is_number(a) && is_number(b)) {
    if (a.kind == K::Float || b.kind == K::Float) {
      if (op == BinOp::LShift || op == BinOp::RShift || op == BinOp::BitAnd || op == BinOp::BitOr ||
          op == BinOp::BitXor || op == BinOp::MatMul)
        bad_operands(sym, a, b, loc);
      return fold_float(op, as_double(a), as_double(b), a, b, loc);
    }
    return fold_int(op, as_int(a), as_int(b), a, b, loc);
  }
  bool a_seq = a.kind == K::Str || a.kind == K::Tuple;
  bool b_seq = b.kind == K::Str || b.kind == K::Tuple;
  if (op == BinOp::Add && a_seq && a.kind == b.kind) {
    if (a.kind == K::Str)
      return Val::string(a.str + b.str);
    std::vector<Val> e = a.elems;
    e.insert(e.end(), b.elems.begin(), b.elems.end());
    return Val::tuple(std::move(e));
  }
  if (op == BinOp::Mul && a_seq && (b.kind == K::Int || b.kind == K::Bool))
    return repeat(a, static_cast<int64_t>(as_int(b)));
  if (op == BinOp::Mul && b_seq && (a.kind == K::Int || a.kind == K::Bool))
    return repeat(b, static_cast<int64_t>(as_int(a)));
  bad_operands(sym, a, b, loc);
}

Val fold_unary(ast::UnaryOp op, const Val &a, SourceLoc loc) {
  if (op == ast::UnaryOp::Not)
    return Val::boolean(!truthy(a));
  const char *name = op == ast::UnaryOp::Neg ? "-" : op == ast::UnaryOp::Pos ? "+" : "~";
  if (a.kind == K::Float) {
    if (op == ast::UnaryOp::Neg)
      return Val::floating(-a.f);
    if (op == ast::UnaryOp::Pos)
      return a;
  } else if (a.kind == K::Int || a.kind == K::Bool) {
    Wide x = as_int(a);
    if (op == ast::UnaryOp::Neg)
      return from_wide(-x, loc);
    if (op == ast::UnaryOp::Pos)
      return from_wide(x, loc);
    return from_wide(~x, loc);
  }
  throw CompileError(loc, std::string("bad operand type for unary ") + name + ": '" +
                              py_type_name(a) + "'");
}

Val fold_compare(ast::CmpOp op, const Val &a, const Val &b, SourceLoc loc) {
  switch (op) {
  case ast::CmpOp::Eq:
    return Val::boolean(py_equal(a, b));
  case ast::CmpOp::NotEq:
    return Val::boolean(!py_equal(a, b));
  case ast::CmpOp::Lt:
  case ast::CmpOp::LtE:
  case ast::CmpOp::Gt:
  case ast::CmpOp::GtE: {
    bool nan = (a.kind == K::Float && std::isnan(a.f)) || (b.kind == K::Float && std::isnan(b.f));
    int c = py_order(a, b, ast::cmpop_symbol(op), loc);
    if (nan && is_number(a) && is_number(b))
      return Val::boolean(false);
    bool r = op == ast::CmpOp::Lt    ? c < 0
             : op == ast::CmpOp::LtE ? c <= 0
             : op == ast::CmpOp::Gt  ? c > 0
                                     : c >= 0;
    return Val::boolean(r);
  }
  case ast::CmpOp::Is:
  case ast::CmpOp::IsNot: {
    bool same = a.kind == b.kind && py_equal(a, b);
    return Val::boolean(op == ast::CmpOp::Is ? same : !same);
  }
  case ast::CmpOp::In:
  case ast::CmpOp::NotIn: {
    bool found = false;
    if (b.kind == K::Tuple) {
      for (const Val &x : b.elems)
        found = found || py_equal(a, x);
    } else if (b.kind == K::Str && a.kind == K::Str) {
      found = b.str.find(a.str) != std::string::npos;
    } else {
      throw CompileError(loc, "argument of type '" + py_type_name(b) + "' is not iterable");
    }
    return Val::boolean(op == ast::CmpOp::In ? found : !found);
  }
  }
  return Val::boolean(false);
}

} // namespace tilec::sema
