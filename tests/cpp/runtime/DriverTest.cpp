// The driver layer and launches of hand-written PTX. Tests that need a GPU skip when no
// CUDA driver or device is present (CI); scripts/gpu_check.sh runs them on a GPU machine.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/LaunchProfile.h"
#include "runtime/Launcher.h"
#include "runtime/PtxCompiler.h"
#include "runtime_test_kernels.h"

using namespace tilec;
using namespace tilec::runtime;

namespace {

bool have_gpu() {
  if (!driver_available())
    return false;
  try {
    return device_count() > 0;
  } catch (const CudaError &) {
    return false;
  }
}

#define REQUIRE_GPU()                                                                              \
  if (!have_gpu())                                                                                 \
  GTEST_SKIP() << "no CUDA driver or device"

GpuKernel make_kernel(const char *ptx, const std::string &name, std::vector<KernelParam> params,
                      int num_warps = 4, int shared = 0, bool with_cubin = true) {
  KernelBinary bin;
  bin.ptx = ptx;
  bin.meta.name = name;
  bin.meta.num_warps = num_warps;
  bin.meta.shared = shared;
  bin.meta.params = std::move(params);
  GpuTarget t = device_props(0).target;
  bin.meta.arch = t.arch();
  if (with_cubin) {
    Cubin c = compile_ptx(bin.ptx, t, PtxOptions{}, name, 0);
    bin.cubin = c.image;
    bin.meta.compiler = c.compiler;
  }
  return GpuKernel(std::move(bin));
}

void run_vector_add(GpuKernel &k) {
  const int n = 1000;
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * i;
    y[i] = 1000.0f - i;
  }
  DeviceContextScope scope(0);
  DeviceBuffer dx(n * 4), dy(n * 4), dout(n * 4);
  dx.upload(x.data(), n * 4);
  dy.upload(y.data(), n * 4);
  PackedParams p(4);
  p.slots[0] = pack_param(ParamKind::Ptr, static_cast<int64_t>(dx.ptr()), 0);
  p.slots[1] = pack_param(ParamKind::Ptr, static_cast<int64_t>(dy.ptr()), 0);
  p.slots[2] = pack_param(ParamKind::Ptr, static_cast<int64_t>(dout.ptr()), 0);
  p.slots[3] = pack_param(ParamKind::I32, n, 0);
  k.launch(0, LaunchGrid{(n + 127) / 128, 1, 1}, nullptr, p.ptrs.data());
  synchronize(0);
  dout.download(out.data(), n * 4);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], x[i] + y[i]) << i;
  EXPECT_EQ(last_launched_kernel(0), k.name());
}

const std::vector<KernelParam> kAddParams = {{"x_ptr", ParamKind::Ptr},
                                             {"y_ptr", ParamKind::Ptr},
                                             {"output_ptr", ParamKind::Ptr},
                                             {"n_elements", ParamKind::I32}};

} // namespace

