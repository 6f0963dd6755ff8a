// Hand-built kernels with asynchronous copies, mbarriers and wgmma, shared by the
// simulator tests (tests/cpp/simt_interp/AsyncTest.cpp), the ptxas checks and the GPU
// run (tests/cpp/codegen). The wgmma operands are staged in shared memory by a layout
// written here from the PTX ISA's pictures (16-byte chunk j of row r of an S-byte
// swizzle atom sits at chunk j ^ f(r)), independently of simt::desc_element_addr.
#pragma once

#include <bit>
#include <cmath>
#include <cstring>

#include "simt/AsyncInstrs.h"

namespace tilec::simt::test {

// One wgmma operand (MN x K elements) staged in the canonical layout (major, swizzle).
struct Staging {
  Swizzle sw = Swizzle::B128;
  bool mn_major = false;
  int eb = 2;  // element bytes
  int mn = 64; // rows (A: M, B: N)
  int k = 64;  // K extent staged

  int s() const { return swizzle_bytes(sw); }
  // The chunk permutation of an atom's row r (r = 0..7): address bits 4.. XOR bits 7.. of
  // the row's offset in a 1024-byte aligned atom.
  int swz(int r) const { return s() == 128 ? r : s() == 64 ? (r >> 1) & 3 : (r >> 2) & 1; }
  uint32_t lbo() const {
    if (!mn_major)
      return s() == 0 ? 128 : 16;
    return s() == 0 ? static_cast<uint32_t>(mn / (16 / eb) * 128) : static_cast<uint32_t>(8 * s());
  }
  uint32_t sbo() const {
    if (!mn_major)
      return s() == 0 ? static_cast<uint32_t>(k * eb / 16 * 128) : static_cast<uint32_t>(8 * s());
    return s() == 0 ? 128 : static_cast<uint32_t>(mn / (s() / eb) * 8 * s());
  }
  uint32_t offset(int r, int c) const { // element (mn = r, k = c)
    if (!mn_major) {
      int kb = c * eb;
      if (s() == 0)
        return static_cast<uint32_t>((r / 8) * static_cast<int>(sbo()) +
                                     (kb / 16) * static_cast<int>(lbo()) + (r % 8) * 16 + kb % 16);
      return static_cast<uint32_t>(r * s() + (((kb / 16) ^ swz(r % 8)) * 16) + kb % 16);
    }
    if (s() == 0) {
      int t = 16 / eb;
      return static_cast<uint32_t>((r / t) * static_cast<int>(sbo()) + (r % t) * eb + (c % 8) * 16 +
                                   (c / 8) * static_cast<int>(lbo()));
    }
    int w = s() / eb, mb = (r % w) * eb;
    return static_cast<uint32_t>((c / 8) * static_cast<int>(sbo()) +
                                 (r / w) * static_cast<int>(lbo()) + (c % 8) * s() +
                                 (((mb / 16) ^ swz(c % 8)) * 16) + mb % 16);
  }
  // Where the k-slice starting at element k0 begins (the descriptor's start).
  uint32_t step(int k0) const {
    if (!mn_major)
      return static_cast<uint32_t>(s() == 0 ? (k0 * eb / 16) * static_cast<int>(lbo()) : k0 * eb);
    return static_cast<uint32_t>((k0 / 8) * static_cast<int>(s() == 0 ? lbo() : sbo()));
  }
  uint32_t bytes() const { // padded to whole 2048-byte copy rounds of 128 threads
    uint32_t b = !mn_major ? (s() == 0 ? static_cast<uint32_t>(mn / 8) * sbo()
                                       : static_cast<uint32_t>(mn * s()))
                           : (s() == 0 ? static_cast<uint32_t>(k / 8) * lbo()
                                       : static_cast<uint32_t>(k / 8) * sbo());
    return (b + 2047) / 2048 * 2048;
  }
  MatrixDesc desc() const {
    MatrixDesc d;
    d.lbo = lbo();
    d.sbo = sbo();
    d.swizzle = sw;
    return d;
  }
};

struct WgmmaCase {
  Ty input = Ty::F16, acc = Ty::F32;
  int n = 64, k = 64; // K in total (several wgmma k-steps)
  Swizzle sa = Swizzle::B128, sb = Swizzle::B128;
  bool mn_a = false, mn_b = false, a_regs = false;

