#include "lower/SharedScratch.h"

#include <algorithm>
#include <map>
#include <optional>

#include "layout/Layouts.h"

namespace tilec::lower {

using layout::LinearLayout;

namespace {

std::vector<LinearLayout::Basis> in_bases(const LinearLayout &l, const char *dim) {
  return l.has_in_dim(dim) ? l.in_dims()[static_cast<size_t>(l.in_dim_index(dim))].bases
                           : std::vector<LinearLayout::Basis>{};
}

// The offset (in elements) register `r` of thread 0 reaches through `off` ((register,
// lane, warp) -> offset), and the offset bits the other threads may set.
int64_t reg_offset(const LinearLayout &off, int32_t r) {
  return off.apply({{layout::kRegister, r}}).at(0).second;
}
int64_t thread_span(const LinearLayout &off) {
  int64_t span = 0;
  for (const char *dim : {layout::kLane, layout::kWarp})
    for (const LinearLayout::Basis &b : in_bases(off, dim))
      span |= b.at(0);
  return span;
}

// How many registers from r on (a power of two up to `max`, r aligned to it) hold, in
// every thread, an aligned block of as many consecutive elements of the scratch, in any
// order (register r + j at offset + reg_offset(off, j): each of the run's register bits
// steps to a distinct power of two below the run), so one shared-memory vector access
// moves them; with `uniq`, all of them must be first copies. Elements under 4 bytes
// travel packed in b32 words, so their runs are at least 4 bytes or a single element.
int smem_run(const LinearLayout &off, int32_t r, int max, int esize,
             const std::vector<bool> *uniq) {
  int32_t n = off.in_dim_size(layout::kRegister);
  std::vector<LinearLayout::Basis> reg = in_bases(off, layout::kRegister);
  int64_t span = thread_span(off), f0 = reg_offset(off, r);
  int v = 1;
  int64_t reached = 0; // the offset bits the register bits below w step to
  for (int w = 2, bit = 0; w <= max; w *= 2, ++bit) {
    if (r % w != 0 || r + w > n || (f0 % w) != 0 || (span & (w - 1)) != 0)
      break;
    int64_t step = reg[static_cast<size_t>(bit)].at(0);
    if (step <= 0 || step >= max || (step & (step - 1)) != 0 || (reached & step) != 0)
      break; // no wider run either
    bool ok = true;
    for (int j = w / 2; j < w && ok && uniq; ++j)
      ok = (*uniq)[static_cast<size_t>(r + j)];
    if (!ok)
      break;
    reached |= step;
    if (reached == w - 1) // (steps 1, 4, 2: registers 0-1 are no run, 0-3 are)
      v = w;
  }
  return esize < 4 && v * esize < 4 ? 1 : v;
}

// The registers of a run of v from r, in scratch order.
std::vector<Reg> run_in_order(const LinearLayout &off, const Reg *regs, int v) {
  std::vector<Reg> ordered(static_cast<size_t>(v));
  for (int32_t j = 0; j < v; ++j)
    ordered[static_cast<size_t>(reg_offset(off, j))] = regs[j];
  return ordered;
}

// The widest run a conversion of `elem` moves per access: 16 bytes (i1 one at a time).
int max_run(const ir::Type &elem) {
  return reg_ty(elem) == Ty::Pred ? 1 : std::max(1, 16 / mem_bytes(elem));
}

// Wavefronts of one warp-wide shared-memory access of `bytes` a lane at byte addresses
// `addr` (per lane): a W-byte access (W > 4) serves 128 / W lanes at a time (8-byte: 2
// phases of 16 lanes, 16-byte: 4 of 8), each phase taking as many wavefronts as the most
// distinct words asked of one bank.
int64_t access_wavefronts(const std::vector<int64_t> &addr, int64_t bytes) {
  size_t per_phase = bytes <= 4 ? 32 : static_cast<size_t>(32 / (bytes / 4));
  int64_t total = 0;
  for (size_t p0 = 0; p0 < addr.size(); p0 += per_phase) {
    std::vector<std::vector<int64_t>> words(32); // distinct words per bank
    for (size_t l = p0; l < std::min(addr.size(), p0 + per_phase); ++l)
      for (int64_t w = addr[l] / 4; w <= (addr[l] + bytes - 1) / 4; ++w) {
        std::vector<int64_t> &bank = words[static_cast<size_t>(w % 32)];
        if (std::find(bank.begin(), bank.end(), w) == bank.end())
          bank.push_back(w);
      }
    size_t worst = 1;
    for (const auto &bank : words)
      worst = std::max(worst, bank.size());
    total += static_cast<int64_t>(worst);
  }
  return total;
}

// Shared-memory wavefronts one warp (warp 0) spends on the st/ld.shared accesses of each
// thread's runs in `off`. The minimum is the bytes moved / 128.
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
    std::vector<int64_t> addr;
    for (int32_t lane = 0; lane < lanes; ++lane)
      addr.push_back(
          int64_t{off.apply({{layout::kRegister, r}, {layout::kLane, lane}}).at(0).second} * esize);
    total += access_wavefronts(addr, int64_t{v} * esize);
    r += v;
  }
  return total;
}