TEST(Driver, MissingLibraryIsReportedCleanly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe"); // a fresh process: the driver loads once
  EXPECT_EXIT(
      {
        setenv("TILEC_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
        std::string why;
        bool ok = driver_available(&why);
        try {
          driver();
        } catch (const DriverNotFound &e) {
          bool good = !ok && std::string(e.what()).rfind("CUDA driver not found", 0) == 0 &&
                      why == e.what();
          std::exit(good ? 0 : 1);
        }
        std::exit(2);
      },
      testing::ExitedWithCode(0), "");
}

TEST(Driver, NoDriverOnThisMachineOrAWorkingOne) {
  std::string why;
  if (driver_available(&why)) {
    EXPECT_GE(driver_version(), 11000);
    return;
  }
  EXPECT_FALSE(why.empty());
  EXPECT_THROW(driver(), DriverNotFound);
  EXPECT_THROW(device_props(0), DriverNotFound);
  EXPECT_THROW(synchronize(), DriverNotFound);
  try {
    DeviceBuffer b(16);
    FAIL() << "allocated device memory without a driver";
  } catch (const CudaError &e) {
    EXPECT_NE(std::string(e.what()).find("CUDA driver"), std::string::npos) << e.what();
  }
}

TEST(Driver, ErrorsNameTheCallAndKernel) {
  REQUIRE_GPU();
  try {
    throw_cuda_error(CUDA_ERROR_ILLEGAL_ADDRESS, "cuLaunchKernel", "my_kernel");
  } catch (const CudaError &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("cuLaunchKernel"), std::string::npos) << m;
    EXPECT_NE(m.find("'my_kernel'"), std::string::npos) << m;
    EXPECT_NE(m.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << m;
    EXPECT_EQ(e.code(), CUDA_ERROR_ILLEGAL_ADDRESS);
  }
}

TEST(Launcher, DeviceProperties) {
  REQUIRE_GPU();
  const DeviceProps &p = device_props(0);
  EXPECT_GE(p.target.major, 7);
  EXPECT_GT(p.sm_count, 0);
  EXPECT_GE(p.max_shared_per_block, 48 * 1024);
  EXPECT_GE(p.max_shared_per_block_optin, p.max_shared_per_block);
  EXPECT_GE(p.max_grid[0], 65535);
  EXPECT_EQ(&device_props(0), &p); // cached
  EXPECT_THROW(device_props(device_count() + 1), std::exception);
}

TEST(Launcher, VectorAddFromPtxasCubin) {
  REQUIRE_GPU();
  GpuKernel k = make_kernel(test_kernels::kVectorAddPtx, "add_kernel", kAddParams);
  run_vector_add(k);
  EXPECT_GT(k.num_regs(0), 0);
  EXPECT_EQ(k.spill_bytes(0), 0);
}

TEST(Launcher, VectorAddThroughTheDriverJit) {
  REQUIRE_GPU();
  Cubin c = compile_with_driver(test_kernels::kVectorAddPtx, PtxOptions{}, "add_kernel", 0);
  EXPECT_EQ(c.image.substr(0, 4), std::string("\x7f"
                                              "ELF",
                                              4));
  KernelBinary bin;
  bin.ptx = test_kernels::kVectorAddPtx;
  bin.cubin = c.image;
  bin.meta.name = "add_kernel";
  bin.meta.params = kAddParams;
  GpuKernel k(std::move(bin));
  run_vector_add(k);
}

TEST(Launcher, PtxOnlyBinaryIsJitCompiledAtLoad) {
  REQUIRE_GPU();
  GpuKernel k = make_kernel(test_kernels::kVectorAddPtx, "add_kernel", kAddParams, 4, 0,
                            /*with_cubin=*/false);
  run_vector_add(k);
}

TEST(Launcher, LaunchWithNoCurrentContextUsesThePrimaryContext) {
  REQUIRE_GPU();
  GpuKernel k = make_kernel(test_kernels::kVectorAddPtx, "add_kernel", kAddParams);
  ASSERT_EQ(driver().cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  run_vector_add(k); // DeviceContextScope inside sets the primary context
  EXPECT_EQ(current_device(), 0);
}

TEST(Launcher, ScalarParametersArePackedByKind) {
  REQUIRE_GPU();
  std::vector<KernelParam> params = {
      {"out", ParamKind::Ptr}, {"a", ParamKind::I8},  {"b", ParamKind::I16}, {"c", ParamKind::I32},
      {"d", ParamKind::I64},   {"h", ParamKind::F16}, {"f", ParamKind::F32}, {"g", ParamKind::F64},
      {"flag", ParamKind::I1}, {"u", ParamKind::U32}};
  GpuKernel k = make_kernel(test_kernels::kParamsPtx, "params_kernel", params, 1);
  DeviceContextScope scope(0);
  DeviceBuffer out(9 * 8);
  PackedParams p(params.size());
  p.slots[0] = pack_param(ParamKind::Ptr, static_cast<int64_t>(out.ptr()), 0);
  p.slots[1] = pack_param(ParamKind::I8, -5, 0);
  p.slots[2] = pack_param(ParamKind::I16, -300, 0);
  p.slots[3] = pack_param(ParamKind::I32, -70000, 0);
  p.slots[4] = pack_param(ParamKind::I64, -(int64_t(1) << 40), 0);
  p.slots[5] = pack_param(ParamKind::F16, 0, -1.5);
  p.slots[6] = pack_param(ParamKind::F32, 0, 0.25);
  p.slots[7] = pack_param(ParamKind::F64, 0, 1e300);
  p.slots[8] = pack_param(ParamKind::I1, 1, 0);
  p.slots[9] = pack_param(ParamKind::U32, 0xfffffff0u, 0);
  k.launch(0, LaunchGrid{}, nullptr, p.ptrs.data());
  synchronize(0);
  int64_t got[9];
  out.download(got, sizeof got);
  EXPECT_EQ(got[0], -5);
  EXPECT_EQ(got[1], -300);
  EXPECT_EQ(got[2], -70000);
  EXPECT_EQ(got[3], -(int64_t(1) << 40));
  EXPECT_EQ(got[4], 0xbe00); // fp16 -1.5
  double f, g;
  std::memcpy(&f, &got[5], 8);
  std::memcpy(&g, &got[6], 8);
  EXPECT_EQ(f, 0.25);
  EXPECT_EQ(g, 1e300);
  EXPECT_EQ(got[7], 1);
  EXPECT_EQ(got[8], 0xfffffff0);
}

TEST(Launcher, DynamicSharedMemoryAboveTheDefaultLimitIsOptedIn) {
  REQUIRE_GPU();
  const DeviceProps &props = device_props(0);
  int nbytes = 64 * 1024 + 1024;
  if (nbytes > props.max_shared_per_block_optin)
    GTEST_SKIP() << "device offers less than 65 KB of shared memory per block";
  std::vector<KernelParam> params = {{"out", ParamKind::Ptr}, {"nbytes", ParamKind::U32}};
  GpuKernel k = make_kernel(test_kernels::kSharedPtx, "smem_kernel", params, 8, nbytes);
  DeviceContextScope scope(0);
  DeviceBuffer out(256 * 4);
  PackedParams p(2);
  p.slots[0] = pack_param(ParamKind::Ptr, static_cast<int64_t>(out.ptr()), 0);
  p.slots[1] = pack_param(ParamKind::U32, nbytes, 0);
  k.launch(0, LaunchGrid{}, nullptr, p.ptrs.data());
  synchronize(0);
  std::vector<uint32_t> got(256);
  out.download(got.data(), 256 * 4);
  for (uint32_t t = 0; t < 256; ++t)
    ASSERT_EQ(got[t], (t + 1) % 256) << t;
}

TEST(Launcher, TooMuchSharedMemoryIsOutOfResources) {
  REQUIRE_GPU();
  int optin = device_props(0).max_shared_per_block_optin;
  std::vector<KernelParam> params = {{"out", ParamKind::Ptr}, {"nbytes", ParamKind::U32}};
  GpuKernel k = make_kernel(test_kernels::kSharedPtx, "smem_kernel", params, 8, optin + 1024);
  PackedParams p(2);
  try {
    k.launch(0, LaunchGrid{}, nullptr, p.ptrs.data());
    FAIL() << "launched with more shared memory than the device has";
  } catch (const OutOfResources &e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("out of resources: shared memory", 0), 0u) << m;
    EXPECT_NE(m.find("smem_kernel"), std::string::npos) << m;
    EXPECT_EQ(e.required(), optin + 1024);
    EXPECT_EQ(e.limit(), optin);
  }
}

TEST(Launcher, GridLimitsAndEmptyGrids) {
  REQUIRE_GPU();
  GpuKernel k = make_kernel(test_kernels::kVectorAddPtx, "add_kernel", kAddParams);
  PackedParams p(4); // null pointers: nothing may run
  k.launch(0, LaunchGrid{0, 1, 1}, nullptr, p.ptrs.data());
  k.launch(0, LaunchGrid{1, 0, 1}, nullptr, p.ptrs.data());
  try {
    k.launch(0, LaunchGrid{1, 70000, 1}, nullptr, p.ptrs.data());
    FAIL() << "a grid over the device's limits was launched";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the device's limits"), std::string::npos);
  }
  synchronize(0);
}

namespace {

// Launches the one-parameter kernel `name` of `ptx` in a child process (its fault poisons
// the context) and expects the next synchronisation's CudaError to name it and say `wanted`.
void expect_fault_report(const char *ptx, const std::string &name,
                         const std::vector<std::string> &wanted) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        GpuKernel k = make_kernel(ptx, name, {{"unused", ParamKind::Ptr}}, 1);
        PackedParams p(1);
        k.launch(0, LaunchGrid{}, nullptr, p.ptrs.data());
        try {
          synchronize();
        } catch (const CudaError &e) {
          std::string m = e.what();
          bool good = m.find(name) != std::string::npos && e.kernel() == name;
          for (const std::string &w : wanted)
            good = good && m.find(w) != std::string::npos;
          std::exit(good ? 0 : 1);
        }
        std::exit(2);
      },
      testing::ExitedWithCode(0), "");
}

} // namespace

