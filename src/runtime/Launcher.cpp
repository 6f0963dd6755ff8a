#include "runtime/Launcher.h"
#include "runtime/LaunchScratch.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>

#include "runtime/LaunchProfile.h"
#include "simt/ThreadIR.h"
#include "support/Env.h"

namespace tilec::runtime {

namespace {

constexpr int kMaxDevices = 64;

// Interned kernel names: a launch records a pointer, never a copy (no allocation, no lock).
const std::string *intern(const std::string &name) {
  static std::mutex mu;
  static std::set<std::string> names;
  std::lock_guard<std::mutex> lock(mu);
  return &*names.insert(name).first;
}

std::array<std::atomic<const std::string *>, kMaxDevices> &last_kernels() {
  static std::array<std::atomic<const std::string *>, kMaxDevices> last{};
  return last;
}

// The trap notes (trap_notes) of the last kernel tilec launched on each device.
std::array<std::atomic<const std::string *>, kMaxDevices> &last_trap_notes() {
  static std::array<std::atomic<const std::string *>, kMaxDevices> last{};
  return last;
}

// Errors that mean an earlier kernel faulted and the context is unusable.
bool is_sticky(CUresult r) {
  return r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED ||
         r == CUDA_ERROR_ASSERT || (r >= 714 && r <= 719); // warp/illegal-instr/misaligned/...
}

std::string fault_note(int device) {
  std::string last = last_launched_kernel(device);
  std::string note = "A kernel faulted on device " + std::to_string(device);
  if (!last.empty())
    note += "; the last kernel tilec launched there was '" + last + "'";
  const std::string *traps = last_trap_notes()[device].load(std::memory_order_relaxed);
  if (traps && !traps->empty())
    note += ", which traps (an illegal instruction) where one of its checks fails: " + *traps;
  note += ". The CUDA context is now unusable: restart the process (run with "
          "CUDA_LAUNCH_BLOCKING=1 to stop at the faulting launch).";
  return note;
}

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

uint16_t fp16_bits(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) // inf, NaN (quiet)
    return sign | (ax > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (ax >= 0x477ff000u) // rounds past the largest half (65504)
    return sign | 0x7c00;
  if (ax < 0x38800000u) { // below 2^-14: a half subnormal (or zero); exact scaling by 2^24
    float scaled = std::fabs(f) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t r = ax + 0xfffu + ((ax >> 13) & 1u); // round to nearest even at bit 13
  return sign | static_cast<uint16_t>((r - 0x38000000u) >> 13);
}

uint16_t bf16_bits(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x0040);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

} // namespace

uint64_t pack_param(ParamKind k, int64_t i, double f) {
  switch (k) {
  case ParamKind::Ptr:
    return static_cast<uint64_t>(i);
  case ParamKind::I1:
    return i != 0 ? 1 : 0;
  case ParamKind::F16:
    return fp16_bits(static_cast<float>(f));
  case ParamKind::BF16:
    return bf16_bits(static_cast<float>(f));
  case ParamKind::F32:
    return float_bits(static_cast<float>(f));
  case ParamKind::F64: {
    uint64_t u;
    std::memcpy(&u, &f, 8);
    return u;
  }
  default:
    break;
  }
  int bits = param_kind_bits(k);
  uint64_t u = static_cast<uint64_t>(i);
  if (bits == 64)
    return u;
  int shift = 64 - bits;
  if (param_kind_is_signed(k))
    return static_cast<uint64_t>(static_cast<int64_t>(u << shift) >> shift);
  return (u << shift) >> shift;
}

namespace {
std::atomic<LaunchForm> g_launch_form{LaunchForm::KernelParams};
constexpr uint32_t kMaxParamBuffer = 4096; // cuLaunchKernel's classic parameter limit
// cuda.h's CU_LAUNCH_PARAM_END / _BUFFER_POINTER / _BUFFER_SIZE
void *const kParamEnd = nullptr;
void *const kParamBufferPointer = reinterpret_cast<void *>(uintptr_t(1));
void *const kParamBufferSize = reinterpret_cast<void *>(uintptr_t(2));
} // namespace

void set_launch_form(LaunchForm form) { g_launch_form.store(form, std::memory_order_relaxed); }
LaunchForm launch_form() { return g_launch_form.load(std::memory_order_relaxed); }

namespace {

// cuFuncGetParamInfo (CUDA 12.4 on), looked up in the driver tilec loaded; null before.
using ParamInfoFn = CUresult (*)(CUfunction, size_t, size_t *, size_t *);
ParamInfoFn param_info_fn() {
  static ParamInfoFn fn = reinterpret_cast<ParamInfoFn>(optional_symbol("cuFuncGetParamInfo"));
  return fn;
}

// cuda.h's CUlaunchAttribute and CUlaunchConfig (CUDA 12.0 on), for cuLaunchKernelEx.
struct LaunchAttribute {
  int id; // CUlaunchAttributeID
  char pad[4];
  int value[16]; // CUlaunchAttributeValue (64 bytes): these attributes take one int
};
constexpr int kAttrCooperative = 2;        // CU_LAUNCH_ATTRIBUTE_COOPERATIVE
constexpr int kAttrProgrammaticSerial = 6; // ..._PROGRAMMATIC_STREAM_SERIALIZATION
struct LaunchConfig {
  unsigned grid[3], block[3], shared;
  CUstream stream;
  LaunchAttribute *attrs;
  unsigned num_attrs;
};
using LaunchExFn = CUresult (*)(const LaunchConfig *, CUfunction, void **, void **);
LaunchExFn launch_ex_fn() {
  static LaunchExFn fn = reinterpret_cast<LaunchExFn>(optional_symbol("cuLaunchKernelEx"));
  return fn;
}

// cuLaunchKernel as cuGetProcAddress hands it out (the way the CUDA runtime finds it).
using LaunchFn = decltype(DriverApi::cuLaunchKernel);
LaunchFn launch_gpa_fn() {
  static LaunchFn fn = [] {
    using GetProc = CUresult (*)(const char *, void **, int, uint64_t, int *);
    auto gpa = reinterpret_cast<GetProc>(optional_symbol("cuGetProcAddress_v2"));
    void *f = nullptr;
    int status = 0;
    if (!gpa || gpa("cuLaunchKernel", &f, 12000, 0, &status) != CUDA_SUCCESS)
      return LaunchFn{};
    return reinterpret_cast<LaunchFn>(f);
  }();
  return fn;
}

CUresult launch_with_attrs(CUfunction fn, LaunchGrid g, unsigned block, unsigned shared,
                           CUstream stream, void **params, unsigned attrs) {
  if (!launch_ex_fn())
    throw std::runtime_error("launch_cooperative_grid=True and launch_pdl=True need "
                             "cuLaunchKernelEx, which this CUDA driver lacks (CUDA 12 or newer)");
  LaunchAttribute a[2] = {};
  unsigned n = 0;
  if (attrs & kLaunchCooperative)
    a[n++] = {kAttrCooperative, {}, {1}};
  if (attrs & kLaunchPdl)
    a[n++] = {kAttrProgrammaticSerial, {}, {1}};
  LaunchConfig cfg{{g.x, g.y, g.z}, {block, 1, 1}, shared, stream, a, n};
  return launch_ex_fn()(&cfg, fn, params, nullptr);
}

} // namespace

const DeviceProps &device_props(int device) {
  static std::mutex mu;
  static std::vector<std::unique_ptr<DeviceProps>> cache;
  const DriverApi &d = driver();
  std::lock_guard<std::mutex> lock(mu);
  if (device < 0 || device >= kMaxDevices)
    throw std::invalid_argument("invalid CUDA device index " + std::to_string(device));
  if (static_cast<size_t>(device) < cache.size() && cache[device])
    return *cache[device];
  CUdevice dev = 0;
  check(d.cuDeviceGet(&dev, device), "cuDeviceGet");
  auto attr = [&](int a) {
    int v = 0;
    check(d.cuDeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute");
    return v;
  };
  auto p = std::make_unique<DeviceProps>();
  p->ordinal = device;
  char name[256] = {0};
  if (d.cuDeviceGetName(name, sizeof name - 1, dev) == CUDA_SUCCESS)
    p->name = name;
  p->target.major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p->target.minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p->sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p->max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  p->max_shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  p->max_shared_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  p->max_shared_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  p->max_registers_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  p->max_grid = {attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                 attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
  auto optional_attr = [&](int a) { // informational: a driver without them is no error
    int v = 0;
    return d.cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : 0;
  };
  p->sm_clock_khz = optional_attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  p->mem_clock_khz = optional_attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  p->mem_bus_width = optional_attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  if (cache.size() <= static_cast<size_t>(device))
    cache.resize(device + 1);
  cache[device] = std::move(p);
  return *cache[device];
}

std::string trap_notes(std::string_view ptx) {
  std::string notes;
  const std::string_view prefix = simt::kTrapNotePrefix;
  for (size_t at = 0; at < ptx.size();) {
    size_t end = std::min(ptx.find('\n', at), ptx.size());
    std::string_view line = ptx.substr(at, end - at);
    if (line.substr(0, prefix.size()) == prefix)
      notes += (notes.empty() ? "" : "; ") + std::string(line.substr(prefix.size()));
    else if (!line.empty() && line[0] != '/')
      break; // the notes are in the header, before any directive
    at = end + 1;
  }
  return notes;
}

GpuKernel::GpuKernel(KernelBinary bin)
    : bin_(std::move(bin)), interned_name_(intern(bin_.meta.name)),
      interned_traps_(intern(trap_notes(bin_.ptx))),
      scratch_param_(scratch_param_index(bin_.meta)) {}

const GpuKernel::Loaded *GpuKernel::find(CUcontext ctx, int device) {
  const Loaded *last = last_.load(std::memory_order_acquire);
  if (last && last->ctx == ctx && last->device == device)
    return last;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto &l : loaded_)
    if (l->ctx == ctx && l->device == device) {
      last_.store(l.get(), std::memory_order_release);
      return l.get();
    }
  return nullptr;
}

const GpuKernel::Loaded &GpuKernel::load(CUcontext ctx, int device) {
  const DriverApi &d = driver();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto &l : loaded_)
    if (l->ctx == ctx && l->device == device)
      return *l;
  const DeviceProps &props = device_props(device);
  const std::string &kname = bin_.meta.name;
  int threads = 32 * bin_.meta.num_warps;
  if (threads > props.max_threads_per_block)
    throw OutOfResources("threads", threads, props.max_threads_per_block, kname);
  if (bin_.meta.shared > props.max_shared_per_block_optin)
    throw OutOfResources("shared memory", bin_.meta.shared, props.max_shared_per_block_optin,
                         kname);
  CUmodule module = nullptr;
  CUresult r = CUDA_ERROR_INVALID_IMAGE;
  if (!bin_.cubin.empty())
    r = d.cuModuleLoadData(&module, bin_.cubin.data());
  if (r != CUDA_SUCCESS && !bin_.ptx.empty() &&
      (r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_NO_BINARY_FOR_GPU ||
       r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_INVALID_PTX)) {
    // The cubin does not suit this driver or GPU: let the driver JIT-compile the PTX.
    std::vector<char> log(1 << 14, '\0');
    int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log.data(), reinterpret_cast<void *>(log.size())};
    CUresult cubin_error = r;
    r = d.cuModuleLoadDataEx(&module, bin_.ptx.c_str(), 2, opts, vals);
    if (r != CUDA_SUCCESS) {
      std::string detail = "loading the cubin failed with " + describe_error(cubin_error) +
                           " and JIT-compiling the PTX with " + describe_error(r);
      if (log[0])
        detail += ":\n" + std::string(log.data());
      if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
        detail += "\n(the PTX is newer than this driver supports: update the NVIDIA driver)";
      throw_cuda_error(r, "cuModuleLoadDataEx", kname, detail);
    }
  } else {
    check(r, "cuModuleLoadData", kname);
  }
  CUfunction fn = nullptr;
  check(d.cuModuleGetFunction(&fn, module, kname.c_str()), "cuModuleGetFunction", kname);
  int static_shared = 0;
  check(d.cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn),
        "cuFuncGetAttribute", kname);
  int64_t total_shared = int64_t(bin_.meta.shared) + static_shared;
  if (total_shared > props.max_shared_per_block_optin)
    throw OutOfResources("shared memory", total_shared, props.max_shared_per_block_optin, kname);
  if (total_shared > props.max_shared_per_block)
    check(
        d.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bin_.meta.shared),
        "cuFuncSetAttribute", kname);
  auto l = std::make_unique<Loaded>();
  l->ctx = ctx;
  l->device = device;
  l->fn = fn;
  if (ParamInfoFn info = param_info_fn(); info && !bin_.meta.params.empty()) {
    l->extra_ok = true;
    for (size_t i = 0; i < bin_.meta.params.size() && l->extra_ok; ++i) {
      size_t off = 0, size = 0;
      l->extra_ok = info(fn, i, &off, &size) == CUDA_SUCCESS && size > 0 && size <= 8 &&
                    off + size <= kMaxParamBuffer;
      l->offsets.push_back(static_cast<uint32_t>(off));
      l->sizes.push_back(static_cast<uint32_t>(size));
      l->buf_size = std::max(l->buf_size, static_cast<uint32_t>(off + size));
    }
    size_t off = 0; // one more parameter than the metadata says: the metadata is wrong
    l->extra_ok = l->extra_ok && info(fn, bin_.meta.params.size(), &off, nullptr) != CUDA_SUCCESS;
  }
  loaded_.push_back(std::move(l));
  return *loaded_.back();
}

