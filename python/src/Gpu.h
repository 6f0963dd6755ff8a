// The GPU half of the `tilec._C` extension: compiled-kernel objects, the disk cache, device
// queries (GpuKernel.cpp) and the launch fast path (GpuDispatch.cpp).
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <string>
#include <vector>

#include "GpuArgs.h"
#include "runtime/Launcher.h"

namespace tilec::python::gpu {

namespace nb = nanobind;

// Maps each .param of `meta` to the index of the value it takes among `names` (the @jit
// parameter names); throws when a .param names no parameter.
std::vector<int> param_positions(const runtime::KernelMetadata &meta,
                                 const std::vector<std::string> &names);

// Packs the .params of `meta` from classified values: `infos[positions[i]]` feeds .param i.
// `names` name the values in errors. Raises TypeError/ValueError for a value the .param
// cannot take (a host array for a pointer, an int out of range, ...).
void pack_params(const runtime::KernelMetadata &meta, const std::vector<int> &positions,
                 const ArgInfo *infos, const std::vector<std::string> &names, uint64_t *slots);

// The stream of a launch: `stream` when given (an int or an object with .cuda_stream),
// else torch's current stream on `device` when torch is imported, else the legacy
// default stream.
runtime::CUstream resolve_stream(PyObject *stream, int device);

// Launches `k` over `grid` with one pointer per .param (the GIL held).
void launch_kernel(runtime::GpuKernel &k, int device, runtime::LaunchGrid grid,
                   runtime::CUstream stream, void **params);

// Sets the Python error for the C++ exception being handled (call inside a catch block):
// tilec's runtime errors as tilec.CudaError / OutOfResources / CompilationError, nanobind's
// builtin exceptions as their Python types, std::invalid_argument as ValueError.
void set_python_error();

void bind_gpu_kernel(nb::module_ &m);
void bind_gpu_dispatch(nb::module_ &m);

} // namespace tilec::python::gpu
