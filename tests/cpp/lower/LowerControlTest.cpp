// Control flow (if / for / while with carried scalars and tiles), program ids on three
// axes, atomics (every rmw op, cas, scalar and tile, masked, results used), device_print
// and device_assert: the SIMT simulator agrees with the tile interpreter.
#include <random>

#include "LowerTestUtil.h"

namespace tilec::lower::test {
namespace {

TEST(LowerControl, ForLoopCarriesTilesAndScalars) {
  const char *src = R"(@triton.jit
def k(x_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    total = 0
    for i in range(0, n):
        x = tl.load(x_ptr + i * BLOCK + offs)
        acc += x * i
        total += i
    for j in range(n, 0, -2):
        acc = acc - j
    tl.store(z_ptr + offs, acc + total)
)";
  GpuKernelUnderTest k(src, "k", {"*fp32:16", "*fp32:16", "i32", "=128"});
  Inputs in;
  std::vector<float> x(128 * 6);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i % 7) - 3.0f;
  in.buffer(x, "x_ptr");
  in.buffer(std::vector<float>(128, 0.0f), "z_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1), Arg::integer(6)};
  k.expect_agree(in);
}

TEST(LowerControl, RuntimeStepSign) {
  const char *src = R"(@triton.jit
def k(z_ptr, lo, hi, step):
    s = 0
    c = 0
    for i in range(lo, hi, step):
        s += i
        c += 1
    tl.store(z_ptr, s)
    tl.store(z_ptr + 1, c)
)";
  GpuKernelUnderTest k(src, "k", {"*i32:16", "i32", "i32", "i32"});
  for (auto [lo, hi, step] : {std::tuple{0, 10, 3}, {10, -3, -4}, {5, 5, 1}, {5, 0, 1}}) {
    Inputs in;
    in.buffer(std::vector<int32_t>(2, 0), "z_ptr");
    in.args = {Arg::buffer(0), Arg::integer(lo), Arg::integer(hi), Arg::integer(step)};
    k.expect_agree(in);
  }
}

TEST(LowerControl, IfElseWithResultsAndNesting) {
  const char *src = R"(@triton.jit
def k(x_ptr, z_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * BLOCK + offs)
    if pid % 2 == 0:
        y = x * 2
        if pid == 0:
            y = y + 100
    else:
        y = x - 1
    m = tl.max(y, axis=0)
    if m > 50:
        y = y - m
    tl.store(z_ptr + pid * BLOCK + offs, y)
)";
  GpuKernelUnderTest k(src, "k", {"*i32:16", "*i32:16", "=64"});
  Inputs in;
  std::vector<int32_t> x(64 * 4);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<int32_t>((i * 13) % 41) - 20;
  in.buffer(x, "x_ptr");
  in.buffer(std::vector<int32_t>(x.size(), 0), "z_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  in.grid = {4, 1, 1};
  k.expect_agree(in);
}

TEST(LowerControl, WhileLoop) {
  const char *src = R"(@triton.jit
def k(z_ptr, n):
    a = 0
    b = 1
    i = 0
    while i < n:
        a, b = b, a + b
        i += 1
    v = tl.full((32,), 1, tl.int32)
    while tl.sum(v, axis=0) < 1000:
        v = v * 2
    tl.store(z_ptr, a)
    tl.store(z_ptr + 1 + tl.arange(0, 32), v)
)";
  GpuKernelUnderTest k(src, "k", {"*i32:16", "i32"});
  Inputs in;
  in.buffer(std::vector<int32_t>(33, 0), "z_ptr");
  in.args = {Arg::buffer(0), Arg::integer(20)};
  k.expect_agree(in);
}

TEST(LowerControl, ProgramIdsOnThreeAxes) {
  const char *src = R"(@triton.jit
def k(z_ptr):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    nz = tl.num_programs(2)
    idx = (z * ny + y) * nx + x
    tl.store(z_ptr + idx, x * 10000 + y * 100 + z + nx * 1000000 + ny * 10000000 + nz * 100000000)
)";
  GpuKernelUnderTest k(src, "k", {"*i32:16"});
  Inputs in;
  in.buffer(std::vector<int32_t>(2 * 3 * 4, 0), "z_ptr");
  in.args = {Arg::buffer(0)};
  in.grid = {2, 3, 4};
  k.expect_agree(in);
}

