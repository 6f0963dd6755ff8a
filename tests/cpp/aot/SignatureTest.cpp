#include <gtest/gtest.h>

#include "../UsageErrorText.h"
#include "aot/Signature.h"

using namespace tilec;
using namespace tilec::aot;
using Kind = sema::ArgSpec::Kind;

TEST(Signature, SignatureEntries) {
  auto p = parse_signature_entry("*fp32");
  EXPECT_EQ(p.kind, Kind::Pointer);
  EXPECT_EQ(p.dtype, ir::DType::F32);
  EXPECT_FALSE(p.divisible_by_16);
  p = parse_signature_entry(" *fp16:16 ");
  EXPECT_EQ(p.kind, Kind::Pointer);
  EXPECT_EQ(p.dtype, ir::DType::F16);
  EXPECT_TRUE(p.divisible_by_16);
  p = parse_signature_entry("*bfloat16");
  EXPECT_EQ(p.dtype, ir::DType::BF16);
  p = parse_signature_entry("i32");
  EXPECT_EQ(p.kind, Kind::Int);
  EXPECT_EQ(p.dtype, ir::DType::I32);
  p = parse_signature_entry("i64:16");
  EXPECT_EQ(p.kind, Kind::Int);
  EXPECT_EQ(p.dtype, ir::DType::I64);
  EXPECT_TRUE(p.divisible_by_16);
  p = parse_signature_entry("i32:1");
  EXPECT_TRUE(p.equal_to_1);
  p = parse_signature_entry("fp32");
  EXPECT_EQ(p.kind, Kind::Float);
  p = parse_signature_entry("i1");
  EXPECT_EQ(p.kind, Kind::Bool);

  EXPECT_EQ(usage_error([] { parse_signature_entry("*fp33"); }),
            "bad --signature entry '*fp33': unknown dtype 'fp33' (expected e.g. *fp32, *fp16:16, "
            "i32, i32:16, i64, fp32, i1, tensordesc<fp16[64, 64]>)");
  EXPECT_EQ(usage_error([] { parse_signature_entry("*fp32:8"); }),
            "bad --signature entry '*fp32:8': a pointer's alignment hint must be ':16'");
  EXPECT_EQ(usage_error([] { parse_signature_entry("i32:4"); }),
            "bad --signature entry 'i32:4': an integer's hint must be ':16' (divisible by 16) or "
            "':1' (equal to 1)");
  EXPECT_EQ(usage_error([] { parse_signature_entry("fp32:16"); }),
            "bad --signature entry 'fp32:16': only pointers and integers take a ':' hint");
  EXPECT_EQ(usage_error([] { parse_signature("*fp32,,i32"); }),
            "bad --signature '*fp32,,i32': empty entry");
  EXPECT_EQ(parse_signature("*fp32, *fp32 ,i32").size(), 3u);
  EXPECT_TRUE(parse_signature("  ").empty());
}

TEST(Signature, TensorDescriptorEntries) {
  auto d = parse_signature_entry(" tensordesc<fp16[64, 32]> ");
  EXPECT_EQ(d.kind, Kind::TensorDesc);
  EXPECT_EQ(d.dtype, ir::DType::F16);
  EXPECT_EQ(d.desc_block_shape, (std::vector<int64_t>{64, 32}));
  EXPECT_FALSE(d.desc_nan_padding);
  EXPECT_EQ(d.desc_shape_div16, (std::vector<bool>{false, false}));
  EXPECT_EQ(d.desc_stride_div16, (std::vector<bool>{false}));
  // :16 says every shape entry and stride (but the last) is a multiple of 16
  d = parse_signature_entry("tensordesc<fp16[64, 32], zero>:16");
  EXPECT_EQ(d.desc_shape_div16, (std::vector<bool>{true, true}));
  EXPECT_EQ(d.desc_stride_div16, (std::vector<bool>{true}));
  EXPECT_EQ(usage_error([] { parse_signature_entry("tensordesc<fp16[64]>:1"); }),
            "bad --signature entry 'tensordesc<fp16[64]>:1': a descriptor's hint must be ':16' "
            "(every shape entry and stride but the last divisible by 16), got ':1' (expected "
            "e.g. tensordesc<fp16[64, 64]>)");
  d = parse_signature_entry("tensordesc<float32[16], nan>");
  EXPECT_EQ(d.dtype, ir::DType::F32);
  EXPECT_TRUE(d.desc_nan_padding);
  // the commas inside <...> and [...] do not split entries
  auto sig = parse_signature("*fp32:16, tensordesc<bf16[8,16,32]>, i32");
  ASSERT_EQ(sig.size(), 3u);
  EXPECT_EQ(sig[1].desc_block_shape, (std::vector<int64_t>{8, 16, 32}));
  EXPECT_EQ(sig[2].kind, Kind::Int);
  EXPECT_EQ(usage_error([] { parse_signature_entry("tensordesc<fp16[64, x]>"); }),
            "bad --signature entry 'tensordesc<fp16[64, x]>': block dimension 'x' is not a "
            "positive integer (expected e.g. tensordesc<fp16[64, 64]>)");
  EXPECT_EQ(usage_error([] { parse_signature_entry("tensordesc<fp16[64]"); }),
            "bad --signature entry 'tensordesc<fp16[64]': no closing '>' (expected e.g. "
            "tensordesc<fp16[64, 64]>)");
  EXPECT_EQ(usage_error([] { parse_signature_entry("tensordesc<fp16[64], one>"); }),
            "bad --signature entry 'tensordesc<fp16[64], one>': unknown padding 'one' (zero or "
            "nan) (expected e.g. tensordesc<fp16[64, 64]>)");
  EXPECT_EQ(usage_error([] { parse_signature_entry("tensordesc<fp99[64]>"); }),
            "bad --signature entry 'tensordesc<fp99[64]>': unknown dtype 'fp99' (expected e.g. "
            "tensordesc<fp16[64, 64]>)");
}