TEST(Launcher, FaultingKernelIsNamedAtTheNextSynchronisation) {
  REQUIRE_GPU();
  expect_fault_report(test_kernels::kFaultPtx, "fault_kernel", {"CUDA_ERROR_ILLEGAL_ADDRESS"});
}

TEST(Launcher, TrapNotesAreReadFromThePtxHeader) {
  EXPECT_EQ(trap_notes(test_kernels::kTrapPtx),
            "kernels.py:12: the base must be 16-byte aligned; kernels.py:14: the strides must be "
            "multiples of 16 bytes");
  EXPECT_EQ(trap_notes(test_kernels::kFaultPtx), "");
  // only the header counts: a note after the first directive is not one
  EXPECT_EQ(trap_notes(".version 8.0\n// tilec trap: x.py:1: late\n"), "");
}

TEST(Launcher, TrappingKernelsFaultNamesItsChecks) {
  REQUIRE_GPU();
  expect_fault_report(test_kernels::kTrapPtx, "trap_kernel",
                      {"kernels.py:12: the base must be 16-byte aligned"});
}

TEST(LaunchProfile, HostTimedSamplesNeedNoDriver) {
  static const std::string name = "host_kernel";
  profile::drain(); // what earlier tests left
  uint64_t before = profile::count();
  profile::set_context(3);
  profile::record_host(&name, 1, 100, 50);
  profile::set_context(4);
  profile::record_host(&name, 0, 200, 60);
  std::vector<profile::Sample> s = profile::drain();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(profile::count() - before, 2u);
  EXPECT_EQ(*s[0].kernel, "host_kernel");
  EXPECT_EQ(s[0].device, 1);
  EXPECT_EQ(s[0].context, 3);
  EXPECT_EQ(s[0].start_ns, 100);
  EXPECT_EQ(s[0].ns, 50);
  EXPECT_EQ(s[1].context, 4);
  EXPECT_TRUE(profile::drain().empty());
}

