#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

#include "runtime/KernelBinary.h"
#include "runtime/Launcher.h"

using namespace tilec::runtime;

TEST(Metadata, JsonRoundTrip) {
  KernelMetadata m;
  m.name = "softmax_kernel";
  m.num_warps = 8;
  m.num_stages = 2;
  m.shared = 65536;
  m.arch = "sm_90a";
  m.compiler = "ptxas /usr/local/cuda/bin/ptxas \"quoted\"\\ \n\x01";
  m.params = {{"x", ParamKind::Ptr}, {"n", ParamKind::I32}, {"s", ParamKind::F32},
              {"flag", ParamKind::I1}, {"h", ParamKind::BF16}};
  std::string json = m.to_json();
  EXPECT_NE(json.find("\"num_warps\": 8"), std::string::npos);
  KernelMetadata back = KernelMetadata::from_json(json);
  EXPECT_EQ(back, m);
}

TEST(Metadata, RejectsMalformedText) {
  EXPECT_THROW(KernelMetadata::from_json(""), std::runtime_error);
  EXPECT_THROW(KernelMetadata::from_json("[1, 2]"), std::runtime_error);
  EXPECT_THROW(KernelMetadata::from_json("{\"format\": 2}"), std::runtime_error);
  KernelMetadata m;
  m.name = "k";
  std::string json = m.to_json();
  EXPECT_THROW(KernelMetadata::from_json(json.substr(0, json.size() / 2)), std::runtime_error);
  std::string bad_kind = json;
  m.params = {{"x", ParamKind::Ptr}};
  bad_kind = m.to_json();
  bad_kind.replace(bad_kind.find("\"ptr\""), 5, "\"p64\"");
  try {
    KernelMetadata::from_json(bad_kind);
    FAIL() << "accepted an unknown parameter kind";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("unknown parameter kind 'p64'"), std::string::npos);
  }
}

TEST(Metadata, ParamKindNames) {
  for (const char *n : {"ptr", "i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
                        "fp16", "bf16", "fp32", "fp64"}) {
    auto k = param_kind_from_name(n);
    ASSERT_TRUE(k) << n;
    EXPECT_STREQ(param_kind_name(*k), n);
  }
  EXPECT_FALSE(param_kind_from_name("f32"));
}

TEST(PackParam, IntegersAreExtendedFromTheirWidth) {
  EXPECT_EQ(pack_param(ParamKind::I32, -1, 0), ~uint64_t(0));
  EXPECT_EQ(pack_param(ParamKind::I32, 0x1'0000'0005, 0), 5u); // truncated to 32 bits
  EXPECT_EQ(pack_param(ParamKind::U32, -1, 0), 0xffffffffu);
  EXPECT_EQ(pack_param(ParamKind::I8, 0xff, 0), ~uint64_t(0));
  EXPECT_EQ(pack_param(ParamKind::U8, -1, 0), 0xffu);
  EXPECT_EQ(pack_param(ParamKind::I16, 0x8000, 0), 0xffff'ffff'ffff'8000u);
  EXPECT_EQ(pack_param(ParamKind::I64, INT64_MIN, 0), uint64_t(1) << 63);
  EXPECT_EQ(pack_param(ParamKind::U64, -1, 0), ~uint64_t(0));
  EXPECT_EQ(pack_param(ParamKind::I1, 7, 0), 1u);
  EXPECT_EQ(pack_param(ParamKind::I1, 0, 0), 0u);
  EXPECT_EQ(pack_param(ParamKind::Ptr, 0x7f00'1234'5670, 0), 0x7f00'1234'5670u);
}

TEST(PackParam, FloatsUseTheirOwnFormat) {
  float f = 1.5f;
  uint32_t fb;
  std::memcpy(&fb, &f, 4);
  EXPECT_EQ(pack_param(ParamKind::F32, 0, 1.5), fb);
  double d = -2.25;
  uint64_t db;
  std::memcpy(&db, &d, 8);
  EXPECT_EQ(pack_param(ParamKind::F64, 0, -2.25), db);
  EXPECT_EQ(pack_param(ParamKind::F16, 0, 1.0), 0x3c00u);
  EXPECT_EQ(pack_param(ParamKind::F16, 0, -2.0), 0xc000u);
  EXPECT_EQ(pack_param(ParamKind::F16, 0, 65504.0), 0x7bffu);
  EXPECT_EQ(pack_param(ParamKind::F16, 0, 65520.0), 0x7c00u);   // ties to even: overflow
  EXPECT_EQ(pack_param(ParamKind::F16, 0, 5.960464477539063e-08), 0x0001u); // 2^-24
  EXPECT_EQ(pack_param(ParamKind::F16, 0, 1.0 + 1.0 / 2048), 0x3c00u);     // tie -> even
  EXPECT_EQ(pack_param(ParamKind::F16, 0, 1.0 + 3.0 / 2048), 0x3c02u);     // tie -> even
  EXPECT_EQ(pack_param(ParamKind::BF16, 0, 1.0), 0x3f80u);
  EXPECT_EQ(pack_param(ParamKind::BF16, 0, -3.0), 0xc040u);
  EXPECT_EQ(pack_param(ParamKind::BF16, 0, 1.0 + 1.0 / 256), 0x3f80u); // tie -> even
}
