// Tensor descriptor arguments through the public C++ API: the typed signature, the checks
// and the packing of a launch (api::pack_arguments, no GPU needed), and on a GPU a copy and
// a matmul whose parameters are descriptors (tests/data/tensordesc_kernels.py).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "ApiTestUtil.h"
#include "api/ApiImpl.h"
#include "support/FloatFormats.h" // fp16 for the matmul
#include "runtime/Driver.h"

namespace {

using tilec::Arg;
using tilec::TensorDesc;
using tilec::test::error_of;
using tilec::test::options;

const char *kScaleSig = "tensordesc<fp32[32, 64]>, tensordesc<fp32[32, 64]>, fp32, 32, 64";

std::string desc_file() { return tilec::test::data_file("tensordesc_kernels.py"); }

tilec::CompiledKernel compile_scale() {
  tilec::CompileOptions o = options("desc_scale", kScaleSig);
  o.build_cubin = false;
  return tilec::compile_file(desc_file(), o);
}

uint64_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(ApiDesc, TypedSignatureAndParams) {
  using P = tilec::ParamType;
  tilec::CompileOptions o;
  o.kernel = "desc_scale";
  o.params = {P::tensor_desc("fp32", {32, 64}), P::tensor_desc("fp32", {32, 64}), P::scalar("fp32"),
              P::constant(int64_t(32)), P::constant(int64_t(64))};
  o.build_cubin = false;
  tilec::CompiledKernel typed = tilec::compile_file(desc_file(), o);
  EXPECT_EQ(typed.ptx(), compile_scale().ptx());
  EXPECT_EQ(P::tensor_desc("fp16", {64, 64}).str(), "tensordesc<fp16[64,64]>");
  EXPECT_EQ(P::tensor_desc("bf16", {8, 16, 32}, true).str(), "tensordesc<bf16[8,16,32],nan>");
  EXPECT_EQ(P::tensor_desc("fp16", {64, 64}, false, true).str(), "tensordesc<fp16[64,64]>:16");
  EXPECT_EQ(typed.arg_names(), (std::vector<std::string>{"src", "dst", "alpha"}));
  std::vector<std::string> names, kinds;
  for (const tilec::ParamInfo &p : typed.params()) {
    names.push_back(p.name);
    kinds.push_back(p.kind);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"src.base", "src.shape.0", "src.shape.1",
                                             "src.stride.0", "dst.base", "dst.shape.0",
                                             "dst.shape.1", "dst.stride.0", "alpha"}));
  EXPECT_EQ(kinds, (std::vector<std::string>{"ptr", "i32", "i32", "i64", "ptr", "i32", "i32", "i64",
                                             "fp32"}));
  // a bad padding or block shape is the compiler's to refuse
  o.params[0] = P::tensor_desc("i32", {32, 64}, true);
  EXPECT_NE(error_of([&] {
              tilec::compile_file(desc_file(), o);
            }).find("padding option `nan` is not supported for integer blocks"),
            std::string::npos);
  o.params[0] = P::tensor_desc("fp32", {32, 48});
  EXPECT_NE(error_of([&] { tilec::compile_file(desc_file(), o); }).find("must have powers of 2"),
            std::string::npos);
}

TEST(ApiDesc, TensorDescValues) {
  TensorDesc d(0x1000, {3, 4, 5}, {20, 5, 1});
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.shape[2], 5);
  EXPECT_EQ(d.strides[0], 20);
  TensorDesc r = TensorDesc::row_major(0x2000, {3, 4, 5});
  EXPECT_EQ(std::vector<int64_t>(r.strides, r.strides + r.rank), (std::vector<int64_t>{20, 5, 1}));
  EXPECT_EQ(r.base, 0x2000u);
  EXPECT_NE(error_of([] {
              TensorDesc(0x1000, {3, 4}, {1});
            })
                .find("TensorDesc: shape and strides need the same rank, 1 to 5, got 2 shape "
                      "entries and 1 strides"),
            std::string::npos);
  EXPECT_THROW(TensorDesc(0x1000, {}, {}), tilec::InvalidArgument);
  EXPECT_THROW(TensorDesc::row_major(0x1000, {1, 1, 1, 1, 1, 1}), tilec::InvalidArgument);
  Arg a = d;
  EXPECT_EQ(a.kind(), Arg::Kind::TensorDesc);
  EXPECT_EQ(a.desc().shape[1], 4);
}

