// exp-vote-tail: the exact path of an early-voted tl.exp tile gets its own copy of what
// follows it, up to the next instruction warps must run together (ExpVoteTail.h).
#include "lower/ExpVoteTail.h"

#include <string_view>

namespace tilec::lower {

namespace {

using simt::Block;
using simt::BlockId;
using simt::Instr;
using simt::Op;
using simt::Operand;

bool has_prefix(const std::string &label, std::string_view prefix) {
  return std::string_view(label).substr(0, prefix.size()) == prefix;
}

// Where the copied stretch of `j` must end: before the first instruction a warpgroup or
// the CTA runs together (wgmma, barriers), whose effect a copy cannot reproduce (calls,
// inline asm, tensor-map and grid-dependency instructions), or that leaves the block.
size_t cut_index(const Block &j) {
  for (size_t i = 0; i < j.instrs.size(); ++i) {
    switch (j.instrs[i].op) {
    case Op::Bar:
    case Op::BarArrive:
    case Op::WgmmaFence:
    case Op::Wgmma:
    case Op::WgmmaCommit:
    case Op::WgmmaWait:
    case Op::InlineAsm:
    case Op::Vprintf:
    case Op::AssertFail:
    case Op::AssertTrap:
    case Op::Mbarrier:
    case Op::TensormapReplace:
    case Op::TensormapCpFenceproxy:
    case Op::GriddepWait:
    case Op::GriddepLaunch:
    case Op::SetmaxnregDec:
    case Op::SetmaxnregInc:
    case Op::CpAsyncMbarrierArrive:
    case Op::CpAsyncBulkTensor:
    case Op::CpAsyncBulkTensorStore:
    case Op::CpAsyncBulkCommit:
    case Op::CpAsyncBulkWaitRead:
      return i;
    default:
      if (simt::leaves_block(j.instrs[i]))
        return i;
    }
  }
  return j.instrs.size();
}

bool is_branch_to(const Instr &in, BlockId target) {
  return in.op == Op::Bra && !in.src.empty() && in.src[0].kind == Operand::Kind::Label &&
         in.src[0].index == target;
}

// One exact block x (its V, F and J around it, as the lowering laid them out), rewritten;
// false when the layout is not that, J starts with its cut or the stretch is too long.
bool rewrite(simt::Function &f, BlockId x) {
  std::vector<Block> &bl = f.blocks;
  if (x == 0 || x + 2 >= bl.size())
    return false;
  BlockId v = x - 1, fz = x + 1, j = x + 2;
  if (!has_prefix(bl[fz].label, kExpVoteFtz) || !has_prefix(bl[j].label, kExpVoteDone) ||
      bl[v].instrs.empty() || bl[x].instrs.empty())
    return false;
  Instr &vote_bra = bl[v].instrs.back();
  if (!is_branch_to(vote_bra, fz) || !vote_bra.guard.active() || !vote_bra.guard.negate ||
      !is_branch_to(bl[x].instrs.back(), j) || bl[x].instrs.back().guard.active())
    return false;
  size_t cut = cut_index(bl[j]);
  if (cut == 0 || cut > kExpVoteMaxCopy)
    return false;
  std::vector<Instr> stretch(bl[j].instrs.begin(), bl[j].instrs.begin() + cut);
  // V now branches to the exact block when the vote is taken and runs on into F (ids are
  // the old ones here; renumbered below with the rest)
  vote_bra.guard.negate = false;
  vote_bra.src[0] = Operand::label(x);
  Block exact = std::move(bl[x]);
  Instr br = exact.instrs.back(); // bra J: the copy goes before it, and J is J's rest
  exact.instrs.pop_back();
  exact.instrs.insert(exact.instrs.end(), stretch.begin(), stretch.end());
  br.m.uni = true;
  exact.instrs.push_back(br);
  bl[fz].instrs.insert(bl[fz].instrs.end(), stretch.begin(), stretch.end());
  bl[j].instrs.erase(bl[j].instrs.begin(), bl[j].instrs.begin() + static_cast<long>(cut));
  // old block id -> new: x leaves its place for the end
  std::vector<BlockId> to(bl.size());
  for (BlockId b = 0; b < bl.size(); ++b)
    to[b] = b < x ? b : b == x ? static_cast<BlockId>(bl.size() - 1) : b - 1;
  bl.erase(bl.begin() + x);
  bl.push_back(std::move(exact));
  for (Block &b : bl)
    for (Instr &in : b.instrs)
      for (Operand &o : in.src)
        if (o.kind == Operand::Kind::Label)
          o.index = to[o.index];
  return true;
}

} // namespace

int exp_vote_tail(simt::Function &f) {
  int n = 0;
  // each rewrite moves its exact block to the end: the next one is still ahead of `b`
  for (BlockId b = 0; b < f.blocks.size(); ++b)
    if (has_prefix(f.blocks[b].label, kExpVoteExact) && rewrite(f, b)) {
      ++n;
      --b; // the block now at b is F, which may hold a later tile's vote
    }
  return n;
}

} // namespace tilec::lower
