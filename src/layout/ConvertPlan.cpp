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

namespace {

// Whether only the register basis `reg` of `l` touches coordinate bit (dim, bit), and it
// is exactly that bit.
bool only_register_steps(const LinearLayout &l, int reg, int dim, int bit) {
  for (const auto &in : l.in_dims())
    for (size_t k = 0; k < in.bases.size(); ++k) {
      const LinearLayout::Basis &b = in.bases[k];
      bool mine = in.name == kRegister && static_cast<int>(k) == reg;
      for (size_t o = 0; o < b.size(); ++o) {
        int32_t want = mine && static_cast<int>(o) == dim ? (1 << bit) : 0;
        int32_t have = mine ? b[o] : b[o] & (static_cast<int>(o) == dim ? (1 << bit) : 0);
        if (have != want)
          return false;
      }
    }
  return true;
}

} // namespace

std::optional<ChunkBit> chunk_bit(const LinearLayout &src, const LinearLayout &dst) {
  if (!src.has_in_dim(kRegister) || !dst.has_in_dim(kRegister))
    return std::nullopt;
  const auto &sb = src.in_dims()[src.in_dim_index(kRegister)].bases;
  const auto &db = dst.in_dims()[dst.in_dim_index(kRegister)].bases;
  for (int s = static_cast<int>(sb.size()) - 1; s >= 0; --s) {
    int dim = -1, bit = -1;
    for (size_t o = 0; o < sb[s].size(); ++o)
      if (sb[s][o] != 0) {
        if (dim >= 0 || (sb[s][o] & (sb[s][o] - 1)))
          dim = -2; // more than one coordinate bit
        else
          dim = static_cast<int>(o), bit = __builtin_ctz(static_cast<uint32_t>(sb[s][o]));
      }
    if (dim < 0 || !only_register_steps(src, s, dim, bit))
      continue;
    for (int d = 0; d < static_cast<int>(db.size()); ++d)
      if (db[d] == sb[s] && only_register_steps(dst, d, dim, bit))
        return ChunkBit{s, d, dim, bit};
  }
  return std::nullopt;
}

LinearLayout drop_chunk_bit(const LinearLayout &l, int reg, int dim, int bit) {
  std::vector<LinearLayout::InDim> ins;
  for (const auto &in : l.in_dims()) {
    LinearLayout::InDim n{in.name, {}};
    for (size_t k = 0; k < in.bases.size(); ++k) {
      if (in.name == kRegister && static_cast<int>(k) == reg)
        continue;
      LinearLayout::Basis b = in.bases[k];
      int32_t c = b[static_cast<size_t>(dim)]; // bit `bit` is clear (only_register_steps)
      b[static_cast<size_t>(dim)] = (c & ((1 << bit) - 1)) | ((c >> (bit + 1)) << bit);
      n.bases.push_back(std::move(b));
    }
    ins.push_back(std::move(n));
  }
  std::vector<LinearLayout::OutDim> outs = l.out_dims();
  outs[static_cast<size_t>(dim)].size /= 2;
  return LinearLayout(std::move(ins), std::move(outs));
}

int chunk_bits_available(const LinearLayout &src, const LinearLayout &dst) {
  LinearLayout s = src, d = dst;
  int n = 0;
  while (auto c = chunk_bit(s, d)) {
    s = drop_chunk_bit(s, c->src_reg, c->dim, c->bit);
    d = drop_chunk_bit(d, c->dst_reg, c->dim, c->bit);
    ++n;
  }
  return n;
}

} // namespace tilec::layout
