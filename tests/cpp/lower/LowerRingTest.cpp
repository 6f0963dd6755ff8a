// The shared-memory ring ops (local_alloc, async_copy, async_commit, async_wait,
// local_load) lowered from hand-written Tile IR: a tile is copied through a ring stage by
// cp.async (masked: a tail of zeros) and read back in another layout, then stored; the
// simulator's output must be the input (0 past the mask). The simulator fills a cp.async
// destination with 0xff until the issuing thread's wait_group, so a missing wait or barrier
// shows as NaNs.
#include "LowerTestUtil.h"
#include "codegen/PtxPrinter.h"
#include "ir/IRParser.h"
#include "layout/AllocateShared.h"
#include "layout/MmaLayouts.h"
#include "layout/WgmmaLayouts.h"
#include "lower/Lower.h"
#include "simt/Format.h"

namespace tilec::lower::test {
namespace {

std::string list(const std::vector<int> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string blocked(std::vector<int> spt, std::vector<int> tpw, std::vector<int> wpc,
                    std::vector<int> order) {
  return "#blocked<spt=" + list(spt) + ", tpw=" + list(tpw) + ", wpc=" + list(wpc) +
         ", order=" + list(order) + ">";
}

int log2i(int v) {
  int k = 0;
  while ((1 << k) < v)
    ++k;
  return k;
}

// A ring of `stages` [m, n] stages: offsets run along dim `inner` first; with `swizzle`,
// the 8-element chunks of each line are XOR-ed with the line index (mod 8).
std::string ring_type(int stages, int m, int n, const std::string &elem, int inner, bool swizzle) {
  int ext[2] = {m, n};
  std::vector<std::vector<int>> b;
  auto at = [&](int dim, int v) {
    std::vector<int> x = {0, 0, 0};
    x[static_cast<size_t>(1 + dim)] = v;
    return x;
  };
  for (int i = 1; i < ext[inner]; i *= 2)
    b.push_back(at(inner, i));
  for (int j = 1; j < ext[1 - inner]; j *= 2) {
    std::vector<int> x = at(1 - inner, j);
    if (swizzle && j < 8 && 8 * j < ext[inner])
      x[static_cast<size_t>(1 + inner)] = 8 * j;
    b.push_back(x);
  }
  for (int s = 1; s < (1 << log2i(stages)); s *= 2)
    b.push_back({s, 0, 0});
  std::string bases = "[";
  for (size_t i = 0; i < b.size(); ++i)
    bases += (i ? ", " : "") + list(b[i]);
  bases += "]";
  return "tile<" + std::to_string(stages) + "x" + std::to_string(m) + "x" + std::to_string(n) +
         "x" + elem + ", #linear<rank=3, offset=" + bases + ">>";
}

// Row-major indices of an M x N tile in layout l, as %<p>8.
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

struct RingCase {
  int m = 32, n = 64;
  int stages = 2;
  int inner = 1;        // the ring's contiguous dim
  bool swizzle = false; // XOR the 8-element chunks
  std::string a;        // the copy's layout (pointer tile)
  std::string b;        // local_load's result layout
  int warps = 4;
  bool const_stage = false; // the stage read: a constant (else computed at run time)
  int n_div = 16;           // the mask's bound's divisibility (1: the mask varies per element)
};

// x -> ring stage (stages - 1) by async_copy masked to the first `n` elements; local_load
// in layout b; stored to z.
std::string ring_kernel(const RingCase &k) {
  std::string M = std::to_string(k.m), N = std::to_string(k.n);
  std::string sh = "tile<" + M + "x" + N + "x";
  std::string buf = ring_type(k.stages, k.m, k.n, "fp16", k.inner, k.swizzle);
  std::string pa = sh + "ptr<fp16>, " + k.a + ">", pb = sh + "ptr<fp16>, " + k.b + ">";
  std::string last = std::to_string(k.stages - 1);
  std::string stage = k.const_stage ? "  %s = constant {value = " + last + "} : i32\n"
                                    : "  %pid = program_id {axis = 0} : i32\n"
                                      "  %sc = constant {value = " +
                                          last + "} : i32\n  %s = add %pid, %sc : i32\n";
  return "module {num_warps = " + std::to_string(k.warps) + ", tt.divisibility = [16, 16, " +
         std::to_string(k.n_div) + "]}\ntt.func @k(%x: ptr<fp16>, %z: ptr<fp16>, %n: i32) {\n" +
         index_tile(k.m, k.n, k.a, "a") + "  %px0 = splat %x : ptr<fp16> -> " + pa +
         "\n  %px = addptr %px0, %a8 : " + pa + ", " + sh + "i32, " + k.a + "> -> " + pa +
         "\n  %nn = splat %n : i32 -> " + sh + "i32, " + k.a +
         ">\n  %msk = cmp %a8, %nn {pred = \"lt\"} : " + sh + "i32, " + k.a + "> -> " + sh +
         "i1, " + k.a + ">\n  %buf = local_alloc : " + buf + "\n" + stage +
         "  %c0 = constant {value = 0} : i32\n"
         "  async_copy %buf, %c0, %px, %msk\n  async_commit\n"
         "  async_copy %buf, %s, %px, %msk\n  async_commit\n"
         "  async_wait {pending = 0}\n"
         "  %v = local_load %buf, %s : " +
         buf + ", i32 -> " + sh + "fp16, " + k.b + ">\n" + index_tile(k.m, k.n, k.b, "b") +
         "  %pz0 = splat %z : ptr<fp16> -> " + pb + "\n  %pz = addptr %pz0, %b8 : " + pb + ", " +
         sh + "i32, " + k.b + "> -> " + pb + "\n  store %pz, %v\n  return\n}\n";
}

// Lowers for `sm`, runs with the first `valid` elements unmasked; returns the Thread IR.
std::string run_ring(const RingCase &k, int valid, int sm = 90) {
  std::string text = ring_kernel(k);
  SCOPED_TRACE(text);
  std::unique_ptr<ir::Module> mod = ir::parse_module(text);
  layout::allocate_shared(*mod);
  LowerOptions lo;
  lo.sm = sm;
  simt::Function fn = lower_function(*mod, *mod->functions.front(), lo);
  size_t numel = static_cast<size_t>(k.m * k.n);
  std::vector<uint16_t> x(numel), z(numel, 0x7e00);
  for (size_t i = 0; i < numel; ++i)
    x[i] = static_cast<uint16_t>(0x3c00 + (i % 1000)); // 1.0 .. distinct halves
  simt::run(fn,
            {simt::SimArg::pointer(x.data()), simt::SimArg::pointer(z.data()),
             simt::SimArg::integer(valid)},
            {{reinterpret_cast<uint64_t>(x.data()), x.size() * 2, "x"},
             {reinterpret_cast<uint64_t>(z.data()), z.size() * 2, "z"}},
            {});
  for (size_t i = 0; i < numel; ++i) {
    uint16_t want = static_cast<int>(i) < valid ? x[i] : 0;
    if (z[i] != want) {
      ADD_FAILURE() << "element " << i << " is " << std::hex << z[i] << ", want " << want << "\n"
                    << simt::dump(fn);
      break;
    }
  }
  if (auto ptxas = runtime::find_ptxas())
    GpuKernelUnderTest::expect_ptxas(*ptxas, codegen::print_ptx(fn, codegen::PtxTarget{sm}), sm);
  return simt::dump(fn);
}

bool has(const std::string &s, const char *what) { return s.find(what) != std::string::npos; }
int count(const std::string &s, const std::string &what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
    ++n;
  return n;
}

const std::string kRows8 = blocked({1, 8}, {4, 8}, {4, 1}, {1, 0}); // 16-byte runs along n
const std::string kCols = blocked({2, 1}, {16, 2}, {1, 4}, {0, 1}); // runs along m

TEST(LowerRing, CopiesThroughAStage16ByteChunks) {
  RingCase k;
  k.a = kRows8;
  k.b = kCols;
  for (int valid : {32 * 64, 992, 0}) {
    std::string t = run_ring(k, valid);
    EXPECT_EQ(count(t, "cp.async.cg.shared.global"), 2 * 32 * 64 / (128 * 8)) << t;
    EXPECT_TRUE(has(t, "cp.async.wait_group 0")) << t;
    EXPECT_TRUE(has(t, "bar.sync")) << t;
  }
}

TEST(LowerRing, SwizzledStageAndConstantStage) {
  for (bool cst : {false, true}) {
    RingCase k;
    k.a = kRows8;
    k.b = blocked({1, 1}, {1, 32}, {4, 1}, {1, 0});
    k.swizzle = true;
    k.stages = 3;
    k.const_stage = cst;
    std::string t = run_ring(k, 784);
    EXPECT_TRUE(has(t, "cp.async.cg")) << t;
  }
}

TEST(LowerRing, NarrowRunsUse4And8ByteCopiesOrPlainStores) {
  // 2 elements a thread along n: 4-byte cp.async (.ca)
  RingCase k;
  k.a = blocked({1, 2}, {2, 16}, {4, 1}, {1, 0});
  k.b = kRows8;
  std::string t = run_ring(k, 2032); // n_div = 16: the bound must be a multiple of 16
  EXPECT_TRUE(has(t, "cp.async.ca.shared.global")) << t;
  // a mask that may change from one element to the next: element by element
  k.n_div = 1;
  t = run_ring(k, 2047);
  EXPECT_FALSE(has(t, "cp.async.ca") || has(t, "cp.async.cg")) << t;
  // the ring runs along m while the copy's runs go along n: single elements, no cp.async
  RingCase t2;
  t2.a = kRows8;
  t2.b = kRows8;
  t2.inner = 0;
  std::string u = run_ring(t2, 1504);
  EXPECT_FALSE(has(u, "cp.async.ca") || has(u, "cp.async.cg")) << u;
  EXPECT_TRUE(has(u, "st.shared")) << u;
}

TEST(LowerRing, Sm80) {
  RingCase k;
  k.a = kRows8;
  k.b = kCols;
  k.swizzle = true;
  std::string t = run_ring(k, 1232, 80);
  EXPECT_FALSE(has(t, "fence.proxy.async")) << t;
}

} // namespace
} // namespace tilec::lower::test

namespace tilec::lower::test {
namespace {

// ---- dots reading ring stages -----------------------------------------------------------

std::string bases_text(const layout::LinearLayout &stage, int stages) {
  std::vector<std::vector<int>> b;
  for (const auto &v : stage.in_dims().at(0).bases)
    b.push_back({0, v[0], v[1]});
  for (int s = 1; s < (1 << log2i(stages)); s *= 2)
    b.push_back({s, 0, 0});
  std::string out = "[";
  for (size_t i = 0; i < b.size(); ++i)
    out += (i ? ", " : "") + list(b[i]);
  return out + "]";
}

// Indices row * rs + col * cs of an M x N tile in layout l, as %<p>10.
std::string strided_index(int m, int n, const std::string &l, const std::string &p, int rs,
                          int cs) {
  std::string t = "tile<" + std::to_string(m) + "x" + std::to_string(n) + "xi32, " + l + ">";
  std::string x = index_tile(m, n, l, p);
  // index_tile computed row * n + col: redo it with the strides
  return x + "  %" + p + "r = constant {value = " + std::to_string(rs) + "} : " + t + "\n  %" + p +
         "c = constant {value = " + std::to_string(cs) + "} : " + t + "\n  %" + p + "9 = mul %" +
         p + "4, %" + p + "r : " + t + "\n  %" + p + "s = mul %" + p + "5, %" + p + "c : " + t +
         "\n  %" + p + "10 = add %" + p + "9, %" + p + "s : " + t + "\n";
}

struct DotRingCase {
  int m = 64, n = 64, k = 32, warps = 4, stages = 2;
  bool b_kmajor = false;      // B stored column-major (K contiguous)
  std::string la, lb;         // the copies' layouts
  std::string oa, ob, lc;     // local_load result layouts and the dot's
  std::string ring_a, ring_b; // ring buffer types
};

// z = a @ b: a [M, K] row-major from x, b [K, N] from y (row- or column-major) each copied
// into stage 1 of a ring, read in place (wgmma) or by ldmatrix (mma.sync).
std::string dot_ring_kernel(const DotRingCase &c) {
  auto T = [](int r, int q, const std::string &e, const std::string &l) {
    return "tile<" + std::to_string(r) + "x" + std::to_string(q) + "x" + e + ", " + l + ">";
  };
  std::string pa = T(c.m, c.k, "ptr<fp16>", c.la), pb = T(c.k, c.n, "ptr<fp16>", c.lb);
  std::string pc = T(c.m, c.n, "ptr<fp32>", c.lc), tc = T(c.m, c.n, "fp32", c.lc);
  std::string ta = T(c.m, c.k, "fp16", c.oa), tb = T(c.k, c.n, "fp16", c.ob);
  return "module {num_warps = " + std::to_string(c.warps) +
         ", tt.divisibility = [16, 16, 16]}\ntt.func @k(%x: ptr<fp16>, %y: ptr<fp16>, %z: "
         "ptr<fp32>) {\n" +
         strided_index(c.m, c.k, c.la, "a", c.k, 1) +
         strided_index(c.k, c.n, c.lb, "b", c.b_kmajor ? 1 : c.n, c.b_kmajor ? c.k : 1) +
         strided_index(c.m, c.n, c.lc, "c", c.n, 1) + "  %xa = splat %x : ptr<fp16> -> " + pa +
         "\n  %pa = addptr %xa, %a10 : " + pa + ", " + T(c.m, c.k, "i32", c.la) + " -> " + pa +
         "\n  %yb = splat %y : ptr<fp16> -> " + pb + "\n  %pb = addptr %yb, %b10 : " + pb + ", " +
         T(c.k, c.n, "i32", c.lb) + " -> " + pb + "\n  %ra = local_alloc : " + c.ring_a +
         "\n  %rb = local_alloc : " + c.ring_b +
         "\n  %pid = program_id {axis = 0} : i32\n  %one = constant {value = 1} : i32\n"
         "  %s = add %pid, %one : i32\n"
         "  async_copy %ra, %s, %pa\n  async_copy %rb, %s, %pb\n  async_commit\n"
         "  async_wait {pending = 0}\n  %a = local_load %ra, %s : " +
         c.ring_a + ", i32 -> " + ta + "\n  %b = local_load %rb, %s : " + c.ring_b + ", i32 -> " +
         tb + "\n  %acc = constant {value = 0.0} : " + tc + "\n  %d = dot %a, %b, %acc : " + ta +
         ", " + tb + ", " + tc + " -> " + tc + "\n  %zc = splat %z : ptr<fp32> -> " + pc +
         "\n  %pz = addptr %zc, %c10 : " + pc + ", " + T(c.m, c.n, "i32", c.lc) + " -> " + pc +
         "\n  store %pz, %d\n  return\n}\n";
}

std::string run_dot_ring(const DotRingCase &c, int sm) {
  std::string text = dot_ring_kernel(c);
  SCOPED_TRACE(text);
  std::unique_ptr<ir::Module> mod = ir::parse_module(text);
  layout::allocate_shared(*mod);
  LowerOptions lo;
  lo.sm = sm;
  simt::Function fn = lower_function(*mod, *mod->functions.front(), lo);
  std::vector<uint16_t> x(static_cast<size_t>(c.m * c.k)), y(static_cast<size_t>(c.k * c.n));
  std::vector<float> xf(x.size()), yf(y.size()), z(static_cast<size_t>(c.m * c.n), -1.0f);
  // encode v/4 exactly as fp16 by hand: |v| in 1..4 -> 0.25, 0.5, 0.75, 1.0
  auto half = [](int v) -> uint16_t {
    static const uint16_t mag[5] = {0, 0x3400, 0x3800, 0x3a00, 0x3c00};
    return static_cast<uint16_t>((v < 0 ? 0x8000 : 0) | mag[v < 0 ? -v : v]);
  };
  for (size_t i = 0; i < x.size(); ++i) { // multiples of 1/4: exact products and sums
    int v = static_cast<int>((i * 7 + 3) % 9) - 4;
    x[i] = half(v);
    xf[i] = v / 4.0f;
  }
  for (size_t i = 0; i < y.size(); ++i) {
    int v = static_cast<int>((i * 5 + 1) % 9) - 4;
    y[i] = half(v);
    yf[i] = v / 4.0f;
  }
  simt::run(fn,
            {simt::SimArg::pointer(x.data()), simt::SimArg::pointer(y.data()),
             simt::SimArg::pointer(z.data())},
            {{reinterpret_cast<uint64_t>(x.data()), x.size() * 2, "x"},
             {reinterpret_cast<uint64_t>(y.data()), y.size() * 2, "y"},
             {reinterpret_cast<uint64_t>(z.data()), z.size() * 4, "z"}},
            {});
  int bad = 0;
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      float want = 0;
      for (int kk = 0; kk < c.k; ++kk)
        want += xf[static_cast<size_t>(i * c.k + kk)] *
                yf[static_cast<size_t>(c.b_kmajor ? j * c.k + kk : kk * c.n + j)];
      float got = z[static_cast<size_t>(i * c.n + j)];
      if (got != want && bad++ < 5)
        ADD_FAILURE() << "z[" << i << "][" << j << "] = " << got << ", want " << want;
    }
  std::string t = simt::dump(fn);
  if (bad)
    ADD_FAILURE() << t;
  if (auto ptxas = runtime::find_ptxas())
    GpuKernelUnderTest::expect_ptxas(*ptxas, codegen::print_ptx(fn, codegen::PtxTarget{sm}), sm);
  return t;
}

std::string ring_of(const layout::LinearLayout &stage, int stages, int d0, int d1) {
  return "tile<" + std::to_string(stages) + "x" + std::to_string(d0) + "x" + std::to_string(d1) +
         "xfp16, #linear<rank=3, offset=" + bases_text(stage, stages) + ">>";
}

DotRingCase wgmma_case(int m, int n, int k, int warps, bool b_kmajor) {
  DotRingCase c;
  c.m = m;
  c.n = n;
  c.k = k;
  c.warps = warps;
  c.b_kmajor = b_kmajor;
  std::vector<int32_t> wg = layout::wgmma_warpgroups(m, n, warps);
  int32_t in = layout::wgmma_instr_n(m, n, warps);
  c.lc = "#mma<v=3, wpc=" + list({4 * wg[0], wg[1]}) + ", instr=" + list({64, in}) + ">";
  c.la = blocked({1, 8}, {8, 4}, {warps, 1}, {1, 0});
  c.lb = b_kmajor ? blocked({8, 1}, {4, 8}, {1, warps}, {0, 1})
                  : blocked({1, 8}, {4, 8}, {warps, 1}, {1, 0});
  c.oa = c.la;
  c.ob = c.lb;
  c.ring_a = ring_of(layout::wgmma_operand_smem(m, k, 2, false, false, 64).layout, 2, m, k);
  c.ring_b = ring_of(layout::wgmma_operand_smem(n, k, 2, !b_kmajor, true, in).layout, 2, k, n);
  return c;
}

TEST(LowerRing, WgmmaReadsStagesInPlace) {
  for (bool kmaj : {false, true}) {
    SCOPED_TRACE(kmaj ? "B K-major" : "B MN-major");
    std::string t = run_dot_ring(wgmma_case(64, 64, 32, 4, kmaj), 90);
    EXPECT_TRUE(has(t, "wgmma.mma_async")) << t;
    EXPECT_FALSE(has(t, "st.shared")) << t; // no operand stores: the copies fill the stages
    // cp.async writes only: no proxy fence (as in Triton), the wait and bar.sync suffice
    EXPECT_FALSE(has(t, "fence.proxy.async")) << t;
  }
  std::string t = run_dot_ring(wgmma_case(128, 128, 64, 8, false), 90);
  EXPECT_FALSE(has(t, "st.shared")) << t;
  // B's copy runs along K while its stage and memory run along N: element by element
  // through registers and st.shared (generic-proxy writes), so wgmma's reads need the fence
  DotRingCase narrow = wgmma_case(64, 64, 32, 4, false);
  narrow.lb = narrow.ob = blocked({8, 1}, {4, 8}, {1, 4}, {0, 1});
  t = run_dot_ring(narrow, 90);
  EXPECT_TRUE(has(t, "st.shared")) << t;
  EXPECT_TRUE(has(t, "fence.proxy.async")) << t;
}

} // namespace
} // namespace tilec::lower::test

