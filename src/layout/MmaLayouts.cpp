#include "layout/MmaLayouts.h"

#include <algorithm>

#include "layout/AllocateShared.h"
#include "layout/Layouts.h"
#include "layout/WgmmaLayouts.h"
#include "support/Diagnostics.h"
#include "transforms/FoldUtils.h"

namespace tilec::layout {

namespace {

using Basis = LinearLayout::Basis;

// A basis of `rank` zeros with the last two dims (row, col) set.
Basis rc(int rank, int32_t row, int32_t col) {
  Basis b(static_cast<size_t>(rank), 0);
  b[static_cast<size_t>(rank - 2)] = row;
  b[static_cast<size_t>(rank - 1)] = col;
  return b;
}

// The accumulator's warp bases: N bits, then M bits, then batch bits. `keep_m` /
// `keep_n` false: those bits broadcast (zero), as in the operand that lacks the dim.
std::vector<Basis> warp_bases(const std::vector<int32_t> &wpc, bool keep_m, bool keep_n,
                              int32_t m_step, int32_t n_step) {
  int rank = static_cast<int>(wpc.size());
  std::vector<Basis> w;
  for (int i = 0; i < log2i(wpc[rank - 1]); ++i)
    w.push_back(keep_n ? rc(rank, 0, n_step << i) : rc(rank, 0, 0));
  for (int i = 0; i < log2i(wpc[rank - 2]); ++i)
    w.push_back(keep_m ? rc(rank, m_step << i, 0) : rc(rank, 0, 0));
  if (rank == 3)
    for (int i = 0; i < log2i(wpc[0]); ++i)
      w.push_back({1 << i, 0, 0});
  return w;
}

// Builds the CTA layout from its bases and fits it to `shape`; registers repeat along
// `order` (fastest first).
LinearLayout fit(std::vector<Basis> reg, std::vector<Basis> lane, std::vector<Basis> warp,
                 const std::vector<int32_t> &cta_sizes, const ir::Shape &shape,
                 const std::vector<int32_t> &order) {
  int rank = static_cast<int>(shape.size());
  std::vector<LinearLayout::OutDim> outs;
  for (int d = 0; d < rank; ++d)
    outs.push_back({dim_name(d), cta_sizes[static_cast<size_t>(d)]});
  LinearLayout cta(
      {{kRegister, std::move(reg)}, {kLane, std::move(lane)}, {kWarp, std::move(warp)}},
      std::move(outs));
  std::vector<std::string> names;
  for (int d = 0; d < rank; ++d)
    names.push_back(dim_name(d));
  return fit_to_shape(cta, shape, order).transpose_outs(names);
}

std::vector<int32_t> repeat_order(int rank, bool k_first_a, bool b_operand) {
  // A [.., M, K]: K then M; B [.., K, N]: K then N; C [.., M, N]: N then M; batch last.
  std::vector<int32_t> o;
  if (b_operand)
    o = {rank - 2, rank - 1};
  else if (k_first_a)
    o = {rank - 1, rank - 2};
  else
    o = {rank - 1, rank - 2};
  if (rank == 3)
    o.push_back(0);
  return o;
}

std::vector<int32_t> batch_sizes(int rank, const std::vector<int32_t> &wpc, int32_t r, int32_t c) {
  std::vector<int32_t> s;
  if (rank == 3)
    s.push_back(wpc[0]);
  s.push_back(r);
  s.push_back(c);
  return s;
}

LinearLayout dot_operand_fma(const ir::Layout &l, const ir::Shape &shape) {
  int rank = static_cast<int>(shape.size());
  ir::Shape ps = shape; // the parent's (result) shape: A [.., M, K] -> [.., M, ?]
  int64_t K = l.op_idx == 0 ? shape[rank - 1] : shape[rank - 2];
  // the parent's other dim is not known from the operand; any size works as it is
  // broadcast: use the parent's own CTA tile by fitting to 1.
  if (l.op_idx == 0)
    ps[rank - 1] = 1;
  else
    ps[rank - 2] = 1;
  LinearLayout p = to_linear(*l.parent, ps);
  int keep = l.op_idx == 0 ? rank - 2 : rank - 1; // the parent dim the operand shares
  int kdim = l.op_idx == 0 ? rank - 1 : rank - 2;
  std::vector<LinearLayout::InDim> ins;
  for (const auto &in : p.in_dims()) {
    LinearLayout::InDim r{in.name, {}};
    for (const Basis &b : in.bases) {
      Basis nb(static_cast<size_t>(rank), 0);
      for (int d = 0; d < rank; ++d)
        if (d == keep || (rank == 3 && d == 0))
          nb[static_cast<size_t>(d)] = b[static_cast<size_t>(d)];
      bool zero = std::all_of(nb.begin(), nb.end(), [](int32_t v) { return v == 0; });
      if (!(zero && in.name == kRegister))
        r.bases.push_back(nb);
    }
    if (in.name == kRegister)
      for (int i = 0; i < log2i(K); ++i) {
        Basis kb(static_cast<size_t>(rank), 0);
        kb[static_cast<size_t>(kdim)] = 1 << i;
        r.bases.push_back(kb);
      }
    ins.push_back(std::move(r));
  }
  std::vector<LinearLayout::OutDim> outs;
  for (int d = 0; d < rank; ++d)
    outs.push_back({dim_name(d), static_cast<int32_t>(shape[static_cast<size_t>(d)])});
  return LinearLayout(std::move(ins), std::move(outs));
}

} // namespace

LinearLayout mma_v2(const std::vector<int32_t> &wpc, const ir::Shape &shape) {
  int rank = static_cast<int>(shape.size());
  TILEC_ASSERT((rank == 2 || rank == 3) && wpc.size() == shape.size(), "mma layout rank");
  std::vector<Basis> reg = {rc(rank, 0, 1), rc(rank, 8, 0)};
  std::vector<Basis> lane = {rc(rank, 0, 2), rc(rank, 0, 4), rc(rank, 1, 0), rc(rank, 2, 0),
                             rc(rank, 4, 0)};
  std::vector<Basis> warp = warp_bases(wpc, true, true, 16, 8);
  return fit(reg, lane, warp, batch_sizes(rank, wpc, 16 * wpc[rank - 2], 8 * wpc[rank - 1]), shape,
             repeat_order(rank, false, false));
}

LinearLayout dot_operand(const ir::Layout &l, const ir::Shape &shape) {
  TILEC_ASSERT(l.kind == ir::LayoutKind::DotOperand && l.parent, "dot_operand of " + l.str());
  if (l.parent->kind != ir::LayoutKind::Mma)
    return dot_operand_fma(l, shape);
  int rank = static_cast<int>(shape.size());
  const std::vector<int32_t> &wpc = l.parent->warps_per_cta;
  int32_t kw = l.k_width, kinstr = 8 * kw;
  TILEC_ASSERT(kw == 1 || kw == 2 || kw == 4, "dot operand k_width must be 1, 2 or 4");
  bool a = l.op_idx == 0;
  // (row, col) of a K step and of an M/N step in this operand's dims
  auto kb = [&](int32_t k) { return a ? rc(rank, 0, k) : rc(rank, k, 0); };
  auto xb = [&](int32_t x) { return a ? rc(rank, x, 0) : rc(rank, 0, x); };
  std::vector<Basis> reg;
  for (int32_t k = 1; k < kw; k *= 2)
    reg.push_back(kb(k));
  if (a)
    reg.push_back(xb(8));
  reg.push_back(kb(4 * kw));
  std::vector<Basis> lane = {kb(kw), kb(2 * kw), xb(1), xb(2), xb(4)};
  std::vector<Basis> warp = warp_bases(wpc, a, !a, 16, 8);
  std::vector<int32_t> sizes = a ? batch_sizes(rank, wpc, 16 * wpc[rank - 2], kinstr)
                                 : batch_sizes(rank, wpc, kinstr, 8 * wpc[rank - 1]);
  return fit(reg, lane, warp, sizes, shape, repeat_order(rank, true, !a));
}

std::vector<int32_t> mma_warps_per_cta(const ir::Shape &shape, int num_warps) {
  int rank = static_cast<int>(shape.size());
  std::vector<int32_t> ret(static_cast<size_t>(rank), 1);
  int left = num_warps;
  if (rank == 3) {
    while (left > 1 && ret[0] * 2 <= shape[0]) {
      ret[0] *= 2;
      left /= 2;
    }
  }
  int32_t &wm = ret[static_cast<size_t>(rank - 2)], &wn = ret[static_cast<size_t>(rank - 1)];
  int64_t M = shape[static_cast<size_t>(rank - 2)], N = shape[static_cast<size_t>(rank - 1)];
  while (wm * wn < left) {
    if (M / 16 / wm >= N / 16 / wn) {
      if (wm < M / 16)
        wm *= 2;
      else
        wn *= 2;
    } else {
      wn *= 2;
    }
  }
  return ret;
}

int32_t mma_k_width(ir::DType d) {
  int b = ir::bits(d);
  return b >= 32 ? 1 : 32 / b;
}

// The operand/result type pairs the tensor cores run (mma.sync and wgmma alike).
static bool tensor_core_types(const ir::Op &dot) {
  ir::DType e = dot.operand(0)->type.elem, r = dot.result(0)->type.elem;
  return (e == ir::DType::F16 && (r == ir::DType::F32 || r == ir::DType::F16)) ||
         (e == ir::DType::BF16 && r == ir::DType::F32) ||
         (e == ir::DType::F32 && r == ir::DType::F32 &&
          dot.str_attr("input_precision") == "tf32") ||
         (e == ir::DType::I8 && r == ir::DType::I32);
}

bool dot_uses_mma(const ir::Op &dot, bool f64) {
  const ir::Type &a = dot.operand(0)->type, &r = dot.result(0)->type;
  int rank = a.rank();
  ir::DType e = a.elem;
  bool f64_dot = f64 && e == ir::DType::F64 && dot.operand(1)->type.elem == ir::DType::F64 &&
                 r.elem == ir::DType::F64;
  if (!tensor_core_types(dot) && !f64_dot)
    return false;
  int64_t M = a.shape[static_cast<size_t>(rank - 2)], K = a.shape[static_cast<size_t>(rank - 1)];
  int64_t N = r.shape[static_cast<size_t>(rank - 1)];
  return M >= 16 && N >= 8 && K >= 8 * mma_k_width(e);
}

// fp8 operands (e4m3 and e5m2, mixed or not) run on wgmma only: mma.sync takes them from
// sm_89 and tilec keeps them on FMA units there.
static bool fp8_wgmma_types(const ir::Op &dot) {
  auto fp8 = [](ir::DType d) { return d == ir::DType::F8E4NV || d == ir::DType::F8E5; };
  ir::DType r = dot.result(0)->type.elem;
  return fp8(dot.operand(0)->type.elem) && fp8(dot.operand(1)->type.elem) &&
         (r == ir::DType::F32 || r == ir::DType::F16);
}

bool dot_uses_wgmma(const ir::Op &dot, int num_warps) {
  const ir::Type &a = dot.operand(0)->type, &r = dot.result(0)->type;
  if (a.rank() != 2 || num_warps < 4 || num_warps % 4 != 0)
    return false;
  int64_t M = a.shape[0], K = a.shape[1], N = r.shape[1];
  if (!(tensor_core_types(dot) || fp8_wgmma_types(dot)) || M % 64 != 0 || N < 16 ||
      K < (ir::bits(a.elem) == 8 ? 32 : 16))
    return false;
  std::vector<int32_t> wgs =
      wgmma_warpgroups(static_cast<int32_t>(M), static_cast<int32_t>(N), num_warps);
  return wgs[0] * wgs[1] == num_warps / 4;
}

bool is_wgmma_dot(const ir::Op &op) {
  if (op.kind() != ir::OpKind::Dot)
    return false;
  const ir::LayoutRef &l = op.result(0)->type.layout;
  return l && l->kind == ir::LayoutKind::Mma && l->mma_version == 3;
}

namespace {

// Whether an op nested in `blk` other than `except` is a wgmma dot or, when `scratch`,
// uses shared scratch (which may overlap the scratch `except` stages its operands in; a dot
// reading rings only has none).
bool other_scratch_user(const ir::Block &blk, const ir::Op &except, bool scratch) {
  for (const auto &op : blk.ops()) {
    if (op.get() == &except)
      continue;
    if (is_wgmma_dot(*op) || (scratch && scratch_bytes(*op) > 0))
      return true;
    for (size_t r = 0; r < op->num_regions(); ++r)
      if (other_scratch_user(*op->region(r)->block(), except, scratch))
        return true;
  }
  return false;
}

// The op of `body` that `op` is nested in (maybe `op` itself), or null.
const ir::Op *top_op_in(const ir::Op *op, const ir::Block *body) {
  while (op && op->parent() != body)
    op = op->parent() && op->parent()->parent() ? op->parent()->parent()->parent() : nullptr;
  return op;
}

} // namespace

int wgmma_imprecise_steps(const ir::Op &dot) {
  int64_t m = dot.int_attr("max_num_imprecise_acc", 0);
  if (!is_wgmma_dot(dot) || m <= 0 || !fp8_wgmma_types(dot) ||
      dot.result(0)->type.elem != ir::DType::F32)
    return 0;
  return static_cast<int>((m + 31) / 32);
}

const ir::Op *wgmma_zeroing_select(const ir::Op &dot) {
  if (!is_wgmma_dot(dot) || wgmma_imprecise_steps(dot))
    return nullptr;
  const ir::Op *sel = dot.operand(2)->def;
  if (!sel || sel->kind() != ir::OpKind::Select || sel->result(0)->users.size() != 1)
    return nullptr;
  const ir::Op *c = sel->operand(0)->def;
  auto zero = transforms::constant_value(sel->operand(1));
  bool is_zero = zero && (ir::is_float(sel->operand(1)->type.elem) ? zero->f == 0 : zero->i == 0);
  return c && c->kind() == ir::OpKind::Splat && !c->operand(0)->type.is_tile() && is_zero ? sel
                                                                                          : nullptr;
}

bool is_wgmma_zeroing_select(const ir::Op &select) {
  if (select.kind() != ir::OpKind::Select || select.result(0)->users.size() != 1)
    return false;
  const ir::Op *u = select.result(0)->users[0];
  return u->kind() == ir::OpKind::Dot && u->operand(2) == select.result(0) &&
         wgmma_zeroing_select(*u) == &select;
}

const ir::Op *wgmma_pipelined_loop(const ir::Op &dot) {
  ir::DType re = dot.result(0)->type.elem;
  // partial sums are added to the accumulator by ordinary instructions: no group stays in
  // flight across iterations
  if (!is_wgmma_dot(dot) || (re != ir::DType::F32 && re != ir::DType::I32) ||
      wgmma_imprecise_steps(dot))
    return nullptr;
  const ir::Value *acc = dot.operand(2), *res = dot.result(0);
  if (const ir::Op *z = wgmma_zeroing_select(dot))
    acc = z->operand(2);
  if (!acc->is_block_arg() || acc->owner != dot.parent() || acc->users.size() != 1 ||
      acc->index == 0)
    return nullptr;
  const ir::Block *body = dot.parent();
  const ir::Op *loop = body->parent() ? body->parent()->parent() : nullptr;
  const ir::Op *yield = body->terminator();
  if (!loop || loop->kind() != ir::OpKind::For || !yield || yield->num_operands() < acc->index ||
      yield->operand(acc->index - 1) != res)
    return nullptr;
  // besides the yield, the result may be read in `if`s (a flattened loop's epilogue):
  // lowering retires the group at the start of their regions (wgmma_reads_in_ifs)
  for (const ir::Op *u : res->users) {
    const ir::Op *top = top_op_in(u, body);
    if (u != yield && (!top || top == u || top->kind() != ir::OpKind::If))
      return nullptr;
  }
  if (std::count(res->users.begin(), res->users.end(), yield) != 1)
    return nullptr;
  // the wait for the last group goes before the op after the loop: there must be one (a
  // terminator, e.g. an outer loop's yield, would read the accumulator first)
  const ir::Block *outer = loop->parent();
  bool next_op = false;
  for (auto it = outer->ops().begin(); it != outer->ops().end(); ++it)
    if (it->get() == loop) {
      ++it;
      next_op = it != outer->ops().end() && !ir::is_terminator((*it)->kind());
      break;
    }
  return next_op && !other_scratch_user(*body, dot, wgmma_dot_buffer_bytes(dot) > 0) ? loop
                                                                                     : nullptr;
}

const ir::Op *wgmma_invariant_operand_loop(const ir::Op &dot, int i) {
  if (!is_wgmma_dot(dot))
    return nullptr;
  const ir::Block *body = dot.parent();
  const ir::Op *loop = body->parent() ? body->parent()->parent() : nullptr;
  if (!loop || loop->kind() != ir::OpKind::For)
    return nullptr;
  const ir::Value *v = dot.operand(static_cast<size_t>(i));
  // nested in the loop: defined by an op inside it or an argument of a block inside it
  const ir::Block *b = v->def ? v->def->parent() : v->owner;
  while (b) {
    const ir::Op *p = b->parent() ? b->parent()->parent() : nullptr;
    if (p == loop)
      return nullptr;
    b = p ? p->parent() : nullptr;
  }
  return loop;
}

bool wgmma_a_from_registers(const ir::Op &dot) {
  const ir::Type &a = dot.operand(0)->type, &r = dot.result(0)->type;
  int bits = ir::bits(a.elem);
  if (!is_wgmma_dot(dot) || !a.layout || (bits != 16 && bits != 8))
    return false;
  LinearLayout la = to_linear(a), lc = to_linear(r);
  auto bases = [](const LinearLayout &l, const char *dim) {
    return l.in_dims()[static_cast<size_t>(l.in_dim_index(dim))].bases;
  };
  const std::vector<Basis> want_lane = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  std::vector<Basis> want_warp;
  for (const Basis &w : bases(lc, kWarp))
    want_warp.push_back({w[0], 0});
  if (bases(la, kLane) != want_lane || bases(la, kWarp) != want_warp)
    return false;
  // 8-bit: the lowering gathers each k32 fragment's 4 bytes from two lanes of the quad,
  // finding a lane's pairs at lane 0's coordinates: no register basis may touch the bits
  // the lanes set (rows % 8, columns 2 and 4)
  for (const Basis &b : bases(la, kRegister))
    if (bits == 8 && (b[0] % 8 != 0 || (b[1] & 6) != 0))
      return false;
  return true;
}

bool ring_operand(const ir::Value *v) { return v->def && v->def->kind() == ir::OpKind::LocalLoad; }

namespace {

bool ring_operand(const ir::Op &dot, size_t i) { return layout::ring_operand(dot.operand(i)); }

int64_t up1024(int64_t v) { return (v + 1023) & ~int64_t{1023}; }

// `v`, or the tile a 2-D transpose of it reads (`transposed` says which).
const ir::Value *untransposed(const ir::Value *v, bool &transposed) {
  const ir::Op *d = v->def;
  transposed =
      d && d->kind() == ir::OpKind::Permute && d->ints_attr("order") == std::vector<int64_t>{1, 0};
  return transposed ? d->operand(0) : v;
}

// Whether `dot` stores its B operand in its own buffer every time it runs.
bool stores_b_each_time(const ir::Op &dot) {
  return is_wgmma_dot(dot) && !wgmma_pipelined_loop(dot) && !ring_operand(dot, 1) &&
         !wgmma_invariant_operand_loop(dot, 1);
}

} // namespace

bool wgmma_staged_mn_major(const ir::Op &dot, int i) {
  const ir::Type &t = dot.operand(static_cast<size_t>(i))->type;
  if (ir::bits(t.elem) != 16) // tf32 and 8-bit operands are K-major only
    return false;
  LinearLayout l = to_linear(t);
  int kdim = i == 1 ? 0 : 1;
  return contiguous_per_thread(l, 1 - kdim) > contiguous_per_thread(l, kdim);
}

WgmmaOperandSmem wgmma_staged_b(const ir::Op &dot) {
  const ir::Type &b = dot.operand(1)->type;
  const ir::Layout &enc = *dot.result(0)->type.layout;
  return wgmma_operand_smem(static_cast<int32_t>(b.shape[1]), static_cast<int32_t>(b.shape[0]),
                            ir::bits(b.elem) / 8, wgmma_staged_mn_major(dot, 1), true,
                            enc.instr_shape[1]);
}

const ir::Op *wgmma_b_twin(const ir::Op &dot) {
  if (!stores_b_each_time(dot))
    return nullptr;
  bool t_dot = false;
  const ir::Value *x = untransposed(dot.operand(1), t_dot);
  WgmmaOperandSmem mine = wgmma_staged_b(dot);
  for (const auto &op : dot.parent()->ops()) {
    if (op.get() == &dot)
      break;
    if (op->kind() != ir::OpKind::Dot || !stores_b_each_time(*op) || op->int_attr("shared_b", 0))
      continue;
    bool t_first = false;
    if (untransposed(op->operand(1), t_first) != x)
      continue;
    // the same bytes for every element of x (this dot's B is x or its transpose)
    WgmmaOperandSmem first = wgmma_staged_b(*op);
    bool same = first.elem_bytes == mine.elem_bytes;
    for (int32_t k = 0; same && k < first.k; ++k)
      for (int32_t n = 0; same && n < first.mn; ++n)
        same = first.byte_offset(n, k) ==
               (t_first == t_dot ? mine.byte_offset(n, k) : mine.byte_offset(k, n));
    if (same)
      return op.get();
  }
  return nullptr;
}

const ir::Op *wgmma_stage_host(const ir::Op &dot) {
  // this dot's only store each time it runs is its B (A from registers, a ring or stored
  // once before the loop), and nothing stores B for it
  if (!stores_b_each_time(dot) || dot.int_attr("shared_b", 0) ||
      (!wgmma_a_from_registers(dot) && !ring_operand(dot, 0) &&
       !wgmma_invariant_operand_loop(dot, 0)))
    return nullptr;
  const ir::Value *b = dot.operand(1);
  const ir::Block *blk = dot.parent();
  bool computed = !b->def || b->def->parent() != blk; // B exists before the block's ops
  for (const auto &op : blk->ops()) {
    if (op.get() == &dot)
      return nullptr;
    if (b->def == op.get())
      computed = true;
    if (!computed || !is_wgmma_dot(*op) || wgmma_pipelined_loop(*op) ||
        op->int_attr("prestaged", 0))
      continue;
    bool stores_a = !wgmma_a_from_registers(*op) && !ring_operand(*op, 0) &&
                    !wgmma_invariant_operand_loop(*op, 0);
    if (stores_a || (stores_b_each_time(*op) && !op->int_attr("shared_b", 0)))
      return op.get();
  }
  return nullptr;
}

int64_t wgmma_dot_a_bytes(const ir::Op &dot) {
  const ir::Type &a = dot.operand(0)->type;
  return wgmma_a_from_registers(dot) || ring_operand(dot, 0)
             ? 0
             : up1024(a.shape[0] * a.shape[1] * (ir::bits(a.elem) / 8));
}

int64_t wgmma_dot_buffer_bytes(const ir::Op &dot) {
  const ir::Type &a = dot.operand(0)->type, &r = dot.result(0)->type;
  int64_t eb = ir::bits(a.elem) / 8;
  bool own_b = !ring_operand(dot, 1) && !dot.int_attr("shared_b", 0);
  return wgmma_dot_a_bytes(dot) + (own_b ? up1024(a.shape[1] * r.shape[1] * eb) : 0);
}

int64_t wgmma_dot_smem_bytes(const ir::Op &dot) {
  if (!is_wgmma_dot(dot))
    return 0;
  int64_t buf = wgmma_dot_buffer_bytes(dot);
  return buf ? 1024 + buf * (wgmma_pipelined_loop(dot) ? 2 : 1) : 0;
}

// An FMA dot's result layout: each thread computes a rows x cols block of the result and
// reads rows + cols operand values per K step, so the lanes and warps are split between M
// and N to make that sum smallest (more lanes along N on a tie: the store's contiguous
// dim), each thread's columns contiguous (up to 4). 128 x 128 on 4 warps: 16 rows x 8
// columns (24 values a step) where the default blocked layout gives 128 x 1 (129): with
// it, ptxas took minutes on Triton's test_dot kernels holding 8192 A values a thread.
// Shapes with fewer elements than threads keep the default layout.
static ir::LayoutRef fma_result_layout(const ir::Shape &s, int num_warps) {
  if (s.size() != 2 || s[0] * s[1] < int64_t{32} * num_warps)
    return default_blocked(s, num_warps);
  int64_t M = s[0], N = s[1], best = -1;
  int32_t tn_best = 32, wn_best = num_warps;
  for (int32_t tn = 1; tn <= 32; tn *= 2)
    for (int32_t wn = 1; wn <= num_warps; wn *= 2) {
      int64_t rows = int64_t{32 / tn} * (num_warps / wn), cols = int64_t{tn} * wn;
      if (rows > M || cols > N)
        continue;
      int64_t cost = M / rows + N / cols;
      if (best < 0 || cost < best || (cost == best && tn > tn_best)) {
        best = cost;
        tn_best = tn;
        wn_best = wn;
      }
    }
  if (best < 0)
    return default_blocked(s, num_warps);
  int32_t per_col = static_cast<int32_t>(std::min<int64_t>(4, N / (int64_t{tn_best} * wn_best)));
  return ir::Layout::blocked({1, per_col}, {32 / tn_best, tn_best}, {num_warps / wn_best, wn_best},
                             {1, 0});
}

ir::LayoutRef dot_result_layout(const ir::Op &dot, int num_warps, bool wgmma, bool f64_mma) {
  const ir::Shape &s = dot.result(0)->type.shape;
  if (wgmma && dot_uses_wgmma(dot, num_warps)) {
    int32_t m = static_cast<int32_t>(s[0]), n = static_cast<int32_t>(s[1]);
    std::vector<int32_t> wgs = wgmma_warpgroups(m, n, num_warps);
    return ir::Layout::mma(3, {4 * wgs[0], wgs[1]}, {64, wgmma_instr_n(m, n, num_warps)});
  }
  if (!dot_uses_mma(dot, f64_mma))
    return fma_result_layout(s, num_warps);
  std::vector<int32_t> instr(s.size(), 1);
  instr[s.size() - 2] = 16;
  instr[s.size() - 1] = 8;
  return ir::Layout::mma(2, mma_warps_per_cta(s, num_warps), instr);
}

} // namespace tilec::layout
