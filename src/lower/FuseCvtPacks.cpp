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

// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, zero, x: one fp8 encoding (LowerCast's
// from_f32), its high byte +0.0's.
bool lone_fp8_cvt(const Instr &in) {
  return in.op == Op::Cvt && !in.guard.active() && in.src_ty == Ty::F32 &&
         (in.ty == Ty::E4M3x2 || in.ty == Ty::E5M2x2) && in.m.rnd == Rnd::Rn && in.m.satfinite &&
         !in.m.relu && in.dst.size() == 1 && in.dst[0].is_reg() && in.src.size() == 2 &&
         in.src[0].is_reg() && in.src[1].is_reg();
}

bool imm_is(const simt::Operand &o, int64_t v) { return o.is_imm() && o.value == v; }

// What fuse_block matches, by the latest write of each register in the block so far.
struct Defs {
  std::vector<Instr> &instrs;
  std::unordered_map<uint32_t, size_t> last_write;

  const Instr *def(const simt::Operand &o, size_t *at = nullptr) const {
    if (!o.is_reg())
      return nullptr;
    auto it = last_write.find(o.index);
    if (it == last_write.end())
      return nullptr;
    if (at)
      *at = it->second;
    return &instrs[it->second];
  }
  // `cv` (at index i) still reads the values it converted: no source written since.
  bool sources_kept(const Instr &cv, size_t i) const {
    for (const simt::Operand &o : cv.src) {
      auto it = last_write.find(o.index);
      if (o.is_reg() && it != last_write.end() && it->second > i)
        return false;
    }
    return true;
  }
  // The lone fp8 cvt defining `o` through `op`(x, imm) (and 0xff / shl 8), or null.
  const Instr *byte_of(const simt::Operand &o, Op op, int64_t k, std::vector<size_t> &chain) const {
    size_t at = 0, cv_at = 0, zero_at = 0;
    const Instr *m = def(o, &at);
    if (!m || m->op != op || m->guard.active() || m->ty != Ty::B16 || m->src.size() != 2 ||
        !imm_is(m->src[1], k))
      return nullptr;
    const Instr *cv = def(m->src[0], &cv_at);
    if (!cv || cv_at > at || !lone_fp8_cvt(*cv) || !sources_kept(*cv, cv_at))
      return nullptr;
    const Instr *zero = def(cv->src[0], &zero_at);
    if (!zero || zero_at > cv_at || zero->op != Op::Mov || zero->guard.active() ||
        !imm_is(zero->src[0], 0))
      return nullptr;
    chain.insert(chain.end(), {at, cv_at, zero_at});
    return cv;
  }
};

// Fuses the packs of one block; `cvts` collects the instructions whose cvts may now be
// dead (their indices in the block), `chains` those of fused byte pairs (and, shl, the
// lone cvts, their zeros): both are pure, removed when nothing reads them.
int fuse_block(std::vector<Instr> &instrs, std::vector<size_t> &cvts, std::vector<size_t> &chains) {
  int n = 0;
  // The latest write of each register so far in the block (index), and the latest plain
  // narrowing cvt defining it.
  Defs d{instrs, {}};
  std::unordered_map<uint32_t, size_t> &last_write = d.last_write;
  for (size_t i = 0; i < instrs.size(); ++i) {
    Instr &in = instrs[i];
    if (in.op == Op::Pack && !in.guard.active() && in.src.size() == 2 && in.dst.size() == 1 &&
        simt::ty_reg_bits(in.ty) == 32 && in.src[0].is_reg() && in.src[1].is_reg()) {
      auto def = [&](const simt::Operand &o) -> const Instr * {
        const Instr *cv = d.def(o);
        if (!cv || !plain_narrowing_cvt(*cv) || !d.sources_kept(*cv, last_write[o.index]))
          return nullptr;
        return cv;
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
    // or.b16 d, (and.b16 lo, 0xff), (shl.b16 hi, 8) of two lone fp8 encodings (LowerConvert's
    // byte pairs): one cvt of both
    if (in.op == Op::Or && !in.guard.active() && in.ty == Ty::B16 && in.src.size() == 2 &&
        in.dst.size() == 1) {
      std::vector<size_t> chain;
      const Instr *lo = d.byte_of(in.src[0], Op::And, 0xff, chain);
      const Instr *hi = lo ? d.byte_of(in.src[1], Op::Shl, 8, chain) : nullptr;
      if (lo && hi && lo->ty == hi->ty) {
        Instr packed = *lo;
        packed.dst = in.dst;
        packed.src = {hi->src[1], lo->src[1]}; // d = {hi, lo}
        packed.loc = in.loc;
        in = std::move(packed);
        chains.insert(chains.end(), chain.begin(), chain.end());
        ++n;
      }
    }
    for (const simt::Operand &o : instrs[i].dst)
      if (o.is_reg())
        last_write[o.index] = i;
  }
  return n;
}

// What fuse_block leaves behind: scalar cvts, a byte pair's and/shl, lone fp8 cvts and
// their zeros -- all pure, each with one result.
bool leftover(const Instr &in) {
  return !in.guard.active() &&
         (in.op == Op::Cvt || in.op == Op::And || in.op == Op::Shl || in.op == Op::Mov);
}

} // namespace

int fuse_cvt_packs(simt::Function &f, int sm) {
  if (sm < 80) // cvt.rn.f16x2.f32 / bf16x2 need sm_80
    return 0;
  int n = 0;
  std::vector<std::vector<size_t>> dead(f.blocks.size());
  for (size_t b = 0; b < f.blocks.size(); ++b)
    n += fuse_block(f.blocks[b].instrs, dead[b], dead[b]);
  if (n == 0)
    return 0;
  // the scalar cvts, and byte pairs' and/shl/cvts/zeros, nothing reads any more
  remove_unread(f, dead, leftover);
  return n;
}

} // namespace tilec::lower
