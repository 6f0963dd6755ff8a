// Per-lane semantics of the pure instructions: integer and float arithmetic, logic,
// comparisons, selects and math, as the PTX ISA defines them.
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>

#include "interp/simt/SimFloat.h"
#include "interp/simt/SimInternal.h"

namespace tilec::simt::sim {

namespace {

uint64_t width_mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
int64_t sext(uint64_t v, int bits) {
  if (bits >= 64)
    return static_cast<int64_t>(v);
  uint64_t m = 1ull << (bits - 1);
  v &= width_mask(bits);
  return static_cast<int64_t>((v ^ m) - m);
}

[[noreturn]] void unsupported(const Decoded &d, const char *what) {
  throw Fault{std::string("simt: unsupported ") + what + " ." + ty_name(d.in->ty) + " in `" +
              op_mnemonic(d.in->op) + "`"};
}

// ---- integers ----

uint64_t int_binary(const Decoded &d, uint64_t a, uint64_t b) {
  const Instr &in = *d.in;
  int bits = ty_bits(in.ty);
  bool sgn = ty_is_signed(in.ty);
  uint64_t m = width_mask(bits);
  int64_t sa = sext(a, bits), sb = sext(b, bits);
  uint64_t ua = a & m, ub = b & m;
  switch (in.op) {
  case Op::Add:
  case Op::Sub: {
    if (in.m.sat) { // only .s32 has .sat: clamp instead of wrapping
      int64_t r = in.op == Op::Add ? sa + sb : sa - sb;
      r = std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
      return static_cast<uint64_t>(r) & m;
    }
    return (in.op == Op::Add ? ua + ub : ua - ub) & m;
  }
  case Op::Mul: {
    if (in.m.mul == MulMode::Lo)
      return (ua * ub) & m;
    __int128 p = sgn ? static_cast<__int128>(sa) * sb
                     : static_cast<__int128>(static_cast<unsigned __int128>(ua) * ub);
    if (in.m.mul == MulMode::Wide)
      return static_cast<uint64_t>(p) & width_mask(2 * bits);
    return static_cast<uint64_t>(p >> bits) & m; // hi
  }
  case Op::Div:
    if (ub == 0)
      return m; // unspecified in PTX; the hardware gives all ones
    if (sgn)
      return (sa == sext(1ull << (bits - 1), bits) && sb == -1)
                 ? ua
                 : static_cast<uint64_t>(sa / sb) & m;
    return ua / ub;
  case Op::Rem:
    if (ub == 0)
      return ua;
    if (sgn)
      return sb == -1 ? 0 : static_cast<uint64_t>(sa % sb) & m;
    return ua % ub;
  case Op::Min:
    return sgn ? static_cast<uint64_t>(std::min(sa, sb)) & m : std::min(ua, ub);
  case Op::Max:
    return sgn ? static_cast<uint64_t>(std::max(sa, sb)) & m : std::max(ua, ub);
  case Op::And:
    return ua & ub;
  case Op::Or:
    return ua | ub;
  case Op::Xor:
    return ua ^ ub;
  case Op::Shl:
    return b >= static_cast<uint64_t>(bits) ? 0 : (ua << b) & m;
  case Op::Shr:
    if (sgn)
      return static_cast<uint64_t>(sa >> std::min<uint64_t>(b, bits - 1)) & m;
    return b >= static_cast<uint64_t>(bits) ? 0 : ua >> b;
  default:
    unsupported(d, "integer operation");
  }
}

uint64_t int_mad(const Decoded &d, uint64_t a, uint64_t b, uint64_t c) {
  const Instr &in = *d.in;
  int bits = ty_bits(in.ty);
  bool sgn = ty_is_signed(in.ty);
  int64_t sa = sext(a, bits), sb = sext(b, bits);
  uint64_t ua = a & width_mask(bits), ub = b & width_mask(bits);
  __int128 p = sgn ? static_cast<__int128>(sa) * sb
                   : static_cast<__int128>(static_cast<unsigned __int128>(ua) * ub);
  switch (in.m.mul) {
  case MulMode::Lo:
    return (static_cast<uint64_t>(p) + c) & width_mask(bits);
  case MulMode::Wide:
    return (static_cast<uint64_t>(p) + c) & width_mask(2 * bits);
  default: {
    uint64_t hi = static_cast<uint64_t>(p >> bits);
    if (in.m.sat) { // mad.hi.sat.s32
      int64_t r = sext(hi, bits) + sext(c, bits);
      return static_cast<uint64_t>(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)) & width_mask(bits);
    }
    return (hi + c) & width_mask(bits);
  }
  }
}

uint64_t int_unary(const Decoded &d, uint64_t a) {
  const Instr &in = *d.in;
  int bits = ty_bits(in.ty);
  uint64_t m = width_mask(bits);
  uint64_t ua = a & m;
  switch (in.op) {
  case Op::Abs: {
    int64_t s = sext(a, bits);
    return static_cast<uint64_t>(s < 0 ? -s : s) & m; // abs(INT_MIN) = INT_MIN
  }
  case Op::Neg:
    return (0 - ua) & m;
  case Op::Not:
    return ~ua & m;
  case Op::Popc:
    return static_cast<uint64_t>(std::popcount(ua));
  case Op::Clz:
    return static_cast<uint64_t>(std::countl_zero(ua) - (64 - bits));
  case Op::Brev: {
    uint64_t r = 0;
    for (int i = 0; i < bits; ++i)
      if (ua >> i & 1)
        r |= 1ull << (bits - 1 - i);
    return r;
  }
  default:
    unsupported(d, "integer operation");
  }
}

uint64_t prmt(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t bytes = (a & 0xffffffffu) | ((b & 0xffffffffu) << 32);
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t sel = static_cast<uint32_t>(c >> (4 * i)) & 0xf;
    uint32_t byte = static_cast<uint32_t>(bytes >> (8 * (sel & 7))) & 0xff;
    if (sel & 8) // replicate the sign bit
      byte = (byte & 0x80) ? 0xff : 0;
    r |= byte << (8 * i);
  }
  return r;
}

