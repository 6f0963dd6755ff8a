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
//  - otherwise a trip through shared memory: every thread writes its (first copies of)
//    elements at their row-major index, a barrier, every thread reads what D gives it.
#include <algorithm>
#include <map>

#include "layout/Layouts.h"
#include "lower/LoweringContext.h"

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

// The offset (in elements) register `r` of thread 0 reaches through `off` ((register,
// lane, warp) -> offset), and the offset bits the other threads may set.
int64_t reg_offset(const LinearLayout &off, int32_t r) {
  return off.apply({{layout::kRegister, r}}).at(0).second;
}
int64_t thread_span(const LinearLayout &off) {
  int64_t span = 0;
  for (const char *dim : {layout::kLane, layout::kWarp})
    if (off.has_in_dim(dim))
      for (const LinearLayout::Basis &b :
           off.in_dims()[static_cast<size_t>(off.in_dim_index(dim))].bases)
        span |= b.at(0);
  return span;
}

// How many registers from r on (a power of two up to `max`, r aligned to it) hold
// consecutive elements of the scratch in every thread (`off`: (register, lane, warp) ->
// offset), so one shared-memory vector access moves them; with `uniq`, all of them must
// be first copies. Elements under 4 bytes travel packed in b32 words, so their runs are
// at least 4 bytes or a single element.
int smem_run(const LinearLayout &off, int32_t r, int max, int esize,
             const std::vector<bool> *uniq) {
  int32_t n = off.in_dim_size(layout::kRegister);
  int64_t span = thread_span(off), f0 = reg_offset(off, r);
  int v = 1;
  for (int w = 2; w <= max; w *= 2) {
    if (r % w != 0 || r + w > n || (f0 % w) != 0 || (span & (w - 1)) != 0)
      break;
    bool ok = true;
    for (int j = 1; j < w && ok; ++j) {
      ok = reg_offset(off, r + j) == f0 + j;
      ok = ok && (!uniq || (*uniq)[static_cast<size_t>(r + j)]);
    }
    if (!ok)
      break;
    v = w;
  }
  return esize < 4 && v * esize < 4 ? 1 : v;
}

// The widest run a conversion of `elem` moves per access: 16 bytes (i1 one at a time).
int max_run(const ir::Type &elem) {
  return reg_ty(elem) == Ty::Pred ? 1 : std::max(1, 16 / mem_bytes(elem));
}

// Shared-memory wavefronts one warp (warp 0) spends on the accesses through_shared emits
// for `off`: a W-byte access (W > 4) serves 128 / W lanes at a time (8-byte: 2 phases of
// 16 lanes, 16-byte: 4 of 8), each phase taking as many wavefronts as the most distinct
// words asked of one bank. The minimum is the bytes moved / 128.
int64_t shared_wavefronts(const LinearLayout &off, int esize, int max,
                          const std::vector<bool> *uniq) {
  int32_t n = off.in_dim_size(layout::kRegister);
  int32_t lanes = off.has_in_dim(layout::kLane) ? off.in_dim_size(layout::kLane) : 1;
  std::vector<int64_t> seen;
  int64_t total = 0;
  for (int32_t r = 0; r < n;) {
    int64_t f = reg_offset(off, r);
    if ((uniq && !(*uniq)[static_cast<size_t>(r)]) ||
        (!uniq && std::find(seen.begin(), seen.end(), f) != seen.end())) {
      ++r;
      continue;
    }
    int v = smem_run(off, r, max, esize, uniq);
    for (int j = 0; j < v; ++j)
      seen.push_back(f + j);
    int64_t bytes = int64_t{v} * esize;
    int32_t per_phase = bytes <= 4 ? 32 : static_cast<int32_t>(32 / (bytes / 4));
    for (int32_t p0 = 0; p0 < lanes; p0 += per_phase) {
      std::vector<std::vector<int64_t>> words(32); // distinct words per bank
      for (int32_t lane = p0; lane < std::min(lanes, p0 + per_phase); ++lane) {
        int64_t byte =
            int64_t{off.apply({{layout::kRegister, r}, {layout::kLane, lane}}).at(0).second} *
            esize;
        for (int64_t w = byte / 4; w <= (byte + bytes - 1) / 4; ++w) {
          std::vector<int64_t> &bank = words[static_cast<size_t>(w % 32)];
          if (std::find(bank.begin(), bank.end(), w) == bank.end())
            bank.push_back(w);
        }
      }
      size_t worst = 1;
      for (const auto &bank : words)
        worst = std::max(worst, bank.size());
      total += static_cast<int64_t>(worst);
    }
    r += v;
  }
  return total;
}

