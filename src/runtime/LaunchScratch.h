// Global scratch memory of one launch, for kernels that build TMA tensor maps (a kernel
// parameter of kind Scratch, runtime/KernelBinary.h: bytes per program). A launcher that
// has an allocator (Python: triton.set_allocator's) fills the slot itself; a slot left 0
// gets stream-ordered driver memory here (cuMemAllocAsync on the launch's stream, released
// by cuMemFreeAsync right after the launch is queued), so launches on different streams
// never share it.
#pragma once

#include <cstdint>

#include "runtime/Driver.h"
#include "runtime/KernelBinary.h"

namespace tilec::runtime {

struct LaunchGrid;

// The index of `meta`'s Scratch parameter, or -1.
int scratch_param_index(const KernelMetadata &meta);

// Bytes of scratch a launch of `grid` needs (bytes per program x programs).
uint64_t scratch_launch_bytes(const KernelMetadata &meta, uint64_t programs);

// While alive: the slot params[index] points to holds memory for the launch (allocated on
// `stream` when it held 0; freed on `stream` at destruction). The current context must be
// the launch's. A no-op for index -1.
class StreamScratch {
public:
  StreamScratch(const KernelMetadata &meta, int index, uint64_t programs, CUstream stream,
                void **params);
  ~StreamScratch();
  StreamScratch(const StreamScratch &) = delete;
  StreamScratch &operator=(const StreamScratch &) = delete;

private:
  CUdeviceptr ptr_ = 0;
  CUstream stream_ = nullptr;
};

} // namespace tilec::runtime
