#include "lower/FoldXorPairs.h"
#include "lower/RemoveUnread.h"

namespace tilec::lower {

namespace {

using simt::Instr;
using simt::Op;
using simt::Ty;

// An unguarded two-register xor of a non-predicate type.
bool plain_xor(const Instr &in) {
  return in.op == Op::Xor && !in.guard.active() && in.ty != Ty::Pred && in.dst.size() == 1 &&
         in.dst[0].is_reg() && in.src.size() == 2 && in.src[0].is_reg() && in.src[1].is_reg();
}

// Folds the pairs of one block; `defs` collects the xors that may now be dead.
int fold_block(std::vector<Instr> &instrs, std::vector<size_t> &defs) {
  int n = 0;
  BlockWrites writes_so_far;
  for (size_t i = 0; i < instrs.size(); ++i) {
    Instr &in = instrs[i];
    if (plain_xor(in)) {
      for (int side = 0; side < 2; ++side) {
        uint32_t t = in.src[1 - side].index;
        std::optional<size_t> def = writes_so_far.last(t);
        if (!def || !plain_xor(instrs[*def]))
          continue;
        const Instr &x = instrs[*def];
        if (x.ty != in.ty || x.dst[0].index == x.src[0].index || x.dst[0].index == x.src[1].index)
          continue;
        uint32_t a = in.src[side].index;
        int k = x.src[0].index == a ? 1 : x.src[1].index == a ? 0 : -1;
        // a and b must still hold what t was computed from
        if (k < 0 || writes_so_far.written_after(in.src[side], *def) ||
            writes_so_far.written_after(x.src[k], *def))
          continue;
        simt::Operand b = x.src[k];
        defs.push_back(*def);
        Instr mov;
        mov.op = Op::Mov;
        mov.ty = in.ty;
        mov.dst = in.dst;
        mov.src = {b};
        mov.loc = in.loc;
        in = std::move(mov);
        ++n;
        break;
      }
    }
    writes_so_far.note(instrs[i], i);
  }
  return n;
}

} // namespace

int fold_xor_pairs(simt::Function &f) {
  int n = 0;
  std::vector<std::vector<size_t>> defs(f.blocks.size());
  for (size_t b = 0; b < f.blocks.size(); ++b)
    n += fold_block(f.blocks[b].instrs, defs[b]);
  if (n == 0)
    return 0;
  // the inner xors nothing reads any more
  remove_unread(f, defs, plain_xor);
  return n;
}

} // namespace tilec::lower
