// Reductions and scans: every axis of 1-D and 2-D tiles, several shapes and warp counts,
// integer (bitwise agreement) and float (tolerance) values, argmax/argmin, user combiners.
#include <random>

#include "LowerTestUtil.h"

namespace tilec::lower::test {
namespace {

template <class T> std::vector<T> random_ints(size_t n, unsigned seed, int lo, int hi) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (T &x : v)
    x = static_cast<T>(d(g));
  return v;
}

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-2, 2);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(g);
  return v;
}

// z = REDUCE(x) of an [M, N] tile along AXIS; z has the result's shape.
std::string reduce2d(const std::string &expr, int axis) {
  std::string st = axis == 0   ? "tl.store(z_ptr + tl.arange(0, N), z)"
                   : axis == 1 ? "tl.store(z_ptr + tl.arange(0, M), z)"
                               : "tl.store(z_ptr, z)";
  return "@triton.jit\n"
         "def k(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):\n"
         "    rm = tl.arange(0, M)\n"
         "    rn = tl.arange(0, N)\n"
         "    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])\n"
         "    z = " +
         expr +
         "\n"
         "    " +
         st + "\n";
}

void reduce_case(const std::string &expr, int axis, int m, int n, int warps, bool ints,
                 const char *out_sig) {
  SCOPED_TRACE(expr + " axis " + std::to_string(axis) + " " + std::to_string(m) + "x" +
               std::to_string(n) + " warps " + std::to_string(warps));
  GpuKernelUnderTest k(
      reduce2d(expr, axis), "k",
      {ints ? "*i32:16" : "*fp32:16", out_sig, "=" + std::to_string(m), "=" + std::to_string(n)},
      warps);
  Inputs in;
  size_t total = static_cast<size_t>(m) * static_cast<size_t>(n);
  size_t outn = axis == 0 ? static_cast<size_t>(n) : axis == 1 ? static_cast<size_t>(m) : 1;
  if (ints)
    in.buffer(random_ints<int32_t>(total, 31, -1000, 1000), "x_ptr");
  else
    in.buffer(random_floats(total, 32), "x_ptr");
  in.buffer(std::vector<int64_t>(outn, 0), "z_ptr"); // large enough for 8-byte results
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  k.expect_agree(in, {Compare::exact(), ints ? Compare::exact() : Compare::f32(1e-5, 1e-5)});
}

TEST(LowerReduce, SumMaxMinBothAxes) {
  for (auto [m, n, w] : {std::tuple{16, 64, 4}, {64, 16, 4}, {8, 8, 1}, {32, 128, 8}, {2, 256, 2}})
    for (int axis : {0, 1})
      for (const char *e : {"tl.sum(x, axis=AX)", "tl.max(x, axis=AX)", "tl.min(x, axis=AX)"}) {
        std::string expr = e;
        expr.replace(expr.find("AX"), 2, std::to_string(axis));
        reduce_case(expr, axis, m, n, w, true, "*i32:16");
        reduce_case(expr, axis, m, n, w, false, "*fp32:16");
      }
}

TEST(LowerReduce, ArgmaxArgmin) {
  for (auto [m, n, w] : {std::tuple{16, 64, 4}, {64, 16, 4}, {4, 1024, 4}})
    for (int axis : {0, 1}) {
      reduce_case("tl.argmax(x, axis=" + std::to_string(axis) + ")", axis, m, n, w, true,
                  "*i32:16");
      reduce_case("tl.argmin(x, axis=" + std::to_string(axis) + ")", axis, m, n, w, false,
                  "*i32:16");
    }
}

TEST(LowerReduce, ToScalar) {
  reduce_case("tl.sum(tl.sum(x, axis=1), axis=0)", 2, 32, 32, 4, true, "*i32:16");
  reduce_case("tl.max(tl.reshape(x, (1024,)), axis=0)", 2, 32, 32, 4, false, "*fp32:16");
}

