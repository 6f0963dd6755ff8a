// Staging an mma operand of 16-bit elements: convert_layout from any distributed layout
// into #dot_op<idx, #mma, k_width=2>, through swizzled shared memory read by ldmatrix.
// tf32 operands (k_width 1) held K-contiguous too: ldmatrix moves 16-bit units, a 32-bit
// element is two of them along K (matrix rows of 4 elements, never .trans). Rank 3
// (a leading batch dim): the batch is the shared layout's outermost dim and the
// operand's batch register / warp bits step whole tiles.
//
// 1. A shared layout for the tile: row-major along the dim the source holds contiguously
//    (so each thread stores runs of up to 8 elements as one 16-byte st.shared), swizzled
//    with vec = 8 elements; per_phase / max_phase are chosen by the bank conflicts of both
//    the stores (layout::shared_bank_conflicts) and the ldmatrix reads (8 rows of 16 bytes
//    per matrix: conflict-free when the 8 rows fall in 8 distinct 16-byte bank groups).
// 2. Every thread stores its first copies; a barrier.
// 3. One ldmatrix per instruction tile: .x4 for A (16x16: matrices (m 0-7 | 8-15) x (k 0-7 |
//    8-15) in the order of the a0..a7 pairs), .x2 for B (16x8: k 0-7 | 8-15), or .x4 for
//    two B tiles n and n + 8 when the thread holds both (a register basis steps N by 8).
//    When the tile is stored K-contiguous, rows run along M (A) / N (B); otherwise (a transposed
//    tile) rows run along K and .trans turns them into the fragment. Lane l gives the row
//    address of row l % 8 of matrix l / 8: the address is a linear layout of (tile,
//    lane, warp) composed with the shared layout, so LoweringContext::smem_operand
//    computes it (one per-thread base, an immediate per tile when the bits allow).
// The loaded b32 pairs are split into the operand's 16-bit registers (ptxas folds the
// split and LowerDot's re-pack away).
#include <algorithm>
#include <map>

#include "layout/Layouts.h"
#include "lower/LoweringContext.h"

