#include "runtime/Driver.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

#include "support/Env.h"

namespace tilec::runtime {

namespace {

struct Loaded {
  DriverApi api{};
  bool ok = false;
  CUresult code = -1;
  std::string error; // why the driver is unusable
};

// Resolves one entry point; returns false (with `missing` set) when absent.
template <typename Fn>
bool resolve(void *lib, Fn &slot, const char *symbol, std::string &missing) {
  slot = reinterpret_cast<Fn>(dlsym(lib, symbol));
  if (!slot && missing.empty())
    missing = symbol;
  return slot != nullptr;
}

Loaded load_driver() {
  Loaded out;
  std::string name = env::get(env::Var::Libcuda);
  if (name.empty())
    name = env::info(env::Var::Libcuda).default_value;
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace of the process.
  void *lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    out.error = "CUDA driver not found: dlopen(\"" + name + "\") failed: " +
                (err ? err : "unknown error") +
                ". Running kernels on a GPU needs the NVIDIA driver (set TILEC_LIBCUDA to its "
                "path if it is installed elsewhere); without one, run on the CPU interpreter "
                "(TILEC_INTERPRET=1, CPU arrays).";
    return out;
  }
  DriverApi &a = out.api;
  std::string missing;
  resolve(lib, a.cuInit, "cuInit", missing);
  resolve(lib, a.cuDriverGetVersion, "cuDriverGetVersion", missing);
  resolve(lib, a.cuGetErrorName, "cuGetErrorName", missing);
  resolve(lib, a.cuGetErrorString, "cuGetErrorString", missing);
  resolve(lib, a.cuDeviceGet, "cuDeviceGet", missing);
  resolve(lib, a.cuDeviceGetCount, "cuDeviceGetCount", missing);
  resolve(lib, a.cuDeviceGetName, "cuDeviceGetName", missing);
  resolve(lib, a.cuDeviceGetAttribute, "cuDeviceGetAttribute", missing);
  resolve(lib, a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", missing);
  resolve(lib, a.cuCtxGetCurrent, "cuCtxGetCurrent", missing);
  resolve(lib, a.cuCtxSetCurrent, "cuCtxSetCurrent", missing);
  resolve(lib, a.cuCtxPushCurrent, "cuCtxPushCurrent_v2", missing);
  resolve(lib, a.cuCtxPopCurrent, "cuCtxPopCurrent_v2", missing);
  resolve(lib, a.cuCtxGetDevice, "cuCtxGetDevice", missing);
  resolve(lib, a.cuCtxSynchronize, "cuCtxSynchronize", missing);
  resolve(lib, a.cuStreamSynchronize, "cuStreamSynchronize", missing);
  resolve(lib, a.cuModuleLoadData, "cuModuleLoadData", missing);
  resolve(lib, a.cuModuleLoadDataEx, "cuModuleLoadDataEx", missing);
  resolve(lib, a.cuModuleUnload, "cuModuleUnload", missing);
  resolve(lib, a.cuModuleGetFunction, "cuModuleGetFunction", missing);
  resolve(lib, a.cuFuncGetAttribute, "cuFuncGetAttribute", missing);
  resolve(lib, a.cuFuncSetAttribute, "cuFuncSetAttribute", missing);
  resolve(lib, a.cuLaunchKernel, "cuLaunchKernel", missing);
  resolve(lib, a.cuLinkCreate, "cuLinkCreate_v2", missing);
  resolve(lib, a.cuLinkAddData, "cuLinkAddData_v2", missing);
  resolve(lib, a.cuLinkComplete, "cuLinkComplete", missing);
  resolve(lib, a.cuLinkDestroy, "cuLinkDestroy", missing);
  resolve(lib, a.cuMemAlloc, "cuMemAlloc_v2", missing);
  resolve(lib, a.cuMemFree, "cuMemFree_v2", missing);
  resolve(lib, a.cuMemcpyHtoD, "cuMemcpyHtoD_v2", missing);
  resolve(lib, a.cuMemcpyDtoH, "cuMemcpyDtoH_v2", missing);
  resolve(lib, a.cuMemsetD8, "cuMemsetD8_v2", missing);
  resolve(lib, a.cuPointerGetAttribute, "cuPointerGetAttribute", missing);
  resolve(lib, a.cuEventCreate, "cuEventCreate", missing);
  resolve(lib, a.cuEventRecord, "cuEventRecord", missing);
  resolve(lib, a.cuEventQuery, "cuEventQuery", missing);
  resolve(lib, a.cuEventSynchronize, "cuEventSynchronize", missing);
  resolve(lib, a.cuEventElapsedTime, "cuEventElapsedTime", missing);
  resolve(lib, a.cuEventDestroy, "cuEventDestroy_v2", missing);
  if (!missing.empty()) {
    out.error = "CUDA driver not usable: " + name + " has no symbol '" + missing +
                "' (the driver is too old for tilec)";
    return out;
  }
  CUresult r = a.cuInit(0);
  if (r != CUDA_SUCCESS) {
    out.code = r;
    const char *ename = nullptr, *estr = nullptr;
    a.cuGetErrorName(r, &ename);
    a.cuGetErrorString(r, &estr);
    out.error = std::string("CUDA driver found but cuInit failed: ") +
                (ename ? ename : "CUDA error " + std::to_string(r)) + ": " +
                (estr ? estr : "unknown error") +
                (r == CUDA_ERROR_NO_DEVICE ? " (no NVIDIA GPU is visible to this process)" : "");
    return out;
  }
  out.ok = true;
  return out; // the library stays loaded for the life of the process
}

const Loaded &loaded() {
  static const Loaded l = load_driver();
  return l;
}

} // namespace

OutOfResources::OutOfResources(std::string resource, int64_t required, int64_t limit,
                               std::string kernel)
    : std::runtime_error("out of resources: " + resource + ", Required: " +
                         std::to_string(required) + ", Hardware limit: " +
                         std::to_string(limit) + " (kernel '" + kernel +
                         "'). Reducing block sizes or `num_stages` may help."),
      resource_(std::move(resource)), required_(required), limit_(limit),
      kernel_(std::move(kernel)) {}

const DriverApi &driver() {
  const Loaded &l = loaded();
  if (!l.ok)
    throw DriverNotFound(l.code, "dlopen", "", l.error);
  return l.api;
}

bool driver_available(std::string *why) {
  const Loaded &l = loaded();
  if (!l.ok && why)
    *why = l.error;
  return l.ok;
}

void *optional_symbol(const char *symbol) {
  driver(); // loaded first
  std::string name = env::get(env::Var::Libcuda);
  if (name.empty())
    name = env::info(env::Var::Libcuda).default_value;
  void *lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  return lib ? dlsym(lib, symbol) : nullptr;
}

std::string describe_error(CUresult r) {
  const char *name = nullptr, *str = nullptr;
  const Loaded &l = loaded();
  if (l.api.cuGetErrorName) {
    l.api.cuGetErrorName(r, &name);
    l.api.cuGetErrorString(r, &str);
  }
  std::string out = name ? name : "CUDA error " + std::to_string(r);
  if (str)
    out += std::string(": ") + str;
  return out;
}

void throw_cuda_error(CUresult r, const char *call, std::string_view kernel,
                      std::string_view detail) {
  std::string msg = std::string("CUDA error in ") + call;
  if (!kernel.empty())
    msg += " (kernel '" + std::string(kernel) + "')";
  msg += ": " + describe_error(r);
  if (!detail.empty())
    msg += "\n" + std::string(detail);
  throw CudaError(r, call, std::string(kernel), msg);
}

int driver_version() {
  int v = 0;
  check(driver().cuDriverGetVersion(&v), "cuDriverGetVersion");
  return v;
}

int device_count() {
  int n = 0;
  check(driver().cuDeviceGetCount(&n), "cuDeviceGetCount");
  return n;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : size_(bytes) {
  check(driver().cuMemAlloc(&ptr_, bytes ? bytes : 1), "cuMemAlloc");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_)
    driver().cuMemFree(ptr_); // errors (a faulted context) cannot be reported from here
}

void DeviceBuffer::upload(const void *src, size_t bytes) {
  check(driver().cuMemcpyHtoD(ptr_, src, bytes), "cuMemcpyHtoD");
}

void DeviceBuffer::download(void *dst, size_t bytes) const {
  check(driver().cuMemcpyDtoH(dst, ptr_, bytes), "cuMemcpyDtoH");
}

CUcontext primary_context(int device) {
  static std::mutex mu;
  static std::vector<CUcontext> contexts;
  const DriverApi &d = driver();
  std::lock_guard<std::mutex> lock(mu);
  if (device < 0)
    throw CudaError(CUDA_ERROR_INVALID_DEVICE, "cuDeviceGet", "",
                    "invalid CUDA device " + std::to_string(device));
  if (static_cast<size_t>(device) < contexts.size() && contexts[device])
    return contexts[device];
  CUdevice dev = 0;
  CUresult r = d.cuDeviceGet(&dev, device);
  if (r != CUDA_SUCCESS) {
    int n = 0;
    d.cuDeviceGetCount(&n);
    throw_cuda_error(r, "cuDeviceGet", "",
                     "device " + std::to_string(device) + " requested; this process sees " +
                         std::to_string(n) + " device(s)");
  }
  CUcontext ctx = nullptr;
  check(d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  if (contexts.size() <= static_cast<size_t>(device))
    contexts.resize(device + 1, nullptr);
  contexts[device] = ctx;
  return ctx;
}

int current_device() {
  const DriverApi &d = driver();
  CUcontext cur = nullptr;
  check(d.cuCtxGetCurrent(&cur), "cuCtxGetCurrent");
  if (!cur)
    return -1;
  CUdevice dev = -1;
  check(d.cuCtxGetDevice(&dev), "cuCtxGetDevice");
  return dev;
}

DeviceContextScope::DeviceContextScope(int device) {
  const DriverApi &d = driver();
  CUcontext cur = nullptr;
  check(d.cuCtxGetCurrent(&cur), "cuCtxGetCurrent");
  if (cur) {
    CUdevice dev = -1;
    check(d.cuCtxGetDevice(&dev), "cuCtxGetDevice");
    if (dev == device) {
      ctx_ = cur;
      return;
    }
  }
  ctx_ = primary_context(device);
  if (!cur) {
    check(d.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
  } else {
    check(d.cuCtxPushCurrent(ctx_), "cuCtxPushCurrent");
    pushed_ = true;
  }
}

DeviceContextScope::~DeviceContextScope() {
  if (pushed_) {
    CUcontext popped = nullptr;
    driver().cuCtxPopCurrent(&popped);
  }
}

} // namespace tilec::runtime
