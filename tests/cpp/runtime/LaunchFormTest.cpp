// The two forms of cuLaunchKernel's parameters: kernelParams (the default) and one `extra`
// buffer laid out as the driver reports the kernel's .params.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/Launcher.h"
#include "runtime/PtxCompiler.h"
#include "runtime_test_kernels.h"

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

// Restores the default form when a test ends.
struct FormScope {
  explicit FormScope(LaunchForm f) { set_launch_form(f); }
  ~FormScope() { set_launch_form(LaunchForm::KernelParams); }
};

} // namespace

TEST(LaunchForm, SwitchesProcessWide) {
  EXPECT_EQ(launch_form(), LaunchForm::KernelParams); // the default
  {
    FormScope extra(LaunchForm::ExtraBuffer);
    EXPECT_EQ(launch_form(), LaunchForm::ExtraBuffer);
  }
  EXPECT_EQ(launch_form(), LaunchForm::KernelParams);
}

// Every scalar kind (8-bit ones included, which tilec's own PTX never declares) arrives
// through the `extra` buffer as through kernelParams.
TEST(LaunchForm, ExtraBufferCarriesEveryKind) {
  if (!have_gpu())
    GTEST_SKIP() << "no CUDA driver or device";
  std::vector<KernelParam> params = {
      {"out", ParamKind::Ptr}, {"a", ParamKind::I8},  {"b", ParamKind::I16},
      {"c", ParamKind::I32},   {"d", ParamKind::I64}, {"h", ParamKind::F16},
      {"f", ParamKind::F32},   {"g", ParamKind::F64}, {"flag", ParamKind::I1},
      {"u", ParamKind::U32}};
  KernelBinary bin;
  bin.ptx = test_kernels::kParamsPtx;
  bin.meta.name = "params_kernel";
  bin.meta.num_warps = 1;
  bin.meta.params = params;
  GpuTarget t = device_props(0).target;
  bin.meta.arch = t.arch();
  bin.cubin = compile_ptx(bin.ptx, t, PtxOptions{}, "params_kernel", 0).image;
  GpuKernel k(std::move(bin));
  auto layout = k.param_buffer_layout(0);
  if (layout.empty())
    GTEST_SKIP() << "the driver predates cuFuncGetParamInfo (CUDA 12.4)";
  ASSERT_EQ(layout.size(), params.size());
  EXPECT_EQ(layout[1], (std::pair<uint32_t, uint32_t>{8, 1})); // .s8 right after the pointer
  DeviceContextScope scope(0);
  for (LaunchForm form : {LaunchForm::KernelParams, LaunchForm::ExtraBuffer}) {
    FormScope f(form);
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
    double fv, gv;
    std::memcpy(&fv, &got[5], 8);
    std::memcpy(&gv, &got[6], 8);
    EXPECT_EQ(fv, 0.25);
    EXPECT_EQ(gv, 1e300);
    EXPECT_EQ(got[7], 1);
    EXPECT_EQ(got[8], 0xfffffff0);
  }
}
