// Runs the seed vector add and softmax and a scale through tensor descriptors, compiled
// ahead of time by `tilec compile` (kernels/add.h, kernels/softmax.h, kernels/desc_scale.h),
// with only the CUDA driver API, and checks them against the host. Prints PASS or FAIL per
// kernel; exit 0 when all pass.
#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "add.h"
#include "desc_scale.h"
#include "softmax.h"

namespace {

bool ok(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return true;
  const char *text = nullptr;
  cuGetErrorString(r, &text);
  std::fprintf(stderr, "%s failed: %s\n", what, text ? text : "unknown error");
  return false;
}

bool run_add(CUstream stream) {
  const int n = 98432 + 7;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * float(i % 1000);
    y[i] = 1.0f - float(i % 37);
  }
  CUdeviceptr dx, dy, dout;
  size_t bytes = n * sizeof(float);
  if (!ok(cuMemAlloc(&dx, bytes), "cuMemAlloc") || !ok(cuMemAlloc(&dy, bytes), "cuMemAlloc") ||
      !ok(cuMemAlloc(&dout, bytes), "cuMemAlloc"))
    return false;
  cuMemcpyHtoD(dx, x.data(), bytes);
  cuMemcpyHtoD(dy, y.data(), bytes);
  int r = add(stream, dx, dy, dout, n); // grid: cdiv(n, 1024) blocks of 128 threads
  if (r != 0) {
    std::fprintf(stderr, "add: %s\n", add_error_string(r));
    return false;
  }
  if (!ok(cuStreamSynchronize(stream), "add"))
    return false;
  cuMemcpyDtoH(out.data(), dout, bytes);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += out[i] != x[i] + y[i];
  cuMemFree(dx);
  cuMemFree(dy);
  cuMemFree(dout);
  std::printf("vector add (n = %d): %s (%d wrong)\n", n, bad ? "FAIL" : "PASS", bad);
  return bad == 0;
}

bool run_softmax(CUstream stream) {
  const int rows = 1823, cols = 781; // BLOCK_SIZE 1024 >= cols
  std::vector<float> x(size_t(rows) * cols), y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 4.0f * std::sin(0.37f * float(i));
  CUdeviceptr dx, dy;
  size_t bytes = x.size() * sizeof(float);
  if (!ok(cuMemAlloc(&dx, bytes), "cuMemAlloc") || !ok(cuMemAlloc(&dy, bytes), "cuMemAlloc"))
    return false;
  cuMemcpyHtoD(dx, x.data(), bytes);
  int r = softmax_grid(stream, rows, 1, 1, dx, dy, cols, cols, cols); // one program per row
  if (r != 0) {
    std::fprintf(stderr, "softmax: %s\n", softmax_error_string(r));
    return false;
  }
  if (!ok(cuStreamSynchronize(stream), "softmax"))
    return false;
  cuMemcpyDtoH(y.data(), dy, bytes);
  int bad = 0;
  double worst = 0;
  for (int row = 0; row < rows; ++row) {
    const float *in = &x[size_t(row) * cols];
    double m = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c)
      m = std::fmax(m, in[c]);
    for (int c = 0; c < cols; ++c)
      sum += std::exp(in[c] - m);
    for (int c = 0; c < cols; ++c) {
      double want = std::exp(in[c] - m) / sum;
      double err = std::fabs(y[size_t(row) * cols + c] - want);
      worst = std::fmax(worst, err);
      bad += err > 1e-6 + 1e-4 * want;
    }
  }
  cuMemFree(dx);
  cuMemFree(dy);
  std::printf("softmax (%d x %d): %s (%d wrong, max abs error %.3g)\n", rows, cols,
              bad ? "FAIL" : "PASS", bad, worst);
  return bad == 0;
}

// dst = 2.5 * src over a 100 x 200 fp32 matrix stored with rows of 208 floats: both are
// tensor descriptors, passed as tilec_tensordesc_2d {base, shape, strides in elements}.
bool run_desc_scale(CUstream stream) {
  const int m = 100, n = 200, ld = 208;
  std::vector<float> x(size_t(m) * ld), y(x.size(), -1.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.25f * float(i % 97);
  CUdeviceptr dx, dy;
  size_t bytes = x.size() * sizeof(float);
  if (!ok(cuMemAlloc(&dx, bytes), "cuMemAlloc") || !ok(cuMemAlloc(&dy, bytes), "cuMemAlloc"))
    return false;
  cuMemcpyHtoD(dx, x.data(), bytes);
  cuMemcpyHtoD(dy, y.data(), bytes);
  tilec_tensordesc_2d src = {dx, {m, n}, {ld, 1}}, dst = {dy, {m, n}, {ld, 1}};
  tilec_tensordesc_2d odd = {dx + 4, {m, n}, {ld, 1}}; // Triton's rules: a 16-byte aligned base
  bool refused = desc_scale(stream, odd, dst, 2.5f) == TILEC_AOT_ERROR_DESC_BASE;
  int r = desc_scale(stream, src, dst, 2.5f); // grid: cdiv(m, 32) x cdiv(n, 64)
  if (r != 0) {
    std::fprintf(stderr, "desc_scale: %s\n", desc_scale_error_string(r));
    return false;
  }
  if (!ok(cuStreamSynchronize(stream), "desc_scale"))
    return false;
  cuMemcpyDtoH(y.data(), dy, bytes);
  int bad = 0;
  for (int row = 0; row < m; ++row)
    for (int c = 0; c < ld; ++c) // the columns past n stay as they were
      bad += y[size_t(row) * ld + c] != (c < n ? 2.5f * x[size_t(row) * ld + c] : -1.0f);
  cuMemFree(dx);
  cuMemFree(dy);
  std::printf("scale through tensor descriptors (%d x %d): %s (%d wrong%s)\n", m, n,
              bad || !refused ? "FAIL" : "PASS", bad,
              refused ? "" : ", a misaligned base was not refused");
  return bad == 0 && refused;
}

} // namespace

int main() {
  CUdevice dev;
  CUcontext ctx;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&dev, 0), "cuDeviceGet") ||
      !ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent")) {
    std::printf("FAIL: no usable CUDA device\n");
    return 1;
  }
  if (!ok(CUresult(load_add()), "load_add") || !ok(CUresult(load_softmax()), "load_softmax") ||
      !ok(CUresult(load_desc_scale()), "load_desc_scale")) {
    std::printf("FAIL: loading the kernels\n");
    return 1;
  }
  CUstream stream;
  if (!ok(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
    return 1;
  bool pass = run_add(stream);
  pass = run_softmax(stream) && pass;
  pass = run_desc_scale(stream) && pass;
  cuStreamDestroy(stream);
  unload_add();
  unload_softmax();
  unload_desc_scale();
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
