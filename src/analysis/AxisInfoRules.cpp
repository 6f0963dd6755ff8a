#include "analysis/AxisInfoRules.h"

#include <algorithm>
#include <numeric>

namespace tilec::analysis::rules {

using ir::OpKind;

int64_t pow2_divisor(int64_t v) {
  if (v == 0)
    return kMaxDivisibility;
  uint64_t u = static_cast<uint64_t>(v);
  uint64_t low = u & (~u + 1);
  return std::min<int64_t>(static_cast<int64_t>(low == 0 ? uint64_t{1} << 62 : low),
                           kMaxDivisibility);
}

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

std::vector<int64_t> dims_of(const ir::Type &t) {
  return t.is_scalar() ? std::vector<int64_t>{1} : t.shape;
}

int64_t element_divisibility(const AxisInfo &a) {
  int64_t d = kMaxDivisibility;
  for (int i = 0; i < a.rank(); ++i)
    d = std::min(d, a.contiguity[i] > 1 ? int64_t{1} : a.divisibility[i]);
  return d;
}

namespace {

AxisInfo unknown_like(const ir::Type &t) {
  return AxisInfo::unknown(static_cast<int>(dims_of(t).size()));
}

std::optional<int64_t> wrap(const ir::Type &t, __int128 v) {
  // constants follow the dtype's wrapping; give up outside int64
  int bits = ir::bits(t.elem);
  if (t.is_ptr() || bits >= 64)
    return v >= INT64_MIN && v <= INT64_MAX ? std::optional<int64_t>(static_cast<int64_t>(v))
                                            : std::nullopt;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (ir::is_signed_int(t.elem) && (u >> (bits - 1)) & 1)
    return static_cast<int64_t>(u | ~mask);
  return static_cast<int64_t>(u);
}

// Constant folding of integer binary ops (C semantics; nullopt where undefined).
std::optional<int64_t> fold(OpKind k, const ir::Type &t, int64_t a, int64_t b) {
  __int128 x = a, y = b;
  switch (k) {
  case OpKind::Add:
    return wrap(t, x + y);
  case OpKind::Sub:
    return wrap(t, x - y);
  case OpKind::Mul:
    return wrap(t, x * y);
  case OpKind::Div:
    return b == 0 ? std::nullopt : wrap(t, x / y);
  case OpKind::Rem:
    return b == 0 ? std::nullopt : wrap(t, x % y);
  case OpKind::And:
    return a & b;
  case OpKind::Or:
    return a | b;
  case OpKind::Xor:
    return a ^ b;
  default:
    return std::nullopt;
  }
}

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

AxisInfo binary(const ir::Op &op, const AxisInfo &l, const AxisInfo &r) {
  const ir::Type &t = op.result(0)->type;
  int n = l.rank();
  AxisInfo o = AxisInfo::unknown(n);
  std::optional<int64_t> lc = l.constant, rc = r.constant;
  for (int d = 0; d < n; ++d) {
    o.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
    switch (op.kind()) {
    case OpKind::Add:
    case OpKind::AddPtr: {
      o.contiguity[d] =
          std::max(gcd(l.contiguity[d], r.constancy[d]), gcd(l.constancy[d], r.contiguity[d]));
      int64_t scale = op.kind() == OpKind::AddPtr ? ir::byte_size(t.elem) : 1;
      o.divisibility[d] =
          std::min(gcd(l.divisibility[d], r.divisibility[d] * scale), kMaxDivisibility);
      break;
    }
    case OpKind::Sub:
      o.contiguity[d] = gcd(l.contiguity[d], r.constancy[d]);
      o.divisibility[d] = gcd(l.divisibility[d], r.divisibility[d]);
      break;
    case OpKind::Mul: {
      if (rc == 1)
        o.contiguity[d] = l.contiguity[d];
      else if (lc == 1)
        o.contiguity[d] = r.contiguity[d];
      // [2^n, 2^n+1, ...] is divisible by 1 element-wise, unless multiplied by 1
      int64_t ld = l.contiguity[d] > 1 && rc != 1 ? 1 : l.divisibility[d];
      int64_t rd = r.contiguity[d] > 1 && lc != 1 ? 1 : r.divisibility[d];
      o.divisibility[d] = std::min(ld * rd, kMaxDivisibility);
      break;
    }
    case OpKind::Div:
      if (rc == 1) {
        o.contiguity[d] = l.contiguity[d];
        o.divisibility[d] = l.divisibility[d];
      } else if (rc && is_pow2(*rc)) {
        // runs of *rc consecutive values starting at a multiple of *rc divide to one value
        // (non-negative values, as Triton assumes)
        int64_t run = gcd(gcd(l.contiguity[d], *rc), l.divisibility[d]);
        o.constancy[d] = std::max(o.constancy[d], run);
        int64_t ed = l.contiguity[d] > 1 ? 1 : l.divisibility[d];
        o.divisibility[d] = ed >= *rc ? ed / *rc : 1;
      }
      break;
    case OpKind::Rem:
      if (rc && *rc > 0) {
        o.contiguity[d] = gcd(gcd(l.contiguity[d], pow2_divisor(*rc)), l.divisibility[d]);
        o.divisibility[d] = gcd(l.divisibility[d], pow2_divisor(*rc));
      } else if (!rc) {
        // a divisor known only by its divisibility D (tutorial 03's `(pid * BLOCK +
        // arange) % M`): a run of g = gcd(contiguity, start's divisibility, D) values
        // starting at a multiple of g crosses no multiple of the divisor, so it stays a run
        // where the divisor is constant over it (non-negative values, as Triton assumes)
        o.contiguity[d] = gcd(gcd(gcd(l.contiguity[d], l.divisibility[d]), r.divisibility[d]),
                              r.constancy[d]);
        o.divisibility[d] = gcd(l.divisibility[d], r.divisibility[d]);
      }
      break;
    case OpKind::And:
      if (rc && is_pow2(*rc + 1)) { // x & (2^k - 1) == x % 2^k for non-negative x
        o.contiguity[d] = gcd(gcd(l.contiguity[d], *rc + 1), l.divisibility[d]);
        o.divisibility[d] = gcd(l.divisibility[d], *rc + 1);
      } else {
        o.divisibility[d] = std::max(element_divisibility(l), element_divisibility(r));
      }
      break;
    case OpKind::Or:
    case OpKind::Xor:
      o.divisibility[d] = std::min(element_divisibility(l), element_divisibility(r));
      break;
    case OpKind::Shl:
      if (rc && *rc >= 0 && *rc < 31) {
        int64_t ed = l.contiguity[d] > 1 && *rc != 0 ? 1 : l.divisibility[d];
        o.divisibility[d] = std::min(ed << *rc, kMaxDivisibility);
        if (*rc == 0)
          o.contiguity[d] = l.contiguity[d];
      }
      break;
    case OpKind::Shr:
      if (rc && *rc >= 0 && *rc < 31) {
        int64_t c = int64_t{1} << *rc;
        int64_t run = gcd(gcd(l.contiguity[d], c), l.divisibility[d]);
        o.constancy[d] = std::max(o.constancy[d], run);
        int64_t ed = l.contiguity[d] > 1 ? 1 : l.divisibility[d];
        o.divisibility[d] = ed >= c ? ed / c : 1;
        if (*rc == 0)
          o.contiguity[d] = l.contiguity[d];
      }
      break;
    case OpKind::Min:
    case OpKind::Max:
      o.divisibility[d] = gcd(l.divisibility[d], r.divisibility[d]);
      break;
    default:
      break;
    }
  }
  if (lc && rc)
    o.constant = fold(op.kind(), t, *lc, *rc);
  if (op.kind() == OpKind::Min || op.kind() == OpKind::Max) {
    if (lc && rc)
      o.constant = op.kind() == OpKind::Min ? std::min(*lc, *rc) : std::max(*lc, *rc);
  }
  if (o.constant) { // a known value: its facts are exact
    AxisInfo c = AxisInfo::of_constant(*o.constant, dims_of(t));
    return c;
  }
  return o;
}

AxisInfo compare(const ir::Op &op, const AxisInfo &l, const AxisInfo &r) {
  int n = l.rank();
  AxisInfo o = AxisInfo::unknown(n);
  std::string pred = op.str_attr("pred");
  for (int d = 0; d < n; ++d) {
    o.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
    // x < c (and x >= c) over a run of consecutive x starting at a multiple of g, with c a
    // multiple of g, does not change within groups of g
    if ((pred == "lt" || pred == "ge") && l.contiguity[d] > 1) {
      int64_t g = gcd(gcd(l.contiguity[d], l.divisibility[d]), r.divisibility[d]);
      o.constancy[d] = std::max(o.constancy[d], gcd(g, r.constancy[d]));
    }
    if ((pred == "gt" || pred == "le") && r.contiguity[d] > 1) {
      int64_t g = gcd(gcd(r.contiguity[d], r.divisibility[d]), l.divisibility[d]);
      o.constancy[d] = std::max(o.constancy[d], gcd(g, l.constancy[d]));
    }
  }
  return o;
}

AxisInfo select(const AxisInfo &c, const AxisInfo &a, const AxisInfo &b) {
  if (c.constant)
    return *c.constant ? a : b;
  int n = a.rank();
  AxisInfo o = AxisInfo::unknown(n);
  for (int d = 0; d < n; ++d) {
    o.constancy[d] = gcd(c.constancy[d], gcd(a.constancy[d], b.constancy[d]));
    o.contiguity[d] =
        std::min(gcd(a.contiguity[d], c.constancy[d]), gcd(b.contiguity[d], c.constancy[d]));
    o.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
  }
  if (a.constant && b.constant && *a.constant == *b.constant)
    o.constant = a.constant;
  return o;
}

AxisInfo splat(const ir::Type &t, const AxisInfo &s) {
  std::vector<int64_t> dims = dims_of(t);
  AxisInfo o = AxisInfo::unknown(static_cast<int>(dims.size()));
  for (size_t d = 0; d < dims.size(); ++d) {
    o.constancy[d] = dims[d];
    o.divisibility[d] = s.divisibility[0];
  }
  o.constant = s.constant;
  return o;
}

AxisInfo broadcast(const ir::Type &from, const ir::Type &to, const AxisInfo &a) {
  AxisInfo o = a;
  for (int d = 0; d < to.rank(); ++d)
    if (from.shape[d] == 1 && to.shape[d] != 1) {
      o.constancy[d] = to.shape[d];
      o.contiguity[d] = 1;
    }
  return o;
}

AxisInfo expand_dims(const AxisInfo &a, int axis) {
  AxisInfo o = a;
  o.divisibility.insert(o.divisibility.begin() + axis, element_divisibility(a));
  o.contiguity.insert(o.contiguity.begin() + axis, 1);
  o.constancy.insert(o.constancy.begin() + axis, 1);
  return o;
}

// What survives any rearrangement of elements: element-wise divisibility and constancy
// of a tile that is constant throughout.
AxisInfo rearranged(const ir::Type &t, const std::vector<const AxisInfo *> &in) {
  std::vector<int64_t> dims = dims_of(t);
  AxisInfo o = AxisInfo::unknown(static_cast<int>(dims.size()));
  int64_t div = kMaxDivisibility;
  bool all_const = true;
  std::optional<int64_t> value = in.empty() ? std::nullopt : in[0]->constant;
  for (const AxisInfo *a : in) {
    div = std::min(div, element_divisibility(*a));
    all_const = all_const && a->constant && a->constant == value;
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    o.divisibility[d] = div;
    if (all_const)
      o.constancy[d] = dims[d];
  }
  if (all_const)
    o.constant = value;
  return o;
}

AxisInfo permute(const ir::Op &op, const AxisInfo &a) {
  std::vector<int64_t> order = op.ints_attr("order");
  AxisInfo o = a;
  for (size_t i = 0; i < order.size(); ++i) {
    o.divisibility[i] = a.divisibility[order[i]];
    o.contiguity[i] = a.contiguity[order[i]];
    o.constancy[i] = a.constancy[order[i]];
  }
  return o;
}

AxisInfo hint(const ir::Op &op, const AxisInfo &a) {
  AxisInfo o = a;
  auto apply = [&](const char *name, std::vector<int64_t> &field) {
    if (!op.has_attr(name))
      return;
    std::vector<int64_t> v = op.ints_attr(name);
    for (size_t i = 0; i < v.size() && i < field.size(); ++i)
      if (v[i] > 0)
        field[i] = pow2_divisor(v[i]); // the power-of-two part of the promise
  };
  apply("divisibility", o.divisibility);
  apply("contiguity", o.contiguity);
  apply("constancy", o.constancy);
  return o;
}

} // namespace

AxisInfo transfer(const ir::Op &op, const std::vector<const AxisInfo *> &in, size_t index) {
  const ir::Type &t = op.result(index)->type;
  if (!t.is_ptr() && ir::is_float(t.elem))
    return unknown_like(t);
  switch (op.kind()) {
  case OpKind::Constant: {
    const ir::AttrValue *v = op.attr("value");
    if (v && std::holds_alternative<int64_t>(*v))
      return AxisInfo::of_constant(std::get<int64_t>(*v), dims_of(t));
    return unknown_like(t);
  }
  case OpKind::Arange: {
    AxisInfo o = AxisInfo::unknown(1);
    o.contiguity[0] = t.shape[0];
    o.divisibility[0] = pow2_divisor(op.int_attr("start"));
    return o;
  }
  case OpKind::Splat:
    return splat(t, *in[0]);
  case OpKind::Broadcast:
    return broadcast(op.operand(0)->type, t, *in[0]);
  case OpKind::ExpandDims:
    return expand_dims(*in[0], static_cast<int>(op.int_attr("axis")));
  case OpKind::Permute:
    return permute(op, *in[0]);
  case OpKind::Reshape:
  case OpKind::Join:
  case OpKind::Split:
  case OpKind::Cat:
    return rearranged(t, in);
  case OpKind::Hint:
    return hint(op, *in[0]);
  case OpKind::ConvertLayout:
    return *in[0];
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::Rem:
  case OpKind::And:
  case OpKind::Or:
  case OpKind::Xor:
  case OpKind::Shl:
  case OpKind::Shr:
  case OpKind::Min:
  case OpKind::Max:
  case OpKind::AddPtr:
    return binary(op, *in[0], *in[1]);
  case OpKind::Cmp:
    return compare(op, *in[0], *in[1]);
  case OpKind::Select:
    return select(*in[0], *in[1], *in[2]);
  case OpKind::Cast: {
    const ir::Type &from = op.operand(0)->type;
    if (ir::is_float(from.elem) && !from.is_ptr())
      return unknown_like(t);
    AxisInfo o = *in[0];
    if (t.elem == ir::DType::I1 && !t.is_ptr()) { // x != 0: only constancy survives
      AxisInfo b = AxisInfo::unknown(o.rank());
      b.constancy = o.constancy;
      return b;
    }
    return o;
  }
  case OpKind::Neg: {
    if (in[0]->constant)
      if (auto v = wrap(t, -static_cast<__int128>(*in[0]->constant)))
        return AxisInfo::of_constant(*v, dims_of(t));
    AxisInfo o = AxisInfo::unknown(in[0]->rank());
    o.divisibility.assign(o.rank(), element_divisibility(*in[0]));
    o.constancy = in[0]->constancy;
    return o;
  }
  default:
    return unknown_like(t);
  }
}

} // namespace tilec::analysis::rules
