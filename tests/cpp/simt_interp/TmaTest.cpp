// TMA loads (cp.async.bulk.tensor) and cvta.param on the simulator (the model: SimTma.cpp):
// boxes of every rank, swizzle and element size against an independent reference, and
// the mistakes a kernel can make with them.
#include "../simt/TmaPrograms.h"
#include "SimTestUtil.h"

namespace tilec::simt::test {

// gtest names a failing case by its name, not its bytes
inline void PrintTo(const TmaCase &tc, std::ostream *os) { *os << tc.name(); }

namespace {

// Runs tma_kernel(tc) on `data`; `edit` may change the map before it is passed.
void run_tma(const TmaCase &tc, TmaData &data, const std::function<void(SimTensorMap &)> &edit = {},
             const Function *kernel = nullptr) {
  SimTensorMap map = tc.map(reinterpret_cast<uint64_t>(data.global.data()));
  if (edit)
    edit(map);
  Function fn = kernel ? *kernel : tma_kernel(tc);
  run(fn,
      {SimArg::blob(&map, sizeof map), SimArg::pointer(data.out.data()),
       SimArg::integer(tc.coord[0]), SimArg::integer(tc.coord[1]), SimArg::integer(tc.coord[2])},
      {buffer(data.global, "global"), buffer(data.out, "out")});
}

std::string tma_error(const TmaCase &tc, const std::function<void(SimTensorMap &)> &edit = {}) {
  TmaData data(tc);
  return sim_error([&] { run_tma(tc, data, edit); });
}

class SimTma : public ::testing::TestWithParam<TmaCase> {};

TEST_P(SimTma, BoxLandsAsTheReferenceSays) {
  const TmaCase &tc = GetParam();
  TmaData data(tc);
  run_tma(tc, data);
  for (int r = 0; r < tc.rounds; ++r) {
    std::vector<uint8_t> want = data.expect(tc, r);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(int(data.out[r * tc.bytes() + i]), int(want[i]))
          << tc.name() << ": round " << r << ", shared byte " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, SimTma, ::testing::ValuesIn(tma_cases()),
                         [](const auto &info) { return info.param.name(); });

// The reference's swizzle must matter: the same copy unswizzled differs from it.
TEST(SimTmaCheck, TheSwizzleMovesBytes) {
  TmaCase tc = tma_cases()[3];
  TmaData data(tc);
  TmaCase plain = tc;
  plain.swizzle = 0;
  EXPECT_NE(data.expect(tc, 0), data.expect(plain, 0));
}

TEST(SimTmaCheck, ReadingBeforeTheWaitIsAnError) {
  TmaCase tc;
  tc.read_before_wait = true;
  std::string e = tma_error(tc);
  EXPECT_TRUE(contains(e, "load from shared memory at offset 1024 while a cp.async.bulk.tensor "
                          "(thread 0) is still writing bytes [1024, 1152)"))
      << e;
  EXPECT_TRUE(contains(e, "ld.shared.b32")) << e;
}

TEST(SimTmaCheck, WaitingOnTheWrongParityIsAnError) {
  TmaCase tc; // parity 1 names the phase before the first: done at once
  tc.wrong_parity = true;
  std::string e = tma_error(tc);
  EXPECT_TRUE(contains(e, "is still writing")) << e;
}

// A bar.sync does not wait for the copy: only the mbarrier does.
TEST(SimTmaCheck, ABarrierInsteadOfTheMbarrierIsAnError) {
  TmaCase tc;
  Function fn = tma_kernel(tc);
  for (Block &bl : fn.blocks)
    for (Instr &in : bl.instrs)
      if (in.op == Op::Mbarrier && in.m.mbar == MbarOp::TryWaitParity)
        in.src[1] = imm(1); // a wait that passes at once
  TmaData data(tc);
  std::string e = sim_error([&] { run_tma(tc, data, {}, &fn); });
  EXPECT_TRUE(contains(e, "is still writing")) << e;
}

TEST(SimTmaCheck, TransactionBytesThatNeverArriveDeadlock) {
  TmaCase tc;
  tc.extra_tx = 16;
  std::string e = tma_error(tc);
  EXPECT_TRUE(contains(e, "deadlock")) << e;
  EXPECT_TRUE(contains(e, "waits on an mbarrier")) << e;
}

TEST(SimTmaCheck, MisalignedDestinations) {
  TmaCase tc;
  tc.dst_misalign = 16;
  std::string e = tma_error(tc);
  EXPECT_TRUE(contains(e, "the destination (shared offset 1040) must be 128-byte aligned")) << e;
  EXPECT_TRUE(contains(e, "cp.async.bulk.tensor.2d")) << e;
  TmaCase sw = tma_cases()[3];
  sw.dst_misalign = 512;
  e = tma_error(sw);
  EXPECT_TRUE(contains(e, "must be 1024-byte aligned for a 128-byte swizzle")) << e;
}

TEST(SimTmaCheck, BadMapsAreFaults) {
  TmaCase tc;
  tc.coord = {3, 22, 0}; // rows 22..25 of 24: the last two are zero fill
  auto bad = [&](const std::function<void(SimTensorMap &)> &edit) { return tma_error(tc, edit); };
  std::string e = bad([](SimTensorMap &m) { m.magic = 0x12345678; });
  EXPECT_TRUE(contains(e, "bad tensor map at 0x7fe")) << e; // the param's generic address
  EXPECT_TRUE(contains(e, "bad magic 0x12345678")) << e;
  e = bad([](SimTensorMap &m) { m.rank = 3; });
  EXPECT_TRUE(contains(e, "a rank-3 map used by a 2d copy")) << e;
  e = bad([](SimTensorMap &m) { m.box[0] = 6; });
  EXPECT_TRUE(contains(e, "box[0] * elem_bytes = 24 is not a multiple of 16 bytes")) << e;
  e = bad([](SimTensorMap &m) {
    m.swizzle_bytes = 32;
    m.box[0] = 16;
  });
  EXPECT_TRUE(contains(e, "exceeds the 32-byte swizzle span")) << e;
  e = bad([](SimTensorMap &m) { m.box[1] = 0; });
  EXPECT_TRUE(contains(e, "box[1] = 0 is not 1..256")) << e;
  e = bad([](SimTensorMap &m) { m.strides[1] = 100; });
  EXPECT_TRUE(contains(e, "strides[1] = 100 is not a multiple of 16")) << e;
  // a map that claims more rows than the buffer holds reads out of bounds
  e = bad([](SimTensorMap &m) { m.dims[1] = 100; });
  EXPECT_TRUE(contains(e, "past the end of 'global'")) << e;
}

TEST(SimTmaCheck, TheBlobParameterTakesExactlyAMap) {
  TmaCase tc;
  Function fn = tma_kernel(tc);
  TmaData data(tc);
  SimTensorMap map = tc.map(reinterpret_cast<uint64_t>(data.global.data()));
  auto error = [&](SimArg desc) -> std::string {
    try {
      run(fn,
          {desc, SimArg::pointer(data.out.data()), SimArg::integer(0), SimArg::integer(0),
           SimArg::integer(0)},
          {buffer(data.global, "global"), buffer(data.out, "out")});
    } catch (const RuntimeError &e) {
      return e.what();
    }
    return "";
  };
  std::string e = error(SimArg::pointer(&map));
  EXPECT_TRUE(contains(e, "argument 0 ('desc', .b8[128]): a byte-array parameter needs "
                          "SimArg::blob"))
      << e;
  e = error(SimArg::blob(&map, 64));
  EXPECT_TRUE(contains(e, "'desc', .b8[128]): a byte array of 64 bytes was passed for 128")) << e;
  e = error(SimArg::integer(1));
  EXPECT_TRUE(contains(e, "needs SimArg::blob")) << e;
  // and a blob for a scalar parameter
  try {
    run(fn,
        {SimArg::blob(&map, sizeof map), SimArg::blob(&map, 8), SimArg::integer(0),
         SimArg::integer(0), SimArg::integer(0)},
        {});
    FAIL() << "no error";
  } catch (const RuntimeError &err) {
    EXPECT_TRUE(contains(err.what(), "argument 1 ('out', .u64): a byte array was passed for a "
                                     "scalar parameter"))
        << err.what();
  }
}

// The map may also be in global memory (its generic address from a pointer parameter), and
// a plain generic ld reads a parameter through its cvta.param address.
TEST(SimTmaCheck, MapInGlobalMemoryAndGenericParamLoads) {
  TmaCase tc = tma_cases()[1];
  TmaData data(tc);
  Function fn = tma_kernel(tc);
  uint32_t pm = fn.add_param("map_ptr", Ty::U64);
  uint32_t pw = fn.add_param("word", Ty::U64);
  Block &entry = fn.blocks[0];
  for (size_t i = 0; i < entry.instrs.size(); ++i)
    if (entry.instrs[i].op == Op::CvtaParam) { // tmap = the pointer instead
      Instr ld = entry.instrs[i];
      ld.op = Op::Ld;
      ld.m.space = Space::Param;
      ld.src = {Operand::param(pm)};
      entry.instrs[i] = ld;
    }
  // word[0] = the magic, read by a generic ld of desc's cvta.param address
  Block &last = fn.blocks.back();
  Instr ret = last.instrs.back();
  last.instrs.pop_back();
  {
    Builder b(fn);
    b.set_block(static_cast<BlockId>(fn.blocks.size() - 1));
    Reg a = cvta_param(b, 0);
    Reg magic = b.ld1(Space::None, Ty::U32, Operand::addr(a));
    b.st(Space::Global, Ty::U32, Operand::addr(b.ld_param(pw)), {magic});
  }
  last.instrs.push_back(ret);
  alignas(64) SimTensorMap map = tc.map(reinterpret_cast<uint64_t>(data.global.data()));
  std::vector<uint32_t> word(1, 0);
  run(fn,
      {SimArg::blob(&map, sizeof map), SimArg::pointer(data.out.data()),
       SimArg::integer(tc.coord[0]), SimArg::integer(tc.coord[1]), SimArg::integer(tc.coord[2]),
       SimArg::pointer(&map), SimArg::pointer(word.data())},
      {buffer(data.global, "global"), buffer(data.out, "out"),
       SimBuffer{reinterpret_cast<uint64_t>(&map), sizeof map, "map", false},
       buffer(word, "word")});
  std::vector<uint8_t> want = data.expect(tc, 0);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), data.out.begin()));
  EXPECT_EQ(word[0], SimTensorMap::kMagic);
}

} // namespace
} // namespace tilec::simt::test