void GpuKernel::check_grid(int device, LaunchGrid g) const {
  const DeviceProps &p = device_props(device);
  if (g.x > p.max_grid[0] || g.y > p.max_grid[1] || g.z > p.max_grid[2])
    throw std::invalid_argument("grid (" + std::to_string(g.x) + ", " + std::to_string(g.y) + ", " +
                                std::to_string(g.z) + ") of kernel '" + name() +
                                "' exceeds the device's limits (" + std::to_string(p.max_grid[0]) +
                                ", " + std::to_string(p.max_grid[1]) + ", " +
                                std::to_string(p.max_grid[2]) + ")");
}

void GpuKernel::launch(int device, LaunchGrid g, CUstream stream, void **params, unsigned attrs) {
  if (g.x == 0 || g.y == 0 || g.z == 0)
    return;
  if (device < 0 || device >= kMaxDevices)
    throw std::invalid_argument("invalid CUDA device index " + std::to_string(device));
  const DriverApi &d = driver();
  if (g.y > 65535 || g.z > 65535 || g.x > 0x7fffffffu)
    check_grid(device, g);
  CUcontext cur = nullptr;
  check(d.cuCtxGetCurrent(&cur), "cuCtxGetCurrent", name());
  const Loaded *l = cur ? find(cur, device) : nullptr;
  CUresult r;
  unsigned block = 32u * static_cast<unsigned>(bin_.meta.num_warps);
  if ((attrs & kLaunchPdl) && device_props(device).target.cc() < 90)
    attrs &= ~unsigned(kLaunchPdl); // no programmatic launch before Hopper: a plain one
  auto go = [&](const Loaded &fl) { // (fl's context is current)
    StreamScratch scratch(bin_.meta, scratch_param_, uint64_t(g.x) * g.y * g.z, stream, params);
    if (attrs)
      return launch_with_attrs(fl.fn, g, block, unsigned(bin_.meta.shared), stream, params, attrs);
    LaunchForm form = launch_form();
    if (form == LaunchForm::LaunchEx && launch_ex_fn()) {
      LaunchConfig cfg{{g.x, g.y, g.z}, {block, 1, 1}, unsigned(bin_.meta.shared),
                       stream,          nullptr,       0};
      return launch_ex_fn()(&cfg, fl.fn, params, nullptr);
    }
    if (form == LaunchForm::ProcAddress && launch_gpa_fn())
      return launch_gpa_fn()(fl.fn, g.x, g.y, g.z, block, 1, 1, bin_.meta.shared, stream, params,
                             nullptr);
    if (form != LaunchForm::ExtraBuffer || !fl.extra_ok)
      return d.cuLaunchKernel(fl.fn, g.x, g.y, g.z, block, 1, 1, bin_.meta.shared, stream, params,
                              nullptr);
    // the `extra` form: the values copied into one buffer as the driver lays the .params
    // out (the slots are little-endian: a value's bytes start at its slot)
    alignas(8) unsigned char buf[kMaxParamBuffer];
    size_t buf_size = fl.buf_size;
    void *extra[] = {kParamBufferPointer, buf, kParamBufferSize, &buf_size, kParamEnd};
    for (size_t i = 0; i < fl.offsets.size(); ++i)
      std::memcpy(buf + fl.offsets[i], params[i], fl.sizes[i]);
    return d.cuLaunchKernel(fl.fn, g.x, g.y, g.z, block, 1, 1, bin_.meta.shared, stream, nullptr,
                            extra);
  };
  auto timed = [&](const Loaded &fl, CUcontext ctx) { // the profiler's events around it
    if (!profile::on())
      return go(fl);
    profile::Bracket b(ctx, stream);
    CUresult res = go(fl);
    b.done(res, interned_name_, device);
    return res;
  };
  if (l) {
    r = timed(*l, cur);
  } else {
    DeviceContextScope scope(device);
    r = timed(load(scope.context(), device), scope.context());
  }
  if (r == CUDA_SUCCESS) {
    last_kernels()[device].store(interned_name_, std::memory_order_relaxed);
    last_trap_notes()[device].store(interned_traps_, std::memory_order_relaxed);
    return;
  }
  if (r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) {
    int regs = num_regs(device);
    throw OutOfResources("registers", int64_t(regs) * block,
                         device_props(device).max_registers_per_block, name());
  }
  if (r == CUDA_ERROR_INVALID_VALUE)
    check_grid(device, g);
  if (r == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
    throw_cuda_error(r, "cuLaunchKernelEx", name(),
                     "launch_cooperative_grid=True needs every program resident on the GPU at "
                     "once, and a grid of " +
                         std::to_string(uint64_t(g.x) * g.y * g.z) +
                         " programs does not fit: launch at most as many programs as the "
                         "device's SMs can hold together");
  throw_cuda_error(r, "cuLaunchKernel", name(), is_sticky(r) ? fault_note(device) : "");
}

CUfunction GpuKernel::function(int device) {
  DeviceContextScope scope(device);
  return load(scope.context(), device).fn;
}

int GpuKernel::num_regs(int device) {
  int v = 0;
  check(driver().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, function(device)),
        "cuFuncGetAttribute", name());
  return v;
}