// Shared memory offset -> coordinates for a conversion's scratch: row-major, or a
// swizzle of the two minor dims (Triton's vec / max_phase) when that takes fewer
// wavefronts for the writes of `src` and the reads of `dst` (as emitted: packed vector
// accesses, so a swizzle that breaks a thread's runs costs what it loses).
LinearLayout scratch_layout(const LinearLayout &src, const LinearLayout &dst,
                            const ir::Type &elem) {
  int esize = mem_bytes(elem);
  int rank = src.num_out_dims();
  ir::Shape shape;
  std::vector<int32_t> order;
  for (int d = 0; d < rank; ++d) {
    shape.push_back(src.out_dims()[static_cast<size_t>(d)].size);
    order.push_back(rank - 1 - d);
  }
  LinearLayout best = layout::shared_unswizzled(order, shape);
  if (rank < 2 || esize > 8)
    return best;
  std::vector<bool> uniq = LoweringContext::unique_regs(src);
  int max = max_run(elem);
  auto cost = [&](const LinearLayout &s) {
    LinearLayout to_offset = s.invert();
    return shared_wavefronts(src.compose(to_offset), esize, max, &uniq) +
           shared_wavefronts(dst.compose(to_offset), esize, max, nullptr);
  };
  int64_t best_cost = cost(best);
  int64_t rows = shape[static_cast<size_t>(rank - 2)], cols = shape[static_cast<size_t>(rank - 1)];
  // vec = 16 bytes keeps the runs the vector accesses move together
  int32_t vec = std::max(1, 16 / esize);
  for (int32_t phases = 2; phases <= 32; phases *= 2) {
    if (int64_t{vec} * phases > cols || phases > rows)
      break;
    LinearLayout s = layout::shared_swizzled(vec, 1, phases, order, shape);
    int64_t k = cost(s);
    if (k < best_cost) {
      best = s;
      best_cost = k;
    }
  }
  return best;
}

std::vector<Reg> through_shared(LoweringContext &c, const std::vector<Reg> &regs,
                                const LinearLayout &src, const LinearLayout &dst,
                                const ir::Type &elem, int64_t base);

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
  // Through shared memory (the whole tile, no padding: layout/AllocateShared.h's size),
  // placed by the scratch layout that spreads both sides' accesses over the banks;
  // registers whose elements are consecutive there move as one vector access.
  int esize = mem_bytes(elem);
  int64_t base = c.scratch(op, src.total_out_size() * esize);
  LinearLayout to_offset = scratch_layout(src, dst, elem).invert(); // coords -> offset
  return through_shared(c, regs, src.compose(to_offset), dst.compose(to_offset), elem, base);
}

