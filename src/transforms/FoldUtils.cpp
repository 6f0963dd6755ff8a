#include "transforms/FoldUtils.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tilec::transforms {

using ir::DType;
using ir::OpKind;

bool Scalar::operator==(const Scalar &o) const {
  if (is_float != o.is_float)
    return false;
  if (!is_float)
    return i == o.i;
  // bitwise, so that -0.0 != +0.0 and NaN == NaN (two constants are interchangeable)
  return std::memcmp(&f, &o.f, sizeof f) == 0;
}

int64_t wrap_int(int64_t v, DType d) {
  int w = ir::bits(d);
  if (w >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << w) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (ir::is_signed_int(d) && ((u >> (w - 1)) & 1))
    u |= ~mask;
  return static_cast<int64_t>(u);
}

namespace {

uint64_t width_mask(int w) { return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1; }

Scalar int_scalar(int64_t v, DType d) { return Scalar{false, wrap_int(v, d), 0}; }
Scalar float_scalar(double v) { return Scalar{true, 0, v}; }
Scalar bool_scalar(bool b) { return Scalar{false, b ? 1 : 0, 0}; }

bool compare(const std::string &pred, int c, bool unordered) {
  if (pred == "ne")
    return unordered || c != 0;
  if (unordered)
    return false;
  if (pred == "eq")
    return c == 0;
  if (pred == "lt")
    return c < 0;
  if (pred == "le")
    return c <= 0;
  if (pred == "gt")
    return c > 0;
  return c >= 0; // ge
}

std::optional<Scalar> fold_int(const ir::Op &op, const std::vector<Scalar> &a, DType d) {
  bool sgn = ir::is_signed_int(d);
  int w = ir::bits(d);
  int64_t x = a[0].i;
  uint64_t ux = static_cast<uint64_t>(x);
  if (a.size() == 1) {
    switch (op.kind()) {
    case OpKind::Neg:
      return int_scalar(static_cast<int64_t>(0 - ux), d);
    case OpKind::Not:
      return int_scalar(static_cast<int64_t>(~ux), d);
    case OpKind::Abs:
      return int_scalar(sgn && x < 0 ? static_cast<int64_t>(0 - ux) : x, d);
    default:
      return std::nullopt;
    }
  }
  int64_t y = a[1].i;
  uint64_t uy = static_cast<uint64_t>(y);
  int64_t min_signed = w >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (w - 1));
  auto cmp3 = [&]() { return sgn ? (x < y ? -1 : x > y) : (ux < uy ? -1 : ux > uy); };
  switch (op.kind()) {
  case OpKind::Add:
    return int_scalar(static_cast<int64_t>(ux + uy), d);
  case OpKind::Sub:
    return int_scalar(static_cast<int64_t>(ux - uy), d);
  case OpKind::Mul:
    return int_scalar(static_cast<int64_t>(ux * uy), d);
  case OpKind::Div:
  case OpKind::Rem:
    if (y == 0 || (sgn && x == min_signed && y == -1))
      return std::nullopt; // undefined: leave it to run time
    if (op.kind() == OpKind::Div)
      return int_scalar(sgn ? x / y : static_cast<int64_t>(ux / uy), d);
    return int_scalar(sgn ? x % y : static_cast<int64_t>(ux % uy), d);
  case OpKind::And:
    return int_scalar(static_cast<int64_t>(ux & uy), d);
  case OpKind::Or:
    return int_scalar(static_cast<int64_t>(ux | uy), d);
  case OpKind::Xor:
    return int_scalar(static_cast<int64_t>(ux ^ uy), d);
  case OpKind::Shl:
  case OpKind::Shr: {
    if ((sgn && y < 0) || uy >= static_cast<uint64_t>(w))
      return std::nullopt; // over-wide shifts are undefined
    if (op.kind() == OpKind::Shl)
      return int_scalar(static_cast<int64_t>(ux << uy), d);
    return int_scalar(sgn ? x >> uy : static_cast<int64_t>(ux >> uy), d);
  }
  case OpKind::Min:
    return int_scalar(cmp3() <= 0 ? x : y, d);
  case OpKind::Max:
    return int_scalar(cmp3() >= 0 ? x : y, d);
  case OpKind::Umulhi: {
    uint64_t m = width_mask(w);
    uint64_t hi;
    if (w <= 32)
      hi = ((ux & m) * (uy & m)) >> w;
    else
      hi = static_cast<uint64_t>((static_cast<unsigned __int128>(ux) * uy) >> 64);
    return int_scalar(static_cast<int64_t>(hi), d);
  }
  case OpKind::Cmp:
    return bool_scalar(compare(op.str_attr("pred"), cmp3(), false));
  default:
    return std::nullopt;
  }
}

