// Shape ops (broadcast, expand_dims, reshape, permute/trans, join, split, cat) and casts
// between every pair of dtypes (fp8 included on sm_90; an error on sm_80).
#include <random>

#include "LowerTestUtil.h"

namespace tilec::lower::test {
namespace {

std::vector<int32_t> iota(size_t n, int32_t start = 0) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + static_cast<int32_t>(i);
  return v;
}

void shape_case(const std::string &body, size_t in_n, size_t out_n, int warps = 4) {
  SCOPED_TRACE(body);
  std::string src = "@triton.jit\n"
                    "def k(x_ptr, z_ptr):\n" +
                    body;
  GpuKernelUnderTest k(src, "k", {"*i32:16", "*i32:16"}, warps);
  Inputs in;
  in.buffer(iota(in_n, 1), "x_ptr");
  in.buffer(std::vector<int32_t>(out_n, 0), "z_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  k.expect_agree(in);
}

TEST(LowerShape, TransAndPermute) {
  for (int w : {1, 4, 8}) {
    shape_case("    r = tl.arange(0, 16)\n"
               "    c = tl.arange(0, 32)\n"
               "    x = tl.load(x_ptr + r[:, None] * 32 + c[None, :])\n"
               "    y = tl.trans(x)\n"
               "    tl.store(z_ptr + c[:, None] * 16 + r[None, :], y + 1)\n"
               "    tl.store(z_ptr + 512 + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, "
               ":], y)\n",
               512, 1024, w);
    shape_case(
        "    a = tl.arange(0, 4)\n"
        "    b = tl.arange(0, 8)\n"
        "    c = tl.arange(0, 2)\n"
        "    x = tl.load(x_ptr + a[:, None, None] * 16 + b[None, :, None] * 2 + c[None, None, :])\n"
        "    y = tl.permute(x, (2, 0, 1))\n"
        "    tl.store(z_ptr + c[:, None, None] * 32 + a[None, :, None] * 8 + b[None, None, :], "
        "y)\n",
        64, 64, w);
  }
}

TEST(LowerShape, ReshapeAndBroadcast) {
  shape_case(
      "    x = tl.load(x_ptr + tl.arange(0, 256))\n"
      "    y = tl.reshape(x, (16, 16))\n"
      "    s = tl.sum(y, axis=1)\n"
      "    tl.store(z_ptr + tl.arange(0, 16), s)\n"
      "    b = tl.broadcast_to(s[:, None], (16, 8))\n"
      "    tl.store(z_ptr + 16 + tl.arange(0, 16)[:, None] * 8 + tl.arange(0, 8)[None, :], b)\n"
      "    r = tl.reshape(y, (4, 64))\n"
      "    tl.store(z_ptr + 256 + tl.arange(0, 4)[:, None] * 64 + tl.arange(0, 64)[None, :], r)\n",
      256, 512);
}

TEST(LowerShape, JoinSplitCat) {
  shape_case("    a = tl.load(x_ptr + tl.arange(0, 64))\n"
             "    b = tl.load(x_ptr + 64 + tl.arange(0, 64))\n"
             "    j = tl.join(a, b)\n"
             "    tl.store(z_ptr + tl.arange(0, 64)[:, None] * 2 + tl.arange(0, 2)[None, :], j)\n"
             "    p, q = tl.split(j)\n"
             "    tl.store(z_ptr + 128 + tl.arange(0, 64), q - p)\n"
             "    c = tl.cat(a, b, can_reorder=True)\n"
             "    tl.store(z_ptr + 192 + tl.arange(0, 128), c)\n",
             128, 320);
}

TEST(LowerShape, ScalarExpandAndSmallTiles) {
  shape_case("    s = tl.load(x_ptr + 3)\n"
             "    t = tl.expand_dims(s, 0)\n"
             "    tl.store(z_ptr + tl.arange(0, 1), t)\n"
             "    x = tl.load(x_ptr + tl.arange(0, 2))\n"
             "    tl.store(z_ptr + 1 + tl.arange(0, 2), x * 3)\n",
             8, 4);
}

// Casts: z = x.to(DST) for every pair.
const char *kDtypes[] = {"int1",     "int8",    "int16",   "int32",      "int64",
                         "uint8",    "uint16",  "uint32",  "uint64",     "float16",
                         "bfloat16", "float32", "float64", "float8e4nv", "float8e5"};

int bytes_of(const std::string &d) {
  if (d == "int1" || d == "int8" || d == "uint8" || d == "float8e4nv" || d == "float8e5")
    return 1;
  if (d == "int16" || d == "uint16" || d == "float16" || d == "bfloat16")
    return 2;
  if (d == "int64" || d == "uint64" || d == "float64")
    return 8;
  return 4;
}

// Values of `d` that exercise the conversions: small and large, negative, fractional,
// and (for floats) specials.
std::vector<uint8_t> cast_inputs(const std::string &d, size_t n) {
  std::vector<double> vals = {0,   1,    -1,     2.5,   -2.5,   3.75,    -100.25, 127,  128,  255,
                              256, -129, 1000.5, 65504, -70000, 1e9,     3e9,     -3e9, 1e-3, 0.1,
                              448, 500,  57344,  1e20,  -0.0,   1.0 / 3, 7e-8,    2e-5,
                              61440, -61439}; // fp8e5: the tie above its largest value (saturates), and below
  std::vector<uint8_t> out;
  std::mt19937_64 g(7);
  for (size_t i = 0; i < n; ++i) {
    double v = i < vals.size() ? vals[i]
                               : static_cast<double>(static_cast<int64_t>(g() % 2001) - 1000) / 8;
    int b = bytes_of(d);
    uint8_t buf[8] = {0};
    if (d == "int1") {
      buf[0] = v != 0;
    } else if (d[0] == 'i' || d[0] == 'u') {
      int64_t x = static_cast<int64_t>(v);
      if (i >= vals.size())
        x = static_cast<int64_t>(g());
      std::memcpy(buf, &x, 8);
    } else if (d == "float64") {
      std::memcpy(buf, &v, 8);
    } else if (d == "float32") {
      float f = static_cast<float>(v);
      std::memcpy(buf, &f, 4);
    } else {
      // the narrow formats: random bit patterns cover every value (NaNs included)
      uint64_t x = g();
      std::memcpy(buf, &x, 8);
    }
    out.insert(out.end(), buf, buf + b);
  }
  return out;
}

std::string short_name(const std::string &d) {
  if (d == "int1")
    return "i1";
  if (d == "float16")
    return "fp16";
  if (d == "bfloat16")
    return "bf16";
  if (d == "float32")
    return "fp32";
  if (d == "float64")
    return "fp64";
  if (d == "float8e4nv")
    return "fp8e4nv";
  if (d == "float8e5")
    return "fp8e5";
  if (d[0] == 'u')
    return "u" + d.substr(4);
  return "i" + d.substr(3);
}

void cast_case(const std::string &from, const std::string &to, const std::string &rounding) {
  SCOPED_TRACE(from + " -> " + to + " " + rounding);
  std::string conv = "x.to(tl." + to +
                     (rounding.empty() ? "" : ", fp_downcast_rounding=\"" + rounding + "\"") + ")";
  std::string src = "@triton.jit\n"
                    "def k(x_ptr, z_ptr):\n"
                    "    offs = tl.arange(0, 64)\n"
                    "    x = tl.load(x_ptr + offs)\n"
                    "    tl.store(z_ptr + offs, " +
                    conv + ")\n";
  GpuKernelUnderTest k(src, "k", {"*" + short_name(from) + ":16", "*" + short_name(to) + ":16"});
  Inputs in;
  in.bufs.push_back(cast_inputs(from, 64));
  in.bufs.push_back(std::vector<uint8_t>(64 * static_cast<size_t>(bytes_of(to)), 0));
  in.names = {"x_ptr", "z_ptr"};
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  Outcome ref = k.run_interp(in), got = k.run_sim(in);
  // NaN payloads may differ: compare NaNs as NaNs
  if (to == "float32" || to == "float64" || to == "float16" || to == "bfloat16") {
    Compare c = to == "float32"   ? Compare::f32(0, 0)
                : to == "float64" ? Compare::f64(0, 0)
                                  : Compare::f16(0, 0);
    if (to == "bfloat16")
      c.kind = Compare::BF16;
    GpuKernelUnderTest::expect_close(ref.bufs[1], got.bufs[1], c, "z_ptr");
  } else if (to == "float8e4nv" || to == "float8e5") {
    for (size_t i = 0; i < ref.bufs[1].size(); ++i) {
      uint8_t a = ref.bufs[1][i], b = got.bufs[1][i];
      bool nan_a = to == "float8e5" ? (a & 0x7c) == 0x7c && (a & 3) : (a & 0x7f) == 0x7f;
      bool nan_b = to == "float8e5" ? (b & 0x7c) == 0x7c && (b & 3) : (b & 0x7f) == 0x7f;
      if (!(nan_a && nan_b)) {
        EXPECT_EQ(int(a), int(b)) << "element " << i;
      }
    }
  } else {
    GpuKernelUnderTest::expect_close(ref.bufs[1], got.bufs[1], Compare::exact(), "z_ptr");
  }
}

TEST(LowerCast, EveryPair) {
  for (const char *from : kDtypes)
    for (const char *to : kDtypes)
      if (std::string(from) != to)
        cast_case(from, to, "");
}

TEST(LowerCast, RoundTowardZero) {
  for (const char *to : {"float16", "bfloat16", "float32"})
    cast_case("float64", to, "rtz");
  cast_case("float32", "float16", "rtz");
  cast_case("float32", "bfloat16", "rtz");
}

TEST(LowerCast, Fp8NeedsSm89) {
  const char *src = R"(@triton.jit
def k(x_ptr, z_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr + offs, x.to(tl.float8e4nv))
)";
  pipeline::GpuCompileOptions go;
  go.sm = 80;
  try {
    pipeline::compile_to_ptx(kernel_source("k", src), specs({"*fp32:16", "*fp8e4nv:16"}), go,
                             nullptr);
    FAIL() << "expected a CompileError";
  } catch (const CompileError &e) {
    EXPECT_NE(e.message().find("needs sm_89"), std::string::npos) << e.message();
    EXPECT_EQ(e.loc().line, 5);
  }
}

TEST(LowerCast, BitcastsAndPointerCasts) {
  const char *src = R"(@triton.jit
def k(x_ptr, z_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr + offs, x.to(tl.int32, bitcast=True))
    h = x.to(tl.float16)
    tl.store(z_ptr + 64 + offs, h.to(tl.int16, bitcast=True).to(tl.int32))
    p = (z_ptr + 128).to(tl.pointer_type(tl.float32))
    tl.store(p + offs, x)
)";
  GpuKernelUnderTest k(src, "k", {"*fp32:16", "*i32:16"});
  Inputs in;
  std::vector<float> x(64);
  for (size_t i = 0; i < 64; ++i)
    x[i] = static_cast<float>(i) * 0.37f - 9.0f;
  in.buffer(x, "x_ptr");
  in.buffer(std::vector<int32_t>(192, 0), "z_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  k.expect_agree(in);
}

} // namespace
} // namespace tilec::lower::test