// Atomics: every op on distinct addresses (old values compared), on addresses shared by
// several elements and on a scalar (final memory compared: old values then depend on the
// order of the updates).
void atomic_case(const std::string &op, const char *dtype, bool use_result) {
  SCOPED_TRACE(op + " " + dtype);
  std::string src = "@triton.jit\n"
                    "def k(c_ptr, v_ptr, r_ptr, BLOCK: tl.constexpr):\n"
                    "    pid = tl.program_id(0)\n"
                    "    offs = tl.arange(0, BLOCK)\n"
                    "    v = tl.load(v_ptr + pid * BLOCK + offs)\n"
                    "    old = tl." +
                    op + "(c_ptr + offs, v, mask=offs < BLOCK - 3)\n" +
                    (use_result ? "    tl.store(r_ptr + pid * BLOCK + offs, old)\n" : "") +
                    "    tl." + op +
                    "(c_ptr + BLOCK + offs % 4, v)\n"
                    "    s = tl." +
                    op + "(c_ptr + BLOCK + 4, (pid + 1).to(c_ptr.dtype.element_ty))\n";
  std::string sig = std::string("*") + dtype + ":16";
  GpuKernelUnderTest k(src, "k", {sig, sig, sig, "=32"});
  Inputs in;
  bool f = std::string(dtype) == "fp32";
  if (f) {
    in.buffer(std::vector<float>(40, 1.0f), "c_ptr");
    std::vector<float> v(64);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(i % 9) - 4;
    in.buffer(v, "v_ptr");
    in.buffer(std::vector<float>(64, 0.0f), "r_ptr");
  } else {
    in.buffer(std::vector<int32_t>(40, 5), "c_ptr");
    std::vector<int32_t> v(64);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<int32_t>((i * 7) % 13) - 6;
    in.buffer(v, "v_ptr");
    in.buffer(std::vector<int32_t>(64, 0), "r_ptr");
  }
  in.args = {Arg::buffer(0), Arg::buffer(1), Arg::buffer(2)};
  in.grid = {2, 1, 1};
  Outcome ref = k.run_interp(in), got = k.run_sim(in);
  bool order_free = op != "atomic_xchg"; // the last writer wins
  if (order_free)
    GpuKernelUnderTest::expect_close(ref.bufs[0], got.bufs[0], Compare::exact(), "c_ptr");
  // programs run in order in both: old values at distinct addresses agree
  GpuKernelUnderTest::expect_close(ref.bufs[2], got.bufs[2], Compare::exact(), "r_ptr");
}

TEST(LowerAtomic, RmwOps) {
  for (const char *op : {"atomic_add", "atomic_max", "atomic_min"})
    for (const char *dt : {"i32", "fp32"})
      for (bool use : {false, true})
        atomic_case(op, dt, use);
  for (const char *op : {"atomic_and", "atomic_or", "atomic_xor", "atomic_xchg"})
    for (bool use : {false, true})
      atomic_case(op, "i32", use);
}

TEST(LowerAtomic, GridWideCounterAndCas) {
  const char *src = R"(@triton.jit
def k(c_ptr, lock_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(c_ptr + offs, 1)
    tl.atomic_add(c_ptr + BLOCK, 1.0 * 0 + 2)
    old = tl.atomic_cas(lock_ptr, 0, tl.program_id(0) + 1)
    tl.atomic_max(c_ptr + BLOCK + 1, old)
)";
  GpuKernelUnderTest k(src, "k", {"*i32:16", "*i32:16", "=64"});
  Inputs in;
  in.buffer(std::vector<int32_t>(66, 0), "c_ptr");
  in.buffer(std::vector<int32_t>(1, 0), "lock_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  in.grid = {5, 1, 1};
  k.expect_agree(in);
}

TEST(LowerAtomic, ReplicatedLayoutUpdatesOnce) {
  // 8 elements on 128 threads: most threads hold copies; each element is updated once.
  const char *src = R"(@triton.jit
def k(c_ptr, r_ptr):
    offs = tl.arange(0, 8)
    old = tl.atomic_add(c_ptr + offs, offs + 1)
    tl.store(r_ptr + offs, old)
    tl.store(r_ptr + 8 + offs, tl.load(c_ptr + offs))
)";
  GpuKernelUnderTest k(src, "k", {"*i32:16", "*i32:16"});
  Inputs in;
  in.buffer(std::vector<int32_t>(8, 10), "c_ptr");
  in.buffer(std::vector<int32_t>(16, 0), "r_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  k.expect_agree(in);
}

TEST(LowerDebug, PrintTilesScalarsAndHex) {
  const char *src = R"(@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    rm = tl.arange(0, 4)
    rn = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + rm[:, None] * BLOCK + rn[None, :])
    tl.device_print("x", x)
    tl.device_print("s", tl.sum(x, axis=1), rm)
    tl.device_print("h", x.to(tl.int16), hex=True)
    tl.device_print("b", x > 3)
    tl.device_print("f", x.to(tl.float16) * 0.5)
    tl.device_print("p %d")
)";
  GpuKernelUnderTest k(src, "k", {"*i32:16", "=16"});
  Inputs in;
  std::vector<int32_t> x(64);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<int32_t>(i) - 20;
  in.buffer(x, "x_ptr");
  in.args = {Arg::buffer(0)};
  in.grid = {2, 1, 1};
  k.expect_agree(in);
}