// ---- floats ----

bool is_half(Ty t) { return t == Ty::F16 || t == Ty::BF16; }
Ty half_of(Ty t) { return t == Ty::F16x2 ? Ty::F16 : t == Ty::BF16x2 ? Ty::BF16 : t; }

// Input with .ftz applied (f32 only flushes f32 subnormals; f16 .ftz flushes f16 ones).
double fin(uint64_t bits, Ty t, bool ftz) {
  double v = float_value(bits, t);
  if (ftz && v != 0) {
    double tiny = t == Ty::F32 ? FLT_MIN : t == Ty::F16 ? 6.103515625e-05 : 0;
    if (std::fabs(v) < tiny)
      v = std::copysign(0.0, v);
  }
  return v;
}

uint64_t fout(Exact x, Ty t, Rnd r, const Mods &m) {
  if (m.sat) { // clamp to [0, 1]; NaN gives +0
    if (std::isnan(x.s) || x.s < 0 || (x.s == 0 && x.e <= 0))
      x = {0, 0};
    else if (x.s > 1 || (x.s == 1 && x.e >= 0))
      x = {1, 0};
  }
  if (m.relu && (x.s < 0 || (x.s == 0 && std::signbit(x.s))))
    x = {0, 0};
  uint64_t bits = round_to(x, t, r, m.ftz);
  if (m.ftz && is_half(t)) {
    double v = float_value(bits, t);
    if (v != 0 && std::fabs(v) < 6.103515625e-05 && t == Ty::F16)
      bits &= 0x8000;
  }
  return bits;
}

// min/max: a NaN operand is ignored unless .NaN; -0 orders below +0.
double fminmax(bool is_max, double a, double b, bool nan) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nan || (std::isnan(a) && std::isnan(b)))
      return NAN;
    return std::isnan(a) ? b : a;
  }
  if (a == b)
    return (std::signbit(a) != is_max) ? a : b;
  return (a < b) != is_max ? a : b;
}

double approx_math(Op op, double x) {
  switch (op) {
  case Op::Ex2:
    return std::exp2(x);
  case Op::Lg2:
    return std::log2(x);
  case Op::Sqrt:
    return std::sqrt(x);
  case Op::Rsqrt:
    return 1.0 / std::sqrt(x);
  case Op::Rcp:
    return 1.0 / x;
  case Op::Sin:
    return std::sin(x);
  case Op::Cos:
    return std::cos(x);
  case Op::Tanh:
    return std::tanh(x);
  default:
    return NAN;
  }
}

// One float lane (f16, bf16, f32 or f64) of an arithmetic instruction.
uint64_t float_lane(const Decoded &d, Ty t, const uint64_t *src) {
  const Instr &in = *d.in;
  const Mods &m = in.m;
  Rnd r = m.rnd == Rnd::None ? Rnd::Rn : m.rnd;
  if (m.approx || m.full)
    r = Rnd::Rn;
  bool ftz = m.ftz;
  double a = fin(src[0], t, ftz);
  double b = op_num_src(in.op) >= 2 ? fin(src[1], t, ftz) : 0;
  double c = op_num_src(in.op) >= 3 ? fin(src[2], t, ftz) : 0;
  Exact x;
  switch (in.op) {
  case Op::Add:
    x = exact_add(a, b);
    break;
  case Op::Sub:
    x = exact_add(a, -b);
    break;
  case Op::Mul:
    x = exact_mul(a, b);
    break;
  case Op::Mad:
  case Op::Fma:
    x = exact_fma(a, b, c);
    break;
  case Op::Div:
    if (m.approx || m.full)
      x = {a / b, 0};
    else
      x = exact_div(a, b);
    break;
  case Op::Rem:
    unsupported(d, "float rem");
  case Op::Abs:
    return round_to({std::fabs(a), 0}, t, Rnd::Rn, ftz);
  case Op::Neg:
    return round_to({-a, 0}, t, Rnd::Rn, ftz);
  case Op::Min:
  case Op::Max: {
    double v = fminmax(in.op == Op::Max, a, b, m.nan);
    if (m.relu && !(v > 0) && !std::isnan(v))
      v = 0;
    return round_to({v, 0}, t, Rnd::Rn, ftz);
  }
  case Op::Sqrt:
    x = m.approx ? Exact{std::sqrt(a), 0} : exact_sqrt(a);
    break;
  case Op::Rcp:
    x = m.approx ? Exact{1.0 / a, 0} : exact_div(1.0, a);
    break;
  case Op::Ex2:
  case Op::Lg2:
  case Op::Rsqrt:
  case Op::Sin:
  case Op::Cos:
  case Op::Tanh:
    x = {approx_math(in.op, a), 0};
    break;
  default:
    unsupported(d, "float operation");
  }
  return fout(x, t, r, m);
}