TEST(ApiDesc, LaunchPacksTheParts) {
  tilec::CompiledKernel k = compile_scale();
  TensorDesc x(0x1000, {100, 200}, {208, 1});
  TensorDesc y = TensorDesc::row_major(0x9000, {100, 200});
  tilec::runtime::PackedParams p = tilec::api::pack_arguments(k.impl(), {x, y, 2.0f});
  EXPECT_EQ(p.slots, (std::vector<uint64_t>{0x1000, 100, 200, 208, 0x9000, 100, 200, 200,
                                            float_bits(2.0f)}));
  for (size_t i = 0; i < p.slots.size(); ++i)
    EXPECT_EQ(p.ptrs[i], &p.slots[i]);
}

TEST(ApiDesc, LaunchChecksDescriptors) {
  tilec::CompiledKernel k = compile_scale();
  TensorDesc ok(0x1000, {100, 200}, {208, 1});
  auto what = [&](std::vector<Arg> args) {
    return error_of([&] { tilec::api::pack_arguments(k.impl(), args); });
  };
  auto expect = [&](std::vector<Arg> args, const std::string &want) {
    std::string got = what(std::move(args));
    EXPECT_NE(got.find(want), std::string::npos) << got;
  };
  const std::string src = "argument 'src' of kernel 'desc_scale' (tensordesc<fp32[32,64]>): ";
  expect({ok, ok}, "kernel 'desc_scale' takes 3 arguments (src, dst, alpha), got 2");
  expect({Arg::ptr(0x1000), ok, 1.0f}, src + "got a pointer (pass a tilec::TensorDesc)");
  expect({ok, ok, ok}, "argument 'alpha' of kernel 'desc_scale' (fp32): got a tensor descriptor");
  expect({TensorDesc(0x1008, {100, 200}, {208, 1}), ok, 1.0f},
         src + "the base 0x1008 is not 16-byte aligned");
  expect({TensorDesc(0x1000, {100}, {1}), ok, 1.0f},
         src + "the descriptor has 1 shape entries and 1 strides, but the block shape [32, 64] "
               "has rank 2");
  expect({TensorDesc(0x1000, {100, 200}, {202, 1}), ok, 1.0f},
         src + "strides must be whole multiples of 16 bytes: stride 0 is 202 elements of 4 bytes");
  expect({TensorDesc(0x1000, {100, 200}, {208, 2}), ok, 1.0f},
         src + "the last dimension must be contiguous (stride 1), got stride 2");
  expect({TensorDesc(0x1000, {int64_t(3) << 30, 200}, {208, 1}), ok, 1.0f},
         src + "shape[0] = 3221225472 must be in [1, 2**31) (the kernel takes int32 shapes)");
  expect({ok, TensorDesc(0x2000, {100, -1}, {208, 1}), 1.0f},
         "argument 'dst' of kernel 'desc_scale' (tensordesc<fp32[32,64]>): shape[1] = -1 must "
         "be in [1, 2**31)");
  TensorDesc bad = ok;
  bad.rank = 7; // the fields are public: no read past the arrays
  expect({bad, ok, 1.0f}, src + "the descriptor's rank 7 is not 1 to 5");
  expect({TensorDesc(), ok, 1.0f}, src + "the descriptor's rank 0 is not 1 to 5");
  EXPECT_EQ(what({ok, ok, 1}), "<no error>"); // an integer passes as the float parameter
}

TEST(ApiDesc, LaunchChecksTheDivisibilityHint) {
  // ":16": shapes and strides multiples of 16, so the kernel moves 16 bytes an access
  tilec::CompileOptions o =
      options("desc_scale", "tensordesc<fp32[32, 64]>:16, tensordesc<fp32[32, 64]>, fp32, 32, 64");
  o.build_cubin = false;
  tilec::CompiledKernel k = tilec::compile_file(desc_file(), o);
  EXPECT_NE(k.ptx().find("ld.global.v4"), std::string::npos);
  EXPECT_EQ(compile_scale().ptx().find("ld.global.v4"), std::string::npos);
  TensorDesc ok(0x1000, {96, 192}, {208, 1});
  auto what = [&](std::vector<Arg> args) {
    return error_of([&] { tilec::api::pack_arguments(k.impl(), args); });
  };
  EXPECT_EQ(what({ok, TensorDesc(0x2000, {100, 200}, {204, 1}), 1.0f}), "<no error>");
  EXPECT_NE(what({TensorDesc(0x1000, {100, 192}, {208, 1}), ok, 1.0f})
                .find("shape[0] = 100 is not divisible by 16, as the kernel was specialised"),
            std::string::npos);
  EXPECT_NE(what({TensorDesc(0x1000, {96, 192}, {204, 1}), ok, 1.0f})
                .find("stride 0 = 204 is not divisible by 16, as the kernel was specialised"),
            std::string::npos);
}

