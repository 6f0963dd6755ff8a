#include "lower/SinkFragmentLoads.h"

#include <algorithm>

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
  switch (in.op) {
  case Op::St:
  case Op::Atom:
  case Op::Red:
  case Op::Bar:
  case Op::BarArrive:
  case Op::Membar:
  case Op::Fence:
  case Op::CpAsync:
  case Op::CpAsyncBulkTensor:
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
  case Op::Vprintf:
  case Op::AssertFail:
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
  if (k.op != Op::St)
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

bool any_in(const std::vector<uint32_t> &a, const std::vector<uint32_t> &b) {
  return std::any_of(a.begin(), a.end(),
                     [&](uint32_t r) { return std::find(b.begin(), b.end(), r) != b.end(); });
}

// `readers`: how many instructions of the function read each register.
void sink_block(std::vector<Instr> &instrs, const std::vector<int> &readers) {
  // each instruction's registers, computed once and moved along with it
  size_t n = instrs.size();
  std::vector<std::vector<uint32_t>> reads(n), writes(n);
  for (size_t i = 0; i < n; ++i)
    simt::instr_regs(instrs[i], reads[i], writes[i]);
  // registers that a moved shared-memory load (or an op moved for one) reads: the ops
  // computing them, with no other reader, follow it down (a load's address would stay
  // behind, hundreds of them live at once)
  std::vector<char> pulled(readers.size(), 0); // by register
  auto is_pulled = [&](uint32_t r) { return r < pulled.size() && pulled[r]; };
  for (size_t i = n; i-- > 0;) {
    const Instr &x = instrs[i];
    bool address = address_alu(x) && writes[i].size() == 1 && is_pulled(writes[i][0]) &&
                   readers[writes[i][0]] == 1;
    if (!address && (!movable(x) || x.guard.active()))
      continue;
    const std::vector<uint32_t> &s = reads[i], &d = writes[i];
    size_t j = i + 1;
    bool crossed_bar = false;
    for (; j < n; ++j) {
      const Instr &k = instrs[j];
      if (any_in(reads[j], d))
        break; // the first reader: x goes right before it
      crossed_bar = crossed_bar || k.op == Op::Bar;
      // nothing sinks past a wgmma.fence: a register a wgmma reads (register A) must be
      // written before it, or ptxas inserts a warpgroup.arrive before that wgmma
      if (any_in(writes[j], s) || any_in(writes[j], d) ||
          (reads_memory(x) && orders_memory(k) && !passes_in_other_buffer(x, k)) ||
          k.op == Op::WgmmaFence || simt::leaves_block(k)) {
        j = n; // blocked before reaching a reader: stay
        break;
      }
    }
    if (j >= n || j == i + 1)
      continue;
    // Past a barrier, other threads may run ahead of x up to the next one: the stores
    // there must miss x's bytes too (up to a barrier, or the kernel's end, in this block).
    if (crossed_bar && reads_memory(x)) {
      size_t t = j;
      for (; t < n && instrs[t].op != Op::Bar; ++t)
        if (orders_memory(instrs[t]) && !passes_in_other_buffer(x, instrs[t]))
          break;
      bool end = t < n && (instrs[t].op == Op::Ret || instrs[t].op == Op::Exit) &&
                 !instrs[t].guard.active();
      if (!end && (t >= n || instrs[t].op != Op::Bar))
        continue;
    }
    if (address || (reads_memory(x) && x.smem_hi > 0))
      for (uint32_t r : reads[i])
        if (r < pulled.size())
          pulled[r] = 1;
    auto at = [&](auto &v, size_t p) { return v.begin() + static_cast<long>(p); };
    std::rotate(at(instrs, i), at(instrs, i + 1), at(instrs, j));
    std::rotate(at(reads, i), at(reads, i + 1), at(reads, j));
    std::rotate(at(writes, i), at(writes, i + 1), at(writes, j));
  }
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