uint64_t float_arith(const Decoded &d, const uint64_t *src) {
  Ty t = d.in->ty;
  if (t == Ty::F16x2 || t == Ty::BF16x2) {
    Ty h = half_of(t);
    uint64_t lo_src[3], hi_src[3];
    for (int i = 0; i < 3; ++i) {
      lo_src[i] = src[i] & 0xffff;
      hi_src[i] = (src[i] >> 16) & 0xffff;
    }
    int n = op_num_src(d.in->op);
    for (int i = n; i < 3; ++i)
      lo_src[i] = hi_src[i] = 0;
    return float_lane(d, h, lo_src) | (float_lane(d, h, hi_src) << 16);
  }
  return float_lane(d, t, src);
}

bool compare(Cmp c, Ty t, uint64_t a, uint64_t b, bool ftz) {
  if (ty_is_float(t)) {
    double x = fin(a, t, ftz), y = fin(b, t, ftz);
    bool un = std::isnan(x) || std::isnan(y);
    switch (c) {
    case Cmp::Eq:
      return !un && x == y;
    case Cmp::Ne:
      return !un && x != y;
    case Cmp::Lt:
      return !un && x < y;
    case Cmp::Le:
      return !un && x <= y;
    case Cmp::Gt:
      return !un && x > y;
    case Cmp::Ge:
      return !un && x >= y;
    case Cmp::Equ:
      return un || x == y;
    case Cmp::Neu:
      return un || x != y;
    case Cmp::Ltu:
      return un || x < y;
    case Cmp::Leu:
      return un || x <= y;
    case Cmp::Gtu:
      return un || x > y;
    case Cmp::Geu:
      return un || x >= y;
    case Cmp::Num:
      return !un;
    case Cmp::Nan:
      return un;
    default:
      break;
    }
    throw Fault{std::string("simt: setp.") + cmp_name(c) + " is not a float comparison"};
  }
  int bits = ty_bits(t);
  uint64_t m = width_mask(bits);
  uint64_t ua = a & m, ub = b & m;
  int64_t sa = sext(a, bits), sb = sext(b, bits);
  bool s = ty_is_signed(t);
  switch (c) {
  case Cmp::Eq:
    return ua == ub;
  case Cmp::Ne:
    return ua != ub;
  case Cmp::Lt:
    return s ? sa < sb : ua < ub;
  case Cmp::Le:
    return s ? sa <= sb : ua <= ub;
  case Cmp::Gt:
    return s ? sa > sb : ua > ub;
  case Cmp::Ge:
    return s ? sa >= sb : ua >= ub;
  case Cmp::Lo:
    return ua < ub;
  case Cmp::Ls:
    return ua <= ub;
  case Cmp::Hi:
    return ua > ub;
  case Cmp::Hs:
    return ua >= ub;
  default:
    break;
  }
  throw Fault{std::string("simt: setp.") + cmp_name(c) + " is not an integer comparison"};
}

} // namespace

uint64_t eval_pure(const Decoded &d, const uint64_t *src) {
  const Instr &in = *d.in;
  Ty t = in.ty;
  switch (in.op) {
  case Op::Mov:
    return src[0];
  case Op::Setp:
    return compare(in.m.cmp, t, src[0], src[1], in.m.ftz);
  case Op::Selp:
    return src[2] ? src[0] : src[1];
  case Op::Prmt:
    return prmt(src[0], src[1], src[2]);
  case Op::Cvt:
    return eval_cvt(d, src);
  case Op::And:
  case Op::Or:
  case Op::Xor:
  case Op::Not:
    if (t == Ty::Pred) {
      bool a = src[0] & 1, b = op_num_src(in.op) > 1 && (src[1] & 1);
      return in.op == Op::And ? a && b : in.op == Op::Or ? a || b : in.op == Op::Xor ? a != b : !a;
    }
    break;
  default:
    break;
  }
  if (ty_is_float(t))
    return float_arith(d, src);
  switch (in.op) {
  case Op::Mad:
    return int_mad(d, src[0], src[1], src[2]);
  case Op::Abs:
  case Op::Neg:
  case Op::Not:
  case Op::Popc:
  case Op::Clz:
  case Op::Brev:
    return int_unary(d, src[0]);
  default:
    return int_binary(d, src[0], src[1]);
  }
}

} // namespace tilec::simt::sim