TEST(Signature, ConstexprValues) {
  auto v = parse_constexpr_value("1024");
  EXPECT_EQ(v.kind, sema::Val::Kind::Int);
  EXPECT_EQ(v.i, 1024);
  EXPECT_EQ(parse_constexpr_value("-3").i, -3);
  EXPECT_EQ(parse_constexpr_value("0x10").i, 16);
  EXPECT_EQ(parse_constexpr_value("1_000").i, 1000);
  v = parse_constexpr_value("1.5");
  EXPECT_EQ(v.kind, sema::Val::Kind::Float);
  EXPECT_EQ(v.f, 1.5);
  EXPECT_EQ(parse_constexpr_value("1e-3").f, 1e-3);
  EXPECT_EQ(parse_constexpr_value("True").kind, sema::Val::Kind::Bool);
  EXPECT_TRUE(parse_constexpr_value("True").b);
  EXPECT_FALSE(parse_constexpr_value("False").b);
  EXPECT_EQ(parse_constexpr_value("None").kind, sema::Val::Kind::None);
  v = parse_constexpr_value("float16");
  EXPECT_EQ(v.kind, sema::Val::Kind::DType);
  EXPECT_EQ(v.type, ir::Type(ir::DType::F16));
  EXPECT_EQ(parse_constexpr_value("tl.bfloat16").type, ir::Type(ir::DType::BF16));
  v = parse_constexpr_value("leaky_relu");
  EXPECT_EQ(v.kind, sema::Val::Kind::Str);
  EXPECT_EQ(v.str, "leaky_relu");
  v = parse_constexpr_value("'float16'");
  EXPECT_EQ(v.kind, sema::Val::Kind::Str);
  EXPECT_EQ(v.str, "float16");
  EXPECT_EQ(parse_constexpr_value("12abc").kind, sema::Val::Kind::Str);
  EXPECT_EQ(usage_error([] { parse_constexpr_value("99999999999999999999"); }),
            "constexpr value 99999999999999999999 does not fit in 64 bits");
}

TEST(Signature, BindArguments) {
  std::vector<KernelParam> params = {{"x_ptr", false, {}},
                                     {"n", false, {}},
                                     {"BLOCK", true, {}},
                                     {"ACT", true, sema::Val::string("none")},
                                     {"scale", false, {}}};
  auto sig = parse_signature("*fp32,i32,fp32");
  auto specs = bind_arguments("k", params, sig, {{"BLOCK", "128"}});
  ASSERT_EQ(specs.size(), 5u);
  EXPECT_EQ(specs[0].kind, Kind::Pointer);
  EXPECT_EQ(specs[1].kind, Kind::Int);
  EXPECT_EQ(specs[2].kind, Kind::Constexpr);
  EXPECT_EQ(specs[2].value.i, 128);
  EXPECT_EQ(specs[3].kind, Kind::Constexpr); // from its default
  EXPECT_EQ(specs[3].value.str, "none");
  EXPECT_EQ(specs[4].kind, Kind::Float);

  // a plain parameter may be specialised to a constant too
  specs =
      bind_arguments("k", params, parse_signature("*fp32,fp32"), {{"BLOCK", "128"}, {"n", "7"}});
  EXPECT_EQ(specs[1].kind, Kind::Constexpr);
  EXPECT_EQ(specs[4].kind, Kind::Float);

  EXPECT_EQ(usage_error([&] {
              bind_arguments("k", params, parse_signature("*fp32,i32"), {{"BLOCK", "1"}});
            }),
            "--signature has 2 entries, but 'k' has 3 non-constexpr parameters (x_ptr, n, scale)");
  EXPECT_EQ(usage_error([&] {
              bind_arguments("k", params, sig, {{"BLOK", "1"}});
            }),
            "--constexpr BLOK: kernel 'k' has no parameter 'BLOK' (parameters: x_ptr, n, BLOCK, "
            "ACT, scale)");
  EXPECT_EQ(usage_error([&] { bind_arguments("k", params, sig, {}); }),
            "constexpr parameter 'BLOCK' of 'k' needs a value: --constexpr BLOCK=VALUE");
  EXPECT_EQ(usage_error([&] {
              bind_arguments("k", params, sig, {{"BLOCK", "1"}, {"BLOCK", "2"}});
            }),
            "--constexpr BLOCK is given twice");
}