namespace tilec::lower::test {
namespace {

// 16 one-byte elements per thread: 16-byte accesses split into bytes and packed back.
TEST(LowerMemory, ByteElementsInWideAccesses) {
  const char *src = R"(@triton.jit
def k(a_ptr, b_ptr, m_ptr, z_ptr, w_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    m = tl.load(m_ptr + offs)
    tl.store(z_ptr + offs, tl.where(m, a + b.to(tl.int8), a - 1))
    tl.store(w_ptr + offs, (a > 0) & m)
)";
  GpuKernelUnderTest k(src, "k", {"*i8:16", "*u8:16", "*i1:16", "*i8:16", "*i1:16", "=2048"});
  EXPECT_NE(k.ptx().find("ld.global.v4.b32"), std::string::npos);
  Inputs in;
  std::vector<int8_t> a(4096);
  std::vector<uint8_t> b(4096), m(4096);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int8_t>(i * 37);
    b[i] = static_cast<uint8_t>(i * 11 + 5);
    m[i] = (i * 7) % 3 == 0;
  }
  in.buffer(a, "a_ptr");
  in.buffer(b, "b_ptr");
  in.buffer(m, "m_ptr");
  in.buffer(std::vector<int8_t>(4096, 0), "z_ptr");
  in.buffer(std::vector<uint8_t>(4096, 0), "w_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1), Arg::buffer(2), Arg::buffer(3), Arg::buffer(4)};
  in.grid = {2, 1, 1};
  k.expect_agree(in);
}

TEST(LowerMemory, CacheAndEvictionHints) {
  const char *src = R"(@triton.jit
def k(x_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(x_ptr + offs, cache_modifier=".cg")
    b = tl.load(x_ptr + offs, eviction_policy="evict_last")
    c = tl.load(x_ptr + offs, cache_modifier=".ca", eviction_policy="evict_first")
    d = tl.load(x_ptr + offs, volatile=True)
    tl.store(z_ptr + offs, a + b, cache_modifier=".cs")
    tl.store(z_ptr + BLOCK + offs, c + d, eviction_policy="evict_first")
    tl.store(z_ptr + 2 * BLOCK + offs, d, cache_modifier=".wt")
)";
  GpuKernelUnderTest k(src, "k", {"*fp32:16", "*fp32:16", "=512"});
  for (const char *f : {"ld.global.cg.v4.b32", "ld.global.L1::evict_last.v4.b32",
                        "ld.global.ca.v4.b32", "ld.volatile.global", "st.global.cs.v4.b32",
                        "st.global.L1::evict_first.v4.b32", "st.global.wt.v4.b32"})
    EXPECT_NE(k.ptx().find(f), std::string::npos) << f << "\n" << k.ptx();
  Inputs in;
  std::vector<float> x(512);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i) * 0.5f;
  in.buffer(x, "x_ptr");
  in.buffer(std::vector<float>(1536, 0.0f), "z_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  k.expect_agree(in);
}

// Masked fp16 loads with a per-element `other` tile and 8 halves per access.
TEST(LowerMemory, HalfVectorsWithOtherTile) {
  const char *src = R"(@triton.jit
def k(x_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    o = (offs * 2).to(tl.float16)
    x = tl.load(x_ptr + offs, mask=offs < n, other=o)
    tl.store(z_ptr + offs, x * 2, mask=offs < n + 8)
)";
  GpuKernelUnderTest k(src, "k", {"*fp16:16", "*fp16:16", "i32:16", "=2048"});
  EXPECT_NE(k.ptx().find("ld.global.v4.b32"), std::string::npos);
  Inputs in;
  std::vector<uint16_t> x(2048);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<uint16_t>(0x3c00 + (i % 64)); // 1.0 + small steps
  in.buffer(x, "x_ptr");
  in.buffer(std::vector<uint16_t>(2048, 0), "z_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1), Arg::integer(1024)};
  k.expect_agree(in);
}

} // namespace
} // namespace tilec::lower::test
