#include "layout/ConvertPlan.h"

#include "support/Diagnostics.h"

namespace tilec::layout {

namespace {

// Packs a basis (all output dims of one layout; small enough for 63 bits) into an integer.
uint64_t pack(const LinearLayout &l, const LinearLayout::Basis &b) {
  uint64_t v = 0;
  int off = 0;
  for (size_t k = 0; k < b.size(); ++k) {
    v |= static_cast<uint64_t>(b[k]) << off;
    off += __builtin_ctz(static_cast<uint32_t>(l.out_dims()[k].size));
  }
  return v;
}

// A span of packed vectors kept in reduced echelon form.
struct Span {
  std::vector<uint64_t> basis;
  uint64_t reduce(uint64_t v) const {
    for (uint64_t b : basis)
      if (v & (uint64_t{1} << (63 - __builtin_clzll(b))))
        v ^= b;
    return v;
  }
  void add(uint64_t v) {
    v = reduce(v);
    if (!v)
      return;
    uint64_t lead = uint64_t{1} << (63 - __builtin_clzll(v));
    for (uint64_t &b : basis)
      if (b & lead)
        b ^= v;
    basis.push_back(v);
  }
  bool contains(uint64_t v) const { return reduce(v) == 0; }
};

std::vector<uint64_t> packed(const LinearLayout &l, const char *in) {
  std::vector<uint64_t> r;
  if (!l.has_in_dim(in))
    return r;
  for (const auto &b : l.in_dims()[l.in_dim_index(in)].bases)
    r.push_back(pack(l, b));
  return r;
}

// True when every element dst places at (r, l, w) is held by src at some index that
// agrees with (l, w) on the dims in `fixed` ("lane", "warp"): the span of src's other
// dims must contain dst's bases of the free dims, and dst ^ src on the fixed dims.
bool reachable(const LinearLayout &src, const LinearLayout &dst,
               const std::vector<const char *> &moving, const std::vector<const char *> &fixed) {
  Span span;
  for (const char *in : moving)
    for (uint64_t v : packed(src, in))
      span.add(v);
  for (const char *in : moving)
    for (uint64_t v : packed(dst, in))
      if (!span.contains(v))
        return false;
  for (const char *in : fixed) {
    std::vector<uint64_t> s = packed(src, in), d = packed(dst, in);
    for (size_t i = 0; i < std::max(s.size(), d.size()); ++i) {
      uint64_t sv = i < s.size() ? s[i] : 0, dv = i < d.size() ? d[i] : 0;
      // a thread index bit one layout lacks: that thread does not exist in it
      if ((i >= s.size() || i >= d.size()) && sv != dv)
        return false;
      if (!span.contains(sv ^ dv))
        return false;
    }
  }
  return true;
}

} // namespace

const char *conversion_kind_name(ConversionKind k) {
  switch (k) {
  case ConversionKind::None:
    return "none";
  case ConversionKind::Registers:
    return "registers";
  case ConversionKind::Shuffle:
    return "shuffle";
  case ConversionKind::SharedMemory:
    return "shared_memory";
  }
  return "?";
}

std::string ConversionPlan::str() const { return conversion_kind_name(kind); }

ConversionPlan plan_conversion(const LinearLayout &src, const LinearLayout &dst) {
  TILEC_ASSERT(src.num_out_dims() == dst.num_out_dims(),
               "conversion between layouts of different ranks");
  for (int k = 0; k < src.num_out_dims(); ++k)
    TILEC_ASSERT(src.out_dims()[k].name == dst.out_dims()[k].name &&
                     src.out_dims()[k].size == dst.out_dims()[k].size,
                 "conversion between layouts of different shapes: " + src.str() + " vs " +
                     dst.str());
  ConversionPlan p;
  p.dst_to_src = dst.invert_and_compose(src);
  if (src == dst)
    p.kind = ConversionKind::None;
  else if (reachable(src, dst, {kRegister}, {kLane, kWarp}))
    p.kind = ConversionKind::Registers;
  else if (reachable(src, dst, {kRegister, kLane}, {kWarp}))
    p.kind = ConversionKind::Shuffle;
  else
    p.kind = ConversionKind::SharedMemory;
  return p;
}

} // namespace tilec::layout