// stmatrix (sm_90) stores four 8x8 matrices of 16-bit units a warp: lane l gives, in its
// word i, the units (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of matrix i, and the address of row
// l%8 of matrix l/8 -- an mma accumulator's own fragment. A placement `off` ((register,
// lane, warp) -> scratch offset) has that shape when a thread's word is 4 bytes in a row
// (16-bit elements: register bit 0 the next one; bytes: register bit 0 the next byte and
// register bit `pair` the next two), lane bits 0 and 1 the next words of a 16-byte row,
// and every other basis whole rows (multiples of 16 bytes): two register bits (m0, m1)
// pick the matrices, the rest one instruction each.
struct StmatrixPlan {
  int pair = -1;         // bytes: the register bit of the word's second byte pair
  int m0 = 0, m1 = 0;    // the register bits of matrices 1 and 2
  std::vector<int> rest; // the register bits of the instructions, low first
  LinearLayout rows;     // (register: rest, lane: rows and matrices, warp) -> offset
};

std::optional<StmatrixPlan> stmatrix_plan(const LinearLayout &off, const ir::Type &elem) {
  int esize = mem_bytes(elem);
  if ((esize != 1 && esize != 2) || reg_ty(elem) == Ty::Pred || !off.has_in_dim(layout::kLane))
    return std::nullopt;
  std::vector<bool> uniq = LoweringContext::unique_regs(off);
  if (std::find(uniq.begin(), uniq.end(), false) != uniq.end())
    return std::nullopt;
  std::vector<LinearLayout::Basis> reg = in_bases(off, layout::kRegister),
                                   lane = in_bases(off, layout::kLane),
                                   warp = in_bases(off, layout::kWarp);
  int32_t row_elems = 16 / esize;
  auto row = [&](const LinearLayout::Basis &v) { return v.at(0) % row_elems == 0; };
  StmatrixPlan p;
  if (reg.empty() || reg[0].at(0) != 1 || lane.size() != 5 || lane[0].at(0) != 4 / esize ||
      lane[1].at(0) != 8 / esize || !std::all_of(lane.begin() + 2, lane.end(), row) ||
      !std::all_of(warp.begin(), warp.end(), row))
    return std::nullopt;
  std::vector<int> others;
  for (int i = 1; i < static_cast<int>(reg.size()); ++i) {
    if (esize == 1 && p.pair < 0 && reg[static_cast<size_t>(i)].at(0) == 2)
      p.pair = i;
    else if (row(reg[static_cast<size_t>(i)]))
      others.push_back(i);
    else
      return std::nullopt;
  }
  if ((esize == 1 && p.pair < 0) || others.size() < 2)
    return std::nullopt;
  p.m0 = others[0];
  p.m1 = others[1];
  p.rest.assign(others.begin() + 2, others.end());
  std::vector<LinearLayout::Basis> rest_bases;
  for (int i : p.rest)
    rest_bases.push_back(reg[static_cast<size_t>(i)]);
  // Row addresses: lane bits 0-2 pick the row (the fragment's lane bits 2-4), lane bits
  // 3 and 4 the matrix.
  std::vector<LinearLayout::InDim> ins = {
      {layout::kRegister, rest_bases},
      {layout::kLane,
       {lane[2], lane[3], lane[4], reg[static_cast<size_t>(p.m0)],
        reg[static_cast<size_t>(p.m1)]}}};
  if (!warp.empty())
    ins.push_back({layout::kWarp, warp});
  p.rows = LinearLayout(ins, off.out_dims());
  return p;
}

