// What the public API's tests share: kernel files, options, the GPU guard, error text.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tilec/tilec.h"

namespace tilec::test {

// A kernel file of tests/data ("seed_kernels.py", "tensordesc_kernels.py").
inline std::string data_file(const char *name) {
  return std::string(TILEC_TEST_DATA_DIR "/") + name;
}

inline CompileOptions options(const char *kernel, const char *signature, int warps = 4) {
  CompileOptions o;
  o.kernel = kernel;
  o.signature = signature;
  o.num_warps = warps;
  return o;
}

// what() of the tilec::Error `f` throws, or "<no error>".
template <class F> std::string error_of(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "<no error>";
}

} // namespace tilec::test

// GPU tests skip (not fail) where there is no driver or device.
#define REQUIRE_GPU()                                                                              \
  do {                                                                                             \
    std::string why;                                                                               \
    if (!tilec::driver_available(&why))                                                            \
      GTEST_SKIP() << "no CUDA driver or device: " << why;                                         \
  } while (0)
