// CoalesceCopies: a copy whose source lives only before it in its block is removed by
// renaming; copies it cannot prove safe stay.
#include <random>

#include "../SeedKernels.h"
#include "../TextCount.h"
#include "LowerTestUtil.h"
#include "lower/CoalesceCopies.h"
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

// entry: d = 1.0; body: [pre] t = d + 2; [mid] d <- t; [post]; ret. `shape` adds the
// accesses that must keep the copy.
struct Shape {
  bool read_d_between = false, read_t_after = false, t_in_entry = false, guarded_def = false;
};

Function copy_kernel(const Shape &sh) {
  Function fn;
  fn.name = "k";
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg d = b.mov(Ty::F32, Operand::f32(1.0f));
  Reg t = b.reg(Ty::F32);
  if (sh.t_in_entry)
    b.mov_to(t, Operand::f32(0.0f));
  b.set_block(b.new_block("body"));
  Reg p = b.setp(simt::Cmp::Lt, Ty::F32, d, Operand::f32(5.0f));
  b.add(Ty::F32, d, Operand::f32(2.0f));
  b.last().dst = {t};
  if (sh.guarded_def)
    b.last().guard.pred = p;
  Reg x = sh.read_d_between ? b.mul(Ty::F32, d, d) : b.mul(Ty::F32, t, t);
  b.mov_to(d, t);
  if (sh.read_t_after)
    b.add(Ty::F32, t, x);
  b.ret();
  return fn;
}

TEST(CoalesceCopies, RenamesASourceLocalToTheBlock) {
  Function f = copy_kernel({});
  EXPECT_EQ(coalesce_copies(f), 1);
  EXPECT_EQ(count_op(f, Op::Mov), 1u) << simt::dump(f); // the entry's constant stays
  const Instr &add = f.blocks[1].instrs[1];
  EXPECT_EQ(add.op, Op::Add);
  EXPECT_EQ(add.dst[0].index, f.blocks[0].instrs[0].dst[0].index) << simt::dump(f);
}

TEST(CoalesceCopies, KeepsCopiesItCannotProveSafe) {
  for (Shape sh : {Shape{true, false, false, false}, Shape{false, true, false, false},
                   Shape{false, false, true, false}, Shape{false, false, false, true}}) {
    Function f = copy_kernel(sh);
    size_t before = count_op(f, Op::Mov);
    EXPECT_EQ(coalesce_copies(f), 0) << simt::dump(f);
    EXPECT_EQ(count_op(f, Op::Mov), before);
  }
}

// Loop-carried values that swap and whose old value is read after the new one exists:
// the simulator agrees with the interpreter bit for bit.
TEST(CoalesceCopies, LoopCarriedSwapsAgree) {
  const char *src = R"(@triton.jit
def k(x_ptr, out_ptr, n):
    offs = tl.arange(0, 256)
    a = tl.load(x_ptr + offs)
    b = a * 2.0
    m = tl.full([256], -1.0e30, tl.float32)
    for i in range(n):
        m_new = tl.maximum(m, a)
        alpha = m - m_new
        a, b = b, a * 0.5 + alpha
        m = m_new
    tl.store(out_ptr + offs, a + b + m)
)";
  GpuKernelUnderTest k(src, "k", {"*fp32:16", "*fp32:16", "i32"});
  std::mt19937 g(3);
  std::uniform_real_distribution<float> dist(-8, 8);
  std::vector<float> x(256);
  for (float &v : x)
    v = dist(g);
  for (int64_t n : {0, 1, 5}) {
    Inputs in;
    in.buffer(x, "x_ptr");
    in.buffer(std::vector<float>(256, 0), "out_ptr");
    in.args = {Arg::buffer(0), Arg::buffer(1), Arg::integer(n)};
    k.expect_agree(in, {Compare::exact(), Compare::f32(0, 0)});
  }
}

// The seed attention's loop keeps only the copies of m_i (its old value is read after the
// new one): no copy of the accumulator into wgmma's registers or back.
TEST(CoalesceCopies, SeedAttentionLoopCopies) {
  GpuKernelUnderTest k(tilec::test::seed_kernel("fused_attention_kernel"), "fused_attention_kernel",
                       {"*fp16:16", "*fp16:16", "*fp16:16", "*fp16:16", "i32:16", "i32:16",
                        "i32:16",   "i32:1",    "i32:16",   "i32:16",   "i32:16", "i32:1",
                        "i32:16",   "i32:16",   "i32:16",   "i32:1",    "i32:16", "i32:16",
                        "i32:16",   "i32:1",    "i32",      "i32",      "i32:16", "=128",
                        "=64",      "=64"},
                       4, 90, 2);
  const std::string &ptx = k.ptx();
  size_t body = ptx.find("$L__body_1:"), end = ptx.find("$L__endloop", body);
  ASSERT_NE(end, std::string::npos) << ptx;
  std::string loop = ptx.substr(body, end - body);
  EXPECT_LE(count(loop, "mov.f32"), 4u) << loop;
}

} // namespace
} // namespace tilec::lower::test