  int eb() const { return input == Ty::TF32 ? 4 : input == Ty::S8 ? 1 : 2; }
  WgmmaShape shape() const { return {n, acc, input}; }
  Staging stage_a() const { return {sa, mn_a, eb(), 64, k}; }
  Staging stage_b() const { return {sb, mn_b, eb(), n, k}; }
  uint32_t b_base() const { return (stage_a().bytes() + 1023) / 1024 * 1024; }
  std::string name() const {
    return std::string("wgmma_") + ty_name(input) + "_" + ty_name(acc) + "_n" + std::to_string(n) +
           "_a" + std::to_string(swizzle_bytes(sa)) + (mn_a ? "mn" : "k") + (a_regs ? "regs" : "") +
           "_b" + std::to_string(swizzle_bytes(sb)) + (mn_b ? "mn" : "k");
  }
};

// Element bits of the small exact values the tests use (multiples of 0.5 in [-2, 2], or
// integers for s8).
inline uint64_t elem_bits(double v, Ty t) {
  if (t == Ty::S8)
    return static_cast<uint8_t>(static_cast<int8_t>(v));
  uint32_t f = std::bit_cast<uint32_t>(static_cast<float>(v));
  if (t == Ty::TF32)
    return f;
  if (t == Ty::BF16)
    return f >> 16;
  if (v == 0)
    return 0;
  int e = static_cast<int>(std::floor(std::log2(std::fabs(v))));
  double mant = std::fabs(v) / std::ldexp(1.0, e) - 1.0;
  return (v < 0 ? 0x8000u : 0u) | static_cast<uint64_t>(e + 15) << 10 |
         static_cast<uint64_t>(mant * 1024);
}

// Kernel: cp.async the two staged images into shared memory, then D = A * B over
// K / k-step wgmmas (A from shared memory or from a_frag's registers), D stored as
// out[thread * acc_regs + i] (32-bit each).
// Params: a_img, b_img, a_frag, out.
inline Function wgmma_kernel(const WgmmaCase &wc) {
  Function fn;
  fn.name = wc.name();
  fn.num_warps = 4;
  uint32_t pa = fn.add_param("a_img", Ty::U64), pb = fn.add_param("b_img", Ty::U64),
           pf = fn.add_param("a_frag", Ty::U64), po = fn.add_param("out", Ty::U64);
  Staging sa = wc.stage_a(), sb = wc.stage_b();
  uint32_t b_base = wc.b_base();
  fn.shared_bytes = b_base + sb.bytes();
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg tid = b.special(Sreg::TidX);
  Reg off16 = b.mul(Ty::U32, tid, imm(16));
  Reg smem = b.add(Ty::U32, b.shared_addr(0), off16);
  auto copy = [&](uint32_t param, uint32_t base, uint32_t bytes) {
    Reg src = b.mad_wide(Ty::U32, tid, imm(16), b.ld_param(param));
    for (uint32_t j = 0; j < bytes / 2048; ++j)
      cp_async(b, Operand::addr(smem, base + j * 2048), Operand::addr(src, j * 2048), 16);
  };
  if (!wc.a_regs)
    copy(pa, 0, sa.bytes());
  copy(pb, b_base, sb.bytes());
  cp_async_commit(b);
  cp_async_wait(b, 0);
  b.bar_sync(0);
  fence_proxy_async(b); // generic-proxy writes -> visible to wgmma (async proxy)
  WgmmaShape shape = wc.shape();
  Ty dty = wc.acc == Ty::F16 ? Ty::B32 : wc.acc; // f16 accumulators: packed pairs
  std::vector<Reg> d = b.regs(dty, shape.acc_regs());
  for (Reg r : d)
    b.mov_to(r, imm(0));
  Reg frag = b.mad_wide(Ty::U32, tid, imm(16), b.ld_param(pf));
  wgmma_fence(b);
  int steps = wc.k / shape.k();
  Reg base0 = b.shared_addr(0);
  for (int s = 0; s < steps; ++s) {
    std::vector<Reg> a;
    Operand adesc;
    if (wc.a_regs) {
      a = b.ld(Space::Global, Ty::B32, Operand::addr(frag, s * 128 * 16), 4);
    } else {
      Reg start = b.add(Ty::U32, base0, imm(sa.step(s * shape.k())));
      adesc = wgmma_desc(b, start, sa.desc());
    }
    Reg bstart = b.add(Ty::U32, base0, imm(b_base + sb.step(s * shape.k())));
    Reg bdesc = wgmma_desc(b, bstart, sb.desc());
    wgmma(b, shape, d, adesc, a, bdesc, imm(s > 0 ? 1 : 0), wc.mn_a, wc.mn_b);
  }
  wgmma_commit(b);
  wgmma_wait(b, 0);
  Reg oa = b.mad_wide(Ty::U32, tid, imm(4 * shape.acc_regs()), b.ld_param(po));
  for (size_t i = 0; i < d.size(); ++i)
    b.st(Space::Global, Ty::B32, Operand::addr(oa, static_cast<int64_t>(i * 4)), {d[i]});
  b.ret();
  return fn;
}

// Inputs, images and the expected D of a WgmmaCase.
struct WgmmaData {
  std::vector<double> a, bm;         // A (64 x K), B (N x K), row-major
  std::vector<uint8_t> a_img, b_img; // shared-memory images
  std::vector<uint32_t> a_frag;      // [step][thread][4] A fragments
  std::vector<uint32_t> out;         // [thread][acc_regs]