namespace {

// v elements (registers) -> the words one shared access stores: 16-bit elements two to
// a b32, bytes (held in 16-bit registers) four to a b32 through prmt.
std::vector<Operand> pack_words(simt::Builder &b, const Reg *x, int v, int esize) {
  std::vector<Operand> w;
  if (esize >= 4)
    return std::vector<Operand>(x, x + v);
  for (int i = 0; i < v; i += 4 / esize) {
    Reg lo = b.pack(Ty::B32, {x[i], x[i + 1]});
    if (esize == 1)
      lo = b.ternary(simt::Op::Prmt, Ty::B32, lo, b.pack(Ty::B32, {x[i + 2], x[i + 3]}),
                     simt::imm(0x6420));
    w.push_back(lo);
  }
  return w;
}

// Words loaded from shared memory -> element registers (the inverse of pack_words).
std::vector<Reg> unpack_words(simt::Builder &b, const std::vector<Reg> &words,
                              const ir::Type &elem) {
  Ty rt = reg_ty(elem);
  int esize = mem_bytes(elem);
  std::vector<Reg> out;
  for (Reg w : words) {
    if (esize == 2) {
      std::vector<Reg> h = b.unpack(rt, 2, w);
      out.insert(out.end(), h.begin(), h.end());
      continue;
    }
    for (int k = 0; k < 4; ++k) { // bytes, re-extended as the register type wants
      Reg t = b.cvt(Ty::U16, Ty::U32, k ? b.shr(Ty::U32, w, simt::imm(8 * k)) : w);
      out.push_back(rt == Ty::S16 ? b.cvt(Ty::S16, Ty::S8, t)
                                  : b.and_(Ty::B16, t, simt::imm(0xff)));
    }
  }
  return out;
}

// stmatrix (sm_90) stores four 8x8 matrices of 16-bit elements a warp: lane l gives, in
// its word i, the elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of matrix i, and the address
// of row l%8 of matrix l/8 -- an mma accumulator's own fragment. Writes whose placement
// `off` ((register, lane, warp) -> scratch offset) has that shape go through it, one
// instruction for four st.shared.b32: register bit 0 the next element, lane bits 0 and 1
// the next pairs of a 16-byte row, two more register bits (m0, m1) the matrices, and every
// other basis whole rows (multiples of 8 elements). False when it does not apply.
bool stmatrix_store(LoweringContext &c, const std::vector<Reg> &regs, const LinearLayout &off,
                    int esize, int64_t base, const std::vector<bool> &uniq) {
  if (esize != 2 || c.opts().sm < 90 || base % 16 != 0 || !off.has_in_dim(layout::kLane) ||
      std::find(uniq.begin(), uniq.end(), false) != uniq.end())
    return false;
  auto bases = [&](const char *dim) {
    return off.has_in_dim(dim) ? off.in_dims()[static_cast<size_t>(off.in_dim_index(dim))].bases
                               : std::vector<LinearLayout::Basis>{};
  };
  std::vector<LinearLayout::Basis> reg = bases(layout::kRegister), lane = bases(layout::kLane),
                                   warp = bases(layout::kWarp);
  auto row = [](const LinearLayout::Basis &v) { return v.at(0) % 8 == 0; };
  if (reg.size() < 3 || lane.size() != 5 || reg[0].at(0) != 1 || lane[0].at(0) != 2 ||
      lane[1].at(0) != 4 || !std::all_of(lane.begin() + 2, lane.end(), row) ||
      !std::all_of(warp.begin(), warp.end(), row) || !std::all_of(reg.begin() + 1, reg.end(), row))
    return false;
  // Row addresses: lane bits 0-2 pick the row (the fragment's lane bits 2-4), lane bits
  // 3 and 4 the matrix (register bits m0 = 1, m1 = 2); the other register bits, one
  // instruction each.
  std::vector<LinearLayout::Basis> rows_lane = {lane[2], lane[3], lane[4], reg[1], reg[2]};
  std::vector<LinearLayout::Basis> rest(reg.begin() + 3, reg.end());
  std::vector<LinearLayout::InDim> ins = {{layout::kRegister, rest}, {layout::kLane, rows_lane}};
  if (!warp.empty())
    ins.push_back({layout::kWarp, warp});
  LinearLayout rows(ins, off.out_dims());
  simt::Builder &b = c.b();
  for (int32_t k = 0; k < (int32_t{1} << rest.size()); ++k) {
    std::vector<Reg> words;
    for (int32_t i = 0; i < 4; ++i) {
      size_t r = static_cast<size_t>((k << 3) | (i << 1));
      words.push_back(b.pack(Ty::B32, {regs[r], regs[r + 1]}));
    }
    b.stmatrix(false, c.smem_operand(rows, base, esize, k), words);
  }
  return true;
}

// a run of v elements of `esize` bytes moves as v words (8 bytes and up) or v * esize / 4
// b32 words
Ty word_ty(int v, int esize) { return v > 1 && esize < 4 ? Ty::B32 : simt::ty_bits_of(esize * 8); }

// Two byte elements neighbouring in shared memory as one b16 (low byte `lo`); the bytes
// live in 16-bit registers, sign- or zero-extended. fuse-cvt-packs makes a pair of fp8
// encodings of f32 values one packed cvt.
Reg pack_byte_pair(LoweringContext &c, Reg lo, Reg hi) {
  simt::Builder &b = c.b();
  Reg low = b.and_(Ty::B16, lo, simt::imm(0xff));
  return b.or_(Ty::B16, low, b.shl(Ty::B16, hi, simt::imm(8)));
}

// Whether registers r and r + 1 hold neighbouring bytes (r's first) in every thread.
bool byte_pair(const LinearLayout &off, int32_t r, const std::vector<bool> &uniq) {
  return r % 2 == 0 && r + 1 < off.in_dim_size(layout::kRegister) && uniq[size_t(r) + 1] &&
         reg_offset(off, r) % 2 == 0 && (thread_span(off) & 1) == 0 &&
         reg_offset(off, r + 1) == reg_offset(off, r) + 1;
}

} // namespace

