// Loading a compiled kernel into a device's context and launching it.
//
// Contexts: a launch uses the calling thread's current context when it belongs to the
// target device (torch makes its device's primary context current); with no current
// context it makes the device's primary context current (as the CUDA runtime would);
// a current context of another device is kept, the launch pushing and popping the target's
// primary context around itself. A module is loaded once per context.
//
// Faults: a kernel that faults (an illegal address, a failed trap) poisons its context;
// the driver reports it at the next synchronisation or launch. tilec remembers the last
// kernel it launched on each device, and synchronize() and later launches name it.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/Driver.h"
#include "runtime/KernelBinary.h"
#include "runtime/PtxCompiler.h"

namespace tilec::runtime {

struct DeviceProps {
  int ordinal = 0;
  std::string name;
  GpuTarget target;
  int sm_count = 0;
  int max_threads_per_block = 0;
  int max_shared_per_block = 0;       // without opt-in (48 KB)
  int max_shared_per_block_optin = 0; // with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  int max_shared_per_sm = 0;
  int max_registers_per_block = 0;
  std::array<int64_t, 3> max_grid{};
  int sm_clock_khz = 0, mem_clock_khz = 0, mem_bus_width = 0; // 0: the driver did not say
};

// Properties of `device`, read from the driver once and cached.
const DeviceProps &device_props(int device);

struct LaunchGrid {
  uint32_t x = 1, y = 1, z = 1;
};

// Launch attributes (cuLaunchKernelEx), a bit set: Triton's `launch_cooperative_grid=True`
// (every program resident at once, for grid-wide synchronisation) and `launch_pdl=True`
// (programmatic dependent launch: the kernel may start before the previous one on the
// stream ends, and waits for it in tl.extra.cuda.gdc_wait; sm_90 on, ignored before).
enum LaunchAttr : unsigned { kLaunchCooperative = 1, kLaunchPdl = 2 };

// One packed parameter per .param: slot i holds the value, ptrs[i] points at slot i.
struct PackedParams {
  std::vector<uint64_t> slots;
  std::vector<void *> ptrs;
  explicit PackedParams(size_t n) : slots(n, 0), ptrs(n) {
    for (size_t i = 0; i < n; ++i)
      ptrs[i] = &slots[i];
  }
};

// The 8-byte slot for a parameter of kind `k`: integer kinds take `i` (truncated to the
// kind's width, then sign- or zero-extended), float kinds take `f` (rounded to nearest
// even), pointers take `i` as the address.
uint64_t pack_param(ParamKind k, int64_t i, double f);

// How GpuKernel::launch hands the parameters to cuLaunchKernel: `kernelParams` (one pointer
// per .param; the default) or `extra` (one CU_LAUNCH_PARAM_BUFFER_POINTER buffer laid out as
// the driver reports the kernel's parameters, cuFuncGetParamInfo: drivers of CUDA 12.4 on;
// older ones keep kernelParams), or kernelParams through cuLaunchKernelEx (CUDA 12.0 on) or
// through the cuLaunchKernel that cuGetProcAddress returns (as the CUDA runtime calls it).
// Process-wide, for comparing them on a GPU (benchmarks/gpu_launch_breakdown.py).
enum class LaunchForm : uint8_t { KernelParams, ExtraBuffer, LaunchEx, ProcAddress };
void set_launch_form(LaunchForm form);
LaunchForm launch_form();

class GpuKernel {
public:
  explicit GpuKernel(KernelBinary bin);
  GpuKernel(const GpuKernel &) = delete;
  GpuKernel &operator=(const GpuKernel &) = delete;

  const KernelBinary &binary() const { return bin_; }
  const KernelMetadata &meta() const { return bin_.meta; }
  const std::string &name() const { return bin_.meta.name; }
  // The name's copy that lives for the process (what samples and fault reports keep).
  const std::string *interned_name() const { return interned_name_; }
  // The global scratch .param's index (kind Scratch, LaunchScratch.h), or -1.
  int scratch_param() const { return scratch_param_; }

  // Launches on `device` (loading the module there first if needed) with one pointer per
  // .param in `params`. A grid with a zero dimension launches nothing. A global scratch
  // slot left 0 gets stream-ordered memory for the launch (LaunchScratch.h).
  void launch(int device, LaunchGrid grid, CUstream stream, void **params, unsigned attrs = 0);

  // The loaded function on `device` (loads it if needed) and its attributes.
  CUfunction function(int device);
  int num_regs(int device);
  int spill_bytes(int device); // local memory per thread, mostly register spills
  // (offset, size) of each .param in the buffer of the `extra` launch form on `device`;
  // empty when the driver cannot tell (the launch then passes kernelParams).
  std::vector<std::pair<uint32_t, uint32_t>> param_buffer_layout(int device);

private:
  struct Loaded {
    CUcontext ctx = nullptr;
    int device = -1;
    CUfunction fn = nullptr;
    std::vector<uint32_t> offsets, sizes; // the .param buffer (the `extra` form)
    uint32_t buf_size = 0;
    bool extra_ok = false; // the driver reported the layout and it fits the buffer
  };
  const Loaded *find(CUcontext ctx, int device);
  const Loaded &load(CUcontext ctx, int device);
  void check_grid(int device, LaunchGrid g) const;

  KernelBinary bin_;
  const std::string *interned_name_;  // lives for the process: last-launch tracking
  const std::string *interned_traps_; // trap_notes(ptx), interned likewise
  int scratch_param_;                 // the Scratch .param (LaunchScratch.h), or -1
  std::mutex mu_;
  std::vector<std::unique_ptr<Loaded>> loaded_; // modules are never unloaded
  std::atomic<const Loaded *> last_{nullptr};   // the last one launched: no lock to find it
};

// The checks a kernel's PTX says trap (simt::kTrapNotePrefix lines in its header: "FILE:LINE:
// MESSAGE"), joined with "; "; a fault after launching it names them.
std::string trap_notes(std::string_view ptx);

// The name of the last kernel tilec launched on `device` ("" when none).
std::string last_launched_kernel(int device);

// Waits for the work on `device` (-1: every device tilec launched on) and reports a fault
// as CudaError naming the last kernel tilec launched there.
void synchronize(int device = -1);

} // namespace tilec::runtime