  explicit WgmmaData(const WgmmaCase &wc) {
    int K = wc.k, N = wc.n, eb = wc.eb();
    a.resize(static_cast<size_t>(64 * K));
    bm.resize(static_cast<size_t>(N * K));
    auto val = [&](int i, int salt) {
      int h = (i * 7 + salt * 13) % 11;
      return wc.input == Ty::S8  ? static_cast<double>(h - 5)
             : (h - 5) * 0.5 > 2 ? 1.5
                                 : (h - 5) * 0.5;
    };
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = val(static_cast<int>(i), 1);
    for (size_t i = 0; i < bm.size(); ++i)
      bm[i] = val(static_cast<int>(i), 2);
    Staging sa = wc.stage_a(), sb = wc.stage_b();
    a_img.assign(sa.bytes(), 0);
    b_img.assign(sb.bytes(), 0);
    auto put = [&](std::vector<uint8_t> &img, uint32_t off, uint64_t bits) {
      std::memcpy(img.data() + off, &bits, static_cast<size_t>(eb));
    };
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < K; ++c)
        put(a_img, sa.offset(r, c), elem_bits(a[static_cast<size_t>(r * K + c)], wc.input));
    for (int r = 0; r < N; ++r)
      for (int c = 0; c < K; ++c)
        put(b_img, sb.offset(r, c), elem_bits(bm[static_cast<size_t>(r * K + c)], wc.input));
    int ks = wc.shape().k(), per = 4 / eb;
    a_frag.assign(static_cast<size_t>(K / ks * 128 * 4), 0);
    for (int s = 0; s < K / ks; ++s)
      for (int t = 0; t < 128; ++t)
        for (int r = 0; r < 4; ++r) {
          int l = t % 32, row = 16 * (t / 32) + l / 4 + 8 * (r % 2);
          uint32_t v = 0;
          for (int j = 0; j < per; ++j) {
            int col = s * ks + (l % 4) * per + j + (r / 2) * (ks / 2);
            uint64_t bits = elem_bits(a[static_cast<size_t>(row * K + col)], wc.input);
            v |= static_cast<uint32_t>(bits << (j * eb * 8));
          }
          a_frag[static_cast<size_t>((s * 128 + t) * 4 + r)] = v;
        }
    out.assign(static_cast<size_t>(128 * wc.shape().acc_regs()), 0xdeadbeef);
  }