std::optional<Scalar> fold_float(const ir::Op &op, const std::vector<Scalar> &a, DType d) {
  double x = a[0].f;
  auto rounded = [&](double v) -> std::optional<Scalar> {
    auto r = round_to(v, d);
    if (!r)
      return std::nullopt;
    return float_scalar(*r);
  };
  if (a.size() == 1) {
    switch (op.kind()) {
    case OpKind::Neg:
      return float_scalar(-x);
    case OpKind::Abs:
      return float_scalar(std::fabs(x));
    case OpKind::Floor:
      return float_scalar(std::floor(x));
    case OpKind::Ceil:
      return float_scalar(std::ceil(x));
    default:
      return std::nullopt;
    }
  }
  double y = a[1].f;
  bool nan = std::isnan(x) || std::isnan(y);
  switch (op.kind()) {
  // The exact result rounded once to the dtype. Computing in double first is safe:
  // double has more than 2p+2 bits for every dtype we fold, so the double rounding of
  // +, -, *, / is innocuous.
  case OpKind::Add:
    return rounded(x + y);
  case OpKind::Sub:
    return rounded(x - y);
  case OpKind::Mul:
    return rounded(x * y);
  case OpKind::Div:
    return rounded(x / y);
  case OpKind::Rem:
    return float_scalar(std::fmod(x, y)); // exact
  case OpKind::Min:
  case OpKind::Max: {
    if (nan) {
      if (op.int_attr("propagate_nan", 0) || (std::isnan(x) && std::isnan(y)))
        return float_scalar(std::numeric_limits<double>::quiet_NaN());
      return float_scalar(std::isnan(x) ? y : x);
    }
    if (x == 0 && y == 0 && std::signbit(x) != std::signbit(y))
      return std::nullopt; // the sign of the zero is unspecified
    bool first = op.kind() == OpKind::Min ? x <= y : x >= y;
    return float_scalar(first ? x : y);
  }
  case OpKind::Cmp:
    return bool_scalar(compare(op.str_attr("pred"), x < y ? -1 : x > y, nan));
  default:
    return std::nullopt;
  }
}

std::optional<Scalar> fold_cast(const ir::Op &op, const Scalar &a, DType from, DType to) {
  bool rtz = op.str_attr("rounding") == "rtz";
  if (!a.is_float) {
    if (!ir::is_float(to))
      return to == DType::I1 ? bool_scalar(a.i != 0) : int_scalar(a.i, to);
    // int -> float. Exact in double up to 2^53; beyond, only a direct conversion
    // rounds once.
    bool unsigned_src = !ir::is_signed_int(from);
    uint64_t u = static_cast<uint64_t>(a.i);
    bool small = unsigned_src ? u <= (uint64_t(1) << 53)
                              : (a.i <= (int64_t(1) << 53) && a.i >= -(int64_t(1) << 53));
    std::optional<double> r;
    if (small)
      r = round_to(unsigned_src ? static_cast<double>(u) : static_cast<double>(a.i), to);
    else if (to == DType::F64)
      r = unsigned_src ? static_cast<double>(u) : static_cast<double>(a.i);
    else if (to == DType::F32)
      r = unsigned_src ? static_cast<double>(static_cast<float>(u))
                       : static_cast<double>(static_cast<float>(a.i));
    if (!r || (rtz && (!small ||
                       *r != (unsigned_src ? static_cast<double>(u) : static_cast<double>(a.i)))))
      return std::nullopt;
    return float_scalar(*r);
  }
  double x = a.f;
  if (ir::is_float(to)) {
    auto r = round_to(x, to);
    if (!r || (rtz && !std::isnan(x) && *r != x))
      return std::nullopt;
    return float_scalar(*r);
  }
  if (to == DType::I1)
    return bool_scalar(x != 0);
  if (!std::isfinite(x))
    return std::nullopt;
  double t = std::trunc(x);
  int w = ir::bits(to);
  if (ir::is_signed_int(to)) {
    double lim = std::ldexp(1.0, w - 1);
    if (t < -lim || t >= lim)
      return std::nullopt; // out of range: undefined
    return int_scalar(static_cast<int64_t>(t), to);
  }
  if (t < 0 || t >= std::ldexp(1.0, w))
    return std::nullopt;
  return int_scalar(static_cast<int64_t>(static_cast<uint64_t>(t)), to);
}

