// The GPU half of the `tilec._C` extension: compiled-kernel objects, the disk cache, device
// queries (GpuKernel.cpp) and the launch fast path (GpuDispatch.cpp).
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <string>
#include <vector>

#include "GpuArgs.h"
#include "runtime/Launcher.h"

namespace tilec::sema {
struct FunctionSource;
}

namespace tilec::python::gpu {

namespace nb = nanobind;

// Maps each .param of `meta` to the index of the value it takes among `names` (the @jit
// parameter names); throws when a .param names no parameter.
std::vector<int> param_positions(const runtime::KernelMetadata &meta,
                                 const std::vector<std::string> &names);

// Packs the .params of `meta` from classified values: `infos[positions[i]]` feeds .param i.
// `names` name the values in errors. Raises TypeError/ValueError for a value the .param
// cannot take (a host array for a pointer, an int out of range, ...). A tensor-map .param
// i is encoded into maps[i] and ptrs[i] points there (both needed when meta has one).
void pack_params(const runtime::KernelMetadata &meta, const std::vector<int> &positions,
                 const ArgInfo *infos, const std::vector<std::string> &names, uint64_t *slots,
                 runtime::TensorMapBytes *maps = nullptr, void **ptrs = nullptr);

// Whether `meta` takes a tensor map (its launches need pack_params' maps).
bool takes_tensor_map(const runtime::KernelMetadata &meta);

// A TensorDescriptor argument's tensor (its base classified as for parameter `name`);
// false when `v` is not a TensorDescriptor over GPU memory with valid fields.
bool descriptor_tma_tensor(PyObject *v, const char *name, runtime::TmaTensor &out);

// Classifies the slow path's launch values (classify()); a TensorDescriptor (the value of a
// `.tmap` name, compiler/gpu.py launch_arguments) becomes its tensor in tmas[i].
void classify_launch_values(const nb::list &values, const std::vector<std::string> &names,
                            std::vector<ArgInfo> &infos, std::vector<runtime::TmaTensor> &tmas);

// The stream of a launch: `stream` when given (an int or an object with .cuda_stream),
// else torch's current stream on `device` when torch is imported, else the legacy
// default stream.
runtime::CUstream resolve_stream(PyObject *stream, int device);

// The disk cache key of `fs` compiled with `specs`, `options` for `arch` (GpuCacheKey.cpp).
std::string cache_key(const std::shared_ptr<sema::FunctionSource> &fs, const std::string &specs,
                      const std::string &options, const std::string &arch);

// Launches `k` over `grid` with one pointer per .param (the GIL held); `attrs`: a
// runtime::LaunchAttr set. A kernel with global scratch asks triton.set_allocator's
// allocator for it, for grid x num_ctas programs as Triton does (tilec runs one CTA a
// program: the launch option num_ctas only scales that request).
void launch_kernel(runtime::GpuKernel &k, int device, runtime::LaunchGrid grid,
                   runtime::CUstream stream, void **params, unsigned attrs = 0,
                   unsigned num_ctas = 1);

// The launch attributes the keywords `launch_cooperative_grid` / `launch_pdl` ask for
// (either may be null: not given); raises TypeError for values that are not bools/ints.
unsigned launch_attrs(PyObject *cooperative, PyObject *pdl);
// The num_ctas launch option (None or absent: 1; TypeError unless a positive int).
unsigned num_ctas_of(PyObject *v);

// A stand-in GPU for tests on machines without one (_C._gpu_test_device): launches call
// `recorder(kernel name, grid, device, stream, packed params[, launch attrs when not 0])`
// instead of the driver, device
// queries answer compute capability `cc`, and gpu_build skips ptxas.
struct TestDevice {
  int cc = 0;
  int devices = 1; // the device count it reports (the one-device tensor shortcut, GpuArgs)
  nb::object recorder;
};
TestDevice *test_device(); // nullptr unless enabled

// Sets the Python error for the C++ exception being handled (call inside a catch block):
// tilec's runtime errors as tilec.CudaError / OutOfResources / CompilationError, nanobind's
// builtin exceptions as their Python types, std::invalid_argument as ValueError.
void set_python_error();

// A launch's arguments as they arrive: vectorcall's array (keyword values after the
// positional ones, named by `kwnames`) or a (tuple, dict) pair.
struct CallArgs {
  PyObject *const *pos = nullptr;
  size_t npos = 0;
  PyObject *kwnames = nullptr; // tuple, or nullptr
  PyObject *kwdict = nullptr;  // dict, or nullptr

  static CallArgs of(PyObject *args, PyObject *kwargs) {
    CallArgs a;
    a.pos = args ? &PyTuple_GET_ITEM(args, 0) : nullptr;
    a.npos = args ? PyTuple_GET_SIZE(args) : 0;
    a.kwdict = kwargs;
    return a;
  }

  // f(name, value) for each keyword argument; stops (returning false) when f does.
  template <typename F> bool each_kw(F &&f) const {
    if (kwnames) {
      Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
      for (Py_ssize_t i = 0; i < n; ++i)
        if (!f(PyTuple_GET_ITEM(kwnames, i), pos[npos + i]))
          return false;
    } else if (kwdict) {
      Py_ssize_t p = 0;
      PyObject *k, *v;
      while (PyDict_Next(kwdict, &p, &k, &v))
        if (!f(k, v))
          return false;
    }
    return true;
  }
};

// GpuDispatch.cpp: launches through the fast path of `dispatcher` (a GpuDispatcher), else
// through the Python path; the dispatcher's reusable bound-launch slot (owned).
nb::object dispatch_call(PyObject *dispatcher, PyObject *grid, const CallArgs &a);
PyObject *&dispatcher_spare(PyObject *dispatcher);
bool is_dispatcher(PyObject *o);

// GpuBoundLaunch.cpp: `dispatcher[grid]` (a new reference, nullptr with a Python error).
PyObject *bind_grid_raw(PyObject *dispatcher, PyObject *grid);

void bind_gpu_kernel(nb::module_ &m);
void bind_gpu_dispatch(nb::module_ &m);
void bind_gpu_launch_objects(nb::module_ &m); // GpuBoundLaunch.cpp
void bind_gpu_profile(nb::module_ &m);        // GpuProfile.cpp
bool debug_env();     // TILEC_DEBUG or TRITON_DEBUG (GpuEnvFlags.cpp)
bool fp_fusion_env(); // TRITON_DEFAULT_FP_FUSION, true when unset (GpuEnvFlags.cpp)

} // namespace tilec::python::gpu
