// cp.async groups, mbarriers and wgmma on the simulator (the model: SimAsync.cpp).
#include "../simt/AsyncPrograms.h"
#include "SimTestUtil.h"

namespace tilec::simt::test {
namespace {

// Each of 32 lanes cp.asyncs 16 bytes of `in` (lane l reads l % 17 bytes of them) into
// shared memory; `wait_before_read` false reads the destination before the wait.
Function cp_async_kernel(bool wait_before_read, int groups) {
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

TEST(SimAsync, CpAsyncZeroFillsPastTheSourceSize) {
  std::vector<uint8_t> in(32 * 16 * 2), out(32 * 16, 0x55);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<uint8_t>(i * 7 + 1);
  run(cp_async_kernel(true, 2), {SimArg::pointer(in.data()), SimArg::pointer(out.data())},
      {buffer(in, "in"), buffer(out, "out")});
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 16; ++i) {
      uint8_t want = i < l % 17 ? in[static_cast<size_t>(l * 16 + i)] : 0;
      ASSERT_EQ(out[static_cast<size_t>(l * 16 + i)], want) << "lane " << l << " byte " << i;
    }
}

TEST(SimAsync, CpAsyncDestinationIsGarbageBeforeTheWait) {
  std::vector<uint8_t> in(32 * 16), out(32 * 16, 0x55);
  run(cp_async_kernel(false, 1), {SimArg::pointer(in.data()), SimArg::pointer(out.data())},
      {buffer(in, "in"), buffer(out, "out")});
  for (uint8_t v : out)
    ASSERT_EQ(v, 0xff);
}

TEST(SimAsync, CpAsyncSourceOutOfBoundsNamesTheLane) {
  std::vector<uint8_t> in(31 * 16), out(32 * 16);
  try {
    run(cp_async_kernel(true, 1), {SimArg::pointer(in.data()), SimArg::pointer(out.data())},
        {buffer(in, "in"), buffer(out, "out")});
    FAIL() << "no error";
  } catch (const SimError &e) {
    EXPECT_NE(std::string(e.what()).find("past the end of 'in'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("lane 31"), std::string::npos) << e.what();
  }
}

// Producer/consumer through two mbarriers ("full" and "empty", 32 arrivals a phase):
// warp 1 writes shared memory and arrives on full; warp 0 waits on full (spinning on
// try_wait.parity, which yields), reads, and arrives on empty, which warp 1 waits on
// before its second phase. The parity flips between the phases.
Function mbarrier_kernel() {
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

TEST(SimAsync, MbarrierPhasesOrderAProducerAndAConsumer) {
  std::vector<uint32_t> out(64, 0);
  run(mbarrier_kernel(), {SimArg::pointer(out.data())}, {buffer(out, "out")});
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(out[l], 100 + l);
    EXPECT_EQ(out[32 + l], 200 + l);
  }
}

TEST(SimAsync, MbarrierThatNeverCompletesIsADeadlock) {
  Function fn;
  fn.name = "mbar_deadlock";
  fn.num_warps = 1;
  fn.shared_bytes = 8;
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg bar = b.shared_addr(0);
  mbarrier_init(b, Operand::addr(bar), imm(64)); // 64 arrivals, 32 lanes arrive once
  mbarrier_arrive(b, Operand::addr(bar));
  mbarrier_wait(b, Operand::addr(bar), imm(0));
  b.ret();
  try {
    run(fn, {}, {});
    FAIL() << "no error";
  } catch (const SimError &e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
  }
}

TEST(SimAsync, MbarrierUseBeforeInitIsAnError) {
  Function fn;
  fn.name = "mbar_uninit";
  fn.num_warps = 1;
  fn.shared_bytes = 8;
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  mbarrier_arrive(b, Operand::addr(b.shared_addr(0)));
  b.ret();
  try {
    run(fn, {}, {});
    FAIL() << "no error";
  } catch (const SimError &e) {
    EXPECT_NE(std::string(e.what()).find("not initialised"), std::string::npos) << e.what();
  }
}

TEST(SimAsync, MatrixDescriptorRoundTrips) {
  MatrixDesc d;
  d.start = 0x1230;
  d.lbo = 16;
  d.sbo = 1024;
  d.swizzle = Swizzle::B64;
  uint64_t bits = d.encode();
  EXPECT_EQ(bits, 0x0123ull | 1ull << 16 | 64ull << 32 | 2ull << 62);
  MatrixDesc r = MatrixDesc::decode(bits);
  EXPECT_EQ(r.start, d.start);
  EXPECT_EQ(r.lbo, d.lbo);
  EXPECT_EQ(r.sbo, d.sbo);
  EXPECT_EQ(r.swizzle, d.swizzle);
}

class SimWgmma : public ::testing::TestWithParam<WgmmaCase> {};

TEST_P(SimWgmma, MatchesTheReferenceProduct) {
  const WgmmaCase &wc = GetParam();
  WgmmaData data(wc);
  run(wgmma_kernel(wc),
      {SimArg::pointer(data.a_img.data()), SimArg::pointer(data.b_img.data()),
       SimArg::pointer(data.a_frag.data()), SimArg::pointer(data.out.data())},
      {buffer(data.a_img, "a_img"), buffer(data.b_img, "b_img"), buffer(data.a_frag, "a_frag"),
       buffer(data.out, "out")});
  std::string err = data.check(wc);
  EXPECT_TRUE(err.empty()) << wc.name() << ": " << err;
}

INSTANTIATE_TEST_SUITE_P(Cases, SimWgmma, ::testing::ValuesIn(wgmma_cases()),
                         [](const auto &info) { return info.param.name(); });

// The staging above and desc_element_addr agree only if the swizzle is applied: a kernel
// whose descriptor claims no swizzle on a swizzled image gets a wrong product.
TEST(SimWgmmaCheck, AWrongSwizzleGivesAWrongProduct) {
  WgmmaCase wc;
  WgmmaData data(wc);
  WgmmaCase lie = wc;
  lie.sa = Swizzle::B64; // the image is 128B-swizzled
  Function fn = wgmma_kernel(lie);
  fn.name = "wgmma_lie";
  std::vector<uint8_t> a_img = data.a_img;
  a_img.resize(WgmmaCase(lie).stage_a().bytes());
  run(fn,
      {SimArg::pointer(a_img.data()), SimArg::pointer(data.b_img.data()),
       SimArg::pointer(data.a_frag.data()), SimArg::pointer(data.out.data())},
      {buffer(a_img, "a_img"), buffer(data.b_img, "b_img"), buffer(data.a_frag, "a_frag"),
       buffer(data.out, "out")});
  EXPECT_FALSE(data.check(wc).empty());
}

TEST(SimWgmmaCheck, VerifierRejectsBadForms) {
  WgmmaCase wc;
  Function fn = wgmma_kernel(wc);
  for (Block &bl : fn.blocks)
    for (Instr &in : bl.instrs)
      if (in.op == Op::Wgmma)
        in.m.mma.k = 32; // f16 is k16
  EXPECT_THROW(run(fn, {}, {}), InternalError);
  Function cp = cp_async_kernel(true, 1);
  for (Block &bl : cp.blocks)
    for (Instr &in : bl.instrs)
      if (in.op == Op::CpAsync)
        in.m.vec = 12;
  EXPECT_THROW(run(cp, {}, {}), InternalError);
}

} // namespace
} // namespace tilec::simt::test