TEST(LowerReduce, BitwiseAndUserCombiners) {
  const char *src = R"(@triton.jit
def k(x_ptr, z_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr, tl.reduce(x, 0, _xor))
    tl.store(z_ptr + 1, tl.xor_sum(x, axis=0))
    tl.store(z_ptr + 2, tl.reduce(x, 0, _max_abs))
    v, i = tl.reduce((x, offs), 0, _min_with_index)
    tl.store(z_ptr + 3, v)
    tl.store(z_ptr + 4, i)
)";
  auto fs = kernel_source("k", src);
  auto callee = [](const char *name, const char *text) {
    sema::Val v;
    v.kind = sema::Val::Kind::Function;
    v.fn = kernel_source(name, text);
    return v;
  };
  fs->globals["_xor"] = callee("_xor", "@triton.jit\ndef _xor(a, b):\n    return a ^ b\n");
  fs->globals["_max_abs"] =
      callee("_max_abs", "@triton.jit\ndef _max_abs(a, b):\n"
                         "    return tl.where(tl.abs(a) > tl.abs(b), a, b)\n");
  fs->globals["_min_with_index"] =
      callee("_min_with_index", "@triton.jit\ndef _min_with_index(a, ia, b, ib):\n"
                                "    lt = (a < b) | ((a == b) & (ia < ib))\n"
                                "    return tl.where(lt, a, b), tl.where(lt, ia, ib)\n");
  for (int warps : {1, 4}) {
    GpuKernelUnderTest k(fs, {"*i32:16", "*i32:16", "=512"}, warps);
    Inputs in;
    // distinct magnitudes: _max_abs is not commutative on ties (|a| == |b|), and its
    // result then depends on the reduction tree
    std::vector<int32_t> x(512);
    for (int i = 0; i < 512; ++i)
      x[static_cast<size_t>(i)] = ((i * 37) % 512 + 1) * ((i % 3) ? 1 : -1);
    in.buffer(x, "x_ptr");
    in.buffer(std::vector<int32_t>(5, 0), "z_ptr");
    in.args = {Arg::buffer(0), Arg::buffer(1)};
    k.expect_agree(in);
  }
}

TEST(LowerReduce, Int64AndFp16AndBool) {
  const char *src = R"(@triton.jit
def k(a_ptr, b_ptr, z_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(z_ptr, tl.sum(a.to(tl.int64) * 1000000007, axis=0))
    tl.store(z_ptr + 1, tl.max(b, axis=0).to(tl.int64))
    tl.store(z_ptr + 2, tl.sum((a > 0).to(tl.int32), axis=0).to(tl.int64))
)";
  GpuKernelUnderTest k(src, "k", {"*i32:16", "*fp16:16", "*i64:16", "=512"});
  Inputs in;
  in.buffer(random_ints<int32_t>(512, 41, -100000, 100000), "a_ptr");
  in.buffer(random_ints<uint16_t>(512, 42, 0, 0x3bff), "b_ptr");
  in.buffer(std::vector<int64_t>(3, 0), "z_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1), Arg::buffer(2)};
  k.expect_agree(in);
}

// Scans.
void scan_case(const std::string &expr, int axis, int m, int n, int warps, bool ints) {
  SCOPED_TRACE(expr + " " + std::to_string(m) + "x" + std::to_string(n) + " warps " +
               std::to_string(warps));
  std::string src = "@triton.jit\n"
                    "def k(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):\n"
                    "    rm = tl.arange(0, M)\n"
                    "    rn = tl.arange(0, N)\n"
                    "    offs = rm[:, None] * N + rn[None, :]\n"
                    "    x = tl.load(x_ptr + offs)\n"
                    "    z = " +
                    expr +
                    "\n"
                    "    tl.store(z_ptr + offs, z)\n";
  (void)axis;
  GpuKernelUnderTest k(src, "k",
                       {ints ? "*i32:16" : "*fp32:16", ints ? "*i32:16" : "*fp32:16",
                        "=" + std::to_string(m), "=" + std::to_string(n)},
                       warps);
  Inputs in;
  size_t total = static_cast<size_t>(m) * static_cast<size_t>(n);
  if (ints) {
    in.buffer(random_ints<int32_t>(total, 51, -50, 50), "x_ptr");
    in.buffer(std::vector<int32_t>(total, 0), "z_ptr");
  } else {
    in.buffer(random_floats(total, 52), "x_ptr");
    in.buffer(std::vector<float>(total, 0), "z_ptr");
  }
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  k.expect_agree(in, {Compare::exact(), ints ? Compare::exact() : Compare::f32(1e-4, 1e-4)});
}

TEST(LowerScan, CumsumBothAxes) {
  for (auto [m, n, w] : {std::tuple{16, 64, 4}, {64, 16, 4}, {8, 8, 1}, {4, 512, 4}, {128, 8, 8}})
    for (int axis : {0, 1}) {
      scan_case("tl.cumsum(x, axis=" + std::to_string(axis) + ")", axis, m, n, w, true);
      scan_case("tl.cumsum(x, axis=" + std::to_string(axis) + ")", axis, m, n, w, false);
      scan_case("tl.cumsum(x, axis=" + std::to_string(axis) + ", reverse=True)", axis, m, n, w,
                true);
    }
}

TEST(LowerScan, CumprodAndOneDimensional) {
  scan_case("tl.cumprod(x % 3 + 1, axis=1)", 1, 4, 32, 4, true);
  scan_case("tl.cumprod(x, axis=0, reverse=True)", 0, 16, 4, 2, false);
  scan_case("tl.reshape(tl.cumsum(tl.reshape(x, (2048,)), axis=0), (16, 128))", 0, 16, 128, 4,
            true);
}

} // namespace
} // namespace tilec::lower::test

