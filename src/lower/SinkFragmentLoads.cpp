#include "lower/SinkFragmentLoads.h"

#include <algorithm>

namespace tilec::lower {

namespace {

using simt::Instr;
using simt::Op;

// A shared-memory read, or register packing: what may move.
bool movable(const Instr &in) {
  if (in.op == Op::Ldmatrix)
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
  for (size_t i = instrs.size(); i-- > 0;) {
    const Instr &x = instrs[i];
    if (!movable(x) || x.guard.active())
      continue;
    std::vector<uint32_t> s, d, kr, kw;
    simt::instr_regs(x, s, d);
    size_t j = i + 1;
    for (; j < instrs.size(); ++j) {
      const Instr &k = instrs[j];
      simt::instr_regs(k, kr, kw);
      if (any_in(kr, d))
        break; // the first reader: x goes right before it
      if (any_in(kw, s) || any_in(kw, d) || (reads_memory(x) && orders_memory(k)) ||
          simt::leaves_block(k)) {
        j = instrs.size(); // blocked before reaching a reader: stay
        break;
      }
    }
    if (j >= instrs.size() || j == i + 1)
      continue;
    Instr moved = std::move(instrs[i]);
    instrs.erase(instrs.begin() + static_cast<long>(i));
    instrs.insert(instrs.begin() + static_cast<long>(j - 1), std::move(moved));
  }
}

} // namespace

void sink_fragment_loads(simt::Function &f) {
  for (simt::Block &b : f.blocks)
    sink_block(b.instrs);
}

} // namespace tilec::lower
