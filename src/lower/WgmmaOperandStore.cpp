#include "lower/WgmmaOperandStore.h"

#include <map>

#include "lower/WgmmaByteFragments.h"

namespace tilec::lower {

using layout::LinearLayout;
using layout::WgmmaOperandSmem;

// Registers from r on whose offsets in `l` are consecutive in every thread (LowerDotOperand.cpp).
int smem_store_run(LoweringContext &c, const LinearLayout &l, int32_t r,
                   const std::vector<bool> &uniq, int max_run = 8);

void store_operand(LoweringContext &c, const ir::Value *v, const WgmmaOperandSmem &s, int64_t base,
                   Reg buf_off) {
  simt::Builder &b = c.b();
  const LinearLayout &src = c.layout_of(v->type);
  LinearLayout src_off = src.compose(s.layout.invert());
  std::map<uint32_t, Reg> moved; // address register -> + buf_off
  auto addr = [&](int32_t r) {
    Operand o = c.smem_operand(src_off, base, s.elem_bytes, r);
    if (!buf_off.valid())
      return o;
    auto it = moved.find(o.reg().id);
    if (it == moved.end())
      it = moved.emplace(o.reg().id, b.add(Ty::U32, o.reg(), buf_off)).first;
    return Operand::addr(it->second, o.value);
  };
  const std::vector<Reg> &regs = c.get(v);
  std::vector<bool> uniq = LoweringContext::unique_regs(src);
  int eb = s.elem_bytes;
  // fp8 cast from f32 (attention's p): two of its f32 values convert as one pair, straight
  // into the b16 the store takes
  const std::vector<Reg> *f32 = eb == 1 ? fp8_cast_source(c, v) : nullptr;
  auto byte_pair = [&](int32_t i) { // registers i, i + 1 as one b16: {i + 1: high, i: low}
    auto at = [&](const std::vector<Reg> &x, int32_t j) { return x[static_cast<size_t>(j)]; };
    return f32 ? lower::byte_pair(c, v->type.elem, at(regs, i), at(regs, i + 1), at(*f32, i),
                                  at(*f32, i + 1))
               : lower::byte_pair(c, v->type.elem, at(regs, i), at(regs, i + 1));
  };
  for (int32_t r = 0; r < static_cast<int32_t>(regs.size());) {
    if (!uniq[static_cast<size_t>(r)]) {
      ++r;
      continue;
    }
    int n = smem_store_run(c, src_off, r, uniq, 16 / eb);
    if (eb == 1 && n == 2) { // two bytes (each in a 16-bit register) as one b16
      b.st(simt::Space::Shared, Ty::B16, addr(r), {byte_pair(r)});
    } else if (eb == 1 && n < 4) { // single bytes
      for (int j = 0; j < n; ++j) {
        Operand o = addr(r);
        o.value += j;
        c.smem_store(o, regs[static_cast<size_t>(r + j)], v->type.element());
      }
    } else if (eb == 1) { // four bytes (held sign-extended in 16-bit registers) a word
      std::vector<Operand> words;
      for (int j = 0; j < n; j += 4) {
        auto at = [&](int i) { return regs[static_cast<size_t>(r + j + i)]; };
        if (f32) {
          words.push_back(b.pack(Ty::B32, {byte_pair(r + j), byte_pair(r + j + 2)}));
          continue;
        }
        Reg lo = b.pack(Ty::B32, {at(0), at(1)}), hi = b.pack(Ty::B32, {at(2), at(3)});
        words.push_back(b.ternary(simt::Op::Prmt, Ty::B32, lo, hi, simt::imm(0x6420)));
      }
      b.st(simt::Space::Shared, Ty::B32, addr(r), std::move(words));
    } else if (eb == 4) {
      std::vector<Operand> words;
      for (int j = 0; j < n; ++j)
        words.push_back(b.cvt(Ty::TF32, Ty::F32, regs[static_cast<size_t>(r + j)], simt::Rnd::Rna));
      b.st(simt::Space::Shared, Ty::B32, addr(r), std::move(words));
    } else if (n == 1) {
      b.st(simt::Space::Shared, Ty::B16, addr(r), {regs[static_cast<size_t>(r)]});
    } else {
      std::vector<Operand> words;
      for (int j = 0; j < n; j += 2)
        words.push_back(b.pack(
            Ty::B32, {regs[static_cast<size_t>(r + j)], regs[static_cast<size_t>(r + j + 1)]}));
      b.st(simt::Space::Shared, Ty::B32, addr(r), std::move(words));
    }
    r += n;
  }
}

} // namespace tilec::lower