namespace tilec::lower::test {
namespace {

// Rank-3 tiles: every axis reduced and scanned, several warp counts.
TEST(LowerReduce, ThreeDimensional) {
  for (int warps : {1, 2, 8})
    for (int axis : {0, 1, 2}) {
      SCOPED_TRACE("axis " + std::to_string(axis) + " warps " + std::to_string(warps));
      std::string ax = std::to_string(axis);
      std::string src = "@triton.jit\n"
                        "def k(x_ptr, s_ptr, c_ptr):\n"
                        "    a = tl.arange(0, 4)[:, None, None]\n"
                        "    b = tl.arange(0, 8)[None, :, None]\n"
                        "    c = tl.arange(0, 16)[None, None, :]\n"
                        "    offs = a * 128 + b * 16 + c\n"
                        "    x = tl.load(x_ptr + offs)\n"
                        "    s = tl.sum(x, axis=" +
                        ax +
                        ")\n"
                        "    m = tl.max(x, axis=" +
                        ax +
                        ")\n"
                        "    tl.store(c_ptr + offs, tl.cumsum(x, axis=" +
                        ax +
                        "))\n"
                        "    tl.store(s_ptr + tl.arange(0, S), tl.reshape(s, (S,)))\n"
                        "    tl.store(s_ptr + 128 + tl.arange(0, S), tl.reshape(m, (S,)))\n";
      std::string size = axis == 0 ? "128" : axis == 1 ? "64" : "32";
      for (size_t p = src.find("S"); p != std::string::npos; p = src.find("S", p + 1))
        if (src[p - 1] == ' ' || src[p - 1] == '(')
          src.replace(p, 1, size);
      GpuKernelUnderTest k(src, "k", {"*i32:16", "*i32:16", "*i32:16"}, warps);
      Inputs in;
      in.buffer(random_ints<int32_t>(512, 71, -500, 500), "x_ptr");
      in.buffer(std::vector<int32_t>(256, 0), "s_ptr");
      in.buffer(std::vector<int32_t>(512, 0), "c_ptr");
      in.args = {Arg::buffer(0), Arg::buffer(1), Arg::buffer(2)};
      k.expect_agree(in);
    }
}

} // namespace
} // namespace tilec::lower::test
