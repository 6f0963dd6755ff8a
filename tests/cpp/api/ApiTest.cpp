// The public C++ API (include/tilec/tilec.h): compiling the seed kernels, errors, and (on a
// GPU) launching GELU and softmax and checking their results.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ApiTestUtil.h"
#include "runtime/Driver.h" // device memory for the GPU tests

namespace {

using tilec::test::error_of;
using tilec::test::options;

std::string seed_file() { return tilec::test::data_file("seed_kernels.py"); }

TEST(Api, CompilesVectorAddWithMetadata) {
  tilec::CompiledKernel k = tilec::compile_file(
      seed_file(), options("add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32,1024"));
  EXPECT_EQ(k.name(), "add_kernel");
  EXPECT_NE(k.ptx().find(".entry add_kernel"), std::string::npos);
  EXPECT_EQ(k.arch(), "sm_90a");
  EXPECT_EQ(k.num_warps(), 4);
  ASSERT_EQ(k.params().size(), 4u);
  EXPECT_EQ(k.params()[0].name, "x_ptr");
  EXPECT_EQ(k.params()[0].kind, "ptr");
  EXPECT_EQ(k.params()[3].kind, "i32");
  EXPECT_EQ(k.arg_names(),
            (std::vector<std::string>{"x_ptr", "y_ptr", "output_ptr", "n_elements"}));
}

TEST(Api, TypedSignatureEqualsTheString) {
  using P = tilec::ParamType;
  tilec::CompileOptions o;
  o.kernel = "softmax_kernel";
  o.params = {P::pointer("fp32", true), P::pointer("fp32", true), P::scalar("i32"),
              P::scalar("i32"),         P::scalar("i32"),         P::constant(int64_t(256))};
  o.arch = "sm_80";
  tilec::CompiledKernel typed = tilec::compile_file(seed_file(), o);
  o.params.clear();
  o.signature = "*fp32:16, *fp32:16, i32, i32, i32, 256";
  tilec::CompiledKernel text = tilec::compile_file(seed_file(), o);
  EXPECT_EQ(typed.ptx(), text.ptx());
  EXPECT_NE(typed.ptx().find(".target sm_80"), std::string::npos);
  EXPECT_EQ(P::pointer("fp16", true).str(), "*fp16:16");
  EXPECT_EQ(P::constant(1.5).str(), "1.5");
  EXPECT_EQ(P::constant(2.0).str(), "2.0");
}

TEST(Api, CompileErrorsCarryTheRenderedDiagnostic) {
  const char *src = "import tilec as triton\n"
                    "import tilec.language as tl\n"
                    "@triton.jit\n"
                    "def k(out, n):\n"
                    "    tl.store(out, undefined_name)\n";
  std::string what =
      error_of([&] { tilec::compile_source(src, "kern.py", options("k", "*fp32,i32")); });
  EXPECT_NE(what.find("kern.py:5:"), std::string::npos) << what;
  EXPECT_NE(what.find("undefined_name"), std::string::npos) << what;
  EXPECT_NE(what.find("^"), std::string::npos) << what; // the caret line
  EXPECT_THROW(tilec::compile_source(src, "kern.py", options("k", "*fp32,i32")),
               tilec::CompilationError);
}

TEST(Api, SourceTextWithCalleesAndStaticPrintBeforeAnError) {
  const char *src = "import tilec as triton\n"
                    "import tilec.language as tl\n"
                    "SCALE = 3.0\n"
                    "@triton.jit\n"
                    "def scale(x):\n"
                    "    return x * SCALE\n"
                    "@triton.jit\n"
                    "def k(out, n, BLOCK: tl.constexpr):\n"
                    "    offs = tl.arange(0, BLOCK)\n"
                    "    tl.store(out + offs, scale(offs.to(tl.float32)), mask=offs < n)\n"
                    "@triton.jit\n"
                    "def bad(out, BLOCK: tl.constexpr):\n"
                    "    tl.static_print('BLOCK is', BLOCK)\n"
                    "    tl.store(out, tl.arange(0, BLOCK + 1))\n";
  tilec::CompiledKernel k = tilec::compile_source(src, "text.py", options("k", "*fp32:16,i32,128"));
  EXPECT_NE(k.ptx().find("0f40400000"), std::string::npos) << "the callee's x * SCALE (3.0)";
  EXPECT_EQ(k.arg_names(), (std::vector<std::string>{"out", "n"}));
  std::string what =
      error_of([&] { tilec::compile_source(src, "text.py", options("bad", "*fp32,64")); });
  size_t printed = what.find("BLOCK is 64"), diag = what.find("text.py:14:");
  EXPECT_NE(printed, std::string::npos) << what;
  EXPECT_NE(diag, std::string::npos) << what;
  EXPECT_LT(printed, diag) << "static_print's output comes first, as in Triton";
}

TEST(Api, BadRequestsAreInvalidArgument) {
  std::string f = seed_file();
  auto bad = [&](const char *kernel, const char *sig, const char *expect) {
    std::string what;
    try {
      tilec::compile_file(f, options(kernel, sig));
      what = "<no error>";
    } catch (const tilec::InvalidArgument &e) {
      what = e.what();
    }
    EXPECT_NE(what.find(expect), std::string::npos) << sig << " -> " << what;
  };
  bad("add_kernel", "*fp33,*fp32,*fp32,i32,1024", "unknown dtype 'fp33'");
  bad("add_kernel", "*fp32,*fp32,*fp32,i32", "has 4 entries, but 'add_kernel' has 5 parameters");
  bad("add_kernel", "*fp32,*fp32,*fp32,i32,i32:16", "constexpr parameter 'BLOCK_SIZE'");
  bad("no_such_kernel", "*fp32", "unknown kernel 'no_such_kernel'");
  tilec::CompileOptions o = options("add_kernel", "*fp32,*fp32,*fp32,i32,1024");
  o.arch = "sm_9000";
  EXPECT_THROW(tilec::compile_file(f, o), tilec::InvalidArgument);
  o = options("add_kernel", "*fp32,*fp32,*fp32,i32,1024", 3);
  EXPECT_THROW(tilec::compile_file(f, o), tilec::InvalidArgument);
}

// --- On a GPU --------------------------------------------------------------------------------

TEST(ApiGpu, GeluMatchesTheHost) {
  REQUIRE_GPU();
  tilec::CompileOptions o = options("triton_gelu_kernel", "*fp32:16,*fp32:16,i32,1024");
  o.arch = tilec::device_arch(0);
  tilec::Kernel k = tilec::Kernel::load(tilec::compile_file(seed_file(), o));
  const int n = 10007;
  std::vector<float> x(n), y(n, 0.0f);
  for (int i = 0; i < n; ++i)
    x[i] = -6.0f + 12.0f * float(i) / float(n);
  tilec::runtime::DeviceBuffer dx(n * 4), dy(n * 4);
  dx.upload(x.data(), n * 4);
  k.launch({tilec::cdiv(n, 1024)}, nullptr,
           {tilec::Arg::ptr(dx.ptr()), tilec::Arg::ptr(dy.ptr()), n});
  tilec::runtime::check(tilec::runtime::driver().cuCtxSynchronize(), "cuCtxSynchronize");
  dy.download(y.data(), n * 4);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    double v = x[i], a = 0.79788456 * (v + 0.044715 * v * v * v);
    double want = 0.5 * v * (1 + std::tanh(a));
    bad += std::fabs(y[i] - want) > 1e-5 + 1e-5 * std::fabs(want);
  }
  EXPECT_EQ(bad, 0) << "of " << n << " GELU results differ from the host's";
}

