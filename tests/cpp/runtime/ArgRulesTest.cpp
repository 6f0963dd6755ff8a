// The launch arguments' specialisation rules (runtime/ArgRules.h), which the C++ fast path
// and the Python launch paths share.
#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/ArgRules.h"

using namespace tilec::runtime;

TEST(ArgRules, IntKindsAndSpecialisation) {
  EXPECT_EQ(int_spec(INT32_MAX, false, true).kind, IntKind::I32);
  EXPECT_EQ(int_spec(INT32_MIN, false, true).kind, IntKind::I32);
  EXPECT_EQ(int_spec(int64_t{INT32_MAX} + 1, false, true).kind, IntKind::I64);
  EXPECT_EQ(int_spec(int64_t{INT32_MIN} - 1, false, true).kind, IntKind::I64);
  EXPECT_EQ(int_spec(-1, true, true).kind, IntKind::U64); // 2^64 - 1
  EXPECT_STREQ(int_kind_name(IntKind::U64), "u64");
  IntSpec s = int_spec(32, false, true);
  EXPECT_TRUE(s.div16);
  EXPECT_FALSE(s.one);
  EXPECT_TRUE(int_spec(1, false, true).one);
  EXPECT_TRUE(int_spec(-16, false, true).div16);
  // do_not_specialize: the type only
  s = int_spec(1, false, false);
  EXPECT_FALSE(s.one || s.div16);
  // 2^63 + 16 as u64: divisible by 16 by its unsigned value, never "one"
  s = int_spec(static_cast<int64_t>((uint64_t{1} << 63) + 16), true, true);
  EXPECT_TRUE(s.div16);
  EXPECT_FALSE(s.one);
}

namespace {

DescriptorFields fields2d(int64_t rows, int64_t cols, int64_t pitch, int64_t b0, int64_t b1) {
  DescriptorFields d;
  d.dtype = "fp16";
  d.elem_bytes = 2;
  d.aligned = true;
  d.rank = 2;
  d.shape[0] = rows;
  d.shape[1] = cols;
  d.strides[0] = pitch;
  d.strides[1] = 1;
  d.block[0] = b0;
  d.block[1] = b1;
  d.padding = "zero";
  return d;
}

std::string error_of(const DescriptorFields &d) {
  return descriptor_error(d, "argument 'x' (a TensorDescriptor)", "'bogus'").message;
}

} // namespace

TEST(ArgRules, ValidDescriptorAndItsDivisibility) {
  DescriptorFields d = fields2d(64, 40, 48, 16, 32);
  EXPECT_FALSE(descriptor_error(d, "x", ""));
  // bit 0: shape[0] 64, bit 1: shape[1] 40 no, bit 8: strides[0] 48
  EXPECT_EQ(descriptor_divisibility(d), (1u << 0) | (1u << 8));
}

TEST(ArgRules, DescriptorErrorsNameTheRule) {
  const std::string where = "argument 'x' (a TensorDescriptor): ";
  DescriptorFields d = fields2d(64, 64, 64, 16, 24);
  EXPECT_EQ(error_of(d), where + "block_shape element 1 must be a power of 2, got 24");
  d = fields2d(64, 64, 64, 2048, 1024);
  EXPECT_EQ(error_of(d), where + "block_shape [2048, 1024] has 2097152 elements, more than the "
                                 "maximum tensor numel (1048576)");
  d = fields2d(64, 64, 64, 16, 16);
  d.aligned = false;
  EXPECT_EQ(error_of(d), where + "the base must be 16-byte aligned");
  d = fields2d(0, 64, 64, 16, 16);
  EXPECT_EQ(error_of(d),
            where + "shape[0] = 0 must be in [1, 2**31) (the kernel receives int32 shapes)");
  d = fields2d(64, 64, 60, 16, 16);
  EXPECT_EQ(error_of(d),
            where + "strides must be 16-byte aligned: stride 0 is 60 elements of 2 bytes");
  d = fields2d(64, 64, 64, 16, 16);
  d.strides[1] = 2;
  EXPECT_EQ(error_of(d), where + "the last dimension must be contiguous (stride 1), got stride 2");
  d = fields2d(64, 64, 64, 16, 16);
  d.padding = "bogus";
  EXPECT_EQ(error_of(d), where + "padding must be 'zero' or 'nan', got 'bogus'");
  d = fields2d(64, 64, 64, 16, 16);
  d.dtype = "i32";
  d.elem_bytes = 4;
  d.padding = "nan";
  EXPECT_EQ(error_of(d), where + "padding `nan` needs a floating dtype, not i32");
  d.dtype = "i1";
  RuleError e = descriptor_error(d, "x", "");
  EXPECT_EQ(e.kind, RuleError::Type);
}

TEST(ArgRules, BlockShapeAlone) {
  int64_t ok[] = {64, 128};
  EXPECT_FALSE(block_shape_error(ok, 2, "block_shape"));
  int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(block_shape_error(huge, 2, "b").message,
            "b [1099511627776, 1099511627776] has 2**80 elements, more than the maximum tensor "
            "numel (1048576)");
  int64_t neg[] = {-4};
  EXPECT_EQ(block_shape_error(neg, 1, "b").message, "b element 0 must be a power of 2, got -4");
}