  double expect(const WgmmaCase &wc, int row, int col) const {
    double s = 0;
    for (int k = 0; k < wc.k; ++k)
      s += a[static_cast<size_t>(row * wc.k + k)] * bm[static_cast<size_t>(col * wc.k + k)];
    return s;
  }
  // The value of D element i of thread t as a double (by the accumulator fragment layout).
  double got(const WgmmaCase &wc, int t, int i) const {
    int nr = wc.shape().acc_regs();
    if (wc.acc == Ty::F16) {
      uint32_t w = out[static_cast<size_t>(t * nr + i / 2)];
      uint16_t h = static_cast<uint16_t>(i % 2 ? w >> 16 : w & 0xffff);
      int e = (h >> 10) & 31, m = h & 1023;
      double mag = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
      return h & 0x8000 ? -mag : mag;
    }
    uint32_t w = out[static_cast<size_t>(t * nr + i)];
    return wc.acc == Ty::S32 ? static_cast<double>(static_cast<int32_t>(w))
                             : static_cast<double>(std::bit_cast<float>(w));
  }
  // First mismatch as text (empty: all equal). Values are exact in every format.
  std::string check(const WgmmaCase &wc) const {
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < wc.n / 2; ++i) {
        int l = t % 32, row = 16 * (t / 32) + l / 4 + 8 * ((i / 2) % 2),
            col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
        double want = expect(wc, row, col), have = got(wc, t, i);
        if (want != have)
          return "D[" + std::to_string(row) + "][" + std::to_string(col) +
                 "] = " + std::to_string(have) + ", expected " + std::to_string(want) +
                 " (thread " + std::to_string(t) + ", element " + std::to_string(i) + ")";
      }
    return "";
  }
};