TEST(ApiGpu, SoftmaxMatchesTheHost) {
  REQUIRE_GPU();
  const int rows = 97, cols = 781;
  tilec::CompileOptions o = options("softmax_kernel", "*fp32:16,*fp32:16,i32,i32,i32,1024");
  o.arch = tilec::device_arch(0);
  tilec::Kernel k = tilec::Kernel::load(tilec::compile_file(seed_file(), o));
  std::vector<float> x(rows * cols), y(rows * cols, 0.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(float(i) * 0.37f) * 4.0f;
  tilec::runtime::DeviceBuffer dx(x.size() * 4), dy(y.size() * 4);
  dx.upload(x.data(), x.size() * 4);
  k.launch({uint32_t(rows)}, nullptr,
           {tilec::Arg::ptr(dx.ptr()), tilec::Arg::ptr(dy.ptr()), cols, cols, cols});
  tilec::runtime::check(tilec::runtime::driver().cuCtxSynchronize(), "cuCtxSynchronize");
  dy.download(y.data(), y.size() * 4);
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c)
      m = std::max(m, double(x[r * cols + c]));
    for (int c = 0; c < cols; ++c)
      s += std::exp(x[r * cols + c] - m);
    for (int c = 0; c < cols; ++c) {
      double want = std::exp(x[r * cols + c] - m) / s;
      bad += std::fabs(y[r * cols + c] - want) > 1e-6 + 1e-4 * want;
    }
  }
  EXPECT_EQ(bad, 0) << "of " << rows * cols << " softmax results differ from the host's";
}

TEST(ApiGpu, LaunchChecksArguments) {
  REQUIRE_GPU();
  tilec::CompileOptions o = options("triton_gelu_kernel", "*fp32:16,*fp32:16,i32:16,1024");
  o.arch = tilec::device_arch(0);
  tilec::Kernel k = tilec::Kernel::load(tilec::compile_file(seed_file(), o));
  tilec::runtime::DeviceBuffer buf(4096);
  auto p = tilec::Arg::ptr(buf.ptr());
  auto what = [&](std::vector<tilec::Arg> args) {
    return error_of([&] { k.launch({1}, nullptr, args); });
  };
  EXPECT_NE(what({p, p}).find("takes 3 arguments"), std::string::npos);
  EXPECT_NE(what({p, 1.5f, 16}).find("got a float"), std::string::npos);
  EXPECT_NE(what({tilec::Arg::ptr(buf.ptr() + 4), p, 16}).find("not 16-byte aligned"),
            std::string::npos);
  EXPECT_NE(what({p, p, 17}).find("17 is not divisible by 16"), std::string::npos);
  EXPECT_NE(what({p, p, int64_t(1) << 40}).find("does not fit in i32"), std::string::npos);
  EXPECT_EQ(what({p, p, 16}), "<no error>");
  tilec::runtime::check(tilec::runtime::driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

} // namespace