TEST(LaunchProfile, LaunchesAreTimedOnTheDeviceWhileOn) {
  REQUIRE_GPU();
  GpuKernel k = make_kernel(test_kernels::kVectorAddPtx, "add_kernel", kAddParams);
  profile::drain();
  profile::set_context(7);
  profile::enable(true);
  run_vector_add(k);
  profile::set_context(8);
  run_vector_add(k);
  profile::enable(false);
  run_vector_add(k); // not sampled
  std::vector<profile::Sample> s = profile::drain();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(*s[0].kernel, "add_kernel");
  EXPECT_EQ(s[0].context, 7);
  EXPECT_EQ(s[1].context, 8);
  EXPECT_EQ(s[0].device, 0);
  EXPECT_LE(s[0].start_ns, s[1].start_ns);
  for (const profile::Sample &x : s) {
    EXPECT_GT(x.ns, 0);
    EXPECT_LT(x.ns, 1000000000); // a tiny kernel: far below a second
  }
}

TEST(LaunchProfile, ManyLaunchesReuseTheirEvents) {
  REQUIRE_GPU(); // more launches than stay in flight (32768): finished ones are timed early
  GpuKernel k = make_kernel(test_kernels::kVectorAddPtx, "add_kernel", kAddParams);
  DeviceContextScope scope(0);
  DeviceBuffer buf(4096);
  PackedParams p(4);
  for (int i = 0; i < 3; ++i)
    p.slots[i] = pack_param(ParamKind::Ptr, static_cast<int64_t>(buf.ptr()), 0);
  p.slots[3] = pack_param(ParamKind::I32, 1024, 0);
  profile::drain();
  profile::enable(true);
  const int n = 40000;
  for (int i = 0; i < n; ++i)
    k.launch(0, LaunchGrid{8, 1, 1}, nullptr, p.ptrs.data());
  profile::enable(false);
  std::vector<profile::Sample> s = profile::drain();
  ASSERT_EQ(s.size(), size_t(n));
  for (const profile::Sample &x : s)
    ASSERT_GT(x.ns, 0);
}
