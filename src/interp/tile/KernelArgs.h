// A launch's arguments and the memory they point into, as both CPU executors take them:
// the tile interpreter (Interpreter.h) and the SIMT simulator (interp/simt/Simulator.h),
// so one list runs a kernel on both.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tilec::interp {

// A memory region the kernel may access: an array argument. `name` is the kernel
// argument it was passed as (named in errors).
struct Buffer {
  uint64_t base = 0;
  uint64_t size_bytes = 0;
  std::string name;
  bool writable = true; // false: stores and atomics into it are errors (read-only arrays)
};

// One per block argument of the function's entry block, in order. Bytes: a by-value byte
// array (a TMA tensor map, simt/TensorMap.h), taken by the SIMT simulator only.
struct KernelArg {
  enum Kind { Pointer, Int, Float, Bytes } kind = Int;
  uint64_t ptr = 0;
  int64_t i = 0;
  double f = 0;
  std::vector<uint8_t> bytes;

  static KernelArg pointer(const void *p) {
    return pointer_value(reinterpret_cast<uint64_t>(p));
  }
  static KernelArg pointer_value(uint64_t p) {
    KernelArg a;
    a.kind = Pointer;
    a.ptr = p;
    return a;
  }
  static KernelArg integer(int64_t v) {
    KernelArg a;
    a.kind = Int;
    a.i = v;
    return a;
  }
  static KernelArg floating(double v) {
    KernelArg a;
    a.kind = Float;
    a.f = v;
    return a;
  }
  static KernelArg blob(const void *p, size_t n) {
    KernelArg a;
    a.kind = Bytes;
    a.bytes.resize(n);
    if (n > 0)
      std::memcpy(a.bytes.data(), p, n);
    return a;
  }
};

} // namespace tilec::interp
