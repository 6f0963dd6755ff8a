#include "lower/FuseCvtPacks.h"
#include "lower/RemoveUnread.h"

#include <unordered_map>

namespace tilec::lower {

namespace {

using simt::Instr;
using simt::Op;
using simt::Rnd;
using simt::Ty;

// cvt.{rn,rz}.{f16,bf16}.f32 d, x with nothing else to it: the packed form rounds each
// half exactly like this.
bool plain_narrowing_cvt(const Instr &in) {
  return in.op == Op::Cvt && !in.guard.active() && in.src_ty == Ty::F32 &&
         (in.ty == Ty::F16 || in.ty == Ty::BF16) && (in.m.rnd == Rnd::Rn || in.m.rnd == Rnd::Rz) &&
         !in.m.ftz && !in.m.sat && !in.m.satfinite && !in.m.relu && in.dst.size() == 1 &&
         in.dst[0].is_reg() && in.src.size() == 1 && in.src[0].is_reg();
}

// Fuses the packs of one block; `cvts` collects the instructions whose cvts may now be
// dead (their indices in the block).
int fuse_block(std::vector<Instr> &instrs, std::vector<size_t> &cvts) {
  int n = 0;
  // The latest write of each register so far in the block (index), and the latest plain
  // narrowing cvt defining it.
  std::unordered_map<uint32_t, size_t> last_write;
  for (size_t i = 0; i < instrs.size(); ++i) {
    Instr &in = instrs[i];
    if (in.op == Op::Pack && !in.guard.active() && in.src.size() == 2 && in.dst.size() == 1 &&
        simt::ty_reg_bits(in.ty) == 32 && in.src[0].is_reg() && in.src[1].is_reg()) {
      auto def = [&](const simt::Operand &o) -> const Instr * {
        auto it = last_write.find(o.index);
        if (it == last_write.end() || !plain_narrowing_cvt(instrs[it->second]))
          return nullptr;
        // The cvt's source must still hold the value it converted.
        const Instr &cv = instrs[it->second];
        auto src = last_write.find(cv.src[0].index);
        if (src != last_write.end() && src->second > it->second)
          return nullptr;
        return &cv;
      };
      const Instr *lo = def(in.src[0]), *hi = def(in.src[1]);
      if (lo && hi && lo->ty == hi->ty && lo->m.rnd == hi->m.rnd) {
        size_t lo_at = last_write[in.src[0].index], hi_at = last_write[in.src[1].index];
        Instr packed;
        packed.op = Op::Cvt;
        packed.ty = lo->ty == Ty::F16 ? Ty::F16x2 : Ty::BF16x2;
        packed.src_ty = Ty::F32;
        packed.m.rnd = lo->m.rnd;
        packed.dst = in.dst;
        packed.src = {hi->src[0], lo->src[0]}; // d = {hi, lo}
        packed.loc = in.loc;
        in = std::move(packed);
        cvts.push_back(lo_at);
        cvts.push_back(hi_at);
        ++n;
      }
    }
    for (const simt::Operand &o : instrs[i].dst)
      if (o.is_reg())
        last_write[o.index] = i;
  }
  return n;
}

} // namespace

int fuse_cvt_packs(simt::Function &f, int sm) {
  if (sm < 80) // cvt.rn.f16x2.f32 / bf16x2 need sm_80
    return 0;
  int n = 0;
  std::vector<std::vector<size_t>> cvts(f.blocks.size());
  for (size_t b = 0; b < f.blocks.size(); ++b)
    n += fuse_block(f.blocks[b].instrs, cvts[b]);
  if (n == 0)
    return 0;
  // the scalar cvts nothing reads any more
  remove_unread(f, cvts, plain_narrowing_cvt);
  return n;
}

} // namespace tilec::lower