TEST(LowerDebug, AssertFailsInTheSimulator) {
  const char *src = R"(@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 32))
    tl.device_assert(x < 10, "x is too large")
)";
  auto fs = kernel_source("k", src);
  pipeline::GpuCompileOptions go;
  go.pipeline.compile.debug = true;
  pipeline::CompiledGpuKernel g = pipeline::compile_to_ptx(fs, specs({"*i32:16"}), go, nullptr);
  EXPECT_NE(g.ptx.find("__assertfail"), std::string::npos);
  std::vector<int32_t> x(32, 1);
  x[17] = 12;
  simt::SimOptions so;
  try {
    simt::run(*g.thread_ir, {simt::SimArg::pointer(x.data())},
              {{reinterpret_cast<uint64_t>(x.data()), 128, "x_ptr"}}, so);
    FAIL() << "expected the assertion to fail";
  } catch (const simt::SimError &e) {
    EXPECT_NE(std::string(e.what()).find("x is too large"), std::string::npos) << e.what();
  }
  x[17] = 3;
  simt::run(*g.thread_ir, {simt::SimArg::pointer(x.data())},
            {{reinterpret_cast<uint64_t>(x.data()), 128, "x_ptr"}}, so);
}

} // namespace
} // namespace tilec::lower::test

namespace tilec::lower::test {
namespace {

// atomic_add on fp16 / fp64 / i64 and max on i64 / u32 / fp64, final memory compared.
TEST(LowerAtomic, OtherDtypes) {
  for (const char *dt : {"fp16", "fp64", "i64", "u32"}) {
    SCOPED_TRACE(dt);
    std::string src = std::string(R"(@triton.jit
def k(c_ptr, v_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(v_ptr + offs)
    tl.atomic_add(c_ptr + offs % 8, v)
)") + (std::string(dt) == "fp16" ? "" : "    tl.atomic_max(c_ptr + 8 + offs % 4, v)\n");
    std::string sig = std::string("*") + dt + ":16";
    GpuKernelUnderTest k(src, "k", {sig, sig, "=64"});
    Inputs in;
    int bytes = std::string(dt) == "fp16" ? 2 : std::string(dt) == "u32" ? 4 : 8;
    std::vector<uint8_t> c(16 * static_cast<size_t>(bytes), 0), v(64 * static_cast<size_t>(bytes));
    for (size_t i = 0; i < 64; ++i) {
      double x = static_cast<double>(static_cast<int>(i % 7) - 2); // small integers: exact sums
      uint8_t *p = &v[i * static_cast<size_t>(bytes)];
      if (std::string(dt) == "fp16") {
        uint16_t h =
            x == 0 ? 0
                   : static_cast<uint16_t>(
                         (x < 0 ? 0x8000 : 0) | ((std::ilogb(std::fabs(x)) + 15) << 10) |
                         ((static_cast<int>(std::fabs(x)) << (10 - std::ilogb(std::fabs(x)))) &
                          0x3ff));
        std::memcpy(p, &h, 2);
      } else if (std::string(dt) == "fp64") {
        std::memcpy(p, &x, 8);
      } else if (std::string(dt) == "i64") {
        int64_t y = static_cast<int64_t>(x) * 1000000007LL;
        std::memcpy(p, &y, 8);
      } else {
        uint32_t y = static_cast<uint32_t>(i * 2654435761u);
        std::memcpy(p, &y, 4);
      }
    }
    in.bufs = {c, v};
    in.names = {"c_ptr", "v_ptr"};
    in.args = {Arg::buffer(0), Arg::buffer(1)};
    k.expect_agree(in);
  }
}

TEST(LowerAtomic, Bf16AddNeedsSm90) {
  const char *src = R"(@triton.jit
def k(c_ptr, v_ptr):
    offs = tl.arange(0, 32)
    tl.atomic_add(c_ptr + offs, tl.load(v_ptr + offs))
)";
  pipeline::GpuCompileOptions go;
  go.sm = 80;
  try {
    pipeline::compile_to_ptx(kernel_source("k", src), specs({"*bf16:16", "*bf16:16"}), go, nullptr);
    FAIL() << "expected a CompileError";
  } catch (const CompileError &e) {
    EXPECT_NE(e.message().find("needs sm_90"), std::string::npos) << e.message();
  }
  go.sm = 90;
  pipeline::CompiledGpuKernel g = pipeline::compile_to_ptx(
      kernel_source("k", src), specs({"*bf16:16", "*bf16:16"}), go, nullptr);
  EXPECT_NE(g.ptx.find("add.noftz.bf16"), std::string::npos) << g.ptx;
}

} // namespace
} // namespace tilec::lower::test
