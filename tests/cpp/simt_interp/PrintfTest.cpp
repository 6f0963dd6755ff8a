// vprintf formatting: conversions, flags, widths, length modifiers, %s of a kernel
// string, and argument buffers read the way the GPU reads them.
#include "SimTestUtil.h"

using namespace tilec;
using namespace tilec::simt;
using namespace tilec::simt::test;

namespace {

struct Arg {
  Ty ty;
  Operand value;
};

// Thread 0 of one CTA prints fmt with the given arguments.
std::string print(const std::string &fmt, const std::vector<Arg> &args, int threads = 1) {
  Function fn;
  fn.name = "p";
  fn.num_warps = 1;
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  std::vector<Reg> regs;
  for (const Arg &a : args)
    regs.push_back(b.mov(a.ty, a.value));
  Reg tid = b.special(Sreg::TidX);
  {
    auto g = b.guarded(b.setp(Cmp::Lt, Ty::U32, tid, imm(threads)));
    b.vprintf(fmt, regs);
  }
  b.ret();
  return run(fn, {}, {}).output;
}

Arg i32(int32_t v) { return {Ty::S32, imm(v)}; }
Arg u32(uint32_t v) { return {Ty::U32, imm(v)}; }
Arg i64(int64_t v) { return {Ty::S64, imm(v)}; }
Arg f64(double v) { return {Ty::F64, Operand::f64(v)}; }

} // namespace

TEST(SimPrintf, Conversions) {
  EXPECT_EQ(print("%d %i %u\n", {i32(-5), i32(7), u32(4000000000u)}), "-5 7 4000000000\n");
  EXPECT_EQ(print("%x %X %o %c\n", {u32(255), u32(255), u32(8), u32('A')}), "ff FF 10 A\n");
  EXPECT_EQ(print("%f %e %g %a\n", {f64(1.5), f64(1234.5), f64(0.0001), f64(1.0)}),
            "1.500000 1.234500e+03 0.0001 0x1p+0\n");
  EXPECT_EQ(print("%lld %llx %ld %lu\n", {i64(-1), i64(255), i64(1ll << 40), i64(3)}),
            "-1 ff 1099511627776 3\n");
  EXPECT_EQ(print("100%% done\n", {}), "100% done\n");
}

TEST(SimPrintf, FlagsWidthPrecision) {
  EXPECT_EQ(print("[%5d|%-5d|%05d|%+d|% d]", {i32(42), i32(42), i32(42), i32(42), i32(42)}),
            "[   42|42   |00042|+42| 42]");
  EXPECT_EQ(print("[%8.3f|%-8.2e|%.0f|%#x]", {f64(3.14159), f64(2.5), f64(2.5), u32(255)}),
            "[   3.142|2.50e+00|2|0xff]");
  EXPECT_EQ(print("[%*d|%.*f]", {i32(6), i32(7), i32(2), f64(1.0 / 3)}), "[     7|0.33]");
}

TEST(SimPrintf, LengthModifiersTruncate) {
  EXPECT_EQ(print("%hd %hhd %hu %hhx", {i32(70000), i32(300), u32(70000), u32(0x1ff)}),
            "4464 44 4464 ff");
}

TEST(SimPrintf, MismatchedArgumentsReadLikeTheGpu) {
  // %d reads 4 bytes: given a 64-bit argument it prints the low half, and the next %d
  // reads the high half (the buffer is laid out by the arguments, read by the format).
  EXPECT_EQ(print("%d %d", {i64((int64_t(3) << 32) | 9)}), "9 3");
  // %f of a 32-bit integer argument reads 8 bytes from an aligned slot: not enough here.
  Function fn;
  fn.name = "bad";
  fn.num_warps = 1;
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  b.vprintf("%d %d %d\n", {b.mov(Ty::S32, imm(1))});
  b.ret();
  std::string e = sim_error([&] { run(fn, {}, {}); });
  EXPECT_TRUE(contains(e, "needs more arguments than were passed")) << e;
}

TEST(SimPrintf, StringsAndPointers) {
  Function fn;
  fn.name = "s";
  fn.num_warps = 1;
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  uint32_t str = fn.add_string("hello");
  Reg p = b.mov(Ty::U64, Operand::string(str));
  Reg p2 = b.mov(Ty::U64, Operand::string(str, 2));
  Reg tid = b.special(Sreg::TidX);
  {
    auto g = b.guarded(b.setp(Cmp::Eq, Ty::U32, tid, imm(0)));
    b.vprintf("[%s|%s|%8s]\n", {p, p2, p});
  }
  // a load from a string reads its bytes
  Reg c = b.ld1(Space::Global, Ty::U8, Operand::addr(p, 1));
  Reg c32 = b.cvt(Ty::U32, Ty::U8, c);
  {
    auto g = b.guarded(b.setp(Cmp::Eq, Ty::U32, tid, imm(0)));
    b.vprintf("%c\n", {c32});
  }
  b.ret();
  EXPECT_EQ(run(fn, {}, {}).output, "[hello|llo|   hello]\ne\n");
}

TEST(SimPrintf, LanesPrintInOrderAndCtasInGridOrder) {
  Function fn;
  fn.name = "order";
  fn.num_warps = 2;
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg tid = b.special(Sreg::TidX), cta = b.special(Sreg::CtaidX);
  Reg lane = b.special(Sreg::LaneId);
  {
    auto g = b.guarded(b.setp(Cmp::Lt, Ty::U32, lane, imm(2)));
    b.vprintf("%u:%u ", {cta, tid});
  }
  b.ret();
  EXPECT_EQ(run(fn, {}, {}, {.grid = {2, 1, 1}}).output, "0:0 0:1 0:32 0:33 1:0 1:1 1:32 1:33 ");
}
