// torch tensor facts and the current stream through torch's exported C functions (the
// AOTInductor shim ABI: aoti_torch_get_data_ptr, ..._get_dtype, ..._get_current_cuda_stream)
// instead of its Python getters, which cost ~50 ns each (a torch-function check and a
// Python int per call) on every launch.
//
// The shim takes an at::Tensor*; the Python object holds one right after its header
// (THPVariable's c10::MaybeOwned<at::Tensor>, whose borrowed and owned forms are both an
// at::Tensor in place). That offset is torch's C++ layout, not an ABI, so it is checked once
// per process against Tensor._cdata (the TensorImpl address torch itself reports) and the
// shim's answers against the Python getters before any launch relies on it. Any mismatch,
// a missing library or symbol, or a shim error leaves the Python getters in charge.
#pragma once

#include <Python.h>

#include <cstdint>
#include <string>

namespace tilec::python::gpu::torch_abi {

struct Facts {
  uint64_t data = 0;
  bool cuda = false;   // device type CUDA
  int device = -1;     // the CUDA device index, -1 when not on CUDA
  uint8_t dtype = 255; // tilec's dtype index (GpuArgs.h's dtype_name), 255: none
};

// Reads `v`, a torch.Tensor or torch.nn.Parameter (exact types; a subclass may override the
// getters), when the shim path is usable. `python_facts` answers the same from the Python
// getters; it is called once, to check the first tensor seen.
using PythonFacts = bool (*)(PyObject *v, Facts &out);
bool read(PyObject *v, Facts &out, PythonFacts python_facts);

// The tilec dtype index (GpuArgs.h's dtype_name) of a c10::ScalarType code; 255 when tilec
// has none.
uint8_t dtype_of(int32_t scalar_type);

// torch's current CUDA stream on `device` through the shim; false when unavailable.
// `python_stream` answers the same through torch._C; it is called once, to check the shim.
using PythonStream = bool (*)(int device, uint64_t &out);
bool current_stream(int device, uint64_t &stream, PythonStream python_stream);

// The shim's reading of any exact-type tensor, CPU ones included (tests compare it with the
// Python getters); false when the shim or the layout check is off.
bool read_unchecked(PyObject *v, Facts &out);

// "on", "off: <why>", or "unchecked" (no tensor seen yet): for tests and the breakdown.
std::string state();

// Forgets everything (a test standing in a fake torch).
void reset();

} // namespace tilec::python::gpu::torch_abi
