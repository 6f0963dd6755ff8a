// Kernel times for the profiler (tilec.profiler, Proton's interface). While profiling is
// on, GpuKernel::launch brackets each launch with two CUDA events recorded on its stream;
// the pair becomes a sample of (kernel, device, context), timed when the profiler drains.
// The context is an id the profiler sets as its scopes open and close, so launches keep the
// C++ fast path while a session runs: the events are all profiling adds to a launch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/Driver.h"

namespace tilec::runtime::profile {

struct Sample {
  const std::string *kernel; // interned (GpuKernel::interned_name): lives for the process
  int device;
  int64_t context;  // the id set_context held when the kernel was launched
  int64_t start_ns; // host time of the launch (steady clock, as Python's perf_counter_ns)
  int64_t ns;       // the kernel's device time; -1 when the driver could not time it
};

// Whether launches are sampled (a relaxed load: all a launch pays while profiling is off).
bool on();
void enable(bool on);
void set_context(int64_t id);
// Samples taken since the process started (the profiler's scopes compare counts).
uint64_t count();

// Brackets one launch: the start event is recorded on `stream` at construction, in `ctx`
// (the context current for the launch); done() records the end event and keeps the sample
// when the launch was queued (r == CUDA_SUCCESS), and gives the events back otherwise.
class Bracket {
public:
  Bracket(CUcontext ctx, CUstream stream);
  Bracket(const Bracket &) = delete;
  Bracket &operator=(const Bracket &) = delete;
  void done(CUresult r, const std::string *kernel, int device);

private:
  CUcontext ctx_;
  CUstream stream_;
  CUevent start_ = nullptr, end_ = nullptr;
  int64_t start_ns_;
};

// A launch timed on the host: the launch returned when the kernel was done (a stand-in
// device in tests).
void record_host(const std::string *kernel, int device, int64_t start_ns, int64_t ns);

// Every sample taken since the last drain, oldest first; waits for their kernels to end.
std::vector<Sample> drain();

int64_t now_ns();

} // namespace tilec::runtime::profile