// The register of instruction k's (a plan's rest bits) matrix i.
int32_t stmatrix_reg(const StmatrixPlan &p, int32_t k, int32_t i) {
  int32_t r = ((i & 1) << p.m0) | ((i >> 1 & 1) << p.m1);
  for (size_t j = 0; j < p.rest.size(); ++j)
    r |= (k >> j & 1) << p.rest[j];
  return r;
}

int64_t stmatrix_wavefronts(const StmatrixPlan &p, int esize) {
  int64_t total = 0;
  for (int32_t k = 0; k < p.rows.in_dim_size(layout::kRegister); ++k) {
    std::vector<int64_t> addr;
    for (int32_t lane = 0; lane < 32; ++lane)
      addr.push_back(
          int64_t{p.rows.apply({{layout::kRegister, k}, {layout::kLane, lane}}).at(0).second} *
          esize);
    total += access_wavefronts(addr, 16);
  }
  return total;
}

// A byte tile's scratch `s` (offset -> coordinates) with each 16-byte chunk's byte pairs
// reordered so `src` stores it with stmatrix: an mma accumulator holds two neighbouring
// bytes a register, its lane bits 0 and 1 the next pairs and a register bit the pairs 8
// bytes on, where stmatrix wants that register bit 2 bytes on and the lanes 4 and 8.
// Nothing when `src` is not such a tile in `s`.
std::optional<LinearLayout> pairs_for_stmatrix(const LinearLayout &s, const LinearLayout &src) {
  LinearLayout off = src.compose(s.invert());
  std::vector<LinearLayout::Basis> reg = in_bases(off, layout::kRegister),
                                   lane = in_bases(off, layout::kLane);
  if (reg.empty() || reg[0].at(0) != 1 || lane.size() < 2 || s.in_dim_bits(layout::kOffset) < 4)
    return std::nullopt;
  auto bit = [](int64_t v) { return v == 2 ? 1 : v == 4 ? 2 : v == 8 ? 3 : -1; };
  for (size_t a = 1; a < reg.size(); ++a) {
    int ta = bit(reg[a].at(0)), t0 = bit(lane[0].at(0)), t1 = bit(lane[1].at(0));
    if (ta < 0 || t0 < 0 || t1 < 0 || ta == t0 || ta == t1 || t0 == t1)
      continue;
    std::vector<LinearLayout::Basis> from = in_bases(s, layout::kOffset), to = from;
    to[1] = from[static_cast<size_t>(ta)];
    to[2] = from[static_cast<size_t>(t0)];
    to[3] = from[static_cast<size_t>(t1)];
    if (to == from)
      return std::nullopt;
    return s.with_in_bases(layout::kOffset, to);
  }
  return std::nullopt;
}

} // namespace

