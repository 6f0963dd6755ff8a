// TMA stores (cp.async.bulk.tensor ... .bulk_group) on the simulator (the model: SimTma.cpp):
// the box goes to global memory, clipped at the tensor's edges (the inner one in whole
// 16-byte units), when the issuing thread's cp.async.bulk.wait_group.read retires its group;
// writing the source before that, or ending the CTA with a store pending, is a fault.
#include "SimTestUtil.h"
#include "simt/AsyncInstrs.h"
#include "simt/TensorMap.h"

namespace tilec::simt::test {

namespace {

constexpr uint32_t kSrc = 1024;     // the box in shared memory (no swizzle: 128-byte aligned)
constexpr int kRows = 4, kCols = 8; // u32 elements

enum class Mistake { None, WriteBeforeWait, NoWait, WaitBeforeCommit };

// Thread i of one warp writes word i (= 100 + i) of a [4, 8] u32 box at kSrc; thread 0
// stores it at (col, row) = params c0, c1 and waits; then every thread overwrites the box.
Function store_kernel(Mistake mistake) {
  Function fn;
  fn.name = "tma_store";
  fn.num_warps = 1;
  uint32_t pd = fn.add_blob_param("desc", kTensorMapBytes, kTensorMapAlign);
  uint32_t p0 = fn.add_param("c0", Ty::S32), p1 = fn.add_param("c1", Ty::S32);
  fn.shared_bytes = kSrc + kRows * kCols * 4;
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg tid = b.special(Sreg::TidX);
  Reg is0 = b.setp(Cmp::Eq, Ty::U32, tid, imm(0));
  Reg src = b.shared_addr(kSrc);
  Reg mine = b.mad(Ty::U32, tid, imm(4), src);
  b.st(Space::Shared, Ty::B32, Operand::addr(mine), {b.add(Ty::U32, tid, imm(100))});
  fence_proxy_async(b);
  b.bar_sync(0);
  Reg tmap = cvta_param(b, pd);
  {
    auto g = b.guarded(is0);
    cp_async_bulk_tensor_store(b, Operand::addr(src), tmap, {b.ld_param(p0), b.ld_param(p1)});
    if (mistake == Mistake::WaitBeforeCommit)
      cp_async_bulk_wait_read(b, 0);
    cp_async_bulk_commit(b);
    if (mistake == Mistake::None)
      cp_async_bulk_wait_read(b, 0);
  }
  if (mistake == Mistake::WriteBeforeWait || mistake == Mistake::None) {
    b.bar_sync(0);
    b.st(Space::Shared, Ty::B32, Operand::addr(mine), {imm(7)});
  }
  b.ret();
  return fn;
}

// A [rows, cols] u32 tensor of 0xee.. at `data` (row pitch 16 words) and its map, box 8 x 4.
SimTensorMap store_map(std::vector<uint32_t> &data, uint64_t rows, uint64_t cols) {
  data.assign(rows * 16, 0xeeeeeeeeu);
  SimTensorMap m;
  m.rank = 2;
  m.elem_bytes = 4;
  m.base = reinterpret_cast<uint64_t>(data.data());
  m.dims[0] = cols;
  m.dims[1] = rows;
  m.strides[0] = 4;
  m.strides[1] = 64;
  m.box[0] = kCols;
  m.box[1] = kRows;
  return m;
}

void run_store(Mistake mistake, std::vector<uint32_t> &data, int c0, int c1) {
  SimTensorMap map = store_map(data, 6, 6);
  Function fn = store_kernel(mistake);
  run(fn, {SimArg::blob(&map, sizeof map), SimArg::integer(c0), SimArg::integer(c1)},
      {buffer(data, "global")});
}

// Clipped at the tensor's edges, the inner one rounded up to whole 16 bytes: the tensor's 6
// columns (24 bytes) take 8 (as an H200 writes them).
TEST(SimTmaStore, TheBoxLandsClippedAtTheEdgesInWhole16Bytes) {
  std::vector<uint32_t> data;
  run_store(Mistake::None, data, 4, 3); // cols 4..11 of 6, rows 3..6 of 6
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 16; ++c) {
      bool in = r >= 3 && c >= 4 && c < 8;
      uint32_t want = in ? 100 + (r - 3) * kCols + (c - 4) : 0xeeeeeeeeu;
      ASSERT_EQ(data[static_cast<size_t>(r * 16 + c)], want) << "row " << r << " col " << c;
    }
}

TEST(SimTmaStore, WritingTheSourceBeforeTheWaitIsAnError) {
  std::vector<uint32_t> data;
  std::string e = sim_error([&] { run_store(Mistake::WriteBeforeWait, data, 0, 0); });
  EXPECT_TRUE(contains(e, "while a TMA store (thread 0) may still read bytes [1024, 1152)")) << e;
  EXPECT_TRUE(contains(e, "st.shared.b32")) << e;
}

TEST(SimTmaStore, EndingWithAStorePendingIsAnError) {
  for (Mistake m : {Mistake::NoWait, Mistake::WaitBeforeCommit}) { // a wait retires committed
    std::vector<uint32_t> data;                                    // groups only
    std::string e = sim_error([&] { run_store(m, data, 0, 0); });
    EXPECT_TRUE(contains(e, "the CTA ended with a TMA store")) << e;
  }
}

} // namespace

} // namespace tilec::simt::test
