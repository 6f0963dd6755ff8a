#include "lower/SinkFragmentLoads.h"

#include <algorithm>

#include "simt/AsyncInstrs.h"

namespace tilec::lower {

namespace {

using simt::Instr;
using simt::Op;

// A shared-memory read, register packing, or a warp shuffle (an FMA dot's operand values
// come through shuffles; every lane runs the same straight-line code, so moving one within
// its block keeps it converged): what may move.
bool movable(const Instr &in) {
  if (in.op == Op::Ldmatrix || in.op == Op::Shfl)
    return true;
  if (in.op == Op::Ld)
    return in.m.space == simt::Space::Shared;
  return in.op == Op::Pack || in.op == Op::Unpack;
}

bool reads_memory(const Instr &in) { return in.op == Op::Ldmatrix || in.op == Op::Ld; }

// Instructions a shared-memory read must not cross: writes to memory, barriers and
// fences, asynchronous copies and wgmma (which read or write shared memory), and
// anything that leaves the block or has effects the host sees.
bool orders_memory(const Instr &in) {
  if (simt::is_bulk_or_tensormap(in.op))
    return true;
  switch (in.op) {
  case Op::St:
  case Op::Stmatrix:
  case Op::Atom:
  case Op::Red:
  case Op::Bar:
  case Op::BarArrive:
  case Op::Membar:
  case Op::Fence:
  case Op::CpAsync:
  case Op::CpAsyncCommit:
  case Op::CpAsyncWait:
  case Op::Mbarrier:
  case Op::WgmmaFence:
  case Op::Wgmma:
  case Op::WgmmaCommit:
  case Op::WgmmaWait:
  case Op::FenceProxyAsync:
  case Op::GriddepWait:
  case Op::GriddepLaunch:
  case Op::SetmaxnregDec:
  case Op::SetmaxnregInc:
  case Op::CpAsyncMbarrierArrive:
  case Op::Vprintf:
  case Op::AssertFail:
  case Op::AssertTrap:
  case Op::Trap:
  case Op::Exit:
  case Op::Ret:
  case Op::Bra:
    return true;
  default:
    return false;
  }
}

// Whether the shared-memory read `x`, known to touch only one scratch buffer's bytes, may
// move past `k`: a store to other shared bytes or to global memory, or a bar.sync. Every
// thread runs the same straight-line block, so the writes a moved load could newly see
// are the stores it passes (each checked here) and, past a barrier, those up to the next
// one (sink_block checks them); async copies, atomics and fences still stop it.
bool passes_in_other_buffer(const Instr &x, const Instr &k) {
  if (x.smem_hi == 0)
    return false;
  if (k.op == Op::Bar)
    return true;
  if (k.op != Op::St && k.op != Op::Stmatrix)
    return false;
  if (k.m.space == simt::Space::Global)
    return true;
  return k.m.space == simt::Space::Shared && k.smem_hi > 0 &&
         (k.smem_hi <= x.smem_lo || x.smem_hi <= k.smem_lo);
}

// Integer arithmetic an address is made of (a shared buffer's base, swizzle xor, scale).
bool address_alu(const Instr &in) {
  switch (in.op) {
  case Op::Mov:
  case Op::Add:
  case Op::Mul:
  case Op::Mad:
  case Op::And:
  case Op::Or:
  case Op::Xor:
  case Op::Shl:
    return !in.guard.active() && in.dst.size() == 1 && in.dst[0].is_reg();
  default:
    return false;
  }
}

// The block as a linked list in which every instruction keeps its index in `instrs`; an
// order label per instruction compares two positions in O(1) (a move takes a label
// between its new neighbours; when none is left the list is relabelled).
struct Order {
  static constexpr uint64_t kGap = uint64_t{1} << 32;
  std::vector<int> next, prev;
  std::vector<uint64_t> label;
  int head = -1;
  explicit Order(size_t n) : next(n), prev(n), label(n) {
    for (size_t i = 0; i < n; ++i) {
      next[i] = i + 1 < n ? static_cast<int>(i + 1) : -1;
      prev[i] = static_cast<int>(i) - 1;
      label[i] = (i + 1) * kGap;
    }
    head = n ? 0 : -1;
  }
  bool before(int a, int b) const { return label[a] < label[b]; }
  void unlink(int x) {
    (prev[x] >= 0 ? next[prev[x]] : head) = next[x];
    if (next[x] >= 0)
      prev[next[x]] = prev[x];
  }
  void insert_before(int x, int at) {
    int p = prev[at];
    prev[x] = p;
    next[x] = at;
    (p >= 0 ? next[p] : head) = x;
    prev[at] = x;
    uint64_t lo = p >= 0 ? label[p] : 0;
    if (label[at] - lo < 2) {
      uint64_t l = kGap; // relabel: rare, O(n)
      for (int i = head; i >= 0; i = next[i], l += kGap)
        label[i] = l;
    } else {
      label[x] = lo + (label[at] - lo) / 2;
    }
  }
};

// `readers`: how many instructions of the function read each register.
//
// Instructions are visited bottom-up; the ones below the visited one are placed already.
// For those, each register's earliest reader and writer, the earliest fence or block exit,
// and the memory-ordering instructions (none of which move) in order are kept, so where a
// visited instruction goes, and whether anything stops it, is found without walking the
// instructions in between (an FMA dot's straight-line block has tens of thousands).
void sink_block(std::vector<Instr> &instrs, const std::vector<int> &readers) {
  size_t n = instrs.size();
  std::vector<std::vector<uint32_t>> reads(n), writes(n);
  for (size_t i = 0; i < n; ++i)
    simt::instr_regs(instrs[i], reads[i], writes[i]);
  Order order(n);
  size_t nregs = readers.size();
  std::vector<int> first_read(nregs, -1), first_write(nregs, -1);
  std::vector<int> next_mem(n, -1); // the next memory-ordering instruction below each one
  int first_mem = -1, first_hard = -1;
  // registers that a moved shared-memory load (or an op moved for one) reads: the ops
  // computing them, with no other reader, follow it down (a load's address would stay
  // behind, hundreds of them live at once)
  std::vector<char> pulled(nregs, 0);
  auto is_pulled = [&](uint32_t r) { return r < nregs && pulled[r]; };
  auto earliest = [&](int a, int b) { return a < 0 ? b : b < 0 ? a : order.before(a, b) ? a : b; };
  auto place = [&](int x) { // x now has its final position among the placed ones
    for (uint32_t r : reads[x])
      if (r < nregs)
        first_read[r] = earliest(first_read[r], x);
    for (uint32_t r : writes[x])
      if (r < nregs)
        first_write[r] = earliest(first_write[r], x);
  };
  // registers a shared-memory load of the block writes: a copy of one (a 32-bit ldmatrix
  // fragment retyped to f32) moves down too, or the load would stay above its copy
  std::vector<char> loaded(nregs, 0);
  for (size_t i = 0; i < n; ++i)
    if (movable(instrs[i]) && reads_memory(instrs[i]))
      for (uint32_t r : writes[i])
        if (r < nregs)
          loaded[r] = 1;
  for (size_t ii = n; ii-- > 0;) {
    int i = static_cast<int>(ii);
    const Instr &x = instrs[ii];
    bool stays = true;
    bool address = address_alu(x) && writes[ii].size() == 1 && is_pulled(writes[ii][0]) &&
                   readers[writes[ii][0]] == 1;
    bool copy = x.op == Op::Mov && x.src.size() == 1 && x.src[0].is_reg() &&
                x.src[0].reg().id < nregs && loaded[x.src[0].reg().id];
    if (address || ((copy || movable(x)) && !x.guard.active())) {
      // the first reader of a result: x goes right before it
      int to = -1;
      for (uint32_t r : writes[ii])
        if (r < nregs)
          to = earliest(to, first_read[r]);
      // what stops x before it: a write of what it reads or writes, a wgmma.fence (a
      // register a wgmma reads must be written before it, or ptxas inserts a
      // warpgroup.arrive), a block exit, and for a load the memory-ordering instructions
      // its bytes may not pass; one that is also the reader is the destination
      int stop = first_hard;
      for (const auto *regs : {&reads[ii], &writes[ii]})
        for (uint32_t r : *regs)
          if (r < nregs)
            stop = earliest(stop, first_write[r]);
      bool crossed_bar = false;
      if (to >= 0 && reads_memory(x)) {
        for (int m = first_mem; m >= 0 && order.before(m, to); m = next_mem[m]) {
          if (!passes_in_other_buffer(x, instrs[m])) {
            stop = earliest(stop, m);
            break;
          }
          crossed_bar = crossed_bar || instrs[m].op == Op::Bar;
        }
      }
      bool moves = to >= 0 && to != order.next[i] && (stop < 0 || !order.before(stop, to));
      // Past a barrier, other threads may run ahead of x up to the next one: the stores
      // there must miss x's bytes too (up to a barrier, or the kernel's end, in this block).
      if (moves && crossed_bar) {
        int m = first_mem;
        while (m >= 0 && order.before(m, to))
          m = next_mem[m];
        for (; m >= 0 && instrs[m].op != Op::Bar; m = next_mem[m])
          if (!passes_in_other_buffer(x, instrs[m]))
            break;
        bool end = m >= 0 && (instrs[m].op == Op::Ret || instrs[m].op == Op::Exit) &&
                   !instrs[m].guard.active();
        moves = end || (m >= 0 && instrs[m].op == Op::Bar);
      }
      if (moves) {
        stays = false;
        if (address || (reads_memory(x) && x.smem_hi > 0))
          for (uint32_t r : reads[ii])
            if (r < nregs)
              pulled[r] = 1;
        order.unlink(i);
        order.insert_before(i, to);
      }
    }
    if (stays) { // x heads the placed instructions
      if (orders_memory(x)) {
        next_mem[ii] = first_mem;
        first_mem = i;
      }
      if (x.op == Op::WgmmaFence || simt::leaves_block(x))
        first_hard = i;
    }
    place(i);
  }
  std::vector<Instr> out;
  out.reserve(n);
  for (int i = order.head; i >= 0; i = order.next[i])
    out.push_back(std::move(instrs[static_cast<size_t>(i)]));
  instrs = std::move(out);
}

} // namespace

void sink_fragment_loads(simt::Function &f) {
  std::vector<int> readers(f.regs.size(), 0);
  std::vector<uint32_t> r, w;
  for (const simt::Block &b : f.blocks)
    for (const Instr &in : b.instrs) {
      r.clear();
      w.clear();
      simt::instr_regs(in, r, w);
      for (uint32_t x : r)
        if (x < readers.size())
          ++readers[x];
    }
  for (simt::Block &b : f.blocks)
    sink_block(b.instrs, readers);
}

} // namespace tilec::lower
