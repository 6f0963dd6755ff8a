// Tensor descriptor parameters of ahead-of-time kernels (src/aot/AotDesc.cpp): the
// .param names Sema gives their parts, the launch checks (Triton's TensorDescriptor rules)
// and the C a launcher is written with. The whole generated launcher: tests/lit/aot-tensordesc.py
// and tests/python/test_cli_aot.py.
#include <gtest/gtest.h>

#include "aot/Aot.h"

using namespace tilec;
using namespace tilec::aot;
using Part = ParamSource::Part;

namespace {

AotParam param(const std::string &name, const std::string &entry) {
  return AotParam{name, entry, parse_signature_entry(entry)};
}

} // namespace

TEST(AotDesc, ParamSourcesSplitDescriptorParts) {
  ParamSource s = param_source("n_elements");
  EXPECT_EQ(s.param, "n_elements");
  EXPECT_EQ(s.part, Part::Whole);
  s = param_source("a_desc.base");
  EXPECT_EQ(s.param, "a_desc");
  EXPECT_EQ(s.part, Part::Base);
  s = param_source("a_desc.shape.1");
  EXPECT_EQ(s.part, Part::Shape);
  EXPECT_EQ(s.dim, 1);
  s = param_source("d.stride.0");
  EXPECT_EQ(s.param, "d");
  EXPECT_EQ(s.part, Part::Stride);
  EXPECT_EQ(s.dim, 0);
  EXPECT_EQ(c_param_value(param_source("d.shape.2")), "d.shape[2]");
  EXPECT_EQ(c_param_value(param_source("d.stride.1")), "d.strides[1]");
  EXPECT_EQ(c_param_value(param_source("d.base")), "d.base");
  EXPECT_EQ(c_param_value(param_source("x")), "x");
  EXPECT_THROW(param_source("d.shape.x"), InternalError);
  EXPECT_THROW(param_source("d.strides.0"), InternalError);
}

TEST(AotDesc, ProblemsAreTritonsRules) {
  sema::ArgSpec fp16 = parse_signature_entry("tensordesc<fp16[64, 32]>");
  auto problem = [&](uint64_t base, std::vector<int64_t> shape, std::vector<int64_t> strides) {
    return tensor_desc_problem(fp16, base, shape, strides);
  };
  EXPECT_EQ(problem(0x1000, {100, 40}, {40, 1}), "");
  EXPECT_EQ(problem(0x1000, {100, 40}, {-40, 1}), ""); // Triton accepts negative strides
  EXPECT_EQ(problem(0x1000, {100, 40, 2}, {80, 2, 1}),
            "the descriptor has 3 shape entries and 3 strides, but the block shape [64, 32] "
            "has rank 2");
  EXPECT_EQ(problem(0x1004, {100, 40}, {40, 1}), "the base 0x1004 is not 16-byte aligned");
  EXPECT_EQ(problem(0x1000, {100, 0}, {40, 1}),
            "shape[1] = 0 must be in [1, 2**31) (the kernel takes int32 shapes)");
  EXPECT_EQ(problem(0x1000, {int64_t(1) << 31, 40}, {40, 1}),
            "shape[0] = 2147483648 must be in [1, 2**31) (the kernel takes int32 shapes)");
  EXPECT_EQ(problem(0x1000, {100, 40}, {40, 2}),
            "the last dimension must be contiguous (stride 1), got stride 2");
  EXPECT_EQ(problem(0x1000, {100, 40}, {36, 1}),
            "strides must be whole multiples of 16 bytes: stride 0 is 36 elements of 2 bytes");
  // the unit is 16 bytes whatever the element: 2 fp64s, 16 fp8s
  sema::ArgSpec f64 = parse_signature_entry("tensordesc<fp64[8, 8]>");
  EXPECT_EQ(tensor_desc_problem(f64, 0x10, {8, 8}, {10, 1}), "");
  sema::ArgSpec f8 = parse_signature_entry("tensordesc<fp8e4nv[8, 8]>");
  EXPECT_NE(tensor_desc_problem(f8, 0x10, {8, 8}, {24, 1}), "");
  // divisibility facts of a spec (the Python fast path specialises on them) are checked too
  fp16.desc_shape_div16 = {true, false};
  fp16.desc_stride_div16 = {true};
  EXPECT_EQ(problem(0x1000, {100, 40}, {48, 1}),
            "shape[0] = 100 is not divisible by 16, as the kernel was specialised");
  EXPECT_EQ(problem(0x1000, {96, 40}, {40, 1}),
            "stride 0 = 40 is not divisible by 16, as the kernel was specialised");
  EXPECT_EQ(problem(0x1000, {96, 40}, {48, 1}), "");
}

TEST(AotDesc, CTypesAndChecks) {
  std::vector<AotParam> ps = {param("a", "tensordesc<fp16[64, 32]>"), param("n", "i32:16"),
                              param("c", "tensordesc<fp8e5[2, 4, 32], zero>"),
                              param("d", "tensordesc<fp32[16, 16]>")};
  EXPECT_EQ(c_type_of(ps[0].spec), "tilec_tensordesc_2d");
  EXPECT_EQ(c_type_of(ps[2].spec), "tilec_tensordesc_3d");
  EXPECT_EQ(c_parameter_list(ps, false),
            "struct CUstream_st *stream, tilec_tensordesc_2d a, int32_t n, tilec_tensordesc_3d c, "
            "tilec_tensordesc_2d d");
  // the base's alignment is a check of its own, not a hint a dispatcher chooses by; :16 is
  EXPECT_EQ(c_hint_condition(ps), "(n % 16) == 0");
  ps[3] = param("d", "tensordesc<fp32[16, 16]>:16");
  EXPECT_EQ(c_desc_hint(ps[3]), "d.shape[0] % 16 == 0 && d.shape[1] % 16 == 0 && "
                                "d.strides[0] % 16 == 0");
  EXPECT_EQ(c_hint_condition(ps), "(n % 16) == 0 && " + c_desc_hint(ps[3]));
  std::string decl = c_desc_declarations(ps);
  EXPECT_EQ(decl.find("typedef struct tilec_tensordesc_2d {"),
            decl.rfind("typedef struct tilec_tensordesc_2d {"))
      << "one struct per rank";
  EXPECT_LT(decl.find("tilec_tensordesc_2d {"), decl.find("tilec_tensordesc_3d {"));
  EXPECT_NE(decl.find("  int32_t shape[3];"), std::string::npos);
  EXPECT_EQ(c_desc_declarations({param("n", "i32")}), "");
  std::string checks = c_desc_checks(ps);
  EXPECT_NE(checks.find("if (c.strides[2] != 1 || c.strides[0] % 16 != 0 || c.strides[1] % 16 "
                        "!= 0)\n    return TILEC_AOT_ERROR_DESC_STRIDES;\n"),
            std::string::npos)
      << checks;
  EXPECT_NE(checks.find("if (d.shape[0] < 1 || d.shape[1] < 1)\n"), std::string::npos);
  EXPECT_NE(c_desc_error_cases(ps, "k").find("\"k: tensor descriptor a, c or d: the base is"),
            std::string::npos);
}