std::vector<std::pair<uint32_t, uint32_t>> GpuKernel::param_buffer_layout(int device) {
  DeviceContextScope scope(device);
  const Loaded &l = load(scope.context(), device);
  std::vector<std::pair<uint32_t, uint32_t>> out;
  if (l.extra_ok)
    for (size_t i = 0; i < l.offsets.size(); ++i)
      out.emplace_back(l.offsets[i], l.sizes[i]);
  return out;
}

int GpuKernel::spill_bytes(int device) {
  int v = 0;
  check(driver().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function(device)),
        "cuFuncGetAttribute", name());
  return v;
}

std::string last_launched_kernel(int device) {
  if (device < 0 || device >= kMaxDevices)
    return "";
  const std::string *s = last_kernels()[device].load(std::memory_order_relaxed);
  return s ? *s : std::string();
}

void synchronize(int device) {
  const DriverApi &d = driver();
  std::vector<int> devices;
  if (device >= 0) {
    devices.push_back(device);
  } else {
    for (int i = 0; i < kMaxDevices; ++i)
      if (last_kernels()[i].load(std::memory_order_relaxed))
        devices.push_back(i);
  }
  for (int dev : devices) {
    DeviceContextScope scope(dev);
    CUresult r = d.cuCtxSynchronize();
    if (r != CUDA_SUCCESS)
      throw_cuda_error(r, "cuCtxSynchronize", last_launched_kernel(dev),
                       is_sticky(r) ? fault_note(dev) : "");
  }
}

} // namespace tilec::runtime