namespace tilec::lower {

using layout::LinearLayout;

int smem_store_run(LoweringContext &c, const LinearLayout &l, int32_t r,
                   const std::vector<bool> &uniq, int max_run = 8);

namespace {

using Basis = LinearLayout::Basis;
using Coords = std::vector<int32_t>;

// A basis of `rank` zeros with the last two dims (row, col) set.
Basis rc(int rank, int32_t r, int32_t c) {
  Basis b(static_cast<size_t>(rank), 0);
  b[static_cast<size_t>(rank - 2)] = r;
  b[static_cast<size_t>(rank - 1)] = c;
  return b;
}

bool is_zero(const Basis &b) {
  return std::all_of(b.begin(), b.end(), [](int32_t v) { return v == 0; });
}

// (tile, lane, warp) -> coordinates of the row lane l addresses for the tile's ldmatrix.
// `dst` is the operand layout (rank 2, or 3 with a leading batch dim); `a`: operand A;
// `trans`: the tile is not K-contiguous; `ku`: elements in a matrix row (16 bytes: 8 of
// 16 bits, 4 of 32).
LinearLayout row_address_layout(const LinearLayout &dst, bool a, bool trans, bool b_pairs,
                                int32_t ku = 8) {
  int rank = static_cast<int>(dst.num_out_dims());
  // (row, col) steps along K and along the other dim (M for A, N for B)
  auto kb = [&](int32_t k) { return a ? rc(rank, 0, k) : rc(rank, k, 0); };
  auto xb = [&](int32_t x) { return a ? rc(rank, x, 0) : rc(rank, 0, x); };
  std::vector<Basis> lane;
  for (int32_t j = 1; j < 8; j *= 2) // row j of the matrix
    lane.push_back(trans ? kb(j) : xb(j));
  if (a) {
    lane.push_back(xb(8));  // matrices 1, 3: rows 8-15 of M
    lane.push_back(kb(ku)); // matrices 2, 3: the K elements of bytes 16-31
  } else {
    lane.push_back(kb(ku));                           // matrices 1, 3: bytes 16-31 of K
    lane.push_back(b_pairs ? xb(8) : rc(rank, 0, 0)); // matrices 2, 3: the tile N + 8
  }
  // tiles: the operand's register bits that step whole instruction tiles (and batches)
  int32_t tile_x = a ? 16 : 8;
  std::vector<Basis> tiles;
  for (const Basis &b :
       dst.in_dims()[static_cast<size_t>(dst.in_dim_index(layout::kRegister))].bases) {
    int32_t r = b[static_cast<size_t>(rank - 2)], c = b[static_cast<size_t>(rank - 1)];
    int32_t k = a ? c : r, x = a ? r : c;
    if (!is_zero(b) && k % (2 * ku) == 0 && x % tile_x == 0 && !(b_pairs && b == xb(8)))
      tiles.push_back(b);
  }
  std::vector<Basis> warp =
      dst.in_dims()[static_cast<size_t>(dst.in_dim_index(layout::kWarp))].bases;
  std::vector<LinearLayout::OutDim> outs;
  for (int d = 0; d < rank; ++d)
    outs.push_back({layout::dim_name(d), dst.out_dim_size(layout::dim_name(d))});
  return LinearLayout({{layout::kRegister, tiles}, {layout::kLane, lane}, {layout::kWarp, warp}},
                      std::move(outs));
}

// Worst bank-group multiplicity of the ldmatrix rows of tile 0 in warp 0.
int ldmatrix_conflicts(const LinearLayout &rows_off, int eb) {
  int worst = 1;
  for (int m = 0; m < 4; ++m) {
    int count[8] = {};
    for (int j = 0; j < 8; ++j) {
      auto out = rows_off.apply({{layout::kLane, m * 8 + j}});
      int64_t byte = int64_t{out[0].second} * eb;
      worst = std::max(worst, ++count[(byte / 16) % 8]);
    }
  }
  return worst;
}

// The tile dim along which offsets 0, 1, 2, .. of a shared layout run.
int ldmatrix_inner_dim(const LinearLayout &shared) {
  const Basis &b = shared.basis(layout::kOffset, 0);
  for (size_t d = 0; d < b.size(); ++d)
    if (b[d] != 0)
      return static_cast<int>(d);
  return static_cast<int>(b.size()) - 1;
}

} // namespace

// Registers from r on (up to max_run, aligned) whose offsets are consecutive in every thread.
int smem_store_run(LoweringContext &c, const LinearLayout &l, int32_t r,
                   const std::vector<bool> &uniq, int max_run) {
  int32_t n = l.in_dim_size(layout::kRegister);
  const ThreadCoords &tc = c.thread_coords(l);
  int64_t f0 = LoweringContext::flat_index(l, LoweringContext::reg_coords(l, r));
  int v = 1;
  for (int w = 2; w <= max_run; w *= 2) {
    if (r % w != 0 || r + w > n || f0 % w != 0 || (tc.flat_span & (w - 1)) != 0)
      break;
    bool ok = true;
    for (int j = 1; j < w && ok; ++j)
      ok = uniq[static_cast<size_t>(r + j)] &&
           LoweringContext::flat_index(l, LoweringContext::reg_coords(l, r + j)) == f0 + j;
    if (!ok)
      break;
    v = w;
  }
  return v;
}

// The registers of an mma operand (layout `dst`) read by ldmatrix from a tile placed in
// shared memory by `shared` ("offset" -> (d0, d1): runs of 8 elements contiguous along one
// dim and 16-byte aligned) at `base` (+ `extra`, a u32 register, when valid).
std::vector<Reg> ldmatrix_operand(LoweringContext &c, const LinearLayout &dst,
                                  const LinearLayout &shared, bool a, int64_t base, Reg extra,
                                  Ty et) {
  simt::Builder &b = c.b();
  int rank = static_cast<int>(dst.num_out_dims());
  int kdim = a ? rank - 1 : rank - 2, xdim = a ? rank - 2 : rank - 1;
  bool trans = ldmatrix_inner_dim(shared) != kdim;
  int eb = et == Ty::F32 ? 4 : 2, per_reg = 4 / eb;
  int32_t ku = 16 / eb;
  const auto &dregs = dst.in_dims()[static_cast<size_t>(dst.in_dim_index(layout::kRegister))].bases;
  bool b_pairs = !a && std::find(dregs.begin(), dregs.end(), rc(rank, 0, 8)) != dregs.end();
  LinearLayout rows = row_address_layout(dst, a, trans, b_pairs, ku);
  LinearLayout rows_off = rows.compose(shared.invert());
  std::map<uint32_t, Reg> moved; // address register -> + extra
  // one ldmatrix per tile; its pairs are the fragment's a0..a7 / b0..b3 (lane 0 positions)
  std::map<Coords, Reg> held;
  for (int32_t t = 0; t < rows.in_dim_size(layout::kRegister); ++t) {
    Coords o = LoweringContext::reg_coords(rows, t);
    Operand addr = c.smem_operand(rows_off, base, eb, t);
    if (extra.valid()) {
      auto it = moved.find(addr.reg().id);
      if (it == moved.end())
        it = moved.emplace(addr.reg().id, b.add(Ty::U32, addr.reg(), extra)).first;
      addr = Operand::addr(it->second, addr.value);
    }
    std::vector<Reg> d = b.ldmatrix(a || b_pairs ? 4 : 2, trans, addr);
    for (size_t i = 0; i < d.size(); ++i) {
      std::vector<Reg> h = per_reg == 2 ? b.unpack(et, 2, d[i]) : std::vector<Reg>{b.mov(et, d[i])};
      // register i: A (m + 8 (i % 2), k + ku (i / 2)), B (k + ku (i % 2), n + 8 (i / 2));
      // elements k, k + 1 (16-bit) or k (32-bit)
      int32_t dx = 8 * static_cast<int32_t>(a ? i % 2 : i / 2);
      int32_t dk = ku * static_cast<int32_t>(a ? i / 2 : i % 2);
      for (int32_t e = 0; e < per_reg; ++e) {
        Coords p = o;
        p[static_cast<size_t>(kdim)] += dk + e;
        p[static_cast<size_t>(xdim)] += dx;
        held[p] = h[static_cast<size_t>(e)];
      }
    }
  }
  std::vector<Reg> out;
  for (int32_t r = 0; r < dst.in_dim_size(layout::kRegister); ++r) {
    auto it = held.find(LoweringContext::reg_coords(dst, r));
    TILEC_ASSERT(it != held.end(), "dot operand staging: an element no ldmatrix loaded");
    out.push_back(it->second);
  }
  return out;
}

bool ldmatrix_readable(const LinearLayout &shared) {
  if (shared.num_out_dims() != 2 || shared.in_dim_bits(layout::kOffset) < 3)
    return false;
  int inner = ldmatrix_inner_dim(shared);
  for (int i = 0; i < 3; ++i) {
    Basis want = inner == 0 ? rc(2, 1 << i, 0) : rc(2, 0, 1 << i);
    if (shared.basis(layout::kOffset, i) != want)
      return false;
  }
  return true;
}

bool lower_convert_to_dot_operand(LoweringContext &c, const ir::Op &op) {
  const ir::Value *x = op.operand(0), *res = op.result(0);
  const ir::LayoutRef &dl = res->type.layout;
  int rank = x->type.rank();
  if (!x->type.is_tile() || (rank != 2 && rank != 3) || !dl ||
      dl->kind != ir::LayoutKind::DotOperand || !dl->parent ||
      dl->parent->kind != ir::LayoutKind::Mma || c.opts().sm < 80)
    return false;
  // 16-bit elements (k_width 2), or tf32's 32-bit ones (k_width 1) held K-contiguous:
  // ldmatrix moves 16-bit units, so a 32-bit element is two of them along K
  int eb = mem_bytes(x->type.element());
  if (!((dl->k_width == 2 && eb == 2) ||
        (dl->k_width == 1 && eb == 4 && x->type.element().elem == ir::DType::F32)))
    return false;
  const LinearLayout &src = c.layout_of(x->type), &dst = c.layout_of(res->type);
  // an mma result feeding the next dot as A (attention's p): the thread already holds its
  // fragment, a relabelling
  std::vector<Reg> same = relabel_regs(c.get(x), {}, src, dst);
  if (!same.empty()) {
    c.set(res, std::move(same));
    return true;
  }
  bool a = dl->op_idx == 0;
  int kdim = a ? rank - 1 : rank - 2, xdim = a ? rank - 2 : rank - 1;
  ir::Shape shape = x->type.shape;
  // the dim the source holds contiguously is the shared layout's inner dim
  int inner = layout::contiguous_per_thread(src, xdim) > layout::contiguous_per_thread(src, kdim)
                  ? xdim
                  : kdim;
  int32_t ku = 16 / eb; // elements of a 16-byte matrix row
  if (shape[static_cast<size_t>(inner)] < ku || (eb == 4 && inner != kdim))
    return false; // (.trans moves 16-bit units: not a transpose of 32-bit elements)
  bool trans = inner != kdim;
  std::vector<int32_t> order = {inner, inner == kdim ? xdim : kdim};
  if (rank == 3)
    order.push_back(0);
  // B: a register basis stepping N by 8 means the thread holds tiles n and n + 8
  const auto &dregs = dst.in_dims()[static_cast<size_t>(dst.in_dim_index(layout::kRegister))].bases;
  bool b_pairs = !a && std::find(dregs.begin(), dregs.end(), rc(rank, 0, 8)) != dregs.end();
  LinearLayout rows = row_address_layout(dst, a, trans, b_pairs, ku);

  // the swizzle with the fewest conflicts of stores + ldmatrix reads
  LinearLayout best;
  int best_cost = 1 << 30;
  int64_t cols = shape[static_cast<size_t>(inner)], nrows = shape[static_cast<size_t>(order[1])];
  for (int32_t mp = 1; mp <= 8; mp *= 2)
    for (int32_t pp = 1; pp <= 8; pp *= 2) {
      if ((mp == 1 && pp > 1) || ku * mp > cols || pp * mp > nrows * 8)
        continue;
      LinearLayout s = layout::shared_swizzled(ku, pp, mp, order, shape);
      LinearLayout off = s.invert();
      int cost =
          layout::shared_bank_conflicts(src, s, eb) + ldmatrix_conflicts(rows.compose(off), eb);
      if (cost < best_cost) {
        best = s;
        best_cost = cost;
      }
    }
  LinearLayout to_offset = best.invert(); // coords -> offset
  LinearLayout src_off = src.compose(to_offset);

  simt::Builder &b = c.b();
  int64_t base = c.scratch(op, x->type.numel() * eb);
  const std::vector<Reg> &regs = c.get(x);
  std::vector<bool> uniq = LoweringContext::unique_regs(src);
  // every access below is within this operand's scratch: sink-fragment-loads may move the
  // ldmatrix loads past the other operand's stores and barrier, down to their mma (one
  // warp holding a whole batched dot's A keeps only a step's fragments live)
  b.set_smem_region(base, base + x->type.numel() * eb);
  c.smem_before_write();
  for (int32_t r = 0; r < static_cast<int32_t>(regs.size());) {
    if (!uniq[static_cast<size_t>(r)]) {
      ++r;
      continue;
    }
    int v = smem_store_run(c, src_off, r, uniq, ku);
    if (eb == 4) {
      std::vector<Operand> words(regs.begin() + r, regs.begin() + r + v);
      b.st(simt::Space::Shared, Ty::B32, c.smem_operand(src_off, base, 4, r), std::move(words));
    } else if (v == 1) {
      b.st(simt::Space::Shared, Ty::B16, c.smem_operand(src_off, base, 2, r),
           {regs[static_cast<size_t>(r)]});
    } else {
      std::vector<Operand> words;
      for (int j = 0; j < v; j += 2)
        words.push_back(b.pack(
            Ty::B32, {regs[static_cast<size_t>(r + j)], regs[static_cast<size_t>(r + j + 1)]}));
      b.st(simt::Space::Shared, Ty::B32, c.smem_operand(src_off, base, 2, r), std::move(words));
    }
    r += v;
  }
  c.smem_after_write();

  c.set(res, ldmatrix_operand(c, dst, best, a, base, Reg{}, reg_ty(x->type.element())));
  b.set_smem_region(0, 0);
  return true;
}

} // namespace tilec::lower
