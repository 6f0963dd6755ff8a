// Tensor maps (runtime/TensorMap.h): the box text kernel metadata carries, TMA's rules on
// the tensor and the box, and the simulator's encoding (the driver's needs a GPU: the
// Python GPU tests run it through launches).
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/KernelBinary.h"
#include "runtime/TensorMap.h"
#include "support/Diagnostics.h"

using namespace tilec::runtime;

namespace {

TmaTensor tensor_2d(uint64_t base, int64_t rows, int64_t cols, int64_t stride) {
  TmaTensor t;
  t.base = base;
  t.dtype = "fp16";
  t.elem_bytes = 2;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.strides[0] = stride;
  t.strides[1] = 1;
  return t;
}

TmaBox box_2d(int32_t r, int32_t c, int swz) {
  TmaBox b;
  b.rank = 2;
  b.box[0] = r;
  b.box[1] = c;
  b.swizzle_bytes = swz;
  return b;
}

} // namespace

TEST(TensorMap, BoxTextRoundTrips) {
  TmaBox b = box_2d(128, 64, 128);
  EXPECT_EQ(tma_box_text(b), "b2x128x64s128");
  TmaBox back;
  ASSERT_TRUE(parse_tma_box("b2x128x64s128", back));
  EXPECT_EQ(back, b);
  b.nan_fill = true;
  ASSERT_TRUE(parse_tma_box(tma_box_text(b), back));
  EXPECT_EQ(back, b);
  for (const char *bad : {"", "b", "b0s0", "b2x64s128", "b2x64x64s96", "b2x64x512s0",
                          "b2x64x64s128x", "c2x64x64s128", "b6x1x1x1x1x1x1s0"})
    EXPECT_FALSE(parse_tma_box(bad, back)) << bad;
}

TEST(TensorMap, KernelParamsCarryTheBox) {
  auto p = kernel_param("a.tmap", "tmap:b2x64x64s128");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, ParamKind::TensorMap);
  EXPECT_EQ(kernel_param_kind_text(*p), "tmap:b2x64x64s128");
  EXPECT_FALSE(kernel_param("a.tmap", "tmap"));
  EXPECT_FALSE(kernel_param("a.tmap", "tmap:junk"));
  KernelMetadata m;
  m.name = "k";
  m.arch = "sm_90a";
  m.params = {{"x", ParamKind::Ptr}, *p};
  EXPECT_EQ(KernelMetadata::from_json(m.to_json()), m);
}

TEST(TensorMap, ScratchParamsCarryTheirBytes) {
  auto p = kernel_param("(global scratch)", "scratch:256");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, ParamKind::Scratch);
  EXPECT_EQ(p->scratch_bytes, 256);
  EXPECT_EQ(kernel_param_kind_text(*p), "scratch:256");
  for (const char *bad : {"scratch", "scratch:", "scratch:0", "scratch:-1", "scratch:1x"})
    EXPECT_FALSE(kernel_param("s", bad)) << bad;
  KernelMetadata m;
  m.name = "k";
  m.arch = "sm_90a";
  m.params = {{"x", ParamKind::Ptr}};
  EXPECT_EQ(scratch_bytes_per_program(m), 0);
  m.params.push_back(*p);
  EXPECT_EQ(scratch_bytes_per_program(m), 256);
  EXPECT_EQ(KernelMetadata::from_json(m.to_json()), m);
}

TEST(TensorMap, TmaRulesAreChecked) {
  TmaTensor t = tensor_2d(0x1000, 100, 72, 72);
  EXPECT_EQ(tensor_map_error(t, box_2d(64, 64, 128), "d"), "");
  EXPECT_NE(tensor_map_error(tensor_2d(0x1008, 100, 72, 72), box_2d(64, 64, 128), "d")
                .find("16-byte aligned"),
            std::string::npos);
  EXPECT_NE(tensor_map_error(tensor_2d(0x1000, 100, 72, 68), box_2d(64, 64, 128), "d")
                .find("multiples of 16 bytes"),
            std::string::npos);
  EXPECT_NE(tensor_map_error(t, box_2d(64, 128, 128), "d").find("swizzle"), std::string::npos);
  EXPECT_NE(tensor_map_error(t, box_2d(512, 64, 128), "d").find("box dim"), std::string::npos);
  TmaBox nan = box_2d(64, 64, 128);
  nan.nan_fill = true;
  TmaTensor ints = t;
  ints.dtype = "i16";
  EXPECT_NE(tensor_map_error(ints, nan, "d").find("NaN"), std::string::npos);
  EXPECT_THROW(
      {
        TensorMapBytes m;
        encode_sim_tensor_map(tensor_2d(0x1008, 100, 72, 72), box_2d(64, 64, 128), "d", m);
      },
      tilec::RuntimeError);
}

TEST(TensorMap, SimulatorMapsListDimsInnermostFirst) {
  TensorMapBytes bytes;
  encode_sim_tensor_map(tensor_2d(0x2000, 100, 72, 80), box_2d(64, 32, 64), "d", bytes);
  tilec::simt::SimTensorMap m;
  std::memcpy(&m, bytes.bytes, sizeof m);
  EXPECT_EQ(m.magic, tilec::simt::SimTensorMap::kMagic);
  EXPECT_EQ(m.rank, 2);
  EXPECT_EQ(m.elem_bytes, 2);
  EXPECT_EQ(m.swizzle_bytes, 64);
  EXPECT_EQ(m.base, 0x2000u);
  EXPECT_EQ(m.dims[0], 72u);
  EXPECT_EQ(m.dims[1], 100u);
  EXPECT_EQ(m.strides[0], 2u);
  EXPECT_EQ(m.strides[1], 160u);
  EXPECT_EQ(m.box[0], 32u);
  EXPECT_EQ(m.box[1], 64u);
}
