#include "runtime/LaunchScratch.h"

#include <cstring>

namespace tilec::runtime {

namespace {

using AllocAsync = CUresult (*)(CUdeviceptr *, size_t, CUstream);
using FreeAsync = CUresult (*)(CUdeviceptr, CUstream);

// CUDA 11.2's stream-ordered allocator (tilec's minimum driver may predate it).
AllocAsync alloc_async() {
  static AllocAsync f = reinterpret_cast<AllocAsync>(optional_symbol("cuMemAllocAsync"));
  return f;
}

FreeAsync free_async() {
  static FreeAsync f = reinterpret_cast<FreeAsync>(optional_symbol("cuMemFreeAsync"));
  return f;
}

} // namespace

int scratch_param_index(const KernelMetadata &meta) {
  for (size_t i = 0; i < meta.params.size(); ++i)
    if (meta.params[i].kind == ParamKind::Scratch)
      return static_cast<int>(i);
  return -1;
}

uint64_t scratch_launch_bytes(const KernelMetadata &meta, uint64_t programs) {
  return static_cast<uint64_t>(scratch_bytes_per_program(meta)) * programs;
}

StreamScratch::StreamScratch(const KernelMetadata &meta, int index, uint64_t programs,
                             CUstream stream, void **params) {
  if (index < 0)
    return;
  uint64_t slot = 0;
  std::memcpy(&slot, params[index], sizeof slot);
  if (slot != 0)
    return; // the launcher's allocator gave it
  uint64_t bytes = scratch_launch_bytes(meta, programs);
  if (!alloc_async() || !free_async())
    throw CudaError(CUDA_ERROR_NOT_SUPPORTED, "cuMemAllocAsync", meta.name,
                    "kernel '" + meta.name +
                        "' builds TMA tensor maps in global scratch memory, which needs a "
                        "driver with cuMemAllocAsync (CUDA 11.2) or an allocator "
                        "(triton.set_allocator)");
  CUdeviceptr p = 0;
  CUresult r = alloc_async()(&p, bytes, stream);
  if (r != CUDA_SUCCESS)
    throw CudaError(r, "cuMemAllocAsync", meta.name,
                    "kernel '" + meta.name + "': cannot allocate " + std::to_string(bytes) +
                        " bytes of global scratch memory for its tensor maps");
  ptr_ = p;
  stream_ = stream;
  uint64_t v = p;
  std::memcpy(params[index], &v, sizeof v);
}

StreamScratch::~StreamScratch() {
  if (ptr_)
    free_async()(ptr_, stream_); // ordered after the launch on the same stream
}

} // namespace tilec::runtime