std::optional<Scalar> fold_bitcast(const Scalar &a, DType from, DType to) {
  uint64_t bits_of = 0;
  if (!a.is_float) {
    bits_of = static_cast<uint64_t>(a.i);
  } else if (from == DType::F32) {
    float f = static_cast<float>(a.f);
    uint32_t b32;
    std::memcpy(&b32, &f, 4);
    bits_of = b32;
  } else if (from == DType::F64) {
    std::memcpy(&bits_of, &a.f, 8);
  } else {
    return std::nullopt;
  }
  if (!ir::is_float(to))
    return int_scalar(static_cast<int64_t>(bits_of), to);
  if (to == DType::F32) {
    uint32_t b32 = static_cast<uint32_t>(bits_of);
    float f;
    std::memcpy(&f, &b32, 4);
    return float_scalar(f);
  }
  if (to == DType::F64) {
    double f;
    std::memcpy(&f, &bits_of, 8);
    return float_scalar(f);
  }
  return std::nullopt;
}

} // namespace

std::optional<double> round_to(double v, DType d) {
  switch (d) {
  case DType::F64:
  case DType::F32:
  case DType::F16:
  case DType::BF16:
    return std::isnan(v) ? v : ir::round_to_dtype(v, d);
  case DType::F8E5:
  case DType::F8E4NV: {
    // Only values fp8 holds exactly (0, small integers, ...): rounding, saturation and
    // infinities are left to the cast's own semantics on each target.
    if (std::isnan(v) || std::fabs(v) > (d == DType::F8E4NV ? 448.0 : 57344.0))
      return std::nullopt;
    return ir::round_to_dtype(v, d) == v ? std::optional<double>(v) : std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

bool is_plus_zero_constant(const ir::Value *v) {
  const ir::Op *d = v->def;
  if (d && d->kind() == OpKind::Splat)
    d = d->operand(0)->def;
  if (!d || d->kind() != OpKind::Constant)
    return false;
  const ir::AttrValue *a = d->attr("value");
  if (const auto *i = a ? std::get_if<int64_t>(a) : nullptr)
    return *i == 0;
  if (const auto *f = a ? std::get_if<double>(a) : nullptr)
    return *f == 0.0 && !std::signbit(*f);
  return false;
}

std::optional<Scalar> constant_value(const ir::Value *v) {
  if (!v->def || v->def->kind() != OpKind::Constant || v->type.is_ptr())
    return std::nullopt;
  const ir::AttrValue *a = v->def->attr("value");
  if (!a)
    return std::nullopt;
  DType d = v->type.elem;
  if (ir::is_float(d)) {
    double x;
    if (auto *i = std::get_if<int64_t>(a))
      x = static_cast<double>(*i);
    else if (auto *f = std::get_if<double>(a))
      x = *f;
    else
      return std::nullopt;
    auto r = round_to(x, d);
    if (!r)
      return std::nullopt;
    return float_scalar(*r);
  }
  if (auto *i = std::get_if<int64_t>(a))
    return int_scalar(*i, d);
  return std::nullopt;
}

ir::AttrValue to_attr(const Scalar &s) {
  if (s.is_float)
    return s.f;
  return s.i;
}

bool is_zero(const Scalar &s) { return s.is_float ? s.f == 0 : s.i == 0; }
bool is_one(const Scalar &s) { return s.is_float ? s.f == 1 : s.i == 1; }
bool is_all_ones(const Scalar &s, DType d) {
  return !s.is_float &&
         (static_cast<uint64_t>(s.i) & width_mask(ir::bits(d))) == width_mask(ir::bits(d));
}

std::optional<Scalar> fold_elementwise(const ir::Op &op, const std::vector<Scalar> &args, DType d,
                                       DType rd) {
  if (args.empty())
    return std::nullopt;
  switch (op.kind()) {
  case OpKind::Select:
    if (args.size() != 3)
      return std::nullopt;
    return args[0].i ? args[1] : args[2];
  case OpKind::Cast:
    return fold_cast(op, args[0], d, rd);
  case OpKind::Bitcast:
    if (ir::bits(d) != ir::bits(rd))
      return std::nullopt;
    return fold_bitcast(args[0], d, rd);
  default:
    break;
  }
  for (const Scalar &s : args)
    if (s.is_float != ir::is_float(d))
      return std::nullopt;
  return ir::is_float(d) ? fold_float(op, args, d) : fold_int(op, args, d);
}

} // namespace tilec::transforms