void store_to_shared(LoweringContext &c, const std::vector<Reg> &regs, const LinearLayout &off,
                     const ir::Type &elem, int64_t base) {
  simt::Builder &b = c.b();
  int esize = mem_bytes(elem), max = max_run(elem);
  std::vector<bool> uniq = LoweringContext::unique_regs(off);
  if (stmatrix_store(c, regs, off, esize, base, uniq))
    return;
  for (int32_t r = 0; r < static_cast<int32_t>(regs.size());) {
    if (!uniq[static_cast<size_t>(r)]) {
      ++r;
      continue;
    }
    int v = smem_run(off, r, max, esize, &uniq);
    // two bytes as a b16 (runs of 4 and more pack b32s)
    if (v == 1 && esize == 1 && reg_ty(elem) != Ty::Pred && byte_pair(off, r, uniq)) {
      Reg h = pack_byte_pair(c, regs[static_cast<size_t>(r)], regs[static_cast<size_t>(r) + 1]);
      b.st(simt::Space::Shared, Ty::B16, c.smem_operand(off, base, esize, r), {h});
      r += 2;
      continue;
    }
    if (v == 1)
      c.smem_store(c.smem_operand(off, base, esize, r), regs[static_cast<size_t>(r)], elem);
    else
      b.st(simt::Space::Shared, word_ty(v, esize), c.smem_operand(off, base, esize, r),
           pack_words(b, regs.data() + r, v, esize));
    r += v;
  }
}

namespace {

std::vector<Reg> through_shared(LoweringContext &c, const std::vector<Reg> &regs,
                                const LinearLayout &src, const LinearLayout &dst,
                                const ir::Type &elem, int64_t base) {
  simt::Builder &b = c.b();
  int esize = mem_bytes(elem), max = max_run(elem);
  std::vector<Reg> out;
  auto word_ty = [&](int v) { return lower::word_ty(v, esize); };
  // every access below is within this conversion's scratch (sink-fragment-loads may then
  // move the loads past other buffers' stores, down to their readers)
  b.set_smem_region(base, base + src.total_out_size() * esize);
  c.smem_before_write();
  store_to_shared(c, regs, src, elem, base);
  c.smem_after_write();
  // Registers of dst holding the same element read it once.
  std::map<std::vector<int32_t>, Reg> loaded;
  int32_t nd = dst.in_dim_size(layout::kRegister);
  out.assign(static_cast<size_t>(nd), Reg{});
  for (int32_t r = 0; r < nd;) {
    std::vector<int32_t> rc = LoweringContext::reg_coords(dst, r);
    auto it = loaded.find(rc);
    if (it != loaded.end()) {
      out[static_cast<size_t>(r++)] = it->second;
      continue;
    }
    int v = smem_run(dst, r, max, esize, nullptr);
    if (v == 1) {
      out[static_cast<size_t>(r)] = c.smem_load(c.smem_operand(dst, base, esize, r), elem);
    } else {
      int nwords = esize < 4 ? v * esize / 4 : v;
      std::vector<Reg> words = b.regs(esize < 4 ? Ty::B32 : reg_ty(elem), nwords);
      b.ld_to(words, simt::Space::Shared, word_ty(v), c.smem_operand(dst, base, esize, r));
      std::vector<Reg> got = esize < 4 ? unpack_words(b, words, elem) : words;
      for (int j = 0; j < v; ++j)
        out[static_cast<size_t>(r + j)] = got[static_cast<size_t>(j)];
    }
    for (int j = 0; j < v; ++j)
      loaded.emplace(LoweringContext::reg_coords(dst, r + j), out[static_cast<size_t>(r + j)]);
    r += v;
  }
  b.set_smem_region(0, 0);
  return out;
}

} // namespace

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
