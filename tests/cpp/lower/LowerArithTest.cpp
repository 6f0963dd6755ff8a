// Elementwise arithmetic, comparisons, selects and math over every dtype: the SIMT
// simulator running the lowered kernel agrees with the tile interpreter.
#include <random>

#include "LowerTestUtil.h"
#include "ir/IRParser.h"
#include "lower/Lower.h"
#include "simt/Format.h"

namespace tilec::lower::test {
namespace {

struct DT {
  const char *name; // Triton / signature name
  int bytes;
  bool is_float;
  bool is_signed;
};

const DT kDtypes[] = {
    {"int8", 1, false, true},    {"int16", 2, false, true},   {"int32", 4, false, true},
    {"int64", 8, false, true},   {"uint8", 1, false, false},  {"uint16", 2, false, false},
    {"uint32", 4, false, false}, {"uint64", 8, false, false}, {"float16", 2, true, true},
    {"bfloat16", 2, true, true}, {"float32", 4, true, true},  {"float64", 8, true, true},
};

// Random bytes for n elements of `d`: integers anywhere in range (small divisors avoided
// by the callers), floats as small values exactly representable in the dtype.
std::vector<uint8_t> random_values(const DT &d, size_t n, unsigned seed, bool nonzero = false,
                                   int max_int = 0) {
  std::mt19937_64 g(seed);
  std::vector<uint8_t> out(n * static_cast<size_t>(d.bytes));
  for (size_t i = 0; i < n; ++i) {
    uint8_t *p = &out[i * static_cast<size_t>(d.bytes)];
    if (!d.is_float) {
      uint64_t v = g();
      if (max_int)
        v = v % static_cast<uint64_t>(max_int);
      if (nonzero && (v & ((d.bytes == 8 ? ~0ull : ((1ull << (8 * d.bytes)) - 1)))) == 0)
        v = 3;
      std::memcpy(p, &v, static_cast<size_t>(d.bytes));
      continue;
    }
    // k / 16 with k in [-64, 64]: exact in every float format here
    int k = static_cast<int>(g() % 129) - 64;
    if (nonzero && k == 0)
      k = 5;
    double v = k / 16.0;
    if (d.bytes == 8) {
      std::memcpy(p, &v, 8);
    } else if (d.bytes == 4) {
      float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
    } else {
      float f = static_cast<float>(v);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      uint16_t h;
      if (std::string(d.name) == "bfloat16") {
        h = static_cast<uint16_t>(b >> 16);
      } else {
        uint32_t sign = (b >> 16) & 0x8000;
        int e = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
        h = f == 0 ? 0
                   : static_cast<uint16_t>(sign | (static_cast<uint32_t>(e) << 10) |
                                           ((b >> 13) & 0x3ff));
      }
      std::memcpy(p, &h, 2);
    }
  }
  return out;
}

std::string sig_of(const DT &d) { return std::string("*") + d.name + ":16"; }

Compare cmp_of(const DT &d) {
  std::string n = d.name;
  if (n == "float32")
    return Compare::f32(2e-6, 1e-6);
  if (n == "float64")
    return Compare::f64();
  if (n == "float16")
    return Compare::f16(1e-3, 1e-3);
  if (n == "bfloat16") {
    Compare c;
    c.kind = Compare::BF16;
    c.rtol = 1e-2;
    c.atol = 1e-2;
    return c;
  }
  return Compare::exact();
}

// A kernel z = EXPR(x, y) over BLOCK elements.
std::string binary_kernel(const std::string &expr) {
  return "@triton.jit\n"
         "def k(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):\n"
         "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
         "    x = tl.load(x_ptr + offs)\n"
         "    y = tl.load(y_ptr + offs)\n"
         "    z = " +
         expr +
         "\n"
         "    tl.store(z_ptr + offs, z)\n";
}

void run_binary(const std::string &expr, const DT &a, const DT &b, const DT &r,
                bool nonzero_y = false, int max_int_y = 0) {
  SCOPED_TRACE(expr + " on " + a.name + ", " + b.name);
  GpuKernelUnderTest k(binary_kernel(expr), "k", {sig_of(a), sig_of(b), sig_of(r), "=256"});
  Inputs in;
  size_t n = 512;
  in.bufs.push_back(random_values(a, n, 11));
  in.bufs.push_back(random_values(b, n, 12, nonzero_y, max_int_y));
  in.bufs.push_back(std::vector<uint8_t>(n * static_cast<size_t>(r.bytes), 0));
  in.names = {"x_ptr", "y_ptr", "z_ptr"};
  in.args = {Arg::buffer(0), Arg::buffer(1), Arg::buffer(2)};
  in.grid = {2, 1, 1};
  k.expect_agree(in, {Compare::exact(), Compare::exact(), cmp_of(r)});
}

TEST(LowerArith, AddSubMulSameDtype) {
  for (const DT &d : kDtypes)
    for (const char *e : {"x + y", "x - y", "x * y"})
      run_binary(e, d, d, d);
}

TEST(LowerArith, IntegerDivisionAndRemainder) {
  for (const DT &d : kDtypes) {
    if (d.is_float)
      continue;
    run_binary("x // y", d, d, d, true);
    run_binary("x % y", d, d, d, true);
  }
}

TEST(LowerArith, FloatDivisionAndRemainder) {
  const DT f32 = kDtypes[10], f64 = kDtypes[11];
  run_binary("x / y", f32, f32, f32, true);
  run_binary("x / y", f64, f64, f64, true);
  run_binary("x % y", f32, f32, f32, true);
  run_binary("x % y", f64, f64, f64, true);
  run_binary("tl.div_rn(x, y)", f32, f32, f32, true);
}

TEST(LowerArith, BitwiseAndShifts) {
  for (const DT &d : kDtypes) {
    if (d.is_float)
      continue;
    run_binary("x & y", d, d, d);
    run_binary("x | y", d, d, d);
    run_binary("x ^ y", d, d, d);
    run_binary("x << y", d, d, d, false, d.bytes * 8 + 3); // includes over-wide shifts
    run_binary("x >> y", d, d, d, false, d.bytes * 8 + 3);
  }
}

TEST(LowerArith, MinimumMaximum) {
  for (const DT &d : kDtypes) {
    if (std::string(d.name) == "bfloat16")
      continue; // computed in fp32 by the front end (a different result dtype)
    run_binary("tl.minimum(x, y)", d, d, d);
    run_binary("tl.maximum(x, y)", d, d, d);
  }
}

TEST(LowerArith, ComparisonsAndWhere) {
  for (const DT &d : kDtypes)
    for (const char *op : {"<", "<=", ">", ">=", "==", "!="})
      run_binary(std::string("tl.where(x ") + op + " y, x, y)", d, d, d);
}

// A thread holding 32 contiguous columns, masked by `cols < n` with n a multiple of 16:
// the compare is constant over runs of 16 (axis info), so it is emitted once per run, and
// the selected values must still switch at n.
TEST(LowerArith, CompareConstantOverRunsIsEmittedOncePerRun) {
  const std::string l = "#blocked<spt=[32], tpw=[32], wpc=[1], order=[0]>";
  const std::string ti = "tile<1024xi32, " + l + ">", tf = "tile<1024xfp32, " + l + ">",
                    tp = "tile<1024xptr<fp32>, " + l + ">", tb = "tile<1024xi1, " + l + ">";
  std::string text = "module {num_warps = 1, tt.divisibility = [16, 16, 16]}\n"
                     "tt.func @k(%x: ptr<fp32>, %z: ptr<fp32>, %n: i32) {\n"
                     "  %c = arange {end = 1024, start = 0} : " +
                     ti +
                     "\n"
                     "  %nn = splat %n : i32 -> " +
                     ti +
                     "\n"
                     "  %m = cmp %c, %nn {pred = \"lt\"} : " +
                     ti + " -> " + tb +
                     "\n"
                     "  %px0 = splat %x : ptr<fp32> -> " +
                     tp +
                     "\n"
                     "  %px = addptr %px0, %c : " +
                     tp + ", " + ti + " -> " + tp +
                     "\n"
                     "  %v = load %px : " +
                     tp + " -> " + tf +
                     "\n"
                     "  %zero = constant {value = 0.0} : " +
                     tf +
                     "\n"
                     "  %y = select %m, %v, %zero : " +
                     tb + ", " + tf + ", " + tf + " -> " + tf +
                     "\n"
                     "  %pz0 = splat %z : ptr<fp32> -> " +
                     tp +
                     "\n"
                     "  %pz = addptr %pz0, %c : " +
                     tp + ", " + ti + " -> " + tp +
                     "\n"
                     "  store %pz, %y\n  return\n}\n";
  SCOPED_TRACE(text);
  std::unique_ptr<ir::Module> mod = ir::parse_module(text);
  simt::Function fn = lower_function(*mod, *mod->functions.front(), LowerOptions{});
  std::string dump = simt::dump(fn);
  size_t setps = 0;
  for (size_t at = dump.find("setp."); at != std::string::npos; at = dump.find("setp.", at + 1))
    ++setps;
  EXPECT_EQ(setps, 2u) << dump; // two runs of 16 in the thread's 32 columns
  for (int n : {0, 16, 48, 512, 1008, 1024}) {
    std::vector<float> x(1024), z(1024, -1.0f);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = 1.0f + static_cast<float>(i);
    simt::run(fn,
              {simt::SimArg::pointer(x.data()), simt::SimArg::pointer(z.data()),
               simt::SimArg::integer(n)},
              {{reinterpret_cast<uint64_t>(x.data()), x.size() * 4, "x"},
               {reinterpret_cast<uint64_t>(z.data()), z.size() * 4, "z"}},
              {});
    for (int i = 0; i < 1024; ++i)
      ASSERT_EQ(z[static_cast<size_t>(i)], i < n ? x[static_cast<size_t>(i)] : 0.0f)
          << "n = " << n << ", element " << i;
  }
}

TEST(LowerArith, MixedDtypesPromote) {
  const DT i8 = kDtypes[0], i32 = kDtypes[2], u8 = kDtypes[4], f16 = kDtypes[8], f32 = kDtypes[10],
           i64 = kDtypes[3];
  run_binary("x + y", i8, i32, i32);
  run_binary("x * y", u8, i32, i32);
  run_binary("x + y", f16, f32, f32);
  run_binary("x + y", i32, f16, f16);
  run_binary("x - y", i64, i32, i64);
}

// z = FN(x) for one dtype.
void run_unary(const std::string &expr, const DT &d, const DT &r, Compare c,
               bool positive = false) {
  SCOPED_TRACE(expr + " on " + d.name);
  std::string src = "@triton.jit\n"
                    "def k(x_ptr, z_ptr, BLOCK: tl.constexpr):\n"
                    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                    "    x = tl.load(x_ptr + offs)\n"
                    "    z = " +
                    expr +
                    "\n"
                    "    tl.store(z_ptr + offs, z)\n";
  GpuKernelUnderTest k(src, "k", {sig_of(d), sig_of(r), "=128"});
  Inputs in;
  std::vector<uint8_t> x = random_values(d, 256, 21, positive);
  if (positive && d.is_float && d.bytes == 4)
    for (size_t i = 0; i < 256; ++i) {
      float f;
      std::memcpy(&f, &x[i * 4], 4);
      f = std::fabs(f);
      std::memcpy(&x[i * 4], &f, 4);
    }
  if (positive && d.is_float && d.bytes == 8)
    for (size_t i = 0; i < 256; ++i) {
      double f;
      std::memcpy(&f, &x[i * 8], 8);
      f = std::fabs(f);
      std::memcpy(&x[i * 8], &f, 8);
    }
  in.bufs.push_back(x);
  in.bufs.push_back(std::vector<uint8_t>(256 * static_cast<size_t>(r.bytes), 0));
  in.names = {"x_ptr", "z_ptr"};
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  in.grid = {2, 1, 1};
  k.expect_agree(in, {Compare::exact(), c});
}

TEST(LowerArith, UnaryOps) {
  for (const DT &d : kDtypes) {
    run_unary("-x", d, d, cmp_of(d));
    if (!d.is_float)
      run_unary("~x", d, d, Compare::exact());
    run_unary("tl.abs(x)", d, d, cmp_of(d));
  }
}

TEST(LowerArith, MathFp32) {
  const DT f32 = kDtypes[10];
  Compare c = Compare::f32(3e-6, 3e-6);
  for (const char *e : {"tl.exp(x)", "tl.exp2(x)", "tl.sin(x)", "tl.cos(x)", "tl.erf(x)",
                        "tl.floor(x)", "tl.ceil(x)", "tl.sin(x * 37.0)", "tl.cos(x * 100.0)",
                        "tl.erf(x * 0.5)", "tl.fma(x, x, x)"})
    run_unary(e, f32, f32, c);
  for (const char *e : {"tl.log(x)", "tl.log2(x)", "tl.sqrt(x)", "tl.rsqrt(x)", "tl.sqrt_rn(x)"})
    run_unary(e, f32, f32, c, /*positive=*/true);
}

TEST(LowerArith, MathFp64) {
  const DT f64 = kDtypes[11];
  for (const char *e : {"tl.floor(x)", "tl.ceil(x)", "tl.fma(x, x, x)"})
    run_unary(e, f64, f64, Compare::f64());
  for (const char *e : {"tl.sqrt(x)", "tl.rsqrt(x)"})
    run_unary(e, f64, f64, Compare::f64(1e-15, 1e-15), /*positive=*/true);
  Compare c = Compare::f64(4e-15, 1e-15);
  for (const char *e : {"tl.exp(x)", "tl.exp2(x)", "tl.sin(x)", "tl.cos(x)", "tl.erf(x)",
                        "tl.exp(x * 150.0)", "tl.exp2(x * 250.0)", "tl.sin(x * 1000.0)",
                        "tl.cos(x * 33.0)", "tl.erf(x * 0.4)", "tl.erf(x * 2.0)"})
    run_unary(e, f64, f64, c);
  for (const char *e : {"tl.log(x)", "tl.log2(x)", "tl.log(x * 1e-310)", "tl.log2(x * 1e300)"})
    run_unary(e, f64, f64, c, /*positive=*/true);
}

TEST(LowerArith, Umulhi) {
  const DT i32 = kDtypes[2], u32 = kDtypes[6], i64 = kDtypes[3], u64 = kDtypes[7];
  run_binary("tl.umulhi(x, y)", i32, i32, i32);
  run_binary("tl.umulhi(x, y)", u32, u32, u32);
  run_binary("tl.umulhi(x, y)", i64, i64, i64);
  run_binary("tl.umulhi(x, y)", u64, u64, u64);
}

TEST(LowerArith, ScalarsAndConstants) {
  const char *src = R"(@triton.jit
def k(x_ptr, z_ptr, a, b: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    s = a * 3 + b
    z = x * s + 1.5 - (a // 2)
    tl.store(z_ptr + offs, z)
    tl.store(z_ptr + BLOCK, s * 1.0)
)";
  GpuKernelUnderTest k(src, "k", {"*fp32:16", "*fp32:16", "i32", "=7", "=64"});
  Inputs in;
  int x = in.buffer(std::vector<float>(64, 0.25f), "x_ptr");
  int z = in.buffer(std::vector<float>(65, 0.0f), "z_ptr");
  in.args = {Arg::buffer(x), Arg::buffer(z), Arg::integer(5)};
  k.expect_agree(in);
}

} // namespace
} // namespace tilec::lower::test
