#include "lower/FoldBytePacks.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <vector>

#include "lower/RemoveUnread.h"

namespace tilec::lower {

namespace {

using simt::Instr;
using simt::Op;
using simt::Operand;
using simt::Ty;

// What one byte of a register holds: byte k of word register `word`, or zero (k < 0).
struct Byte {
  uint32_t word = 0;
  int k = -1;
};
// A 16- or 32-bit register's bytes, every one of them known.
struct Bytes {
  int n = 0;
  std::array<Byte, 4> b{};
};

bool plain(const Instr &in) {
  return !in.guard.active() && in.dst.size() == 1 && in.dst[0].is_reg() &&
         (simt::ty_reg_bits(in.ty) == 16 || simt::ty_reg_bits(in.ty) == 32);
}

class Tracker {
public:
  explicit Tracker(const std::vector<simt::RegInfo> &regs) : regs_(regs) {}
  // The bytes of `o` read as an n-byte value; false when not known.
  bool get(const Operand &o, int n, Bytes &out) const {
    out.n = n;
    if (o.is_imm() && o.value == 0) {
      out.b.fill(Byte{});
      return true;
    }
    if (!o.is_reg())
      return false;
    auto it = maps_.find(o.index);
    if (it != maps_.end()) {
      if (it->second.n < n)
        return false;
      for (size_t i = 0; i < 4; ++i)
        out.b[i] = static_cast<int>(i) < n ? it->second.b[i] : Byte{};
      return true;
    }
    Ty ty = regs_[o.index].ty; // an integer word register: its own bytes
    if (n != 4 || simt::ty_reg_bits(ty) != 32 || !simt::ty_is_int(ty))
      return false;
    for (int i = 0; i < 4; ++i)
      out.b[static_cast<size_t>(i)] = Byte{o.index, i};
    return true;
  }
  void set(uint32_t reg, const Bytes &v) {
    maps_[reg] = v;
    for (int i = 0; i < v.n; ++i)
      if (v.b[static_cast<size_t>(i)].k >= 0)
        users_[v.b[static_cast<size_t>(i)].word].push_back(reg);
  }
  // Instruction `in` writes its destinations: what they held and what was made of them
  // is gone.
  void wrote(const Instr &in) {
    for (const Operand &o : in.dst) {
      if (!o.is_reg())
        continue;
      maps_.erase(o.index);
      auto u = users_.find(o.index);
      if (u != users_.end()) {
        for (uint32_t r : u->second)
          maps_.erase(r);
        users_.erase(u);
      }
    }
  }

private:
  std::unordered_map<uint32_t, Bytes> maps_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> users_; // word -> maps reading it
  const std::vector<simt::RegInfo> &regs_;
};

// The bytes `in` computes from its operands' known bytes; false when not known.
bool bytes_of(const Instr &in, const Tracker &t, Bytes &out) {
  int n = simt::ty_reg_bits(in.ty) / 8;
  out.n = n;
  Bytes a, c;
  auto shifted = [&](int by) { // out byte i = a byte i - by (zero outside)
    for (int i = 0; i < n; ++i) {
      int j = i - by;
      out.b[static_cast<size_t>(i)] = j >= 0 && j < n ? a.b[static_cast<size_t>(j)] : Byte{};
    }
  };
  switch (in.op) {
  case Op::Mov:
    return simt::ty_is_int(in.ty) && t.get(in.src[0], n, out);
  case Op::Shl:
  case Op::Shr:
    if (!in.src[1].is_imm() || in.src[1].value % 8 != 0 || simt::ty_is_signed(in.ty) ||
        !t.get(in.src[0], n, a))
      return false;
    shifted(static_cast<int>(in.op == Op::Shl ? in.src[1].value / 8 : -in.src[1].value / 8));
    return true;
  case Op::And:
    if (!in.src[1].is_imm() || !t.get(in.src[0], n, a))
      return false;
    for (int i = 0; i < n; ++i) {
      int64_t m = in.src[1].value >> (8 * i) & 0xff;
      if (m != 0 && m != 0xff)
        return false;
      out.b[static_cast<size_t>(i)] = m ? a.b[static_cast<size_t>(i)] : Byte{};
    }
    return true;
  case Op::Or:
    if (!t.get(in.src[0], n, a) || !t.get(in.src[1], n, c))
      return false;
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      if (a.b[i].k >= 0 && c.b[i].k >= 0)
        return false;
      out.b[i] = a.b[i].k >= 0 ? a.b[i] : c.b[i];
    }
    return true;
  case Op::Cvt: { // between unsigned integers: truncation or zero extension
    int from = simt::ty_reg_bits(in.src_ty) / 8;
    if (!simt::ty_is_unsigned(in.ty) || !simt::ty_is_unsigned(in.src_ty) || in.m.sat ||
        simt::ty_bits(in.src_ty) != from * 8 || !t.get(in.src[0], from, a))
      return false;
    shifted(0);
    return true;
  }
  case Op::Pack: // two 16-bit halves, low first
    if (n != 4 || in.src.size() != 2 || !t.get(in.src[0], 2, a) || !t.get(in.src[1], 2, c))
      return false;
    out.b = {a.b[0], a.b[1], c.b[0], c.b[1]};
    return true;
  case Op::Prmt: {
    if (n != 4 || !in.src[2].is_imm() || !t.get(in.src[0], 4, a) || !t.get(in.src[1], 4, c))
      return false;
    for (size_t i = 0; i < 4; ++i) {
      int64_t sel = in.src[2].value >> (4 * i) & 0xf;
      if (sel & 8) // the sign of a byte
        return false;
      out.b[i] = sel < 4 ? a.b[static_cast<size_t>(sel)] : c.b[static_cast<size_t>(sel - 4)];
    }
    return true;
  }
  default:
    return false;
  }
}

// prmt.b32 d, w1, w2 (or 0), selector for a word's bytes; false when they come from more
// than two words (or from two and zeros).
bool as_prmt(const Instr &in, const Bytes &v, Instr &out) {
  std::vector<uint32_t> words;
  bool zeros = false;
  for (const Byte &b : v.b) {
    if (b.k < 0)
      zeros = true;
    else if (std::find(words.begin(), words.end(), b.word) == words.end())
      words.push_back(b.word);
  }
  if (words.empty() || words.size() > 2 || (words.size() == 2 && zeros))
    return false;
  int64_t sel = 0;
  for (size_t i = 0; i < 4; ++i) {
    const Byte &b = v.b[i];
    int64_t s = b.k < 0 ? 4 : (b.word == words[0] ? 0 : 4) + b.k;
    sel |= s << (4 * i);
  }
  out = Instr{};
  out.op = Op::Prmt;
  out.ty = Ty::B32;
  out.dst = in.dst;
  out.src = {simt::Reg{words[0]}, words.size() > 1 ? Operand(simt::Reg{words[1]}) : Operand::imm(0),
             Operand::imm(sel)};
  out.loc = in.loc;
  return true;
}

bool pure(const Instr &in) {
  return !in.guard.active() &&
         (in.op == Op::Mov || in.op == Op::Shl || in.op == Op::Shr || in.op == Op::And ||
          in.op == Op::Or || in.op == Op::Cvt || in.op == Op::Pack || in.op == Op::Prmt);
}

int fold_block(const simt::Function &f, std::vector<Instr> &instrs, std::vector<size_t> &made) {
  int n = 0;
  Tracker t(f.regs);
  for (size_t i = 0; i < instrs.size(); ++i) {
    Instr &in = instrs[i];
    Bytes v;
    bool known = plain(in) && bytes_of(in, t, v);
    Instr p;
    if (known && v.n == 4 && (in.op == Op::Or || in.op == Op::Pack) && as_prmt(in, v, p)) {
      in = std::move(p);
      ++n;
    }
    t.wrote(in);
    if (known) {
      t.set(in.dst[0].index, v);
      made.push_back(i);
    }
  }
  return n;
}

} // namespace

int fold_byte_packs(simt::Function &f) {
  int n = 0;
  std::vector<std::vector<size_t>> made(f.blocks.size());
  for (size_t b = 0; b < f.blocks.size(); ++b)
    n += fold_block(f, f.blocks[b].instrs, made[b]);
  if (n == 0)
    return 0;
  // the byte extractions and partial words nothing reads any more
  remove_unread(f, made, pure);
  return n;
}

} // namespace tilec::lower