// Each of 32 lanes cp.asyncs 16 bytes of `in` (lane l reads l % 17 bytes of them) into
// shared memory; `wait_before_read` false reads the destination before the wait.
inline Function cp_async_kernel(bool wait_before_read, int groups) {
  Function fn;
  fn.name = "cp_async_copy";
  fn.num_warps = 1;
  fn.shared_bytes = 32 * 16 * static_cast<uint32_t>(groups);
  uint32_t pi = fn.add_param("in", Ty::U64), po = fn.add_param("out", Ty::U64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg tid = b.special(Sreg::TidX);
  Reg n = b.rem(Ty::U32, tid, imm(17));
  Reg src = b.mad_wide(Ty::U32, tid, imm(16), b.ld_param(pi));
  Reg dst = b.add(Ty::U32, b.shared_addr(0), b.mul(Ty::U32, tid, imm(16)));
  for (int g = 0; g < groups; ++g) {
    cp_async(b, Operand::addr(dst, g * 512), Operand::addr(src, g * 512), 16, n);
    cp_async_commit(b);
  }
  if (wait_before_read)
    cp_async_wait(b, groups - 1); // only the first group must have landed
  Reg oa = b.mad_wide(Ty::U32, tid, imm(16), b.ld_param(po));
  std::vector<Reg> v = b.ld(Space::Shared, Ty::B32, Operand::addr(dst), 4);
  b.st(Space::Global, Ty::B32, Operand::addr(oa), {v[0], v[1], v[2], v[3]});
  cp_async_wait(b, 0);
  b.ret();
  return fn;
}

// Producer/consumer through two mbarriers ("full" and "empty", 32 arrivals a phase):
// warp 1 writes shared memory and arrives on full; warp 0 waits on full (spinning on
// try_wait.parity, which yields), reads, and arrives on empty, which warp 1 waits on
// before its second phase. The parity flips between the phases.
inline Function mbarrier_kernel() {
  Function fn;
  fn.name = "mbarrier_pc";
  fn.num_warps = 2;
  fn.shared_bytes = 16 + 2 * 32 * 4;
  uint32_t po = fn.add_param("out", Ty::U64);
  Builder b(fn);
  BlockId entry = b.new_block("entry");
  BlockId producer = b.new_block("producer"), consumer = b.new_block("consumer");
  b.set_block(entry);
  Reg tid = b.special(Sreg::TidX);
  Reg full = b.shared_addr(0), empty = b.shared_addr(8);
  Reg is0 = b.setp(Cmp::Eq, Ty::U32, tid, imm(0));
  {
    auto g = b.guarded(is0);
    mbarrier_init(b, Operand::addr(full), imm(32));
    mbarrier_init(b, Operand::addr(empty), imm(32));
  }
  b.bar_sync(0);
  Reg lane = b.and_(Ty::B32, tid, imm(31));
  Reg slot = b.add(Ty::U32, full, b.mad(Ty::U32, lane, imm(4), imm(16)));
  Reg warp1 = b.setp(Cmp::Ge, Ty::U32, tid, imm(32));
  b.bra_if(warp1, producer);
  b.bra(consumer);
  b.set_block(producer);
  for (int phase = 0; phase < 2; ++phase) {
    if (phase > 0)
      mbarrier_wait(b, Operand::addr(empty), imm(phase - 1));
    b.st(Space::Shared, Ty::U32, Operand::addr(slot, phase * 128),
         {b.add(Ty::U32, lane, imm(100 * (phase + 1)))});
    mbarrier_arrive(b, Operand::addr(full));
  }
  b.ret();
  b.set_block(consumer);
  Reg oa = b.mad_wide(Ty::U32, lane, imm(4), b.ld_param(po));
  for (int phase = 0; phase < 2; ++phase) {
    mbarrier_wait(b, Operand::addr(full), imm(phase));
    Reg v = b.ld1(Space::Shared, Ty::U32, Operand::addr(slot, phase * 128));
    b.st(Space::Global, Ty::U32, Operand::addr(oa, phase * 128), {v});
    mbarrier_arrive(b, Operand::addr(empty));
  }
  b.ret();
  return fn;
}

// The wgmma cases every backend checks: each swizzle mode and major-ness of A and B,
// bf16, tf32, s8, an f16 accumulator, A from registers.
inline std::vector<WgmmaCase> wgmma_cases() {
  std::vector<WgmmaCase> cs;
  for (Swizzle s : {Swizzle::B128, Swizzle::B64, Swizzle::B32, Swizzle::None})
    for (bool mn : {false, true}) {
      WgmmaCase c;
      c.sa = c.sb = s;
      c.mn_a = c.mn_b = mn;
      c.k = mn || s == Swizzle::None ? 32 : swizzle_bytes(s) / 2;
      cs.push_back(c);
    }
  WgmmaCase mixed; // A K-major 128B, B N-major 64B, N = 128
  mixed.sb = Swizzle::B64;
  mixed.mn_b = true;
  mixed.n = 128;
  cs.push_back(mixed);
  WgmmaCase bf;
  bf.input = Ty::BF16;
  bf.n = 32;
  cs.push_back(bf);
  WgmmaCase tf;
  tf.input = Ty::TF32;
  tf.k = 32; // 128 bytes of tf32
  tf.n = 16;
  cs.push_back(tf);
  WgmmaCase i8;
  i8.input = Ty::S8;
  i8.acc = Ty::S32;
  i8.k = 128;
  i8.n = 24;
  cs.push_back(i8);
  WgmmaCase h;
  h.acc = Ty::F16;
  h.n = 16;
  cs.push_back(h);
  WgmmaCase ar;
  ar.a_regs = true;
  ar.sb = Swizzle::B32;
  ar.k = 16;
  ar.n = 8;
  cs.push_back(ar);
  return cs;
}

} // namespace tilec::simt::test
