// The CUDA driver API, loaded with dlopen("libcuda.so.1") at first use: tilec has no
// build-time or link-time dependency on CUDA. The few types and constants tilec needs are
// declared here with the driver API's names and values (cuda.h is never included).
//
// Every CUresult is checked; a failure throws CudaError naming the call, the driver's
// error name and description, and the kernel involved (when there is one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tilec::runtime {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = uint64_t;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUlinkState = struct CUlinkState_st *;
using CUevent = struct CUevent_st *;

// CUresult values tilec treats specially (the others are reported by name).
enum : CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
};

// CUdevice_attribute values.
enum CUdeviceAttr : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

// CUfunction_attribute values.
enum CUfuncAttr : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

// CUpointer_attribute and CUmemorytype values.
enum CUpointerAttr : int {
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
};
enum : unsigned {
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_ARRAY = 3,
  CU_MEMORYTYPE_UNIFIED = 4,
};

// CUjit_option and CUjitInputType values.
enum CUjitOption : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
};
enum : int { CU_JIT_INPUT_PTX = 1 };

// The entry points tilec uses. Versioned symbols (_v2) are looked up by their real names.
struct DriverApi {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorName)(CUresult error, const char **str);
  CUresult (*cuGetErrorString)(CUresult error, const char **str);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
  CUresult (*cuDeviceGetAttribute)(int *value, int attrib, CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
  CUresult (*cuCtxGetCurrent)(CUcontext *ctx);
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuCtxPushCurrent)(CUcontext ctx);
  CUresult (*cuCtxPopCurrent)(CUcontext *ctx);
  CUresult (*cuCtxGetDevice)(CUdevice *device);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image, unsigned num_options,
                                 int *options, void **values);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *fn, CUmodule module, const char *name);
  CUresult (*cuFuncGetAttribute)(int *value, int attrib, CUfunction fn);
  CUresult (*cuFuncSetAttribute)(CUfunction fn, int attrib, int value);
  CUresult (*cuLaunchKernel)(CUfunction fn, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                             unsigned block_x, unsigned block_y, unsigned block_z,
                             unsigned shared_bytes, CUstream stream, void **params, void **extra);
  CUresult (*cuLinkCreate)(unsigned num_options, int *options, void **values, CUlinkState *state);
  CUresult (*cuLinkAddData)(CUlinkState state, int type, void *data, size_t size, const char *name,
                            unsigned num_options, int *options, void **values);
  CUresult (*cuLinkComplete)(CUlinkState state, void **cubin, size_t *size);
  CUresult (*cuLinkDestroy)(CUlinkState state);
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char value, size_t count);
  CUresult (*cuPointerGetAttribute)(void *data, int attribute, CUdeviceptr ptr);
  // the profiler's kernel times (LaunchProfile.cpp)
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventQuery)(CUevent event);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
  CUresult (*cuEventDestroy)(CUevent event);
};

// A failed driver call. what(): "CUDA error in <call> (kernel '<k>'): <NAME>: <description>".
class CudaError : public std::runtime_error {
public:
  CudaError(CUresult code, std::string call, std::string kernel, const std::string &message)
      : std::runtime_error(message), code_(code), call_(std::move(call)),
        kernel_(std::move(kernel)) {}
  CUresult code() const { return code_; }
  const std::string &call() const { return call_; }
  const std::string &kernel() const { return kernel_; }

private:
  CUresult code_;
  std::string call_;
  std::string kernel_;
};

// libcuda could not be loaded (no NVIDIA driver on this machine), or it has no usable
// device. code() is -1 when the library is missing.
class DriverNotFound : public CudaError {
public:
  using CudaError::CudaError;
};

// A kernel needs more of a resource (shared memory, registers) than the device offers.
// Autotuners catch it to skip a configuration, as they do Triton's OutOfResources.
class OutOfResources : public std::runtime_error {
public:
  OutOfResources(std::string resource, int64_t required, int64_t limit, std::string kernel);
  const std::string &resource() const { return resource_; }
  int64_t required() const { return required_; }
  int64_t limit() const { return limit_; }
  const std::string &kernel() const { return kernel_; }

private:
  std::string resource_;
  int64_t required_;
  int64_t limit_;
  std::string kernel_;
};

// The driver, loaded (TILEC_LIBCUDA, default libcuda.so.1) and initialised (cuInit) once
// per process. Throws DriverNotFound when the library or a device is missing; the
// outcome is remembered, so later calls fail the same way at once.
const DriverApi &driver();

// Whether driver() succeeds; never throws. `why` receives the reason when it does not.
bool driver_available(std::string *why = nullptr);

// An entry point newer than tilec's minimum driver, from the library driver() loaded; null
// when that driver lacks it.
void *optional_symbol(const char *symbol);

// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
std::string describe_error(CUresult r);

[[noreturn]] void throw_cuda_error(CUresult r, const char *call, std::string_view kernel,
                                   std::string_view detail = {});

// Throws CudaError for r != CUDA_SUCCESS.
inline void check(CUresult r, const char *call, std::string_view kernel = {}) {
  if (r != CUDA_SUCCESS)
    throw_cuda_error(r, call, kernel);
}

// The driver's version as major*1000 + minor*10 (12080 for CUDA 12.8).
int driver_version();
int device_count();

// The primary context of `device` (the one torch and the CUDA runtime use), retained once
// per process and never released.
CUcontext primary_context(int device);

// The device the calling thread's current context belongs to; -1 when none is current.
int current_device();

// Makes a context of `device` current for the scope's lifetime: the current context when
// it belongs to `device`; else, with none current, the primary context (left current
// afterwards, as the CUDA runtime would do); else the primary context pushed and popped on
// exit, so the caller's current device is unchanged.
class DeviceContextScope {
public:
  explicit DeviceContextScope(int device);
  ~DeviceContextScope();
  DeviceContextScope(const DeviceContextScope &) = delete;
  DeviceContextScope &operator=(const DeviceContextScope &) = delete;
  CUcontext context() const { return ctx_; }

private:
  CUcontext ctx_ = nullptr;
  bool pushed_ = false;
};

// Device memory owned for the object's lifetime, in the current context (tests, tools).
class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  CUdeviceptr ptr() const { return ptr_; }
  size_t size() const { return size_; }
  void upload(const void *src, size_t bytes);
  void download(void *dst, size_t bytes) const;

private:
  CUdeviceptr ptr_ = 0;
  size_t size_ = 0;
};

} // namespace tilec::runtime
