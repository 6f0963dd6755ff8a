// Hand-built TMA kernels (cp.async.bulk.tensor waited for on an mbarrier), shared by the
// simulator tests (tests/cpp/simt_interp/TmaTest.cpp) and the PTX checks
// (tests/cpp/codegen/AsyncPtxTest.cpp). The expected shared-memory image is computed
// here from the model's definition (row-major box, out-of-bounds fill, 16-byte chunk j of
// 128-byte row r at chunk j ^ (r mod S/16)), independently of the simulator's code.
#pragma once

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "simt/AsyncInstrs.h"
#include "simt/TensorMap.h"

namespace tilec::simt::test {

struct TmaCase {
  int rank = 2;
  int eb = 4;      // element bytes
  int swizzle = 0; // 0, 32, 64, 128
  bool nan_fill = false;
  std::array<uint64_t, 3> dims{40, 24, 3}; // the global tensor, innermost first
  std::array<uint32_t, 3> box{8, 4, 1};
  std::array<int32_t, 3> coord{3, 5, 0};
  bool imm_coords = false; // coordinates as immediates, else s32 parameters
  int rounds = 1;          // copies through one mbarrier; round r starts box[0] * r further in
  // Mistakes a kernel may make (the simulator must refuse them).
  bool read_before_wait = false, wrong_parity = false;
  uint32_t dst_misalign = 0; // added to the destination's aligned offset
  uint32_t extra_tx = 0;     // expect_tx more bytes than the copy brings

  uint64_t elems() const {
    uint64_t n = 1;
    for (int d = 0; d < rank; ++d)
      n *= box[static_cast<size_t>(d)];
    return n;
  }
  uint64_t bytes() const { return elems() * static_cast<uint64_t>(eb); }
  uint64_t pitch() const { return (dims[0] * static_cast<uint64_t>(eb) + 15) / 16 * 16 + 16; }
  uint64_t global_bytes() const {
    uint64_t n = pitch();
    for (int d = 1; d < rank; ++d)
      n *= dims[static_cast<size_t>(d)];
    return n;
  }
  std::string name() const {
    std::string s = std::to_string(rank) + "d_e" + std::to_string(eb) + "_sw" +
                    std::to_string(swizzle) + "_box";
    for (int d = 0; d < rank; ++d)
      s += (d ? "x" : "") + std::to_string(box[static_cast<size_t>(d)]);
    s += "_at";
    for (int d = 0; d < rank; ++d) {
      int32_t c = coord[static_cast<size_t>(d)];
      s += (d ? "_" : "") + (c < 0 ? "m" + std::to_string(-c) : std::to_string(c));
    }
    return s + (nan_fill ? "_nan" : "") + (imm_coords ? "_imm" : "") +
           (rounds > 1 ? "_r" + std::to_string(rounds) : "");
  }

