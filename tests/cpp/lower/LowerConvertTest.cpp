// convert_layout between hand-picked layouts, written as Tile IR (no layout assignment):
// each element's value is its row-major index, and it is stored at that index after the
// conversion, so the output is 0, 1, 2, ... exactly when every element arrived. The way
// each conversion moves data (registers, warp shuffles, shared memory) is checked too.
#include "LowerTestUtil.h"
#include "codegen/PtxPrinter.h"
#include "ir/IRParser.h"
#include "layout/AllocateShared.h"
#include "lower/Lower.h"
#include "simt/Format.h"

namespace tilec::lower::test {
namespace {

std::string blocked(std::vector<int> spt, std::vector<int> tpw, std::vector<int> wpc,
                    std::vector<int> order) {
  auto list = [](const std::vector<int> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  return "#blocked<spt=" + list(spt) + ", tpw=" + list(tpw) + ", wpc=" + list(wpc) +
         ", order=" + list(order) + ">";
}

// An M x N tile of row-major indices in layout A, converted to B, stored by value.
std::string convert_kernel(int m, int n, const std::string &a, const std::string &b, int warps,
                           int max_shared = 0) {
  std::string M = std::to_string(m), N = std::to_string(n);
  std::string ta = "tile<" + M + "x" + N + "xi32, " + a + ">";
  std::string tb = "tile<" + M + "x" + N + "xi32, " + b + ">";
  std::string pb = "tile<" + M + "x" + N + "xptr<i32>, " + b + ">";
  std::string limit = max_shared ? ", max_shared = " + std::to_string(max_shared) : "";
  return "module {num_warps = " + std::to_string(warps) + limit +
         "}\n"
         "tt.func @k(%z: ptr<i32>) {\n"
         "  %0 = arange {end = " +
         M + ", start = 0} : tile<" + M + "xi32, #slice<dim=1, " + a +
         ">>\n"
         "  %1 = arange {end = " +
         N + ", start = 0} : tile<" + N + "xi32, #slice<dim=0, " + a +
         ">>\n"
         "  %2 = expand_dims %0 {axis = 1} : tile<" +
         M + "xi32, #slice<dim=1, " + a + ">> -> tile<" + M + "x1xi32, " + a +
         ">\n"
         "  %3 = expand_dims %1 {axis = 0} : tile<" +
         N + "xi32, #slice<dim=0, " + a + ">> -> tile<1x" + N + "xi32, " + a +
         ">\n"
         "  %4 = broadcast %2 : tile<" +
         M + "x1xi32, " + a + "> -> " + ta +
         "\n"
         "  %5 = broadcast %3 : tile<1x" +
         N + "xi32, " + a + "> -> " + ta +
         "\n"
         "  %6 = constant {value = " +
         N + "} : " + ta +
         "\n"
         "  %7 = mul %4, %6 : " +
         ta +
         "\n"
         "  %8 = add %7, %5 : " +
         ta +
         "\n"
         "  %9 = convert_layout %8 : " +
         ta + " -> " + tb +
         "\n"
         "  %10 = splat %z : ptr<i32> -> " +
         pb +
         "\n"
         "  %11 = addptr %10, %9 : " +
         pb + ", " + tb + " -> " + pb +
         "\n"
         "  store %11, %9\n"
         "  return\n"
         "}\n";
}

// The row-major indices of an M x N tile computed in layout `l` as %<p>8 (values %<p>0..).
std::string index_tile(int m, int n, const std::string &l, const std::string &p) {
  std::string M = std::to_string(m), N = std::to_string(n);
  std::string t = "tile<" + M + "x" + N + "xi32, " + l + ">";
  auto v = [&](int i) { return "%" + p + std::to_string(i); };
  return "  " + v(0) + " = arange {end = " + M + ", start = 0} : tile<" + M +
         "xi32, #slice<dim=1, " + l + ">>\n  " + v(1) + " = arange {end = " + N +
         ", start = 0} : tile<" + N + "xi32, #slice<dim=0, " + l + ">>\n  " + v(2) +
         " = expand_dims " + v(0) + " {axis = 1} : tile<" + M + "xi32, #slice<dim=1, " + l +
         ">> -> tile<" + M + "x1xi32, " + l + ">\n  " + v(3) + " = expand_dims " + v(1) +
         " {axis = 0} : tile<" + N + "xi32, #slice<dim=0, " + l + ">> -> tile<1x" + N + "xi32, " +
         l + ">\n  " + v(4) + " = broadcast " + v(2) + " : tile<" + M + "x1xi32, " + l + "> -> " +
         t + "\n  " + v(5) + " = broadcast " + v(3) + " : tile<1x" + N + "xi32, " + l + "> -> " +
         t + "\n  " + v(6) + " = constant {value = " + N + "} : " + t + "\n  " + v(7) + " = mul " +
         v(4) + ", " + v(6) + " : " + t + "\n  " + v(8) + " = add " + v(7) + ", " + v(5) + " : " +
         t + "\n";
}

// The indices computed in layout A, cast to `elem` (fp16, i8, ...), converted to B, cast
// back to i32 and stored at their index (computed in B: only the typed conversion moves
// data between threads).
std::string typed_convert_kernel(int m, int n, const std::string &a, const std::string &b,
                                 int warps, const std::string &elem) {
  std::string shape = "tile<" + std::to_string(m) + "x" + std::to_string(n) + "x";
  std::string pb = shape + "ptr<i32>, " + b + ">";
  return "module {num_warps = " + std::to_string(warps) + "}\ntt.func @k(%z: ptr<i32>) {\n" +
         index_tile(m, n, a, "a") + index_tile(m, n, b, "b") + "  %c0 = cast %a8 : " + shape +
         "i32, " + a + "> -> " + shape + elem + ", " + a +
         ">\n  %c1 = convert_layout %c0 : " + shape + elem + ", " + a + "> -> " + shape + elem +
         ", " + b + ">\n  %c2 = cast %c1 : " + shape + elem + ", " + b + "> -> " + shape + "i32, " +
         b + ">\n  %p0 = splat %z : ptr<i32> -> " + pb + "\n  %p1 = addptr %p0, %b8 : " + pb +
         ", " + shape + "i32, " + b + "> -> " + pb + "\n  store %p1, %c2\n  return\n}\n";
}

// Lowers and runs it; returns the Thread IR text. `expect(i)`: the value stored at i.
std::string run_text(
    const std::string &text, int m, int n, int32_t (*expect)(int32_t) = [](int32_t i) { return i; },
    int sm = 90) {
  SCOPED_TRACE(text);
  std::unique_ptr<ir::Module> mod = ir::parse_module(text);
  layout::allocate_shared(*mod);
  LowerOptions opts;
  opts.sm = sm;
  simt::Function fn = lower_function(*mod, *mod->functions.front(), opts);
  std::vector<int32_t> z(static_cast<size_t>(m * n), -1);
  simt::run(fn, {simt::SimArg::pointer(z.data())},
            {{reinterpret_cast<uint64_t>(z.data()), z.size() * 4, "z"}}, {});
  for (size_t i = 0; i < z.size(); ++i)
    if (z[i] != expect(static_cast<int32_t>(i))) {
      ADD_FAILURE() << "element " << i << " is " << z[i] << "\n" << simt::dump(fn);
      break;
    }
  if (auto ptxas = runtime::find_ptxas())
    GpuKernelUnderTest::expect_ptxas(*ptxas, codegen::print_ptx(fn, {}), 90);
  return simt::dump(fn);
}

// Lowers and runs it; returns the Thread IR text.
std::string run_convert(int m, int n, const std::string &a, const std::string &b, int warps,
                        int max_shared = 0) {
  std::string text = convert_kernel(m, n, a, b, warps, max_shared);
  SCOPED_TRACE(text);
  std::unique_ptr<ir::Module> mod = ir::parse_module(text);
  layout::allocate_shared(*mod);
  simt::Function fn = lower_function(*mod, *mod->functions.front(), {});
  std::vector<int32_t> z(static_cast<size_t>(m * n), -1);
  simt::run(fn, {simt::SimArg::pointer(z.data())},
            {{reinterpret_cast<uint64_t>(z.data()), z.size() * 4, "z"}}, {});
  for (size_t i = 0; i < z.size(); ++i)
    if (z[i] != static_cast<int32_t>(i)) {
      ADD_FAILURE() << "element " << i << " is " << z[i] << "\n" << simt::dump(fn);
      break;
    }
  if (auto ptxas = runtime::find_ptxas())
    GpuKernelUnderTest::expect_ptxas(*ptxas, codegen::print_ptx(fn, {}), 90);
  return simt::dump(fn);
}

bool has(const std::string &s, const char *what) { return s.find(what) != std::string::npos; }

TEST(LowerConvert, RegisterPermutation) {
  // Same lanes and warps; the register order differs (order [1,0] vs [0,1] with spt only).
  std::string a = blocked({2, 2}, {8, 4}, {2, 2}, {1, 0});
  std::string b = blocked({2, 2}, {8, 4}, {2, 2}, {1, 0});
  std::string t = run_convert(32, 16, a, b, 4);
  EXPECT_FALSE(has(t, "shfl")) << t;
  EXPECT_FALSE(has(t, "bar.sync")) << t;
}

TEST(LowerConvert, LanePermutationUsesShuffles) {
  // The same elements per thread and warp; the lanes fill the dims in another order.
  for (auto [m, n] : {std::pair{16, 8}, {32, 16}}) {
    std::string a = blocked({1, 1}, {4, 8}, {4, 1}, {1, 0});
    std::string b = blocked({1, 1}, {4, 8}, {4, 1}, {0, 1});
    std::string t = run_convert(m, n, a, b, 4);
    EXPECT_TRUE(has(t, "shfl.sync.idx")) << t;
    EXPECT_FALSE(has(t, "bar.sync")) << t;
  }
}

TEST(LowerConvert, RegistersAndLanesTradeBitsByShuffles) {
  // Same warps; a lane bit of one is a register bit of the other.
  std::string a = blocked({1, 1}, {4, 8}, {4, 1}, {1, 0});
  std::string b = blocked({1, 2}, {4, 8}, {4, 1}, {1, 0});
  std::string t = run_convert(16, 16, a, b, 4);
  EXPECT_TRUE(has(t, "shfl.sync.idx")) << t;
  EXPECT_FALSE(has(t, "bar.sync")) << t;
  t = run_convert(16, 16, b, a, 4);
  EXPECT_TRUE(has(t, "shfl.sync.idx")) << t;
  EXPECT_FALSE(has(t, "bar.sync")) << t;
  run_convert(16, 32, blocked({1, 4}, {4, 8}, {4, 1}, {1, 0}),
              blocked({1, 1}, {4, 8}, {4, 1}, {1, 0}), 4);
}

TEST(LowerConvert, AcrossWarpsUsesSharedMemory) {
  std::string a = blocked({1, 4}, {4, 8}, {4, 1}, {1, 0});
  std::string b = blocked({4, 1}, {8, 4}, {1, 4}, {0, 1});
  std::string t = run_convert(64, 64, a, b, 4);
  EXPECT_TRUE(has(t, "st.shared.v4.b32")) << t; // 4 consecutive elements per thread
  EXPECT_TRUE(has(t, "bar.sync")) << t;
  // and back: the loads are the vector ones then
  t = run_convert(64, 64, b, a, 4);
  EXPECT_TRUE(has(t, "ld.shared.v4.b32")) << t;
}

TEST(LowerConvert, InChunksWhenTheTileDoesNotFit) {
  // 64 x 64 i32 (16 KB of scratch whole): both layouts repeat rows 32 and columns 32 in
  // registers, so the trip can go in halves or quarters (layout::chunk_bit); 8 KB and 4 KB
  // of shared memory take 1 and 2 chunk bits
  std::string a = blocked({1, 4}, {4, 8}, {4, 1}, {1, 0});
  std::string b = blocked({4, 1}, {8, 4}, {1, 4}, {0, 1});
  auto count = [](const std::string &t, const char *what) {
    size_t n = 0;
    for (size_t at = t.find(what); at != std::string::npos; at = t.find(what, at + 1))
      ++n;
    return n;
  };
  size_t whole = count(run_convert(64, 64, a, b, 4), "bar.sync");
  for (int bits : {1, 2}) {
    std::unique_ptr<ir::Module> mod =
        ir::parse_module(convert_kernel(64, 64, a, b, 4, 16384 >> bits));
    layout::allocate_shared(*mod);
    EXPECT_EQ(mod->int_attr("shared_bytes", 0), 16384 >> bits);
    std::string t = run_convert(64, 64, a, b, 4, 16384 >> bits);
    // each chunk's barrier between its stores and loads, one before each next chunk
    EXPECT_EQ(count(t, "bar.sync"), (whole + 1) * (size_t{1} << bits) - 1) << t;
    t = run_convert(64, 64, b, a, 4, 16384 >> bits); // and back
  }
}

TEST(LowerConvert, ReplicatedLayouts) {
  // Tiles smaller than the CTA: lanes and warps hold copies on one side or both.
  run_convert(4, 8, blocked({1, 1}, {4, 8}, {4, 1}, {1, 0}),
              blocked({1, 1}, {8, 4}, {1, 4}, {0, 1}), 4);
  run_convert(8, 8, blocked({2, 2}, {2, 16}, {1, 2}, {1, 0}),
              blocked({1, 1}, {32, 1}, {2, 1}, {0, 1}), 2);
  run_convert(2, 2, blocked({1, 1}, {1, 32}, {1, 1}, {1, 0}),
              blocked({2, 2}, {32, 1}, {1, 1}, {0, 1}), 1);
}

TEST(LowerConvert, ManyPairs) {
  std::vector<std::string> ls = {
      blocked({1, 1}, {1, 32}, {4, 1}, {1, 0}), blocked({1, 4}, {2, 16}, {2, 2}, {1, 0}),
      blocked({4, 1}, {16, 2}, {1, 4}, {0, 1}), blocked({2, 2}, {4, 8}, {1, 4}, {1, 0}),
      blocked({1, 8}, {8, 4}, {4, 1}, {0, 1}),  blocked({8, 1}, {32, 1}, {2, 2}, {1, 0})};
  for (const std::string &a : ls)
    for (const std::string &b : ls)
      run_convert(32, 32, a, b, 4);
}

size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
    ++n;
  return n;
}

// The matmul epilogue: fp16 from the mma accumulator layout to the 16-byte blocked layout
// the store wants. Before sm_90 each thread's mma pairs (4 bytes) go out as one
// st.shared.b32 and the blocked side reads 8 halves (16 bytes) with one ld.shared.v4.b32:
// no 2-byte accesses. On sm_90 four pairs go out as one stmatrix.x4 (the next test).
TEST(LowerConvert, SixteenBitElementsMoveAsPackedWords) {
  std::string mma = "#mma<v=2, wpc=[2, 2], instr=[16, 8]>";
  std::string blk = blocked({1, 8}, {4, 8}, {4, 1}, {1, 0});
  // 32x64 (fp16 holds every index exactly) / 128 threads = 16 elements a thread: 8 pairs
  // out, 2 x 8 halves in
  auto ident = [](int32_t i) { return i; };
  std::string t = run_text(typed_convert_kernel(32, 64, mma, blk, 4, "fp16"), 32, 64, ident, 80);
  EXPECT_EQ(count(t, "st.shared.b32"), 8u) << t;
  EXPECT_EQ(count(t, "ld.shared.v4.b32"), 2u) << t;
  EXPECT_FALSE(has(t, "st.shared.b16")) << t;
  EXPECT_FALSE(has(t, "ld.shared.b16")) << t;
  // and back (blocked -> mma): v4 stores, b32 loads
  run_text(typed_convert_kernel(16, 16, blk, mma, 4, "bf16"), 16, 16); // bf16 is exact to 256
  t = run_text(typed_convert_kernel(32, 64, blk, mma, 4, "fp16"), 32, 64);
  EXPECT_EQ(count(t, "st.shared.v4.b32"), 2u) << t;
  EXPECT_EQ(count(t, "ld.shared.b32"), 8u) << t;
  EXPECT_FALSE(has(t, ".shared.b16")) << t;
  // runs of 4 halves (8 bytes): v2.b32
  t = run_text(typed_convert_kernel(32, 32, blocked({1, 4}, {4, 8}, {4, 1}, {1, 0}),
                                    blocked({4, 1}, {8, 4}, {1, 4}, {0, 1}), 4, "fp16"),
               32, 32);
  EXPECT_TRUE(has(t, "st.shared.v2.b32")) << t; // (the column-major side reads halves)
}

// sm_90: a 16-bit mma accumulator fragment goes to shared memory through stmatrix.x4 (four
// 8x8 matrices, one instruction for four st.shared.b32), for the mma.sync and the wgmma
// accumulator layouts alike (simulated: every element lands at its index), and not from a
// layout of another shape (blocked: the ordinary stores).
// i rounded to the nearest bf16 / fp16 (even on ties), as the cast there and back leaves it.
int32_t round_to_bits(int32_t i, int bits) {
  int32_t ulp = 1;
  while ((i >> bits) >= ulp)
    ulp *= 2;
  int32_t lo = i / ulp * ulp, r = i - lo;
  return r * 2 < ulp || (r * 2 == ulp && (lo / ulp) % 2 == 0) ? lo : lo + ulp;
}

TEST(LowerConvert, MmaFragmentsStoreThroughStmatrix) {
  EXPECT_EQ(round_to_bits(257, 8), 256);
  EXPECT_EQ(round_to_bits(259, 8), 260);
  EXPECT_EQ(round_to_bits(2049, 11), 2048);
  std::string blk = blocked({1, 8}, {4, 8}, {4, 1}, {1, 0});
  std::string mma = "#mma<v=2, wpc=[2, 2], instr=[16, 8]>";
  auto bf16 = [](int32_t i) { return round_to_bits(i, 8); };
  auto fp16 = [](int32_t i) { return round_to_bits(i, 11); };
  std::string t = run_text(typed_convert_kernel(32, 64, mma, blk, 4, "fp16"), 32, 64);
  EXPECT_EQ(count(t, "stmatrix.sync.aligned.m8n8.x4.shared.b16"), 2u) << t;
  EXPECT_FALSE(has(t, "st.shared.b32")) << t;
  t = run_text(typed_convert_kernel(32, 64, mma, blk, 4, "bf16"), 32, 64, bf16);
  EXPECT_EQ(count(t, "stmatrix.sync.aligned.m8n8.x4.shared.b16"), 2u) << t;
  std::string wg = "#mma<v=3, wpc=[4, 1], instr=[64, 64]>";
  t = run_text(typed_convert_kernel(64, 64, wg, blk, 4, "fp16"), 64, 64, fp16);
  EXPECT_EQ(count(t, "stmatrix.sync.aligned.m8n8.x4.shared.b16"), 4u) << t;
  EXPECT_FALSE(has(t, "st.shared.b32")) << t;
  // other warp arrangements, 8 warps, wider wgmma instructions: the same stores, one
  // stmatrix a thread's 8 elements
  struct Case {
    const char *src;
    int m, n, warps;
  };
  const Case cases[] = {{"#mma<v=2, wpc=[4, 1], instr=[16, 8]>", 64, 32, 4},
                        {"#mma<v=2, wpc=[1, 4], instr=[16, 8]>", 32, 64, 4},
                        {"#mma<v=3, wpc=[8, 1], instr=[64, 32]>", 128, 32, 8},
                        {"#mma<v=3, wpc=[4, 2], instr=[64, 64]>", 64, 128, 8}};
  for (const Case &k : cases) {
    std::string d = blocked({1, 8}, {4, 8}, {k.warps, 1}, {1, 0});
    t = run_text(typed_convert_kernel(k.m, k.n, k.src, d, k.warps, "fp16"), k.m, k.n, fp16);
    EXPECT_EQ(count(t, "stmatrix.sync.aligned.m8n8.x4.shared.b16"),
              static_cast<size_t>(k.m * k.n / (32 * k.warps) / 8))
        << k.src << "\n"
        << t;
    EXPECT_FALSE(has(t, "st.shared.b32")) << k.src;
  }
  // a blocked source keeps the ordinary stores
  t = run_text(typed_convert_kernel(32, 64, blk, mma, 4, "fp16"), 32, 64);
  EXPECT_FALSE(has(t, "stmatrix")) << t;
}

TEST(LowerConvert, BytesMoveAsPackedWords) {
  auto as_i8 = [](int32_t i) { return static_cast<int32_t>(static_cast<int8_t>(i)); };
  auto as_u8 = [](int32_t i) { return i & 0xff; };
  std::string a = blocked({1, 16}, {16, 2}, {4, 1}, {1, 0});
  std::string b = blocked({4, 1}, {8, 4}, {1, 4}, {0, 1});
  std::string t = run_text(typed_convert_kernel(64, 64, a, b, 4, "i8"), 64, 64, as_i8);
  EXPECT_TRUE(has(t, "st.shared.v4.b32")) << t; // 16 bytes a thread
  EXPECT_TRUE(has(t, "prmt")) << t;
  EXPECT_FALSE(has(t, "st.shared.u8")) << t;
  t = run_text(typed_convert_kernel(64, 64, b, a, 4, "u8"), 64, 64, as_u8);
  EXPECT_TRUE(has(t, "ld.shared.v4.b32")) << t;
  // runs of 2 bytes stay single accesses
  run_text(typed_convert_kernel(32, 32, blocked({1, 2}, {4, 8}, {4, 1}, {1, 0}),
                                blocked({2, 1}, {8, 4}, {1, 4}, {0, 1}), 4, "i8"),
           32, 32, as_i8);
}

TEST(LowerConvert, ManyPairsSixteenBit) {
  std::vector<std::string> ls = {
      blocked({1, 1}, {1, 32}, {4, 1}, {1, 0}), blocked({1, 4}, {2, 16}, {2, 2}, {1, 0}),
      blocked({2, 2}, {4, 8}, {1, 4}, {1, 0}),  blocked({1, 8}, {8, 4}, {4, 1}, {0, 1}),
      "#mma<v=2, wpc=[4, 1], instr=[16, 8]>",   "#mma<v=2, wpc=[1, 4], instr=[16, 8]>"};
  for (const std::string &a : ls)
    for (const std::string &b : ls)
      run_text(typed_convert_kernel(32, 32, a, b, 4, "fp16"), 32, 32);
}

} // namespace
} // namespace tilec::lower::test
