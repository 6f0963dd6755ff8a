#include "lower/OverlapWgmma.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "simt/AsyncInstrs.h"
#include "support/Env.h"

namespace tilec::lower {

namespace {

using simt::Instr;
using simt::Op;

bool is_pure(const Instr &in) {
  switch (in.op) {
  case Op::Mov:
    for (const simt::Operand &o : in.src) // %clock reads must keep their place
      if (o.kind == simt::Operand::Kind::Sreg)
        return o.index != static_cast<uint32_t>(simt::Sreg::Clock) &&
               o.index != static_cast<uint32_t>(simt::Sreg::Clock64) &&
               o.index != static_cast<uint32_t>(simt::Sreg::Globaltimer);
    return true;
  case Op::Pack:
  case Op::Unpack:
  case Op::Add:
  case Op::Sub:
  case Op::Mul:
  case Op::Mad:
  case Op::Fma:
  case Op::Div:
  case Op::Rem:
  case Op::Abs:
  case Op::Neg:
  case Op::Min:
  case Op::Max:
  case Op::And:
  case Op::Or:
  case Op::Xor:
  case Op::Not:
  case Op::Shl:
  case Op::Shr:
  case Op::Popc:
  case Op::Clz:
  case Op::Brev:
  case Op::Prmt:
  case Op::Setp:
  case Op::Selp:
  case Op::Cvt:
  case Op::Ex2:
  case Op::Lg2:
  case Op::Sqrt:
  case Op::Rsqrt:
  case Op::Rcp:
  case Op::Sin:
  case Op::Cos:
  case Op::Tanh:
  case Op::Shfl:
  case Op::Vote:
  case Op::Activemask:
    return true;
  default:
    return false;
  }
}

// One dot's issue: fence, wgmmas and their descriptor arithmetic, commit, wait.
struct Dot {
  size_t fence = 0, commit = 0, wait = 0; // indices in the block
  std::vector<std::vector<size_t>> tiles; // wgmma indices by accumulator registers
  std::vector<size_t> pure;               // the arithmetic between the wgmmas
};

// The dot whose wgmma.fence is at `i`, when it has that shape.
std::optional<Dot> dot_at(const std::vector<Instr> &ins, size_t i) {
  if (i >= ins.size() || ins[i].op != Op::WgmmaFence)
    return std::nullopt;
  Dot d;
  d.fence = i;
  std::map<std::vector<uint32_t>, size_t> tile_of;
  size_t j = i + 1;
  for (; j < ins.size() && ins[j].op != Op::WgmmaCommit; ++j) {
    if (ins[j].op == Op::Wgmma) {
      std::vector<uint32_t> acc;
      for (const simt::Operand &o : ins[j].dst)
        acc.push_back(o.index);
      auto [it, fresh] = tile_of.emplace(acc, d.tiles.size());
      if (fresh)
        d.tiles.emplace_back();
      d.tiles[it->second].push_back(j);
    } else if (is_pure(ins[j]) && !ins[j].guard.active()) {
      d.pure.push_back(j);
    } else {
      return std::nullopt;
    }
  }
  if (j + 1 >= ins.size() || ins[j + 1].op != Op::WgmmaWait || d.tiles.empty())
    return std::nullopt;
  // tiles share no register: each may retire on its own
  std::set<uint32_t> seen;
  for (const auto &t : d.tiles) {
    std::set<uint32_t> mine;
    for (size_t w : t)
      for (const simt::Operand &o : ins[w].dst)
        mine.insert(o.index);
    for (uint32_t r : mine)
      if (!seen.insert(r).second)
        return std::nullopt;
  }
  // the arithmetic is emitted before the wgmmas: none may write what an earlier one uses
  std::vector<uint32_t> rd, wr, prd, pwr;
  for (size_t p : d.pure) {
    simt::instr_regs(ins[p], prd, pwr);
    for (const auto &t : d.tiles)
      for (size_t w : t) {
        if (w > p)
          continue;
        simt::instr_regs(ins[w], rd, wr);
        for (uint32_t r : pwr)
          if (std::count(rd.begin(), rd.end(), r) || std::count(wr.begin(), wr.end(), r))
            return std::nullopt;
      }
  }
  d.commit = j;
  d.wait = j + 1;
  return d;
}

int64_t wait_count(const Instr &in) { return in.src.empty() ? 0 : in.src[0].value; }

Instr bare(Op op, const SourceLoc &loc) {
  Instr in;
  in.op = op;
  in.loc = loc;
  return in;
}

Instr wait_instr(int64_t pending, const SourceLoc &loc) {
  Instr in = bare(Op::WgmmaWait, loc);
  in.src = {simt::imm(pending)};
  return in;
}

// Rewrites ins[d1.fence .. d2.wait] when the pair can be interleaved; returns the new
// index of d2's wait.
std::optional<size_t> interleave(std::vector<Instr> &ins, const Dot &d1, const Dot &d2) {
  const int T = static_cast<int>(d1.tiles.size());
  if (T < 2 || wait_count(ins[d1.wait]) != 0)
    return std::nullopt;
  constexpr int kFree = -1;
  // the last tile each register's value (write) and readers (read) depend on
  std::map<uint32_t, int> wlev, rlev;
  auto level_of = [&](const std::vector<uint32_t> &rd, const std::vector<uint32_t> &wr) {
    int l = kFree;
    for (uint32_t r : rd)
      if (auto it = wlev.find(r); it != wlev.end())
        l = std::max(l, it->second);
    for (uint32_t r : wr) {
      if (auto it = wlev.find(r); it != wlev.end())
        l = std::max(l, it->second);
      if (auto it = rlev.find(r); it != rlev.end())
        l = std::max(l, it->second);
    }
    return l;
  };
  auto record = [&](const std::vector<uint32_t> &rd, const std::vector<uint32_t> &wr, int l) {
    for (uint32_t r : rd)
      rlev[r] = std::max(rlev.count(r) ? rlev[r] : kFree, l);
    for (uint32_t r : wr)
      wlev[r] = l;
  };
  std::vector<uint32_t> rd, wr;
  // D1's wgmmas own every register they read or write until their tile retires
  for (int t = 0; t < T; ++t)
    for (size_t w : d1.tiles[static_cast<size_t>(t)]) {
      simt::instr_regs(ins[w], rd, wr);
      for (uint32_t r : rd)
        wlev[r] = rlev[r] = t;
      for (uint32_t r : wr)
        wlev[r] = rlev[r] = t;
    }
  // X, then D2's arithmetic (emitted before D2's wgmmas)
  std::vector<size_t> xs;
  for (size_t i = d1.wait + 1; i < d2.fence; ++i)
    xs.push_back(i);
  xs.insert(xs.end(), d2.pure.begin(), d2.pure.end());
  std::vector<std::vector<size_t>> by_level(static_cast<size_t>(T) + 1); // [0]: free
  std::vector<size_t> memory;
  std::set<uint32_t> mem_rd, mem_wr;
  for (size_t i : xs) {
    const Instr &in = ins[i];
    if (simt::is_wgmma(in.op) || simt::leaves_block(in))
      return std::nullopt;
    simt::instr_regs(in, rd, wr);
    int l = level_of(rd, wr);
    if (!is_pure(in)) {
      if (l != kFree) // memory work waits for no tile
        return std::nullopt;
      memory.push_back(i);
      mem_rd.insert(rd.begin(), rd.end());
      mem_wr.insert(wr.begin(), wr.end());
      continue;
    }
    // nothing register-only may need the memory work, or be moved across it
    for (uint32_t r : rd)
      if (mem_wr.count(r))
        return std::nullopt;
    for (uint32_t r : wr)
      if (mem_wr.count(r) || mem_rd.count(r))
        return std::nullopt;
    record(rd, wr, l);
    by_level[static_cast<size_t>(l + 1)].push_back(i);
  }
  // D2's tiles, each issued once what it reads and writes is ready
  std::vector<int> d2_level;
  for (const auto &t : d2.tiles) {
    int l = kFree;
    for (size_t w : t) {
      simt::instr_regs(ins[w], rd, wr);
      for (uint32_t r : rd)
        if (mem_wr.count(r))
          return std::nullopt;
      l = std::max(l, level_of(rd, wr));
    }
    d2_level.push_back(std::max(l, 0));
  }
  // D2's tiles (disjoint registers) issued in order of level
  std::vector<size_t> d2_order(d2.tiles.size());
  for (size_t u = 0; u < d2_order.size(); ++u)
    d2_order[u] = u;
  std::stable_sort(d2_order.begin(), d2_order.end(),
                   [&](size_t a, size_t b) { return d2_level[a] < d2_level[b]; });

  const SourceLoc loc1 = ins[d1.fence].loc, loc2 = ins[d2.fence].loc;
  std::vector<Instr> out;
  out.push_back(ins[d1.fence]);
  for (size_t p : d1.pure)
    out.push_back(ins[p]);
  for (const auto &t : d1.tiles) {
    for (size_t w : t)
      out.push_back(ins[w]);
    out.push_back(bare(Op::WgmmaCommit, loc1));
  }
  for (size_t i : by_level[0])
    out.push_back(ins[i]);
  int issued = 0; // D2 groups committed so far
  bool memory_done = false;
  size_t next_tile = 0;
  for (int t = 0; t < T; ++t) {
    out.push_back(wait_instr(T - 1 - t + issued, loc1)); // D1's tile t has retired
    for (size_t i : by_level[static_cast<size_t>(t + 1)])
      out.push_back(ins[i]);
    auto level_next = [&] { return d2_level[d2_order[next_tile]]; };
    bool issue = next_tile < d2_order.size() && level_next() == t;
    if (!memory_done && (issue || t == T - 1)) {
      if (t < T - 1)
        out.push_back(wait_instr(0, loc1)); // every D1 tile, as the memory work expects
      for (size_t i : memory)
        out.push_back(ins[i]);
      memory_done = true;
    }
    for (; next_tile < d2_order.size() && level_next() == t; ++next_tile) {
      out.push_back(bare(Op::WgmmaFence, loc2));
      for (size_t w : d2.tiles[d2_order[next_tile]])
        out.push_back(ins[w]);
      out.push_back(bare(Op::WgmmaCommit, loc2));
      ++issued;
    }
  }
  out.push_back(ins[d2.wait]);
  std::vector<Instr> rebuilt(ins.begin(), ins.begin() + static_cast<std::ptrdiff_t>(d1.fence));
  rebuilt.insert(rebuilt.end(), out.begin(), out.end());
  rebuilt.insert(rebuilt.end(), ins.begin() + static_cast<std::ptrdiff_t>(d2.wait) + 1, ins.end());
  ins = std::move(rebuilt);
  return d1.fence + out.size() - 1;
}

} // namespace

int overlap_wgmma(simt::Function &f) {
  if (!env::flag(env::Var::WgmmaOverlap))
    return 0;
  int done = 0;
  for (simt::Block &b : f.blocks) {
    std::vector<Instr> &ins = b.instrs;
    for (size_t i = 0; i < ins.size(); ++i) {
      std::optional<Dot> d1 = dot_at(ins, i);
      if (!d1)
        continue;
      size_t j = d1->wait + 1;
      while (j < ins.size() && !simt::is_wgmma(ins[j].op))
        ++j;
      std::optional<Dot> d2 = dot_at(ins, j);
      if (!d2)
        continue;
      if (std::optional<size_t> end = interleave(ins, *d1, *d2)) {
        ++done;
        i = *end;
      }
    }
  }
  return done;
}

} // namespace tilec::lower