  // The map of a global tensor at `base` (pitched rows: strides[1] = pitch()).
  SimTensorMap map(uint64_t base) const {
    SimTensorMap m;
    m.rank = static_cast<uint8_t>(rank);
    m.elem_bytes = static_cast<uint8_t>(eb);
    m.swizzle_bytes = static_cast<uint8_t>(swizzle);
    m.nan_fill = nan_fill;
    m.base = base;
    uint64_t stride = static_cast<uint64_t>(eb);
    for (int d = 0; d < rank; ++d) {
      m.dims[d] = dims[static_cast<size_t>(d)];
      m.box[d] = box[static_cast<size_t>(d)];
      m.strides[d] = stride;
      stride = d == 0 ? pitch() : stride * dims[static_cast<size_t>(d)];
    }
    return m;
  }
};

// The shared memory: the mbarrier at 0, the box at 1024 (+ dst_misalign).
constexpr uint32_t kTmaDst = 1024;

// Kernel: thread 0 inits the mbarrier (1 arrival); bar.sync; per round, thread 0 does
// arrive.expect_tx(bytes) and the copy, every thread waits on the round's parity and
// copies the box's bytes (as b32 words) to out + round * bytes, then bar.sync (the next
// copy overwrites the box). Params: desc (the map, 128 bytes), out, c0, c1, c2 (s32).
inline Function tma_kernel(const TmaCase &tc, int num_warps = 2) {
  Function fn;
  fn.name = "tma_" + tc.name();
  fn.num_warps = num_warps;
  uint32_t pd = fn.add_blob_param("desc", kTensorMapBytes, kTensorMapAlign);
  uint32_t po = fn.add_param("out", Ty::U64);
  std::vector<uint32_t> pc;
  for (int d = 0; d < 3; ++d)
    pc.push_back(fn.add_param("c" + std::to_string(d), Ty::S32));
  uint32_t dst_off = kTmaDst + tc.dst_misalign;
  uint64_t span = tc.swizzle ? (tc.bytes() + tc.swizzle - 1) / tc.swizzle * tc.swizzle : tc.bytes();
  fn.shared_bytes = static_cast<uint32_t>(dst_off + span);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg tid = b.special(Sreg::TidX);
  Reg is0 = b.setp(Cmp::Eq, Ty::U32, tid, imm(0));
  Reg bar = b.shared_addr(0), dst = b.shared_addr(dst_off);
  Reg tmap = cvta_param(b, pd);
  {
    auto g = b.guarded(is0);
    mbarrier_init(b, Operand::addr(bar), imm(1));
  }
  fence_proxy_async(b); // the init, before the copy's complete_tx (async proxy), as lowered
  b.bar_sync(0);
  Reg out = b.ld_param(po);
  int nthreads = fn.num_threads();
  uint64_t words = tc.bytes() / 4;
  Reg mine = b.mad(Ty::U32, tid, imm(4), dst); // this thread's first word
  for (int r = 0; r < tc.rounds; ++r) {
    std::vector<Operand> coords;
    for (int d = 0; d < tc.rank; ++d) {
      int64_t shift = d == 0 ? static_cast<int64_t>(tc.box[0]) * r : 0;
      if (tc.imm_coords)
        coords.push_back(imm(tc.coord[static_cast<size_t>(d)] + shift));
      else
        coords.push_back(b.add(Ty::S32, b.ld_param(pc[static_cast<size_t>(d)]), imm(shift)));
    }
    auto copy_out = [&] {
      Reg o = b.mad_wide(Ty::U32, tid, imm(4), out);
      for (uint64_t k = 0; k * static_cast<uint64_t>(nthreads) < words; ++k) {
        int64_t w = static_cast<int64_t>(k) * nthreads;
        Reg in_box = b.setp(Cmp::Lt, Ty::U32, tid, imm(static_cast<int64_t>(words) - w));
        auto g = b.guarded(in_box);
        Reg v = b.ld1(Space::Shared, Ty::B32, Operand::addr(mine, w * 4));
        b.st(Space::Global, Ty::B32, Operand::addr(o, w * 4 + r * static_cast<int64_t>(tc.bytes())),
             {v});
      }
    };
    {
      auto g = b.guarded(is0);
      mbarrier_arrive_expect_tx(b, Operand::addr(bar),
                                imm(static_cast<int64_t>(tc.bytes() + tc.extra_tx)));
      cp_async_bulk_tensor(b, Operand::addr(dst), Operand::addr(bar), tmap, coords);
    }
    if (tc.read_before_wait)
      copy_out();
    mbarrier_wait(b, Operand::addr(bar), imm((r + (tc.wrong_parity ? 1 : 0)) & 1));
    if (!tc.read_before_wait)
      copy_out();
    b.bar_sync(0);
  }
  b.ret();
  return fn;
}

// A global tensor for a TmaCase: element bits made from its coordinates (never a NaN
// pattern of the width), the expected shared-memory images, and the output buffer.
struct TmaData {
  std::vector<uint8_t> global;
  std::vector<uint8_t> out;

  explicit TmaData(const TmaCase &tc)
      : global(tc.global_bytes()), out(tc.bytes() * static_cast<uint64_t>(tc.rounds), 0xee) {
    for (uint64_t z = 0; z < (tc.rank > 2 ? tc.dims[2] : 1); ++z)
      for (uint64_t y = 0; y < (tc.rank > 1 ? tc.dims[1] : 1); ++y)
        for (uint64_t x = 0; x < tc.dims[0]; ++x) {
          uint64_t v = value(tc, x, y, z);
          std::memcpy(global.data() + offset(tc, x, y, z), &v, static_cast<size_t>(tc.eb));
        }
  }
  static uint64_t value(const TmaCase &tc, uint64_t x, uint64_t y, uint64_t z) {
    uint64_t v = (z * 131 + y * 37 + x * 3 + 1) & 0x3f; // < 0x40: no NaN of any width
    for (int i = 1; i < tc.eb; ++i)
      v = v << 8 | ((x + 5 * y + 11 * z + static_cast<uint64_t>(i)) & 0x3f);
    return v;
  }
  static uint64_t offset(const TmaCase &tc, uint64_t x, uint64_t y, uint64_t z) {
    uint64_t dy = tc.rank > 1 ? tc.dims[1] : 1;
    return x * static_cast<uint64_t>(tc.eb) + y * tc.pitch() + z * tc.pitch() * dy;
  }
  static uint64_t nan(int eb) {
    return eb == 1 ? 0x7f : eb == 2 ? 0x7fff : eb == 4 ? 0x7fc00000 : 0x7ff8000000000000ull;
  }

