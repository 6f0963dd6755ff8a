#include "lower/MemoryAccess.h"

#include <algorithm>

#include "layout/Layouts.h"

namespace tilec::lower {

namespace {

using simt::Cmp;

int floor_pow2(int64_t v) {
  int p = 1;
  while (int64_t{p} * 2 <= v)
    p *= 2;
  return p;
}

// The raw register type an element travels in: i1 as a byte (u8 in 16 bits).
Ty raw_ty(const ir::Type &elem) {
  Ty t = reg_ty(elem);
  return t == Ty::Pred ? Ty::U16 : t;
}

// The ld/st type of one element of `esize` bytes.
Ty access_ty(const ir::Type &elem, int esize) {
  if (esize == 1)
    return reg_ty(elem) == Ty::S16 ? Ty::S8 : Ty::U8;
  return simt::ty_bits_of(esize * 8);
}

Reg pack_regs(simt::Builder &b, Ty word, const std::vector<Reg> &parts) {
  Reg d = b.reg(word);
  simt::Instr in;
  in.op = simt::Op::Pack;
  in.ty = word;
  in.dst = {d};
  for (Reg p : parts)
    in.src.push_back(p);
  b.emit(std::move(in));
  return d;
}

// Words -> element registers (bytes: extracted and re-extended as the dtype wants).
std::vector<Reg> split_words(LoweringContext &c, const std::vector<Reg> &words, int word_bits,
                             const ir::Type &elem, int esize) {
  simt::Builder &b = c.b();
  std::vector<Reg> out;
  int per = word_bits / (esize * 8);
  Ty rt = raw_ty(elem);
  for (Reg w : words) {
    if (esize == 2) {
      std::vector<Reg> parts = b.unpack(rt, per, w);
      out.insert(out.end(), parts.begin(), parts.end());
      continue;
    }
    for (int k = 0; k < per; ++k) { // bytes
      if (word_bits == 32) {
        // One prmt: byte k, zero-extended (the other three select bytes of 0) or
        // sign-extended (selector bit 3: byte k's sign), where shr, cvt and and cost ptxas
        // two instructions a byte (SHF, LOP3). Tutorial 03's fp8 matmul unpacks 128 bytes
        // of its N-major B a K step so.
        int64_t fill = rt == Ty::S16 ? 8 | k : 4;
        Reg t = b.ternary(simt::Op::Prmt, Ty::B32, w, simt::imm(0),
                          simt::imm(k | fill << 4 | fill << 8 | fill << 12));
        out.push_back(rt == Ty::S16 ? b.cvt(Ty::S16, Ty::S32, t) : b.cvt(Ty::U16, Ty::U32, t));
        continue;
      }
      Reg v = k ? b.shr(Ty::U16, w, simt::imm(8 * k)) : w;
      v = rt == Ty::S16 ? b.cvt(Ty::S16, Ty::S8, v) : b.and_(Ty::B16, v, simt::imm(0xff));
      out.push_back(v);
    }
  }
  return out;
}

// Element registers (raw) -> words.
std::vector<Reg> join_words(LoweringContext &c, const std::vector<Reg> &vals, int word_bits,
                            int esize) {
  simt::Builder &b = c.b();
  std::vector<Reg> words;
  int per = word_bits / (esize * 8);
  for (size_t i = 0; i < vals.size(); i += static_cast<size_t>(per)) {
    std::vector<Reg> parts(vals.begin() + static_cast<long>(i),
                           vals.begin() + static_cast<long>(i) + per);
    if (esize == 2) {
      words.push_back(pack_regs(b, simt::ty_bits_of(word_bits), parts));
      continue;
    }
    Reg w;
    for (int k = 0; k < per; ++k) {
      Reg byte = b.and_(Ty::B16, parts[static_cast<size_t>(k)], simt::imm(0xff));
      Reg part;
      if (word_bits == 32) {
        part = b.cvt(Ty::U32, Ty::U16, byte);
        if (k)
          part = b.shl(Ty::B32, part, simt::imm(8 * k));
      } else {
        part = k ? b.shl(Ty::B16, byte, simt::imm(8 * k)) : byte;
      }
      w = w.valid() ? b.or_(simt::ty_bits_of(word_bits), w, part) : part;
    }
    words.push_back(w);
  }
  return words;
}

int word_bits_of(int vec, int esize) {
  int bytes = vec * esize;
  return esize == 8 ? 64 : std::min(32, bytes * 8);
}

} // namespace

int vector_width(LoweringContext &c, const ir::Value *ptr, const ir::Value *mask,
                 const layout::LinearLayout &l, int elem_bytes) {
  int rank = l.num_out_dims();
  int dim = -1, best = 1;
  for (int d = 0; d < rank; ++d) {
    int v = layout::contiguous_per_thread(l, d);
    if (v > best) {
      best = v;
      dim = d;
    }
  }
  if (dim < 0)
    return 1;
  int64_t v = best;
  v = std::min<int64_t>(v, c.axis().ptr_vector_elems(ptr, dim));
  if (mask && mask->type.is_tile()) {
    const analysis::AxisInfo &mi = c.axis().get(mask);
    if (mi.rank() == rank)
      v = std::min<int64_t>(v, mi.constancy[static_cast<size_t>(dim)]);
    else
      v = 1;
  }
  v = std::min<int64_t>(v, 16 / elem_bytes);
  int vec = floor_pow2(std::max<int64_t>(v, 1));
  // The groups must start at coordinates aligned to vec along `dim` in every thread.
  const ThreadCoords &tc = c.thread_coords(l);
  int n = l.in_dim_size(layout::kRegister);
  auto aligned = [&](int w) {
    if (tc.span[static_cast<size_t>(dim)] & (w - 1))
      return false;
    for (int g = 0; g < n; g += w)
      if (LoweringContext::reg_coords(l, g)[static_cast<size_t>(dim)] & (w - 1))
        return false;
    return true;
  };
  while (vec > 1 && !aligned(vec))
    vec /= 2;
  return vec;
}

std::vector<Reg> load_vector(LoweringContext &c, Reg addr, int vec, const ir::Type &elem, Reg guard,
                             bool masked, const std::vector<Reg> &init,
                             const simt::MemHints &hints) {
  simt::Builder &b = c.b();
  int esize = mem_bytes(elem);
  int wbits = word_bits_of(vec, esize);
  int nwords = vec * esize * 8 / wbits;
  Ty rt = raw_ty(elem);
  bool is_pred = reg_ty(elem) == Ty::Pred;
  // `other` as raw element registers (i1: a 0/1 byte).
  std::vector<Reg> init_raw;
  if (masked)
    for (int j = 0; j < vec; ++j) {
      Reg o = j < static_cast<int>(init.size()) ? init[static_cast<size_t>(j)] : Reg{};
      if (is_pred && o.valid())
        o = b.selp(Ty::U16, simt::imm(1), simt::imm(0), o);
      init_raw.push_back(o);
    }
  std::vector<Reg> raw;
  if (wbits == esize * 8) { // one element per word: load straight into the elements
    raw = b.regs(rt, vec);
    if (masked)
      for (int j = 0; j < vec; ++j) {
        Reg o = init_raw[static_cast<size_t>(j)];
        b.mov_to(raw[static_cast<size_t>(j)], o.valid() ? Operand(o) : simt::imm(0));
      }
    auto g = b.guarded(guard, false);
    b.ld_to(raw, simt::Space::Global, access_ty(elem, esize), Operand::addr(addr), hints);
  } else {
    Ty wt = simt::ty_bits_of(wbits);
    std::vector<Reg> words = b.regs(wt, nwords);
    if (masked) {
      for (Reg &o : init_raw)
        if (!o.valid())
          o = c.imm_reg(rt, 0);
      std::vector<Reg> iw = join_words(c, init_raw, wbits, esize);
      for (int k = 0; k < nwords; ++k)
        b.mov_to(words[static_cast<size_t>(k)], iw[static_cast<size_t>(k)]);
    }
    {
      auto g = b.guarded(guard, false);
      b.ld_to(words, simt::Space::Global, wt, Operand::addr(addr), hints);
    }
    raw = split_words(c, words, wbits, elem, esize);
  }
  if (is_pred)
    for (Reg &r : raw)
      r = b.setp(Cmp::Ne, Ty::U16, r, simt::imm(0));
  return raw;
}

void store_vector(LoweringContext &c, Reg addr, const std::vector<Reg> &vals, const ir::Type &elem,
                  Reg guard, const simt::MemHints &hints) {
  simt::Builder &b = c.b();
  int esize = mem_bytes(elem);
  int vec = static_cast<int>(vals.size());
  int wbits = word_bits_of(vec, esize);
  std::vector<Reg> raw = vals;
  if (reg_ty(elem) == Ty::Pred)
    for (Reg &r : raw)
      r = b.selp(Ty::U16, simt::imm(1), simt::imm(0), r);
  std::vector<Operand> ops;
  Ty t;
  if (wbits == esize * 8) {
    for (Reg r : raw)
      ops.push_back(r);
    t = esize == 1 ? Ty::B8 : simt::ty_bits_of(esize * 8);
  } else {
    for (Reg w : join_words(c, raw, wbits, esize))
      ops.push_back(w);
    t = simt::ty_bits_of(wbits);
  }
  auto g = b.guarded(guard, false);
  b.st(simt::Space::Global, t, Operand::addr(addr), std::move(ops), hints);
}

} // namespace tilec::lower
