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

bool any_in(const std::vector<uint32_t> &a, const std::vector<uint32_t> &b) {
  return std::any_of(a.begin(), a.end(),
                     [&](uint32_t r) { return std::find(b.begin(), b.end(), r) != b.end(); });
}

void sink_block(std::vector<Instr> &instrs) {
  // each instruction's registers, computed once and moved along with it
  size_t n = instrs.size();
  std::vector<std::vector<uint32_t>> reads(n), writes(n);
  for (size_t i = 0; i < n; ++i)
    simt::instr_regs(instrs[i], reads[i], writes[i]);
  for (size_t i = n; i-- > 0;) {
    const Instr &x = instrs[i];
    if (!movable(x) || x.guard.active())
      continue;
    const std::vector<uint32_t> &s = reads[i], &d = writes[i];
    size_t j = i + 1;
    for (; j < n; ++j) {
      const Instr &k = instrs[j];
      if (any_in(reads[j], d))
        break; // the first reader: x goes right before it
      // nothing sinks past a wgmma.fence: a register a wgmma reads (register A) must be
      // written before it, or ptxas inserts a warpgroup.arrive before that wgmma
      if (any_in(writes[j], s) || any_in(writes[j], d) || (reads_memory(x) && orders_memory(k)) ||
          k.op == Op::WgmmaFence || simt::leaves_block(k)) {
        j = n; // blocked before reaching a reader: stay
        break;
      }
    }
    if (j >= n || j == i + 1)
      continue;
    auto at = [&](auto &v, size_t p) { return v.begin() + static_cast<long>(p); };
    std::rotate(at(instrs, i), at(instrs, i + 1), at(instrs, j));
    std::rotate(at(reads, i), at(reads, i + 1), at(reads, j));
    std::rotate(at(writes, i), at(writes, i + 1), at(writes, j));
  }
}

} // namespace

void sink_fragment_loads(simt::Function &f) {
  for (simt::Block &b : f.blocks)
    sink_block(b.instrs);
}

} // namespace tilec::lower