LinearLayout scratch_layout(const LinearLayout &src, const LinearLayout &dst, const ir::Type &elem,
                            bool stmatrix) {
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
  // as store_to_shared and load_from_shared emit the accesses
  auto cost = [&](const LinearLayout &s) {
    LinearLayout to_offset = s.invert();
    LinearLayout w = src.compose(to_offset);
    std::optional<StmatrixPlan> p = stmatrix ? stmatrix_plan(w, elem) : std::nullopt;
    return (p ? stmatrix_wavefronts(*p, esize) : shared_wavefronts(w, esize, max, &uniq)) +
           shared_wavefronts(dst.compose(to_offset), esize, max, nullptr);
  };
  int64_t best_cost = cost(best);
  auto consider = [&](const LinearLayout &s) {
    int64_t k = cost(s);
    if (k < best_cost) {
      best = s;
      best_cost = k;
    }
    std::optional<LinearLayout> pairs =
        esize == 1 && stmatrix ? pairs_for_stmatrix(s, src) : std::nullopt;
    if (pairs && (k = cost(*pairs)) < best_cost) {
      best = *pairs;
      best_cost = k;
    }
  };
  consider(best);
  int64_t rows = shape[static_cast<size_t>(rank - 2)], cols = shape[static_cast<size_t>(rank - 1)];
  // vec = 16 bytes keeps the runs the vector accesses move together
  int32_t vec = std::max(1, 16 / esize);
  for (int32_t phases = 2; phases <= 32; phases *= 2) {
    if (int64_t{vec} * phases > cols || phases > rows)
      break;
    consider(layout::shared_swizzled(vec, 1, phases, order, shape));
  }
  return best;
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

void emit_stmatrix(LoweringContext &c, const StmatrixPlan &p, const std::vector<Reg> &regs,
                   int esize, int64_t base) {
  simt::Builder &b = c.b();
  for (int32_t k = 0; k < (int32_t{1} << p.rest.size()); ++k) {
    std::vector<Reg> words;
    for (int32_t i = 0; i < 4; ++i) {
      int32_t r = stmatrix_reg(p, k, i), next = r | (p.pair < 0 ? 0 : 1 << p.pair);
      auto at = [&](int32_t x) { return regs[static_cast<size_t>(x)]; };
      words.push_back(esize == 2 ? b.pack(Ty::B32, {at(r), at(r | 1)})
                                 : b.pack(Ty::B32, {pack_byte_pair(c, at(r), at(r | 1)),
                                                    pack_byte_pair(c, at(next), at(next | 1))}));
    }
    b.stmatrix(false, c.smem_operand(p.rows, base, esize, k), words);
  }
}

} // namespace

void store_to_shared(LoweringContext &c, const std::vector<Reg> &regs, const LinearLayout &off,
                     const ir::Type &elem, int64_t base) {
  simt::Builder &b = c.b();
  int esize = mem_bytes(elem), max = max_run(elem);
  if (c.opts().sm >= 90 && base % 16 == 0)
    if (std::optional<StmatrixPlan> p = stmatrix_plan(off, elem)) {
      emit_stmatrix(c, *p, regs, esize, base);
      return;
    }
  std::vector<bool> uniq = LoweringContext::unique_regs(off);
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
    if (v == 1) {
      c.smem_store(c.smem_operand(off, base, esize, r), regs[static_cast<size_t>(r)], elem);
    } else {
      std::vector<Reg> run = run_in_order(off, regs.data() + r, v);
      b.st(simt::Space::Shared, word_ty(v, esize), c.smem_operand(off, base, esize, r),
           pack_words(b, run.data(), v, esize));
    }
    r += v;
  }
}

std::vector<Reg> load_from_shared(LoweringContext &c, const LinearLayout &off, const ir::Type &elem,
                                  int64_t base) {
  simt::Builder &b = c.b();
  int esize = mem_bytes(elem), max = max_run(elem);
  // Registers holding the same element read it once.
  std::map<std::vector<int32_t>, Reg> loaded;
  int32_t n = off.in_dim_size(layout::kRegister);
  std::vector<Reg> out(static_cast<size_t>(n));
  for (int32_t r = 0; r < n;) {
    std::vector<int32_t> rc = LoweringContext::reg_coords(off, r);
    auto it = loaded.find(rc);
    if (it != loaded.end()) {
      out[static_cast<size_t>(r++)] = it->second;
      continue;
    }
    int v = smem_run(off, r, max, esize, nullptr);
    if (v == 1) {
      out[static_cast<size_t>(r)] = c.smem_load(c.smem_operand(off, base, esize, r), elem);
    } else {
      int nwords = esize < 4 ? v * esize / 4 : v;
      std::vector<Reg> words = b.regs(esize < 4 ? Ty::B32 : reg_ty(elem), nwords);
      b.ld_to(words, simt::Space::Shared, word_ty(v, esize), c.smem_operand(off, base, esize, r));
      std::vector<Reg> got = esize < 4 ? unpack_words(b, words, elem) : words;
      for (int32_t j = 0; j < v; ++j) // in scratch order
        out[static_cast<size_t>(r + j)] = got[static_cast<size_t>(reg_offset(off, j))];
    }
    for (int32_t j = 0; j < v; ++j)
      loaded.emplace(LoweringContext::reg_coords(off, r + j), out[static_cast<size_t>(r + j)]);
    r += v;
  }
  return out;
}

} // namespace tilec::lower