// --- On a GPU --------------------------------------------------------------------------------

// dst = src * alpha over m x n inside buffers with 208-float rows (the columns past n must
// stay untouched); `sig` with or without the :16 hint.
void check_scale_on_gpu(const char *sig, int m, int n) {
  tilec::CompileOptions o = options("desc_scale", sig);
  o.arch = tilec::device_arch(0);
  tilec::Kernel k = tilec::Kernel::load(tilec::compile_file(desc_file(), o));
  const int ld = 208;
  const float alpha = 2.5f;
  std::vector<float> x(size_t(m) * ld), y(x.size(), -7.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(float(i) * 0.1f) * 3.0f;
  tilec::runtime::DeviceBuffer dx(x.size() * 4), dy(y.size() * 4);
  dx.upload(x.data(), x.size() * 4);
  dy.upload(y.data(), y.size() * 4);
  k.launch({tilec::cdiv(m, 32), tilec::cdiv(n, 64)}, nullptr,
           {TensorDesc(dx.ptr(), {m, n}, {ld, 1}), TensorDesc(dy.ptr(), {m, n}, {ld, 1}), alpha});
  tilec::runtime::check(tilec::runtime::driver().cuCtxSynchronize(), "cuCtxSynchronize");
  dy.download(y.data(), y.size() * 4);
  int bad = 0;
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < ld; ++c) {
      float want = c < n ? x[size_t(r) * ld + c] * alpha : -7.0f;
      bad += y[size_t(r) * ld + c] != want;
    }
  EXPECT_EQ(bad, 0) << sig << ": of " << m * ld << " elements differ from the host's";
}

TEST(ApiDescGpu, ScaleThroughDescriptorsMatchesTheHost) {
  REQUIRE_GPU();
  check_scale_on_gpu(kScaleSig, 100, 200);
  check_scale_on_gpu("tensordesc<fp32[32, 64]>:16, tensordesc<fp32[32, 64]>:16, fp32, 32, 64", 96,
                     176); // 16-byte accesses
}

TEST(ApiDescGpu, MatmulThroughDescriptorsMatchesTheHost) {
  REQUIRE_GPU();
  tilec::CompileOptions o =
      options("desc_matmul", "tensordesc<fp16[64, 32]>, tensordesc<fp16[32, 64]>, "
                             "tensordesc<fp16[64, 64]>, i32, 64, 64, 32");
  o.arch = tilec::device_arch(0);
  tilec::Kernel k = tilec::Kernel::load(tilec::compile_file(desc_file(), o));
  const int m = 96, n = 80, kk = 72; // tails in every dimension: the descriptors pad zeros
  std::vector<uint16_t> a(size_t(m) * kk), b(size_t(kk) * n), c(size_t(m) * n);
  std::vector<float> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = tilec::fp16_from_float(float(int(i % 7) - 3) * 0.25f);
    af[i] = tilec::fp16_to_float(a[i]);
  }
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = tilec::fp16_from_float(float(int(i % 5) - 2) * 0.5f);
    bf[i] = tilec::fp16_to_float(b[i]);
  }
  tilec::runtime::DeviceBuffer da(a.size() * 2), db(b.size() * 2), dc(c.size() * 2);
  da.upload(a.data(), a.size() * 2);
  db.upload(b.data(), b.size() * 2);
  k.launch({tilec::cdiv(m, 64), tilec::cdiv(n, 64)}, nullptr,
           {TensorDesc::row_major(da.ptr(), {m, kk}), TensorDesc::row_major(db.ptr(), {kk, n}),
            TensorDesc::row_major(dc.ptr(), {m, n}), kk});
  tilec::runtime::check(tilec::runtime::driver().cuCtxSynchronize(), "cuCtxSynchronize");
  dc.download(c.data(), c.size() * 2);
  int bad = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < kk; ++p)
        want += double(af[size_t(i) * kk + p]) * bf[size_t(p) * n + j];
      double got = tilec::fp16_to_float(c[size_t(i) * n + j]);
      bad += std::fabs(got - want) > 1e-2 + 1e-3 * std::fabs(want);
    }
  EXPECT_EQ(bad, 0) << "of " << m * n << " results differ from the host's";
}

} // namespace
