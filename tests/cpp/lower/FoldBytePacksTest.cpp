// FoldBytePacks: a word put together from bytes of at most two words (taken apart by shr,
// cvt and and, put back by and, cvt, shl and or, as byte tiles travel) is one prmt; the
// pieces go when nothing else reads them. A byte tile moved through shared memory still
// arrives exactly.
#include "lower/FoldBytePacks.h"
#include "../SeedKernels.h"
#include "LowerTestUtil.h"
#include "simt/Builder.h"
#include "simt/Format.h"

namespace tilec::lower::test {
namespace {

using simt::Builder;
using simt::Function;
using simt::Instr;
using simt::Op;
using simt::Operand;
using simt::Reg;
using simt::Ty;

// Byte k of word w as LowerConvert's unpacking leaves it: a 16-bit register.
Reg byte_of(Builder &b, Reg w, int k) {
  Reg t = b.cvt(Ty::U16, Ty::U32, k ? b.shr(Ty::U32, w, Operand::imm(8 * k)) : w);
  return b.and_(Ty::B16, t, Operand::imm(0xff));
}

// Bytes (16-bit registers) -> a word, as MemoryAccess's join_words builds it.
Reg join(Builder &b, const std::vector<Reg> &bytes) {
  Reg w;
  for (int k = 0; k < 4; ++k) {
    Reg part =
        b.cvt(Ty::U32, Ty::U16, b.and_(Ty::B16, bytes[static_cast<size_t>(k)], Operand::imm(0xff)));
    if (k)
      part = b.shl(Ty::B32, part, Operand::imm(8 * k));
    w = w.valid() ? b.or_(Ty::B32, w, part) : part;
  }
  return w;
}

struct Shape {
  int words = 2;          // how many loaded words the result's bytes come from
  bool rewrite = false;   // the first word is written again before the result is made
  bool guarded = false;   // one extraction is predicated
  bool keep_byte = false; // one extracted byte has another reader
};

// Loads words, builds d from their bytes, adds 1 to d (so it is read).
Function bytes_kernel(const Shape &sh) {
  Function fn;
  fn.name = "k";
  fn.params = {{"p0", Ty::U32}, {"p1", Ty::U32}, {"p2", Ty::U32}};
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  std::vector<Reg> w = {b.ld_param(0), b.ld_param(1), b.ld_param(2)};
  // d = {w0.1, w1.0, w0.3, w(words-1).2}
  Reg x0 = byte_of(b, w[0], 1), x1 = byte_of(b, w[1 % sh.words], 0);
  Reg p = b.setp(simt::Cmp::Lt, Ty::U32, w[0], Operand::imm(5));
  Reg x2 = byte_of(b, w[0], 3);
  if (sh.guarded)
    b.last().guard.pred = p;
  Reg x3 = byte_of(b, w[static_cast<size_t>(sh.words - 1)], 2);
  if (sh.rewrite)
    b.mov_to(w[0], Operand::imm(7));
  Reg d = join(b, {x0, x1, x2, x3});
  b.add(Ty::U32, d, Operand::imm(1));
  if (sh.keep_byte)
    b.add(Ty::U16, x0, Operand::imm(1));
  b.ret();
  return fn;
}

const Instr *only_prmt(const Function &f) {
  const Instr *found = nullptr;
  for (const auto &blk : f.blocks)
    for (const Instr &in : blk.instrs)
      if (in.op == Op::Prmt)
        found = found ? nullptr : &in;
  return found;
}

TEST(FoldBytePacks, TwoWordsBecomeOnePrmt) {
  Function f = bytes_kernel({});
  EXPECT_EQ(fold_byte_packs(f), 1) << simt::dump(f);
  const Instr *p = only_prmt(f);
  ASSERT_NE(p, nullptr) << simt::dump(f);
  // bytes 0..3 of d: w0.1, w1.0, w0.3, w1.2 (w1's bytes are selected as 4..7)
  EXPECT_EQ(p->src[2].value, 0x6341) << simt::dump(f);
  for (Op gone : {Op::Shr, Op::Shl, Op::And, Op::Or, Op::Cvt})
    EXPECT_EQ(count_op(f, gone), 0u) << simt::dump(f);
}

TEST(FoldBytePacks, OneWordFillsZerosFromAnImmediate) {
  Shape one;
  one.words = 1;
  Function f = bytes_kernel(one);
  EXPECT_GE(fold_byte_packs(f), 1) << simt::dump(f); // the partial words fold too, then go
  const Instr *p = only_prmt(f);
  ASSERT_NE(p, nullptr) << simt::dump(f);
  EXPECT_EQ(p->src[2].value, 0x2301) << simt::dump(f); // w0.1, w0.0, w0.3, w0.2
}

TEST(FoldBytePacks, KeepsWhatItCannotProve) {
  Shape three;
  three.words = 3; // bytes of three words: no one prmt
  Function f = bytes_kernel(three);
  EXPECT_EQ(fold_byte_packs(f), 0) << simt::dump(f);
  Shape rewritten;
  rewritten.rewrite = true; // w0 no longer holds the bytes taken from it
  f = bytes_kernel(rewritten);
  EXPECT_EQ(fold_byte_packs(f), 0) << simt::dump(f);
  Shape guarded;
  guarded.guarded = true;
  f = bytes_kernel(guarded);
  EXPECT_EQ(fold_byte_packs(f), 0) << simt::dump(f);
  Shape kept;
  kept.keep_byte = true; // folded; the byte read elsewhere stays
  f = bytes_kernel(kept);
  EXPECT_EQ(fold_byte_packs(f), 1) << simt::dump(f);
  EXPECT_EQ(count_op(f, Op::Shr), 1u) << simt::dump(f);
}

// The whole pipeline: an fp8 result leaving a wgmma accumulator (stmatrix of byte pairs,
// 16-byte loads in the store's order, the bytes re-packed) arrives exactly, with prmts
// instead of byte extractions.
TEST(FoldBytePacks, Fp8ResultArrivesExactly) {
  const char *src = R"(@triton.jit
def k(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 64)
    rk = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * 64 + r[None, :])
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], tl.dot(a, b).to(tl.float8e4nv))
)";
  GpuKernelUnderTest k(src, "k", {"*fp16:16", "*fp16:16", "*fp8e4nv:16"});
  // small integers: every sum is exact in e4m3, and the 64 x 64 results differ enough
  // that a byte put in the wrong place shows
  std::vector<uint16_t> a(64 * 16), b(16 * 64);
  const uint16_t kOne = 0x3c00, kMinusOne = 0xbc00, kZero = 0;
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = (i * 7 + i / 16) % 3 == 0 ? kOne : kZero;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = (i * 5 + i / 64) % 4 == 0 ? kMinusOne : (i % 3 == 0 ? kOne : kZero);
  Inputs in;
  in.buffer(a, "a_ptr");
  in.buffer(b, "b_ptr");
  in.buffer(std::vector<uint8_t>(64 * 64, 0x7f), "c_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1), Arg::buffer(2)};
  Outcome ref = k.run_interp(in), got = k.run_sim(in);
  GpuKernelUnderTest::expect_close(ref.bufs[2], got.bufs[2], Compare::exact(), "c_ptr");
  const std::string &ptx = k.ptx();
  EXPECT_NE(ptx.find("stmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("ld.shared.v4.b32"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("st.shared.b16"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("cvt.u16.u32"), std::string::npos) << ptx; // no byte taken out
  EXPECT_EQ(ptx.find("cvt.u32.u16"), std::string::npos) << ptx; // nor put back
}

} // namespace
} // namespace tilec::lower::test
