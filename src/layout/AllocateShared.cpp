#include "layout/AllocateShared.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "layout/ConvertPlan.h"
#include "layout/Layouts.h"
#include "layout/MmaLayouts.h"
#include "layout/TmaCopies.h"
#include "layout/ViewLayouts.h"

namespace tilec::layout {

using ir::OpKind;

namespace {

int64_t align16(int64_t v) { return (v + 15) & ~int64_t{15}; }
int64_t elem_bytes(const ir::Type &t) { return t.is_ptr() ? 8 : ir::byte_size(t.elem); }

// True when moving a value from `src` to `dst` needs other threads' data.
bool needs_smem(const LinearLayout &src, const LinearLayout &dst) {
  ConversionKind k = plan_conversion(src, dst).kind;
  return k != ConversionKind::None && k != ConversionKind::Registers;
}

// Does a shape op move data between threads with these layouts?
bool view_needs_smem(const ir::Op &op) {
  const ir::Type &a = op.operand(0)->type, &r = op.result(0)->type;
  if (!a.is_tile() || !a.layout || !r.layout)
    return false;
  switch (op.kind()) {
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
  case OpKind::Permute:
  case OpKind::Reshape:
    return needs_smem(to_linear(a), view_operand_layout(op, to_linear(r)));
  default:
    return true;
  }
}

// Does join / split move data between threads (lower_join / lower_split: the halves'
// layout paired along the last dim against the whole's)? Scalar halves: no.
bool pair_needs_smem(const ir::Op &op) {
  const ir::Value *half = op.kind() == OpKind::Join ? op.operand(0) : op.result(0);
  const ir::Value *whole = op.kind() == OpKind::Join ? op.result(0) : op.operand(0);
  if (!half->type.is_tile() || !half->type.layout || !whole->type.layout)
    return true;
  if (op.kind() == OpKind::Join && !ir::same_layout(op.operand(1)->type.layout, half->type.layout))
    return true;
  LinearLayout paired = paired_layout(to_linear(half->type), whole->type.shape);
  return op.kind() == OpKind::Join ? needs_smem(paired, to_linear(whole->type))
                                   : needs_smem(to_linear(whole->type), paired);
}

// Warp bits (not replicas) of `l` that step tile dim `axis`.
int warps_along(const LinearLayout &l, int axis) {
  if (!l.has_in_dim(kWarp))
    return 0;
  int32_t free = l.free_variable_mask(kWarp);
  int n = 0;
  for (int i = 0; i < l.in_dim_bits(kWarp); ++i)
    if (!((free >> i) & 1) && l.basis(kWarp, i)[static_cast<size_t>(axis)] != 0)
      ++n;
  return n;
}

} // namespace

bool ring_feeds_wgmma(const ir::Op &local_alloc) {
  bool any = false;
  for (const ir::Op *u : local_alloc.result(0)->users) {
    if (u->kind() != OpKind::LocalLoad)
      continue;
    for (const ir::Op *d : u->result(0)->users) {
      const ir::LayoutRef &l = d->num_results() ? d->result(0)->type.layout : ir::LayoutRef{};
      if (d->kind() != OpKind::Dot || !l || l->kind != ir::LayoutKind::Mma || l->mma_version != 3)
        return false;
      any = true;
    }
  }
  return any;
}

int64_t ring_alignment(const ir::Op &local_alloc) {
  return ring_feeds_wgmma(local_alloc) ? 1024 : 128;
}

int64_t ring_bytes(const ir::Op &local_alloc) {
  const ir::Type &t = local_alloc.result(0)->type;
  // one per stage, and one more when consumers free the stages (warp specialisation)
  bool full = local_alloc.int_attr("tma", 0) || local_alloc.int_attr("mbar", 0);
  int64_t barriers = full ? 8 * t.shape[0] * (local_alloc.int_attr("free", 0) ? 2 : 1) : 0;
  return t.numel() * elem_bytes(t) + barriers;
}

int64_t scratch_alignment(const ir::Op &op) {
  if (op.kind() == OpKind::LocalAlloc)
    return ring_alignment(op);
  return op.kind() == OpKind::TmaStore ? 1024 : 16;
}

int64_t scratch_bytes(const ir::Op &op) {
  switch (op.kind()) {
  case OpKind::LocalAlloc: // placed at a scratch_alignment offset
    return align16(ring_bytes(op));
  case OpKind::ConvertLayout: {
    const ir::Type &a = op.operand(0)->type, &r = op.result(0)->type;
    if (!a.layout || !r.layout || !needs_smem(to_linear(a), to_linear(r)))
      return 0;
    return align16((a.numel() >> op.int_attr("chunk_bits", 0)) * elem_bytes(a));
  }
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
  case OpKind::Permute:
  case OpKind::Reshape:
    return view_needs_smem(op)
               ? align16(op.result(0)->type.numel() * elem_bytes(op.result(0)->type))
               : 0;
  case OpKind::Dot: // wgmma stages its operands in shared memory
    return align16(wgmma_dot_smem_bytes(op));
  case OpKind::TmaStore: // the boxes, placed at a scratch_alignment (the swizzle's) offset
    return align16(op.operand(0)->type.numel() * elem_bytes(op.operand(0)->type));
  case OpKind::Join: // the whole tile
    return pair_needs_smem(op)
               ? align16(op.result(0)->type.numel() * elem_bytes(op.result(0)->type))
               : 0;
  case OpKind::Split:
    return pair_needs_smem(op)
               ? align16(op.operand(0)->type.numel() * elem_bytes(op.operand(0)->type))
               : 0;
  case OpKind::Cat:
    return align16(op.result(0)->type.numel() * elem_bytes(op.result(0)->type));
  case OpKind::Gather: // the source, row-major
    return align16(op.operand(0)->type.numel() * elem_bytes(op.operand(0)->type));
  case OpKind::Histogram: // the bins, one u32 each
    return align16(op.result(0)->type.numel() * 4);
  case OpKind::Reduce:
  case OpKind::Scan: {
    const ir::Type &x = op.operand(0)->type;
    if (!x.layout)
      return 0;
    int axis = static_cast<int>(op.int_attr("axis"));
    int w = warps_along(to_linear(x), axis);
    if (w == 0)
      return 0;
    int64_t per =
        op.kind() == OpKind::Reduce ? x.numel() / x.shape[axis] * (int64_t{1} << w) : x.numel();
    int64_t bytes = 0;
    for (size_t i = 0; i < op.num_operands(); ++i)
      bytes += align16(per * elem_bytes(op.operand(i)->type));
    return bytes;
  }
  case OpKind::AtomicRmw:
  case OpKind::AtomicCas: {
    const ir::Value *r = op.result(0);
    if (r->users.empty())
      return 0;
    if (!r->type.is_tile())
      return align16(elem_bytes(r->type));
    const ir::Type &p = op.operand(0)->type;
    if (!p.layout)
      return 0;
    LinearLayout l = to_linear(p);
    bool replicated = l.free_variable_mask(kLane) != 0 || l.free_variable_mask(kWarp) != 0;
    return replicated ? align16(r->type.numel() * elem_bytes(r->type)) : 0;
  }
  default:
    return 0;
  }
}

namespace {

struct Buffer {
  ir::Op *op;
  int64_t size, start, end; // live over op numbers [start, end]
  int64_t offset = 0;
  int64_t align = 16; // scratch_alignment: its offset's
};

bool nested_in(const ir::Op *op, const ir::Op *loop) {
  while (op && op != loop)
    op = op->parent() && op->parent()->parent() ? op->parent()->parent()->parent() : nullptr;
  return op != nullptr;
}

// The outermost op around `op` in the block `blk` (null: not nested in it).
const ir::Op *ancestor_in(const ir::Op *op, const ir::Block *blk) {
  while (op && op->parent() != blk)
    op = op->parent() && op->parent()->parent() ? op->parent()->parent()->parent() : nullptr;
  return op;
}

// A ring lives through its last use (the whole loop around it: the next iteration reads
// what this one copied) and the first async_wait {pending = 0} after that (copies still in
// flight write to it).
void extend_ring(Buffer &b, const std::map<const ir::Op *, int64_t> &number) {
  const ir::Block *home = b.op->parent();
  for (const ir::Op *u : b.op->result(0)->users) {
    const ir::Op *top = ancestor_in(u, home);
    if (!top)
      top = u;
    for (const auto &[op, n] : number)
      if (n > b.end && (op == top || nested_in(op, top)))
        b.end = n;
  }
  int64_t wait = -1;
  for (const auto &[op, n] : number)
    if (n > b.end &&
        ((op->kind() == OpKind::AsyncWait && op->int_attr("pending", 0) == 0) ||
         (op->kind() == OpKind::TmaRelease && op->operand(0) == b.op->result(0))) &&
        (wait < 0 || n < wait))
      wait = n;
  if (wait >= 0)
    b.end = wait;
}

// A conversion of a dot's operand (in the dot's block) keeps its buffer until the dot, so
// that the other operand's conversion takes other bytes: its reads may then sink to each K
// step (sink-fragment-loads) instead of all coming before the other operand's stores,
// every value of the operand live at once (a 64x64x64 FMA dot spilled 12 KB a thread; one
// warp's 8x32x32x64 batched tf32 dot, 18 KB). Up to kDotOperandBytes for the two
// together, or up to what the target gives a block (module attribute max_shared) as long
// as the kernel's total then stays within it (else shared memory stays as it was).
constexpr int64_t kDotOperandBytes = 64 << 10;

void extend_to_dot(Buffer &b, const std::map<const ir::Op *, int64_t> &number, int64_t limit) {
  if (b.op->kind() != OpKind::ConvertLayout)
    return;
  for (const ir::Op *u : b.op->result(0)->users) {
    if (u->kind() != OpKind::Dot || u->parent() != b.op->parent())
      continue;
    auto it = number.find(u);
    if (it == number.end() || it->second <= b.end)
      continue;
    int64_t other = 0; // the dot's other operand conversion, when it is one
    for (int i = 0; i < 2; ++i) {
      const ir::Op *d = u->operand(i)->def;
      if (d && d != b.op && d->kind() == OpKind::ConvertLayout)
        other += scratch_bytes(*d);
    }
    if (b.size + other <= limit)
      b.end = it->second;
  }
}

// The operand (0 or 1) a wgmma dot stages once before its loop when that is all its buffer
// holds (the other operand is read from a ring), else -1.
int staged_only_operand(const ir::Op &dot) {
  if (dot.kind() != OpKind::Dot || wgmma_pipelined_loop(dot))
    return -1;
  for (int i = 0; i < 2; ++i) {
    const ir::Op *other = dot.operand(static_cast<size_t>(1 - i))->def;
    if (wgmma_invariant_operand_loop(dot, i) && other && other->kind() == OpKind::LocalLoad &&
        !(i == 0 && wgmma_a_from_registers(dot)) && !wgmma_invariant_operand_loop(dot, 1 - i))
      return i;
  }
  return -1;
}

// Dots of two loops of one block staging the same loop-invariant operand (a causal
// attention's q: the loop below the diagonal and the one on it) share the first one's
// buffer: it lives through both loops and the second dot does not store the operand
// again (LowerWgmma, "staged_operand"), so the operand's registers do not live through
// the first loop. Returns (second dot, first dot's buffer index) pairs; the second dots'
// buffers are taken out of `bufs`' placement (size 0).
std::vector<std::pair<ir::Op *, size_t>>
share_staged_operands(std::vector<Buffer> &bufs, const std::map<const ir::Op *, int64_t> &number) {
  std::vector<std::pair<ir::Op *, size_t>> shared;
  for (size_t j = 0; j < bufs.size(); ++j) {
    int idx = staged_only_operand(*bufs[j].op);
    if (idx < 0)
      continue;
    const ir::Op *l2 = wgmma_invariant_operand_loop(*bufs[j].op, idx);
    for (size_t i = 0; i < j; ++i) {
      Buffer &b1 = bufs[i];
      if (b1.size == 0 || staged_only_operand(*b1.op) != idx ||
          b1.op->operand(static_cast<size_t>(idx)) !=
              bufs[j].op->operand(static_cast<size_t>(idx)) ||
          b1.size != bufs[j].size)
        continue;
      const ir::Op *l1 = wgmma_invariant_operand_loop(*b1.op, idx);
      if (l1 == l2 || l1->parent() != l2->parent() || number.at(l1) > number.at(l2))
        continue;
      b1.end = std::max(b1.end, bufs[j].end);
      bufs[j].size = 0;
      shared.emplace_back(bufs[j].op, i);
      break;
    }
  }
  return shared;
}

// First fit, largest first, among buffers whose lifetimes overlap.
int64_t place(std::vector<Buffer> &bufs) {
  std::vector<Buffer *> order;
  for (Buffer &b : bufs)
    order.push_back(&b);
  std::stable_sort(order.begin(), order.end(),
                   [](const Buffer *a, const Buffer *b) { return a->size > b->size; });
  std::vector<Buffer *> placed;
  int64_t total = 0;
  for (Buffer *b : order) {
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (Buffer *p : placed)
      if (p->start <= b->end && b->start <= p->end)
        busy.emplace_back(p->offset, p->offset + p->size);
    std::sort(busy.begin(), busy.end());
    auto aligned = [&](int64_t v) { return (v + b->align - 1) & ~(b->align - 1); };
    int64_t at = 0;
    for (auto [lo, hi] : busy) {
      if (at + b->size <= lo)
        break;
      at = std::max(at, aligned(hi));
    }
    b->offset = at;
    placed.push_back(b);
    total = std::max(total, at + b->size);
  }
  return total;
}

// Each buffer's lifetime (op numbers) in `f`; dots' operand conversions kept apart up to
// `dot_limit` bytes the pair (extend_to_dot). `shared`: the staged operands one buffer
// serves for several dots.
std::vector<Buffer> lifetimes(ir::Function &f, const std::map<const ir::Op *, int64_t> &number,
                              int64_t dot_limit, std::vector<std::pair<ir::Op *, size_t>> &shared) {
  std::vector<Buffer> bufs;
  ir::walk(f.entry(), [&](ir::Op *op) {
    int64_t n = number.at(op), bytes = scratch_bytes(*op);
    if (bytes > 0)
      bufs.push_back({op, bytes, n, n, 0, scratch_alignment(*op)});
  });
  // a wgmma dot staging a loop-invariant operand once before its loop: live in all of it
  for (Buffer &b : bufs) {
    const ir::Op *loop = nullptr;
    for (int i = 0; i < 2 && !loop; ++i)
      loop = wgmma_invariant_operand_loop(*b.op, i);
    if (!loop)
      continue;
    b.start = number.at(loop);
    for (const auto &[op, n] : number)
      if (n > b.end && nested_in(op, loop))
        b.end = n;
  }
  for (Buffer &b : bufs)
    if (b.op->kind() == OpKind::LocalAlloc)
      extend_ring(b, number);
  // a deferred TMA store's staging (TmaCopies.h): from its outermost loop's start (the
  // boxes of the last iteration may still be read at the next) to the function's end
  for (Buffer &b : bufs)
    if (b.op->kind() == OpKind::TmaStore && b.op->int_attr("defer", 0)) {
      b.start = number.at(outermost_loop(*b.op));
      b.end = static_cast<int64_t>(number.size());
    }
  for (Buffer &b : bufs)
    extend_to_dot(b, number, dot_limit);
  for (const auto &[op, n] : number) { // the twin's buffer lives until the reader
    if (op->int_attr("shared_b", 0)) {
      const ir::Op *twin = wgmma_b_twin(*op);
      for (Buffer &b : bufs)
        if (b.op == twin)
          b.end = std::max(b.end, n);
    }
    if (op->int_attr("prestaged", 0)) // a prestaged B's buffer from its store on
      for (Buffer &b : bufs)
        if (b.op == op)
          b.start = std::min(b.start, number.at(wgmma_stage_host(*op)));
  }
  shared = share_staged_operands(bufs, number);
  return bufs;
}

} // namespace

void allocate_shared(ir::Module &m) {
  int64_t total = 0;
  const int64_t max_shared = m.int_attr("max_shared", 0); // the target's, when known
  for (auto &f : m.functions) {
    // a wgmma dot whose B an earlier dot of its block stores at the same bytes reads it
    // there (MmaLayouts.h, wgmma_b_twin): marked first, its buffer holds no B
    ir::walk(f->entry(), [&](ir::Op *op) {
      if (op->kind() == OpKind::Dot && wgmma_b_twin(*op))
        op->set_attr("shared_b", int64_t{1});
    });
    // a wgmma dot whose B an earlier dot stores with its own operands (wgmma_stage_host)
    ir::walk(f->entry(), [&](ir::Op *op) {
      if (op->kind() == OpKind::Dot && wgmma_stage_host(*op))
        op->set_attr("prestaged", int64_t{1});
    });
    std::map<const ir::Op *, int64_t> number;
    int64_t index = 0;
    ir::walk(f->entry(), [&](ir::Op *op) { number[op] = index++; });
    std::vector<std::pair<ir::Op *, size_t>> shared;
    auto place_with = [&](int64_t dot_limit, std::vector<Buffer> &bufs) {
      bufs = lifetimes(*f, number, dot_limit, shared);
      std::vector<Buffer> placed;
      for (const Buffer &b : bufs)
        if (b.size > 0)
          placed.push_back(b);
      int64_t bytes = place(placed);
      return std::make_pair(placed, bytes);
    };
    std::vector<Buffer> bufs;
    int64_t dot_limit = std::max(kDotOperandBytes, max_shared);
    auto [placed, bytes] = place_with(dot_limit, bufs);
    if (bytes > max_shared && max_shared > 0) { // deferred TMA stores' own staging is too much
      bool any = false;
      ir::walk(f->entry(), [&](ir::Op *op) {
        if (op->kind() == OpKind::TmaStore && op->int_attr("defer", 0)) {
          op->erase_attr("defer");
          any = true;
        }
      });
      if (any)
        std::tie(placed, bytes) = place_with(dot_limit, bufs);
    }
    if (bytes > max_shared && max_shared > kDotOperandBytes) { // past the target: as before
      dot_limit = kDotOperandBytes;
      std::tie(placed, bytes) = place_with(dot_limit, bufs);
    }
    // still past it: the largest conversions go through shared memory in halves, quarters,
    // ... (ConvertPlan.h chunk_bit), as Triton's do
    while (bytes > max_shared && max_shared > 0) {
      const Buffer *largest = nullptr;
      for (const Buffer &b : placed)
        if (b.op->kind() == OpKind::ConvertLayout && (!largest || b.size > largest->size) &&
            b.op->int_attr("chunk_bits", 0) <
                chunk_bits_available(to_linear(b.op->operand(0)->type),
                                     to_linear(b.op->result(0)->type)))
          largest = &b;
      if (!largest)
        break;
      ir::Op *best = largest->op;
      best->set_attr("chunk_bits", best->int_attr("chunk_bits", 0) + 1);
      std::tie(placed, bytes) = place_with(dot_limit, bufs);
    }
    total = std::max(total, bytes);
    for (const Buffer &b : placed) {
      b.op->set_attr("smem_offset", b.offset);
      b.op->set_attr("smem_size", b.size);
    }
    for (auto &[dot, first] : shared) {
      const ir::Op *from = bufs[first].op;
      dot->set_attr("smem_offset", from->int_attr("smem_offset"));
      dot->set_attr("smem_size", from->int_attr("smem_size"));
      dot->set_attr("staged_operand", int64_t{staged_only_operand(*dot)});
    }
  }
  for (ir::NamedAttr &a : m.attrs)
    if (a.name == "shared_bytes") {
      a.value = total;
      return;
    }
  m.attrs.push_back({"shared_bytes", total});
}

} // namespace tilec::layout
