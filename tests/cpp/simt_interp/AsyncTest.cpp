// cp.async groups, mbarriers and wgmma on the simulator (the model: SimAsync.cpp).
#include "../simt/AsyncPrograms.h"
#include "SimTestUtil.h"

namespace tilec::simt::test {
namespace {

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
    EXPECT_NE(std::string(e.what()).find("past the end of 'in'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("lane 31"), std::string::npos) << e.what();
  }
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

// What a GPU leaves undefined: touching a wgmma's D before the wgmma.wait_group retiring
// it. The simulator computes at issue, so without this check such a kernel would pass here.
std::string wgmma_hazard(bool write) {
  WgmmaCase wc;
  WgmmaData data(wc);
  Function fn = wgmma_kernel(wc);
  for (Block &bl : fn.blocks) {
    auto &v = bl.instrs;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i].op != Op::WgmmaWait)
        continue;
      if (!write) {
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(i)); // the stores read D unretired
        break;
      }
      // the accumulator's zeroing (the first mov into the wgmma's first D register),
      // repeated while the wgmma is in flight
      uint32_t d0 = 0;
      for (const Instr &in : v)
        if (in.op == Op::Wgmma)
          d0 = in.dst[0].reg().id;
      for (const Instr &in : v)
        if (in.op == Op::Mov && in.dst[0].reg().id == d0) {
          Instr again = in;
          v.insert(v.begin() + static_cast<std::ptrdiff_t>(i), again);
          break;
        }
      break;
    }
  }
  return sim_error([&] {
    run(fn,
        {SimArg::pointer(data.a_img.data()), SimArg::pointer(data.b_img.data()),
         SimArg::pointer(data.a_frag.data()), SimArg::pointer(data.out.data())},
        {buffer(data.a_img, "a_img"), buffer(data.b_img, "b_img"),
         buffer(data.a_frag, "a_frag"), buffer(data.out, "out")});
  });
}

TEST(SimWgmmaCheck, ReadingDBeforeTheWaitIsAnError) {
  std::string err = wgmma_hazard(false);
  EXPECT_NE(err.find("reads a register of a wgmma still in flight"), std::string::npos) << err;
}

TEST(SimWgmmaCheck, WritingDBeforeTheWaitIsAnError) {
  std::string err = wgmma_hazard(true);
  EXPECT_NE(err.find("writes a register of a wgmma still in flight"), std::string::npos) << err;
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
