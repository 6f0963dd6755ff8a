// ContractFma: a contractable f32 / f64 mul (no modifiers) whose one reader is a
// contractable add of its block becomes `fma.rn` with it; anything it cannot prove (a
// second reader, a factor rewritten in between, .rn, another block) stays as it was.
#include "lower/ContractFma.h"
#include "LowerTestUtil.h"
#include "simt/Builder.h"
#include "simt/Format.h"

namespace tilec::lower::test {
namespace {

using simt::Builder;
using simt::Function;
using simt::Op;
using simt::Operand;
using simt::Reg;
using simt::Ty;

struct Shape {
  Ty ty = Ty::F32;
  bool rn = false;          // mul.rn / add.rn (enable_fp_fusion=False)
  bool swap = false;        // c + a * b
  bool read_twice = false;  // the product has a second reader
  bool rewrite_a = false;   // a factor is written between the mul and the add
  bool other_block = false; // the add is in the next block
};

Function pair_kernel(const Shape &sh) {
  Function fn;
  fn.name = "k";
  fn.params = {{"pa", sh.ty}, {"pb", sh.ty}, {"pc", sh.ty}};
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg a = b.ld_param(0), x = b.ld_param(1), c = b.ld_param(2);
  simt::Mods m;
  if (sh.rn)
    m.rnd = simt::Rnd::Rn;
  Reg t = b.binary(Op::Mul, sh.ty, a, x, m);
  if (sh.rewrite_a)
    b.mov_to(a, c);
  if (sh.other_block) {
    simt::BlockId next = b.new_block("next");
    b.bra(next);
    b.set_block(next);
  }
  Reg d = sh.swap ? b.binary(Op::Add, sh.ty, c, t, m) : b.binary(Op::Add, sh.ty, t, c, m);
  b.binary(Op::Add, sh.ty, d, sh.read_twice ? Operand(t) : Operand(a), m);
  b.ret();
  return fn;
}

TEST(ContractFma, AProductAndItsOneAddBecomeOneFma) {
  for (Ty ty : {Ty::F32, Ty::F64})
    for (bool swap : {false, true}) {
      Shape sh;
      sh.ty = ty;
      sh.swap = swap;
      Function f = pair_kernel(sh);
      EXPECT_EQ(contract_fma(f), 1) << simt::dump(f);
      EXPECT_EQ(count_op(f, Op::Mul), 0u) << simt::dump(f);
      std::string text = simt::dump(f);
      EXPECT_NE(text.find(ty == Ty::F32 ? "fma.rn.f32" : "fma.rn.f64"), std::string::npos) << text;
    }
}

TEST(ContractFma, KeepsWhatItCannotProve) {
  for (int k = 0; k < 4; ++k) {
    Shape sh;
    sh.rn = k == 0;
    sh.read_twice = k == 1;
    sh.rewrite_a = k == 2;
    sh.other_block = k == 3;
    Function f = pair_kernel(sh);
    EXPECT_EQ(contract_fma(f), 0) << k << "\n" << simt::dump(f);
    EXPECT_EQ(count_op(f, Op::Mul), 1u) << k << "\n" << simt::dump(f);
  }
}

} // namespace
} // namespace tilec::lower::test
