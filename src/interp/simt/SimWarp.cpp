// shfl.sync, vote.sync and activemask with the PTX ISA's exact semantics.
#include <bit>

#include "interp/simt/SimInternal.h"

namespace tilec::simt::sim {

namespace {

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// Every lane named in membermask must execute this instruction, and only those.
uint32_t check_members(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t act,
                       size_t mask_src) {
  int t0 = warp * kWarp + std::countr_zero(act);
  uint32_t members = static_cast<uint32_t>(m.src(c, d, mask_src, t0));
  for (int l = 0; l < kWarp; ++l) {
    int t = warp * kWarp + l;
    if ((act >> l & 1) && static_cast<uint32_t>(m.src(c, d, mask_src, t)) != members)
      m.fault(c, d, t, "lanes disagree on the member mask");
    if ((act >> l & 1) && !(members >> l & 1))
      m.fault(c, d, t, "this lane is not in the member mask " + hex32(members));
    if ((members >> l & 1) && !(act >> l & 1))
      m.fault(c, d, t0,
              "lane " + std::to_string(l) + " of member mask " + hex32(members) +
                  (c.state[t] == ThreadState::Exited ? " has exited"
                                                     : " does not execute this instruction"));
  }
  return members;
}

} // namespace

void exec_Shfl(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (!act)
    return;
  check_members(m, c, d, warp, act, 3);
  uint64_t a[kWarp];
  for (int l = 0; l < kWarp; ++l)
    a[l] = (act >> l & 1) ? m.src(c, d, 0, warp * kWarp + l) : 0;
  uint64_t out[kWarp];
  bool valid[kWarp];
  for (int l = 0; l < kWarp; ++l) {
    if (!(act >> l & 1))
      continue;
    int t = warp * kWarp + l;
    uint32_t b = static_cast<uint32_t>(m.src(c, d, 1, t)) & 31;
    uint32_t cv = static_cast<uint32_t>(m.src(c, d, 2, t));
    uint32_t clamp = cv & 31, seg = (cv >> 8) & 31;
    int max_lane = static_cast<int>((l & seg) | (clamp & ~seg));
    int min_lane = static_cast<int>(l & seg);
    int j = l;
    bool p = false;
    switch (d.in->m.shfl) {
    case ShflMode::Up:
      j = l - static_cast<int>(b);
      p = j >= max_lane;
      break;
    case ShflMode::Down:
      j = l + static_cast<int>(b);
      p = j <= max_lane;
      break;
    case ShflMode::Bfly:
      j = l ^ static_cast<int>(b);
      p = j <= max_lane;
      break;
    case ShflMode::Idx:
      j = min_lane | static_cast<int>(b & ~seg);
      p = j <= max_lane;
      break;
    default:
      break;
    }
    if (!p)
      j = l;
    if (!(act >> j & 1))
      m.fault(c, d, t,
              "reads lane " + std::to_string(j) + ", which does not take part in the shuffle");
    out[l] = a[j];
    valid[l] = p;
  }
  for (int l = 0; l < kWarp; ++l) {
    if (!(act >> l & 1))
      continue;
    m.set_dst(c, d, 0, warp * kWarp + l, out[l]);
    if (d.in->dst.size() > 1)
      m.set_dst(c, d, 1, warp * kWarp + l, valid[l]);
  }
}

void exec_Vote(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (!act)
    return;
  check_members(m, c, d, warp, act, 1);
  uint32_t ballot = 0;
  for (int l = 0; l < kWarp; ++l)
    if ((act >> l & 1) && (m.src(c, d, 0, warp * kWarp + l) & 1))
      ballot |= 1u << l;
  uint64_t v = 0;
  switch (d.in->m.vote) {
  case VoteMode::Ballot:
    v = ballot;
    break;
  case VoteMode::Any:
    v = ballot != 0;
    break;
  case VoteMode::All:
    v = ballot == act;
    break;
  case VoteMode::Uni:
    v = ballot == 0 || ballot == act;
    break;
  default:
    break;
  }
  for (int l = 0; l < kWarp; ++l)
    if (act >> l & 1)
      m.set_dst(c, d, 0, warp * kWarp + l, v);
}

void exec_Activemask(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  uint32_t act = m.guarded(c, d, warp, mask);
  for (int l = 0; l < kWarp; ++l)
    if (act >> l & 1)
      m.set_dst(c, d, 0, warp * kWarp + l, act);
}

} // namespace tilec::simt::sim
