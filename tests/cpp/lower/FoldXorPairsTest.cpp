// FoldXorPairs: `xor d, a, (xor a, b)` is `mov d, b` while a and b are unchanged; the inner
// xor goes when nothing else reads it. tl.sort's partner exchanges lose their xors and
// still sort exactly.
#include "lower/FoldXorPairs.h"
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

// a, b loaded from params; t = a ^ b (or b ^ a); [a rewritten?]; d = a ^ t (or t ^ a);
// [t read again?]; store-free: d feeds a final add so it is live.
struct Shape {
  bool swap_inner = false, swap_outer = false, rewrite_a = false, read_t_after = false,
       guarded_outer = false;
};

Function pair_kernel(const Shape &sh) {
  Function fn;
  fn.name = "k";
  fn.params = {{"pa", Ty::U32}, {"pb", Ty::U32}};
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg a = b.ld_param(0), bb = b.ld_param(1);
  Reg t = sh.swap_inner ? b.xor_(Ty::B32, bb, a) : b.xor_(Ty::B32, a, bb);
  if (sh.rewrite_a)
    b.mov_to(a, Operand::imm(7));
  Reg p = b.setp(simt::Cmp::Lt, Ty::U32, a, Operand::imm(5));
  Reg d = sh.swap_outer ? b.xor_(Ty::B32, t, a) : b.xor_(Ty::B32, a, t);
  if (sh.guarded_outer)
    b.last().guard.pred = p;
  b.add(Ty::U32, d, sh.read_t_after ? Operand(t) : Operand::imm(1));
  b.ret();
  return fn;
}

TEST(FoldXorPairs, EveryOrderFoldsToTheOtherOperand) {
  for (int k = 0; k < 4; ++k) {
    Shape sh;
    sh.swap_inner = k & 1;
    sh.swap_outer = k & 2;
    Function f = pair_kernel(sh);
    EXPECT_EQ(fold_xor_pairs(f), 1) << simt::dump(f);
    EXPECT_EQ(count_op(f, Op::Xor), 0u) << simt::dump(f); // the inner xor is dead too
    std::string text = simt::dump(f);
    EXPECT_NE(text.find("mov.b32"), std::string::npos) << text;
  }
}

TEST(FoldXorPairs, KeepsWhatItCannotProve) {
  Shape rewritten;
  rewritten.rewrite_a = true; // a no longer holds what t was computed from
  Function f = pair_kernel(rewritten);
  EXPECT_EQ(fold_xor_pairs(f), 0) << simt::dump(f);
  Shape guarded;
  guarded.guarded_outer = true;
  f = pair_kernel(guarded);
  EXPECT_EQ(fold_xor_pairs(f), 0) << simt::dump(f);
  Shape live;
  live.read_t_after = true; // folded, but t stays for its other reader
  f = pair_kernel(live);
  EXPECT_EQ(fold_xor_pairs(f), 1) << simt::dump(f);
  EXPECT_EQ(count_op(f, Op::Xor), 1u) << simt::dump(f);
}

// The whole pipeline: a 1024-element sort has no `x ^ (x ^ y)` left and sorts exactly
// (SIMT simulator against the interpreter, NaN and signed zeros included).
TEST(FoldXorPairs, SortStillSortsWithFewerXors) {
  const char *src = R"(@triton.jit
def k(x_ptr, y_ptr):
    offs = tl.arange(0, 1024)
    tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs)))
)";
  GpuKernelUnderTest k(src, "k", {"*fp32:16", "*fp32:16"});
  std::vector<float> x(1024);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((i * 7919) % 1031) - 500.0f;
  x[3] = -0.0f;
  x[10] = 0.0f;
  Inputs in;
  in.buffer(x, "x_ptr");
  in.buffer(std::vector<float>(1024, 0), "y_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  Outcome ref = k.run_interp(in), got = k.run_sim(in);
  GpuKernelUnderTest::expect_close(ref.bufs[1], got.bufs[1], Compare::f32(0, 0), "y_ptr");
  const std::string &ptx = k.ptx();
  size_t xors = 0;
  for (size_t at = ptx.find("xor.b32"); at != std::string::npos; at = ptx.find("xor.b32", at + 1))
    ++xors;
  EXPECT_LT(xors, 200u) << "the partner exchanges kept their xors";
}

} // namespace
} // namespace tilec::lower::test
