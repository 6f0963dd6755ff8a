// The `extra` launch form's parameter buffer: offsets and sizes as tilec's PTX declares the
// .params (tests/python/test_gpu_launch_forms.py checks them against real PTX).
#include <gtest/gtest.h>

#include "runtime/Launcher.h"

using namespace tilec::runtime;

TEST(LaunchForm, ParamBufferLayout) {
  KernelMetadata m;
  m.name = "k";
  m.params = {{"x", ParamKind::Ptr}, {"flag", ParamKind::I1}, {"b", ParamKind::I8},
              {"h", ParamKind::F16}, {"n", ParamKind::I64},   {"s", ParamKind::F32},
              {"u", ParamKind::U8},  {"d", ParamKind::F64}};
  ParamLayout l = param_layout(m);
  EXPECT_EQ(l.sizes, (std::vector<uint32_t>{8, 4, 2, 2, 8, 4, 2, 8}));
  EXPECT_EQ(l.offsets, (std::vector<uint32_t>{0, 8, 12, 14, 16, 24, 28, 32}));
  EXPECT_EQ(l.size, 40u);
}

TEST(LaunchForm, SeedAddKernel) {
  KernelMetadata m;
  m.name = "add_kernel";
  m.params = {{"x_ptr", ParamKind::Ptr},
              {"y_ptr", ParamKind::Ptr},
              {"output_ptr", ParamKind::Ptr},
              {"n_elements", ParamKind::I32}};
  ParamLayout l = param_layout(m);
  EXPECT_EQ(l.offsets, (std::vector<uint32_t>{0, 8, 16, 24}));
  EXPECT_EQ(l.size, 28u);
  EXPECT_EQ(param_layout(KernelMetadata{}).size, 0u);
}

TEST(LaunchForm, SwitchesProcessWide) {
  EXPECT_EQ(launch_form(), LaunchForm::KernelParams); // the default
  set_launch_form(LaunchForm::ExtraBuffer);
  EXPECT_EQ(launch_form(), LaunchForm::ExtraBuffer);
  set_launch_form(LaunchForm::KernelParams);
  EXPECT_EQ(launch_form(), LaunchForm::KernelParams);
}
