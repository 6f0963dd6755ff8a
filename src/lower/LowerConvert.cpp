// convert_layout, and the generic register movement the other families reuse.
//
// A conversion from layout S to layout D (same tile) is, per thread:
//  - a relabelling when S and D agree on every lane and warp basis: then thread (l, w)
//    holds R_S(r') ^ T(l, w) and needs R_D(r) ^ T(l, w), so register r of D is the
//    register r' of S with R_S(r') = R_D(r), found at compile time;
//  - warp shuffles when S and D agree on the warp bases and, in C = D^-1 o S (the map from
//    a thread's D registers to where S keeps them), which S register holds an element does
//    not depend on the lane: register r of D then comes from register r' of lane
//    C_lane(r) ^ C_lane(lane), one shfl.sync.idx each (when it does depend on the lane, up
//    to 4 shuffles and selects each, for tiles of fewer than 64 registers a thread);
//  - otherwise a trip through shared memory (SharedScratch.h): every thread writes its
//    (first copies of) elements where the scratch layout places them, a barrier, every
//    thread reads what D gives it.
#include <algorithm>
#include <map>

#include "layout/ConvertPlan.h"
#include "lower/LoweringContext.h"
#include "lower/SharedScratch.h"

namespace tilec::lower {

using layout::LinearLayout;

namespace {

// The bases of input dim `name`, or none when the layout lacks it; trailing zero bases
// (bits that change nothing) are dropped so "absent" and "all broadcast" compare equal.
std::vector<LinearLayout::Basis> thread_bases(const LinearLayout &l, const char *name) {
  std::vector<LinearLayout::Basis> b;
  if (l.has_in_dim(name))
    b = l.in_dims()[static_cast<size_t>(l.in_dim_index(name))].bases;
  auto zero = [](const LinearLayout::Basis &v) {
    for (int32_t x : v)
      if (x)
        return false;
    return true;
  };
  while (!b.empty() && zero(b.back()))
    b.pop_back();
  return b;
}

bool same_outs(const LinearLayout &a, const LinearLayout &b) {
  if (a.num_out_dims() != b.num_out_dims())
    return false;
  for (int d = 0; d < a.num_out_dims(); ++d)
    if (a.out_dims()[static_cast<size_t>(d)].size != b.out_dims()[static_cast<size_t>(d)].size)
      return false;
  return true;
}

} // namespace

std::vector<Reg> relabel_regs(const std::vector<Reg> &regs, const std::vector<bool> &valid,
                              const LinearLayout &src, const LinearLayout &dst) {
  TILEC_ASSERT(same_outs(src, dst),
               "relabel_regs: layouts of different tiles: " + src.str() + " vs " + dst.str());
  for (const char *dim : {layout::kLane, layout::kWarp})
    if (thread_bases(src, dim) != thread_bases(dst, dim))
      return {};
  std::map<std::vector<int32_t>, Reg> held;
  int32_t ns = src.in_dim_size(layout::kRegister);
  TILEC_ASSERT(static_cast<int32_t>(regs.size()) == ns, "relabel_regs: register count");
  for (int32_t r = 0; r < ns; ++r)
    if (valid.empty() || valid[static_cast<size_t>(r)])
      held.emplace(LoweringContext::reg_coords(src, r), regs[static_cast<size_t>(r)]);
  std::vector<Reg> out;
  int32_t nd = dst.in_dim_size(layout::kRegister);
  for (int32_t r = 0; r < nd; ++r) {
    auto it = held.find(LoweringContext::reg_coords(dst, r));
    if (it == held.end())
      return {};
    out.push_back(it->second);
  }
  return out;
}

namespace {

int32_t component(const std::vector<std::pair<std::string, int32_t>> &v, const char *name) {
  for (const auto &[n, x] : v)
    if (n == name)
      return x;
  return 0;
}

// XOR over the set bits i of `x` of images[i] (a linear map of the bits of x), emitted
// at the current position; `x` itself when the map is the identity.
Reg linear_bits(simt::Builder &b, Reg x, const std::vector<int32_t> &images) {
  bool identity = true;
  for (size_t i = 0; i < images.size(); ++i)
    identity = identity && images[i] == (int32_t{1} << i);
  if (identity)
    return x;
  Reg acc;
  for (size_t i = 0; i < images.size(); ++i) {
    if (images[i] == 0)
      continue;
    Reg bit = b.and_(Ty::B32, i ? b.shr(Ty::U32, x, simt::imm(static_cast<int64_t>(i))) : x,
                     simt::imm(1));
    Reg part = b.mul(Ty::U32, bit, simt::imm(images[i]));
    acc = acc.valid() ? b.xor_(Ty::B32, acc, part) : part;
  }
  return acc.valid() ? acc : b.mov(Ty::U32, simt::imm(0));
}

constexpr int32_t kMaxMultiShuffleRegs = 64;

// The shuffle conversion (see the top of the file); empty when it does not apply. When
// the S register holding an element also depends on the lane (registers and lanes trade
// bits), each of the (at most 4) candidate registers goes through its own shuffle and
// every lane keeps the one its lane bits select.
std::vector<Reg> shuffle_regs(LoweringContext &c, const std::vector<Reg> &regs,
                              const LinearLayout &src, const LinearLayout &dst) {
  if (thread_bases(src, layout::kWarp) != thread_bases(dst, layout::kWarp))
    return {};
  LinearLayout cmap = dst.invert_and_compose(src);
  std::vector<int32_t> lane_images, lane_regs; // per lane bit: its S lane and S register
  for (const LinearLayout::InDim &in : cmap.in_dims())
    for (size_t i = 0; i < in.bases.size(); ++i) {
      auto out = cmap.apply({{in.name, int32_t{1} << i}});
      int32_t r = component(out, layout::kRegister), l = component(out, layout::kLane),
              w = component(out, layout::kWarp);
      if (in.name == layout::kLane) {
        if (w != 0)
          return {};
        lane_images.push_back(l);
        lane_regs.push_back(r);
      } else if (in.name == layout::kWarp) {
        bool broadcast = true;
        for (int32_t x : dst.basis(layout::kWarp, static_cast<int>(i)))
          broadcast = broadcast && x == 0;
        if (r != 0 || l != 0 || !(w == (int32_t{1} << i) || (w == 0 && broadcast)))
          return {};
      } else if (w != 0) {
        return {};
      }
    }
  while (lane_images.size() < 5) { // lane bits the layout lacks: everyone reads lane 0's copy
    lane_images.push_back(0);
    lane_regs.push_back(0);
  }
  // The S registers the lane bits can select: every XOR combination of lane_regs.
  std::vector<int32_t> choices = {0};
  for (int32_t x : lane_regs)
    if (x && std::find(choices.begin(), choices.end(), x) == choices.end()) {
      size_t n = choices.size();
      for (size_t i = 0; i < n; ++i)
        choices.push_back(choices[i] ^ x);
    }
  if (choices.size() > 4)
    return {};
  // Several shuffles and selects a register over a big tile: shared memory moves it in
  // fewer, vectorised accesses (one warp's tf32 B operand of 8x64x32 in Triton's
  // test_dot3d: 3,072 shuffles, ptxas 6.0 s; through shared memory 1.5 s)
  if (choices.size() > 1 && dst.in_dim_size(layout::kRegister) >= kMaxMultiShuffleRegs)
    return {};
  simt::Builder &b = c.b();
  Reg base = linear_bits(b, c.lane(), lane_images);
  bool base_is_lane = base.id == c.lane().id;
  std::vector<Reg> pick; // per choice but the first: this lane selects it
  if (choices.size() > 1) {
    Reg sel = linear_bits(b, c.lane(), lane_regs);
    for (size_t i = 1; i < choices.size(); ++i)
      pick.push_back(b.setp(simt::Cmp::Eq, Ty::U32, sel, simt::imm(choices[i])));
  }
  std::map<std::pair<int32_t, int32_t>, Reg> done; // (S register, lane xor) -> value
  std::vector<Reg> out;
  for (int32_t r = 0; r < dst.in_dim_size(layout::kRegister); ++r) {
    auto o = cmap.apply({{layout::kRegister, r}});
    int32_t sr = component(o, layout::kRegister), sl = component(o, layout::kLane);
    auto key = std::make_pair(sr, sl);
    auto it = done.find(key);
    if (it != done.end()) {
      out.push_back(it->second);
      continue;
    }
    Reg idx;
    if (!(base_is_lane && sl == 0 && choices.size() == 1))
      idx = sl ? b.xor_(Ty::B32, base, simt::imm(sl)) : base;
    Reg v;
    for (size_t i = 0; i < choices.size(); ++i) {
      Reg x = regs[static_cast<size_t>(sr ^ choices[i])];
      if (idx.valid())
        x = shfl_any(c, simt::ShflMode::Idx, x, idx, simt::imm(0x1f));
      v = i == 0 ? x : select_reg(c, pick[i - 1], x, v);
    }
    done.emplace(key, v);
    out.push_back(v);
  }
  return out;
}

// Through shared memory (the whole tile, no padding: layout/AllocateShared.h's size).
std::vector<Reg> through_shared(LoweringContext &c, const std::vector<Reg> &regs,
                                const LinearLayout &src, const LinearLayout &dst,
                                const ir::Type &elem, int64_t base) {
  simt::Builder &b = c.b();
  // every access below is within this conversion's scratch (sink-fragment-loads may then
  // move the loads past other buffers' stores, down to their readers)
  b.set_smem_region(base, base + src.total_out_size() * mem_bytes(elem));
  c.smem_before_write();
  store_to_shared(c, regs, src, elem, base);
  c.smem_after_write();
  std::vector<Reg> out = load_from_shared(c, dst, elem, base);
  b.set_smem_region(0, 0);
  return out;
}

// Through shared memory in 2^n trips, each of one half (recursively) of the tile
// (layout::chunk_bit): the registers of that half on both sides, half the scratch.
std::vector<Reg> in_chunks(LoweringContext &c, const std::vector<Reg> &regs,
                           const LinearLayout &src, const LinearLayout &dst, const ir::Type &elem,
                           int64_t base, int n) {
  if (n == 0) {
    LinearLayout to_offset =
        scratch_layout(src, dst, elem, c.opts().sm >= 90 && base % 16 == 0).invert();
    return through_shared(c, regs, src.compose(to_offset), dst.compose(to_offset), elem, base);
  }
  std::optional<layout::ChunkBit> cb = layout::chunk_bit(src, dst);
  TILEC_ASSERT(cb, "convert_layout: chunk_bits without a register bit to split on");
  LinearLayout s = layout::drop_chunk_bit(src, cb->src_reg, cb->dim, cb->bit);
  LinearLayout d = layout::drop_chunk_bit(dst, cb->dst_reg, cb->dim, cb->bit);
  // register r of a half is register r of the whole with the split bit (`at`) inserted
  auto whole = [](int32_t r, int at, int32_t half) {
    int32_t low = r & ((1 << at) - 1);
    return ((r >> at) << (at + 1)) | (half << at) | low;
  };
  std::vector<Reg> out(static_cast<size_t>(dst.in_dim_size(layout::kRegister)));
  for (int32_t half = 0; half < 2; ++half) {
    std::vector<Reg> mine;
    for (int32_t r = 0; r < s.in_dim_size(layout::kRegister); ++r)
      mine.push_back(regs[static_cast<size_t>(whole(r, cb->src_reg, half))]);
    std::vector<Reg> got = in_chunks(c, mine, s, d, elem, base, n - 1);
    for (int32_t r = 0; r < d.in_dim_size(layout::kRegister); ++r)
      out[static_cast<size_t>(whole(r, cb->dst_reg, half))] = got[static_cast<size_t>(r)];
  }
  return out;
}

} // namespace

std::vector<Reg> convert_regs(LoweringContext &c, const ir::Op &op, const std::vector<Reg> &regs,
                              const LinearLayout &src, const LinearLayout &dst,
                              const ir::Type &elem) {
  std::vector<Reg> out = relabel_regs(regs, {}, src, dst);
  if (!out.empty())
    return out;
  out = shuffle_regs(c, regs, src, dst);
  if (!out.empty())
    return out;
  // placed by the scratch layout that spreads both sides' accesses over the banks; in
  // 2^chunk_bits trips when AllocateShared found the whole tile too large
  int esize = mem_bytes(elem);
  int chunks = static_cast<int>(op.int_attr("chunk_bits", 0));
  int64_t base = c.scratch(op, (src.total_out_size() >> chunks) * esize);
  return in_chunks(c, regs, src, dst, elem, base, chunks);
}

void lower_convert_layout(LoweringContext &c, const ir::Op &op) {
  const ir::Value *x = op.operand(0), *r = op.result(0);
  if (!x->type.is_tile()) {
    c.set(r, c.get(x));
    return;
  }
  c.set(r, convert_regs(c, op, c.get(x), c.layout_of(x->type), c.layout_of(r->type),
                        x->type.element()));
}

} // namespace tilec::lower
