// LoweringContext's layout queries (LoweringContext.h): the linear layout of a tile type,
// which register holds which coordinates, the thread's coordinates as registers, and the
// predicates that pick one owner among threads holding copies of an element.
#include "layout/Layouts.h"
#include "lower/LoweringContext.h"

namespace tilec::lower {

using layout::LinearLayout;
using layout::log2i;

namespace {

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

} // namespace

// ---- layouts --------------------------------------------------------------------------

const LinearLayout &LoweringContext::layout_of(const ir::Type &t) {
  TILEC_ASSERT(t.is_tile() && t.layout, "lowering: tile without a layout: " + t.str());
  auto key = std::make_pair(t.layout.get(), t.shape);
  auto it = layouts_.find(key);
  if (it == layouts_.end())
    it = layouts_.emplace(key, layout::to_linear(*t.layout, t.shape)).first;
  return it->second;
}

int LoweringContext::num_regs(const ir::Type &t) {
  if (!t.is_tile())
    return 1;
  return layout_of(t).in_dim_size(layout::kRegister);
}

std::vector<int32_t> LoweringContext::reg_coords(const LinearLayout &l, int32_t r) {
  std::vector<int32_t> c;
  for (const auto &[name, v] : l.apply({{layout::kRegister, r}}))
    c.push_back(v);
  return c;
}

int64_t LoweringContext::flat_index(const LinearLayout &l, const std::vector<int32_t> &c) {
  int64_t f = 0;
  for (size_t d = 0; d < c.size(); ++d)
    f = f * l.out_dims()[d].size + c[d];
  return f;
}

std::vector<bool> LoweringContext::unique_regs(const LinearLayout &l) {
  int32_t n = l.in_dim_size(layout::kRegister);
  int32_t mask = l.has_in_dim(layout::kRegister) ? l.free_variable_mask(layout::kRegister) : 0;
  std::vector<bool> u(static_cast<size_t>(n));
  for (int32_t r = 0; r < n; ++r)
    u[static_cast<size_t>(r)] = (r & mask) == 0;
  return u;
}

bool LoweringContext::axis_exact(const ir::Value *v) {
  if (auto it = exact_.find(v); it != exact_.end())
    return it->second;
  bool exact = true;
  if (v->is_block_arg()) {
    exact = !v->type.is_tile(); // scalars (kernel arguments, loop counters) are splats
  } else {
    const ir::Op &op = *v->def;
    if ((op.kind() == ir::OpKind::Div || op.kind() == ir::OpKind::Rem) &&
        !ir::is_float(op.operand(0)->type.elem))
      exact = false;
    // results of control flow come from yields, not operands: trust only scalars
    bool combiner = op.kind() == ir::OpKind::Reduce || op.kind() == ir::OpKind::Scan;
    if (op.num_regions() > 0 && !combiner && v->type.is_tile())
      exact = false;
    exact_[v] = exact; // (a value is never its own source)
    for (size_t i = 0; exact && i < op.num_operands(); ++i)
      exact = axis_exact(op.operand(i));
  }
  exact_[v] = exact;
  return exact;
}

const ThreadCoords &LoweringContext::thread_coords(const LinearLayout &l) {
  std::string key = l.str();
  auto it = coords_.find(key);
  if (it != coords_.end())
    return it->second;
  ThreadCoords tc;
  int rank = l.num_out_dims();
  in_prologue([&] {
    struct Src {
      std::vector<LinearLayout::Basis> bases;
      Reg reg;
      int bits; // of the register's value
    };
    auto bases_of = [&](const char *in) {
      std::vector<LinearLayout::Basis> v;
      for (int i = 0; i < l.in_dim_bits(in); ++i)
        v.push_back(l.basis(in, i));
      return v;
    };
    std::vector<Src> srcs;
    int lane_bits = l.in_dim_bits(layout::kLane), warp_bits = l.in_dim_bits(layout::kWarp);
    if (lane_bits == 5 && warp_bits == log2i(num_warps())) {
      // every bit of the thread index used: fields may run from lane into warp bits, so
      // an fp16 row of 8 a thread is tid << 3, not (lane << 3) ^ (warp << 8)
      std::vector<LinearLayout::Basis> all = bases_of(layout::kLane), w = bases_of(layout::kWarp);
      all.insert(all.end(), w.begin(), w.end());
      srcs.push_back({std::move(all), tid(), 5 + warp_bits});
    } else {
      if (lane_bits > 0)
        srcs.push_back({bases_of(layout::kLane), lane(), 5});
      if (warp_bits > 0)
        srcs.push_back({bases_of(layout::kWarp), warp(), log2i(num_warps())});
    }
    for (int d = 0; d < rank; ++d) {
      Reg acc;
      int32_t span = 0;
      auto accumulate = [&](Reg part) { acc = acc.valid() ? b_.xor_(Ty::B32, acc, part) : part; };
      for (const Src &s : srcs) {
        int nbits = static_cast<int>(s.bases.size());
        for (int i = 0; i < nbits;) {
          const LinearLayout::Basis &bv = s.bases[static_cast<size_t>(i)];
          int32_t v = bv[static_cast<size_t>(d)];
          if (v == 0) {
            ++i;
            continue;
          }
          span |= v;
          bool single = is_pow2(v);
          for (int e = 0; e < rank && single; ++e)
            single = e == d || bv[static_cast<size_t>(e)] == 0;
          if (!single) { // a general basis: bit * v
            Reg bit =
                b_.and_(Ty::B32, i ? b_.shr(Ty::U32, s.reg, simt::imm(i)) : s.reg, simt::imm(1));
            accumulate(b_.mul(Ty::U32, bit, simt::imm(v)));
            ++i;
            continue;
          }
          // A run of bits i.. mapping to consecutive coordinate bits j..: one bit field.
          int j = log2i(v), k = 1;
          while (i + k < nbits) {
            const LinearLayout::Basis &nb = s.bases[static_cast<size_t>(i + k)];
            bool next = nb[static_cast<size_t>(d)] == (v << k);
            for (int e = 0; e < rank && next; ++e)
              next = e == d || nb[static_cast<size_t>(e)] == 0;
            if (!next)
              break;
            span |= v << k;
            ++k;
          }
          Reg f = s.reg;
          if (i)
            f = b_.shr(Ty::U32, f, simt::imm(i));
          if (i + k < s.bits)
            f = b_.and_(Ty::B32, f, simt::imm((int64_t{1} << k) - 1));
          if (j)
            f = b_.shl(Ty::B32, f, simt::imm(j));
          accumulate(f);
          i += k;
        }
      }
      if (!acc.valid())
        acc = b_.mov(Ty::U32, simt::imm(0));
      tc.dim.push_back(acc);
      tc.span.push_back(span);
    }
    // Row-major flat index: the dims' bit fields are disjoint.
    Reg flat;
    int64_t shift = 0;
    for (int d = rank - 1; d >= 0; --d) {
      if (tc.span[static_cast<size_t>(d)] != 0) {
        Reg part = shift ? b_.shl(Ty::B32, tc.dim[static_cast<size_t>(d)], simt::imm(shift))
                         : tc.dim[static_cast<size_t>(d)];
        flat = flat.valid() ? b_.or_(Ty::B32, flat, part) : part;
        tc.flat_span |= static_cast<int64_t>(tc.span[static_cast<size_t>(d)]) << shift;
      }
      shift += log2i(l.out_dims()[static_cast<size_t>(d)].size);
    }
    tc.flat = flat.valid() ? flat : b_.mov(Ty::U32, simt::imm(0));
  });
  return coords_.emplace(key, std::move(tc)).first->second;
}

Reg LoweringContext::coord(const LinearLayout &l, int32_t r, int dim) {
  const ThreadCoords &tc = thread_coords(l);
  int32_t rc = reg_coords(l, r)[static_cast<size_t>(dim)];
  Reg t = tc.dim[static_cast<size_t>(dim)];
  if (rc == 0)
    return t;
  if ((rc & tc.span[static_cast<size_t>(dim)]) == 0)
    return b_.add(Ty::U32, t, simt::imm(rc));
  return b_.xor_(Ty::B32, t, simt::imm(rc));
}

Reg LoweringContext::flat(const LinearLayout &l, int32_t r) {
  const ThreadCoords &tc = thread_coords(l);
  int64_t rf = flat_index(l, reg_coords(l, r));
  if (rf == 0)
    return tc.flat;
  if ((rf & tc.flat_span) == 0)
    return b_.add(Ty::U32, tc.flat, simt::imm(rf));
  return b_.xor_(Ty::B32, tc.flat, simt::imm(rf));
}

Reg LoweringContext::owner_pred(const LinearLayout &l) {
  int32_t lm = l.has_in_dim(layout::kLane) ? l.free_variable_mask(layout::kLane) : 0;
  int32_t wm = l.has_in_dim(layout::kWarp) ? l.free_variable_mask(layout::kWarp) : 0;
  if (lm == 0 && wm == 0)
    return Reg{};
  int64_t mask = static_cast<int64_t>(lm) | (static_cast<int64_t>(wm) << 5);
  std::string key = std::to_string(mask);
  auto it = owners_.find(key);
  if (it != owners_.end())
    return it->second;
  Reg p;
  in_prologue([&] {
    Reg t = b_.and_(Ty::B32, tid(), simt::imm(mask));
    p = b_.setp(simt::Cmp::Eq, Ty::U32, t, simt::imm(0));
  });
  owners_[key] = p;
  return p;
}

Reg LoweringContext::thread0_pred() {
  if (leader_warp_ != 0) {
    if (!leader_.valid())
      in_prologue([&] {
        Reg t = b_.special(simt::Sreg::TidX); // not tid(): producers may alias consumers
        leader_ = b_.setp(simt::Cmp::Eq, Ty::U32, t, simt::imm(32 * leader_warp_));
      });
    return leader_;
  }
  if (!thread0_.valid())
    in_prologue([&] { thread0_ = b_.setp(simt::Cmp::Eq, Ty::U32, tid(), simt::imm(0)); });
  return thread0_;
}

} // namespace tilec::lower