namespace tilec::lower::test {
namespace {

DotRingCase mma_case(int m, int n, int k, int warps, bool b_kmajor, bool swizzle) {
  DotRingCase c;
  c.m = m;
  c.n = n;
  c.k = k;
  c.warps = warps;
  c.b_kmajor = b_kmajor;
  std::vector<int32_t> wpc = layout::mma_warps_per_cta({m, n}, warps);
  c.lc = "#mma<v=2, wpc=" + list({wpc[0], wpc[1]}) + ", instr=[16, 8]>";
  c.la = blocked({1, 8}, {8, 4}, {warps, 1}, {1, 0});
  c.lb = b_kmajor ? blocked({8, 1}, {4, 8}, {1, warps}, {0, 1})
                  : blocked({1, 8}, {4, 8}, {warps, 1}, {1, 0});
  c.oa = "#dot_op<idx=0, parent=" + c.lc + ", k_width=2>";
  c.ob = "#dot_op<idx=1, parent=" + c.lc + ", k_width=2>";
  c.ring_a = ring_type(2, m, k, "fp16", 1, swizzle);
  c.ring_b = ring_type(2, k, n, "fp16", b_kmajor ? 0 : 1, swizzle);
  return c;
}

TEST(LowerRing, MmaSyncReadsStagesByLdmatrix) {
  for (bool kmaj : {false, true})
    for (bool swz : {false, true}) {
      SCOPED_TRACE(std::string(kmaj ? "B K-major" : "B N-major") + (swz ? ", swizzled" : ""));
      std::string t = run_dot_ring(mma_case(64, 64, 32, 4, kmaj, swz), 80);
      EXPECT_TRUE(has(t, "ldmatrix")) << t;
      EXPECT_TRUE(has(t, "mma.sync")) << t;
      EXPECT_FALSE(has(t, "st.shared")) << t;
      EXPECT_FALSE(has(t, "ld.shared")) << t;
    }
  // 2 warps, another shape; on sm_90 too (no wgmma: the layouts say mma.sync)
  std::string t = run_dot_ring(mma_case(32, 64, 64, 2, false, true), 90);
  EXPECT_TRUE(has(t, "ldmatrix")) << t;
}

} // namespace
} // namespace tilec::lower::test