  // The shared-memory image round r should leave (box bytes, swizzled).
  std::vector<uint8_t> expect(const TmaCase &tc, int r) const {
    std::vector<uint8_t> img(tc.bytes());
    uint64_t b0 = tc.box[0], b1 = tc.rank > 1 ? tc.box[1] : 1, b2 = tc.rank > 2 ? tc.box[2] : 1;
    for (uint64_t k = 0; k < b2; ++k)
      for (uint64_t j = 0; j < b1; ++j)
        for (uint64_t i = 0; i < b0; ++i) {
          int64_t g[3] = {tc.coord[0] + static_cast<int64_t>(i + tc.box[0] * r),
                          tc.coord[1] + static_cast<int64_t>(j),
                          tc.coord[2] + static_cast<int64_t>(k)};
          bool inside = true;
          for (int d = 0; d < tc.rank; ++d)
            inside = inside && g[d] >= 0 && g[d] < static_cast<int64_t>(tc.dims[d]);
          uint64_t v = 0;
          if (inside)
            std::memcpy(&v,
                        global.data() + offset(tc, static_cast<uint64_t>(g[0]),
                                               static_cast<uint64_t>(g[1]),
                                               static_cast<uint64_t>(g[2])),
                        static_cast<size_t>(tc.eb));
          else if (tc.nan_fill)
            v = nan(tc.eb);
          uint64_t o = static_cast<uint64_t>(tc.eb) * (i + b0 * (j + b1 * k));
          if (tc.swizzle) { // the destination is 1024-aligned: offsets are addresses
            uint64_t n = static_cast<uint64_t>(tc.swizzle) / 16;
            uint64_t chunk = o / 16 % n, row = o / 128 % n;
            o = o - chunk * 16 + (chunk ^ row) * 16;
          }
          std::memcpy(img.data() + o, &v, static_cast<size_t>(tc.eb));
        }
    return img;
  }
};

// The cases every backend checks: each rank, swizzle and element size, boxes inside and
// hanging off every edge (zero and NaN fill), immediate and register coordinates, and two
// rounds through one mbarrier.
inline std::vector<TmaCase> tma_cases() {
  std::vector<TmaCase> cs;
  TmaCase in; // 2-D f32, inside the tensor
  cs.push_back(in);
  TmaCase zero = in; // hangs off the left and the bottom: zero fill
  zero.box = {16, 8, 1};
  zero.coord = {-4, 20, 0};
  cs.push_back(zero);
  TmaCase nan = zero; // hangs off the right and the top: NaN fill
  nan.coord = {32, -3, 0};
  nan.nan_fill = true;
  nan.imm_coords = true;
  cs.push_back(nan);
  TmaCase s128; // f16, 128-byte rows
  s128.eb = 2;
  s128.swizzle = 128;
  s128.box = {64, 16, 1};
  s128.dims = {100, 30, 1};
  s128.coord = {5, 2, 0};
  cs.push_back(s128);
  TmaCase s64 = in; // f32, 64-byte rows, off the left edge
  s64.swizzle = 64;
  s64.box = {16, 8, 1};
  s64.coord = {-2, 3, 0};
  cs.push_back(s64);
  TmaCase s32; // bytes (fp8), 32-byte rows, NaN 0x7f off the bottom
  s32.eb = 1;
  s32.swizzle = 32;
  s32.box = {32, 16, 1};
  s32.dims = {48, 20, 1};
  s32.coord = {1, 9, 0};
  s32.nan_fill = true;
  cs.push_back(s32);
  TmaCase f64; // 8-byte elements, NaN fill
  f64.eb = 8;
  f64.box = {2, 4, 1};
  f64.dims = {5, 6, 1};
  f64.coord = {4, -1, 0};
  f64.nan_fill = true;
  cs.push_back(f64);
  TmaCase d3; // 3-D, off two edges
  d3.rank = 3;
  d3.box = {4, 4, 3};
  d3.dims = {10, 6, 4};
  d3.coord = {-1, 3, 2};
  cs.push_back(d3);
  TmaCase d3s = d3; // 3-D with a 64-byte swizzle, NaN fill, immediates
  d3s.eb = 2;
  d3s.swizzle = 64;
  d3s.box = {32, 4, 2};
  d3s.dims = {40, 7, 3};
  d3s.coord = {12, 5, -1};
  d3s.nan_fill = true;
  d3s.imm_coords = true;
  cs.push_back(d3s);
  TmaCase d1; // 1-D
  d1.rank = 1;
  d1.box = {12, 1, 1};
  d1.dims = {30, 1, 1};
  d1.coord = {24, 0, 0};
  cs.push_back(d1);
  TmaCase two = s128; // two rounds through one mbarrier: parity 0, then 1
  two.rounds = 2;
  two.box = {64, 8, 1};
  two.coord = {-20, 25, 0};
  cs.push_back(two);
  return cs;
}

} // namespace tilec::simt::test
