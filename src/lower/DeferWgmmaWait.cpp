#include "lower/DeferWgmmaWait.h"

#include <algorithm>
#include <optional>
#include <string>

#include "simt/AsyncInstrs.h"
#include "support/Env.h"

namespace tilec::lower {

namespace {

using simt::Instr;
using simt::Op;

// TILEC_WGMMA_DEFER=auto defers across the back edge only in bodies committing this many
// groups or more. Measured on an H200 (tutorial 06 and the seed attention, N 4096): the
// backward's four dots (dk's group runs on into q k^T's issue) +3 % at D 64; the forward's
// two (p v into q k^T) -17 % at D 64 with cp.async rings (seed attention) and -13 % in
// tutorial 06's D 128 warp_specialize forward.
constexpr long kAutoMinGroups = 3;

long commits(const std::vector<Instr> &body) {
  return std::count_if(body.begin(), body.end(),
                       [](const Instr &in) { return in.op == Op::WgmmaCommit; });
}

bool is_bar0(const Instr &in) {
  return in.op == Op::Bar && !in.guard.active() && in.src.size() == 1 && in.src[0].is_imm() &&
         in.src[0].value == 0;
}

bool is_wait(const Instr &in, int64_t n) {
  return in.op == Op::WgmmaWait && !in.guard.active() && in.src[0].value == n;
}

// Instructions that may run while the group is in flight (given they leave its registers
// alone): no memory writes, no control flow, nothing the host sees.
bool may_overlap(const Instr &in) {
  if (simt::is_bulk_or_tensormap(in.op))
    return false;
  switch (in.op) {
  case Op::St:
  case Op::Stmatrix:
  case Op::Atom:
  case Op::Red:
  case Op::CpAsync:
  case Op::Mbarrier:
  case Op::Vprintf:
  case Op::AssertFail:
  case Op::AssertTrap:
  case Op::InlineAsm:
  case Op::GriddepWait:
  case Op::GriddepLaunch:
  case Op::SetmaxnregDec:
  case Op::SetmaxnregInc:
  case Op::CpAsyncMbarrierArrive:
    return false;
  default:
    return !simt::leaves_block(in);
  }
}

// The branch target of a block's terminator (a label operand), if any.
std::optional<simt::BlockId> target(const Instr &in) {
  for (const simt::Operand &o : in.src)
    if (o.kind == simt::Operand::Kind::Label)
      return o.index;
  return std::nullopt;
}

// The group committed at `commit`: its fence's index, and in `held` the registers it
// reads or writes until retired (its wgmmas' accumulators and register A fragments).
std::optional<size_t> group_fence(const std::vector<Instr> &body, size_t commit,
                                  std::vector<uint32_t> &held) {
  std::vector<uint32_t> reads, writes;
  held.clear();
  size_t i = commit;
  while (i-- > 0 && body[i].op != Op::WgmmaFence) {
    const Instr &in = body[i];
    if (in.op == Op::WgmmaCommit || in.op == Op::WgmmaWait)
      return std::nullopt;
    if (in.op == Op::Wgmma) {
      simt::instr_regs(in, reads, writes);
      held.insert(held.end(), writes.begin(), writes.end()); // the accumulators
      if (in.m.a_regs) // and A fragments: the sources before b's descriptor and scale-d
        for (size_t k = 0; k + 2 < in.src.size(); ++k)
          if (in.src[k].is_reg())
            held.push_back(in.src[k].index);
    }
  }
  if (i == static_cast<size_t>(-1) || held.empty())
    return std::nullopt;
  return i;
}

// Whether every group committed in `body` before `fence` was retired (a wait 0 after the
// last such commit), so none but the group at `fence` is in flight after it. A group
// committed before the block may still be: the block must retire it itself.
bool only_group_in_flight(const std::vector<Instr> &body, size_t fence) {
  bool retired = false;
  for (size_t i = 0; i < fence; ++i)
    if (body[i].op == Op::WgmmaCommit)
      retired = false;
    else if (is_wait(body[i], 0))
      retired = true;
  return retired;
}

// Defers the wait of body block `b` (header `h` = b - 1, exit `e`); true when done.
bool defer(simt::Function &f, size_t h, size_t b, simt::BlockId e) {
  std::vector<Instr> &body = f.blocks[b].instrs;
  // the last `commit; wait 0`
  size_t w = body.size();
  for (size_t i = body.size(); i-- > 1;)
    if (is_wait(body[i], 0) && body[i - 1].op == Op::WgmmaCommit && !body[i - 1].guard.active()) {
      w = i;
      break;
    }
  if (w == body.size())
    return false;
  // its group: the wgmmas back to their fence; nothing else in flight before it
  std::vector<uint32_t> held, reads, writes;
  std::optional<size_t> fence_at = group_fence(body, w - 1, held);
  if (!fence_at)
    return false;
  size_t fence = *fence_at;
  if (!only_group_in_flight(body, fence))
    return false;
  bool bar = w + 1 < body.size() && is_bar0(body[w + 1]);
  auto touches = [&](const Instr &in) {
    simt::instr_regs(in, reads, writes);
    for (uint32_t r : held)
      if (std::find(reads.begin(), reads.end(), r) != reads.end() ||
          std::find(writes.begin(), writes.end(), r) != writes.end())
        return true;
    return false;
  };
  // scan: the rest of the body, the header, the body again up to the fence
  int committed = 0;
  auto ok = [&](const Instr &in) { return may_overlap(in) && !touches(in); };
  // up to the back edge and in the header: no other wgmma work at all
  auto plain = [&](const Instr &in) { return ok(in) && !simt::is_wgmma(in.op); };
  for (size_t i = w + (bar ? 2 : 1); i + 1 < body.size(); ++i)
    if (!plain(body[i]))
      return false;
  const std::vector<Instr> &head = f.blocks[h].instrs;
  for (size_t i = 0; i + 1 < head.size(); ++i)
    if (!plain(head[i]))
      return false;
  size_t merge = body.size();
  for (size_t i = 0; i < fence; ++i) {
    const Instr &in = body[i];
    if (in.op == Op::WgmmaCommit)
      ++committed;
    if (in.op == Op::WgmmaWait) {
      if (in.guard.active() || committed < in.src[0].value)
        return false;
      merge = i;
      break;
    }
    if (!ok(in))
      return false;
  }
  if (merge == body.size() || (bar && !(merge + 1 < body.size() && is_bar0(body[merge + 1]))))
    return false;
  // the exit retires the group before anything after the loop runs
  std::vector<Instr> &exit = f.blocks[e].instrs;
  std::vector<Instr> at_exit{body[w]};
  if (bar)
    at_exit.push_back(body[w + 1]);
  exit.insert(exit.begin(), at_exit.begin(), at_exit.end());
  body.erase(body.begin() + static_cast<long>(w),
             body.begin() + static_cast<long>(w + (bar ? 2 : 1)));
  return true;
}

// Within one block: `commit; wait 0` whose group the block's next wait retires anyway
// (attention backward: dv's dot, then dp's dot and its wait) drops its own wait when
// no earlier group is still in flight, and nothing up to that wait touches the group's
// registers, writes memory or passes a barrier (so no other warp moves on to overwrite
// what the group reads). The group then runs beside the next dot's issue.
int defer_in_block(std::vector<Instr> &body) {
  int n = 0;
  std::vector<uint32_t> held, reads, writes;
  for (size_t w = 1; w < body.size(); ++w) {
    if (!is_wait(body[w], 0) || body[w - 1].op != Op::WgmmaCommit || body[w - 1].guard.active())
      continue;
    std::optional<size_t> fence = group_fence(body, w - 1, held);
    if (!fence || !only_group_in_flight(body, *fence))
      continue;
    int committed = 0;
    size_t merge = body.size();
    for (size_t i = w + 1; i < body.size(); ++i) {
      const Instr &in = body[i];
      if (in.op == Op::WgmmaWait) {
        if (!in.guard.active() && committed >= in.src[0].value)
          merge = i;
        break;
      }
      if (in.op == Op::WgmmaCommit)
        ++committed;
      if (in.op == Op::Bar || !may_overlap(in))
        break;
      simt::instr_regs(in, reads, writes);
      bool touches = false;
      for (uint32_t r : held)
        touches = touches || std::find(reads.begin(), reads.end(), r) != reads.end() ||
                  std::find(writes.begin(), writes.end(), r) != writes.end();
      if (touches)
        break;
    }
    if (merge == body.size())
      continue;
    body.erase(body.begin() + static_cast<long>(w));
    ++n;
  }
  return n;
}

} // namespace

int defer_wgmma_wait(simt::Function &f) {
  int n = 0;
  for (simt::Block &blk : f.blocks)
    n += defer_in_block(blk.instrs);
  const std::string mode = env::get(env::Var::WgmmaDefer);
  if (mode != "auto" && !env::flag_value(mode))
    return n;
  for (size_t b = 1; b < f.blocks.size(); ++b) {
    const std::vector<Instr> &body = f.blocks[b].instrs;
    const std::vector<Instr> &head = f.blocks[b - 1].instrs;
    if (mode == "auto" && commits(body) < kAutoMinGroups)
      continue;
    // body: ends with an unconditional branch back to the header right before it;
    // header: its only exit its last instruction, a conditional branch out of the loop
    if (body.empty() || head.empty() || body.back().op != Op::Bra || body.back().guard.active() ||
        target(body.back()) != b - 1 || head.back().op != Op::Bra || !head.back().guard.active())
      continue;
    std::optional<simt::BlockId> e = target(head.back());
    if (!e || *e == b || *e == b - 1 || *e >= f.blocks.size())
      continue;
    if (defer(f, b - 1, b, *e))
      ++n;
  }
  return n;
}

} // namespace tilec::lower
