// Faults and argument mistakes are clear errors, never crashes or silent garbage.
#include <cmath>

#include "SimTestUtil.h"
#include "interp/tile/Interpreter.h"

using namespace tilec;
using namespace tilec::simt;
using namespace tilec::simt::test;

namespace {

// A one-warp kernel: ptr = param 0 (u64), then `body`, then ret.
Function kernel(const std::function<void(Builder &, Reg ptr, Reg tid)> &body, int warps = 1,
                uint32_t shared = 0) {
  Function fn;
  fn.name = "k";
  fn.num_warps = warps;
  fn.shared_bytes = shared;
  uint32_t pp = fn.add_param("ptr", Ty::U64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg ptr = b.ld_param(pp);
  body(b, ptr, b.special(Sreg::TidX));
  b.ret();
  return fn;
}

std::string run_err(const Function &fn, std::vector<float> &buf, const SimOptions &o = {}) {
  return sim_error([&] { run(fn, {SimArg::pointer(buf.data())}, {buffer(buf, "x_ptr")}, o); });
}

} // namespace

TEST(SimErrors, OutOfBoundsAndMisalignedAndNull) {
  std::vector<float> buf(16);
  Function oob = kernel([](Builder &b, Reg ptr, Reg tid) {
    b.ld1(Space::Global, Ty::F32, Operand::addr(elem_addr(b, ptr, tid, 4)));
  });
  std::string e = run_err(oob, buf);
  EXPECT_TRUE(contains(e, "out-of-bounds load from global memory: global address")) << e;
  EXPECT_TRUE(contains(e, "0 bytes past the end of 'x_ptr', 64 bytes")) << e;
  EXPECT_TRUE(contains(e, "thread 16: warp 0, lane 16")) << e;
  EXPECT_TRUE(contains(e, "ld.global.f32 %r2, [%rd2];")) << e;

  Function straddle = kernel([](Builder &b, Reg ptr, Reg) {
    b.ld(Space::Global, Ty::B32, Operand::addr(ptr, 48), 2); // bytes 48..55: fine
    b.ld(Space::Global, Ty::B32, Operand::addr(ptr, 56), 2); // bytes 56..63: straddles
  });
  e = sim_error([&] { // the buffer is declared 60 bytes long
    run(straddle, {SimArg::pointer(buf.data())},
        {SimBuffer{reinterpret_cast<uint64_t>(buf.data()), 60, "x_ptr"}});
  });
  EXPECT_TRUE(contains(e, "out-of-bounds load from buffer 'x_ptr': bytes [56, 64) of 60")) << e;

  Function mis = kernel(
      [](Builder &b, Reg ptr, Reg) { b.ld(Space::Global, Ty::B32, Operand::addr(ptr, 8), 4); });
  e = run_err(mis, buf);
  EXPECT_TRUE(contains(e, "misaligned load from .global address")) << e;
  EXPECT_TRUE(contains(e, "(an access of 16 bytes)")) << e;

  Function null = kernel([](Builder &b, Reg, Reg) {
    b.st(Space::Global, Ty::U32, Operand::addr(b.mov(Ty::U64, imm(0))), {imm(1)});
  });
  e = run_err(null, buf);
  EXPECT_TRUE(contains(e, "store to a null global address")) << e;
}

TEST(SimErrors, SharedMemoryBounds) {
  std::vector<float> buf(1);
  Function fn = kernel(
      [](Builder &b, Reg, Reg tid) {
        b.st(Space::Shared, Ty::U32, Operand::addr(b.mad(Ty::U32, tid, imm(4), b.shared_addr())),
             {tid});
      },
      1, 64);
  std::string e = run_err(fn, buf);
  EXPECT_TRUE(contains(e, "out-of-bounds store to shared memory at offset 64")) << e;
  EXPECT_TRUE(contains(e, "the kernel has 64 bytes of shared memory")) << e;
}

TEST(SimErrors, TrapAssertAndHang) {
  std::vector<float> buf(1);
  Function trap = kernel([](Builder &b, Reg, Reg tid) {
    auto g = b.guarded(b.setp(Cmp::Eq, Ty::U32, tid, imm(5)));
    b.trap();
  });
  std::string e = run_err(trap, buf);
  EXPECT_TRUE(contains(e, "simt: trap (kernel 'k', CTA (0, 0, 0), thread 5")) << e;

  Function as = kernel([](Builder &b, Reg, Reg tid) {
    auto g = b.guarded(b.setp(Cmp::Gt, Ty::U32, tid, imm(2)));
    b.assert_fail("x > 0", "kernel.py", 7, "my_kernel");
  });
  try {
    run(as, {SimArg::pointer(buf.data())}, {buffer(buf, "x")}, {.grid = {2, 1, 1}});
    ADD_FAILURE() << "no error";
  } catch (const SimError &err) {
    EXPECT_TRUE(contains(err.what(), "device assertion failed: x > 0")) << err.what();
    EXPECT_EQ(err.output(), "kernel.py:7: my_kernel: block: [0,0,0], thread: [3,0,0] Assertion "
                            "`x > 0` failed.\n");
  }

  Function hang = kernel([](Builder &b, Reg, Reg) {
    BlockId loop = b.new_block("loop");
    b.set_block(loop);
    b.bra(loop);
  });
  e = run_err(hang, buf, {.max_steps = 1000});
  EXPECT_TRUE(contains(e, "no end after 1000 steps (a hang?)")) << e;

  Function fall;
  fall.name = "fall";
  fall.num_warps = 1;
  Builder fb(fall);
  fb.set_block(fb.new_block("entry"));
  fb.special(Sreg::TidX);
  try {
    run(fall, {}, {});
    ADD_FAILURE() << "no error";
  } catch (const InternalError &err) { // the verifier sees it before running
    EXPECT_TRUE(contains(err.what(), "must end in an unguarded ret")) << err.what();
  }
}

TEST(SimErrors, SourceLocationsAreQuoted) {
  SourceManager sm;
  int file = sm.add("kernel.py", "def k(x):\n    y = tl.load(x + offs)\n");
  std::vector<float> buf(4);
  Function fn = kernel([&](Builder &b, Reg ptr, Reg tid) {
    b.set_loc(SourceLoc{file, 2, 9});
    b.ld1(Space::Global, Ty::F32, Operand::addr(elem_addr(b, ptr, tid, 4)));
  });
  std::string e = run_err(fn, buf, {.sources = &sm});
  EXPECT_TRUE(contains(e, "kernel.py:2:9: error: simt: out-of-bounds load")) << e;
  EXPECT_TRUE(contains(e, "    y = tl.load(x + offs)\n        ^")) << e;
}

TEST(SimErrors, ArgumentMistakes) {
  Function fn;
  fn.name = "args";
  fn.num_warps = 1;
  fn.add_param("p", Ty::U64);
  fn.add_param("n", Ty::S32);
  fn.add_param("f", Ty::F32);
  fn.add_param("b", Ty::U8);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  b.ret();
  float x = 0;
  auto err = [&](std::vector<SimArg> args) {
    try {
      run(fn, args, {});
    } catch (const SimError &) {
      return std::string("SimError");
    } catch (const RuntimeError &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_TRUE(contains(err({SimArg::pointer(&x)}), "takes 4 arguments, got 1"));
  EXPECT_TRUE(contains(err({SimArg::pointer(&x), SimArg::integer(1ll << 40), SimArg::floating(1),
                            SimArg::integer(1)}),
                       "argument 1 ('n', .s32): the value 1099511627776 does not fit"));
  EXPECT_TRUE(contains(
      err({SimArg::pointer(&x), SimArg::integer(1), SimArg::integer(1), SimArg::integer(1)}),
      "an integer was passed for a float parameter"));
  EXPECT_TRUE(contains(
      err({SimArg::pointer(&x), SimArg::pointer(&x), SimArg::floating(1), SimArg::integer(1)}),
      "a pointer needs a 64-bit integer parameter"));
  EXPECT_TRUE(contains(
      err({SimArg::pointer(&x), SimArg::integer(1), SimArg::floating(1), SimArg::integer(256)}),
      "('b', .u8): the value 256 does not fit"));
  EXPECT_EQ(
      err({SimArg::pointer(&x), SimArg::integer(-5), SimArg::floating(2.5), SimArg::integer(255)}),
      "");
  EXPECT_THROW(
      run(fn, {SimArg::pointer(&x), SimArg::integer(1), SimArg::floating(1), SimArg::integer(1)},
          {}, {.grid = {0, 1, 1}}),
      RuntimeError);
}

TEST(SimErrors, MalformedIrIsAnInternalError) {
  Function fn = kernel([](Builder &b, Reg ptr, Reg) { b.add(Ty::U32, ptr, imm(1)); });
  std::vector<float> buf(1);
  EXPECT_THROW(run(fn, {SimArg::pointer(buf.data())}, {}), InternalError);
}

TEST(SimErrors, ParamsAndSpecialRegistersReachTheKernel) {
  // Each CTA writes (ctaid.x, ctaid.y, ctaid.z, nctaid.x, f * 2) at its linear index.
  Function fn;
  fn.name = "ids";
  fn.num_warps = 1;
  uint32_t pp = fn.add_param("out", Ty::U64), pf = fn.add_param("f", Ty::F32),
           pd = fn.add_param("d", Ty::F64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg out = b.ld_param(pp), f = b.ld_param(pf), d = b.ld_param(pd);
  Reg x = b.special(Sreg::CtaidX), y = b.special(Sreg::CtaidY), z = b.special(Sreg::CtaidZ);
  Reg nx = b.special(Sreg::NctaidX), ny = b.special(Sreg::NctaidY);
  Reg lin = b.mad(Ty::U32, b.mad(Ty::U32, z, ny, y), nx, x);
  Reg base = b.mad_wide(Ty::U32, lin, imm(32), out);
  Reg tid = b.special(Sreg::TidX);
  Reg t0 = b.setp(Cmp::Eq, Ty::U32, tid, imm(0));
  {
    auto g = b.guarded(t0);
    b.st(Space::Global, Ty::U32, Operand::addr(base), {x, y, z, nx});
    b.st(Space::Global, Ty::F32, Operand::addr(base, 16), {b.mul(Ty::F32, f, imm(2))});
    b.st(Space::Global, Ty::F32, Operand::addr(base, 20), {b.cvt(Ty::F32, Ty::F64, d, Rnd::Rn)});
  }
  b.ret();
  std::vector<uint32_t> res(8 * 2 * 3 * 2, 0);
  run(fn, {SimArg::pointer(res.data()), SimArg::floating(1.25), SimArg::floating(-0.5)},
      {buffer(res, "out")}, {.grid = {2, 3, 2}});
  for (uint32_t zz = 0; zz < 2; ++zz)
    for (uint32_t yy = 0; yy < 3; ++yy)
      for (uint32_t xx = 0; xx < 2; ++xx) {
        size_t at = ((zz * 3 + yy) * 2 + xx) * 8;
        EXPECT_EQ(res[at], xx);
        EXPECT_EQ(res[at + 1], yy);
        EXPECT_EQ(res[at + 2], zz);
        EXPECT_EQ(res[at + 3], 2u);
        EXPECT_EQ(bf(res[at + 4]), 2.5f);
        EXPECT_EQ(bf(res[at + 5]), -0.5f);
      }
}

TEST(SimErrors, RegistersReadBeforeWrittenArePoison) {
  // A masked load without `other`: masked-off lanes keep the poison (a NaN), not 0.
  std::vector<float> buf(32, 1.0f);
  Function fn = kernel([](Builder &b, Reg ptr, Reg tid) {
    Reg v = b.reg(Ty::F32);
    Reg a = elem_addr(b, ptr, tid, 4);
    {
      auto g = b.guarded(b.setp(Cmp::Lt, Ty::U32, tid, imm(4)));
      b.ld_to({v}, Space::Global, Ty::F32, Operand::addr(a));
    }
    b.st(Space::Global, Ty::F32, Operand::addr(a), {b.add(Ty::F32, v, imm(1))});
  });
  run(fn, {SimArg::pointer(buf.data())}, {buffer(buf, "x")});
  EXPECT_EQ(buf[3], 2.0f);
  EXPECT_TRUE(std::isnan(buf[4]));
}
