// For tests of argument handling (tests/cpp/aot, tests/cpp/cli): the message of the
// aot::UsageError `f` throws, or "no error".
#pragma once

#include <functional>
#include <string>

#include "aot/Signature.h"

inline std::string usage_error(const std::function<void()> &f) {
  try {
    f();
  } catch (const tilec::aot::UsageError &e) {
    return e.what();
  }
  return "no error";
}
