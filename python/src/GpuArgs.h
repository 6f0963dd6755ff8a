// Launch arguments of GPU kernels, classified without going through Python code where
// possible: torch tensors (data_ptr, dtype, device), objects with __cuda_array_interface__
// (cupy, numba), DLPack capsules and objects with __dlpack__, Python and numpy scalars.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>
#include <utility>

#include "runtime/TensorMap.h"

namespace tilec::python::gpu {

namespace nb = nanobind;

enum class ArgClass : uint8_t {
  None,
  Bool,
  Int,         // i, int_class
  Float,       // f
  DeviceArray, // i = address, dtype, device, aligned
  HostArray,   // a CPU tensor / numpy array: an error in a GPU launch
  TensorMap,   // tma: a TensorDescriptor for a .tmap .param (the launch encodes the map)
  Other,       // anything else: the slow path decides (and reports)
};

// Integer classes, as the CPU path specialises Python ints: by value range.
enum IntClass : uint8_t { kI32 = 0, kI64 = 1, kU64 = 2 };

struct ArgInfo {
  ArgClass cls = ArgClass::Other;
  uint8_t int_class = kI32;
  uint8_t dtype = 0; // index into dtype_names()
  bool aligned = false;
  int device = -1; // DeviceArray: CUDA ordinal; -2 when unknown (an empty array)
  int64_t i = 0;
  double f = 0;
  nb::object keepalive;                    // a DLPack capsule made for this launch
  const char *host_kind = nullptr;         // HostArray: "a CPU tensor", "a numpy array", ...
  const runtime::TmaTensor *tma = nullptr; // TensorMap (owned by the launch)
};

// Tile IR dtype names, indexed by ArgInfo::dtype.
const char *dtype_name(uint8_t dtype);

// str(torch dtype) -> ArgInfo::dtype: torch's dtypes tilec passes (_C.torch_dtype_names).
extern const std::pair<const char *, uint8_t> kTorchDtypes[15];

// Classifies `v` (the argument for parameter `name`). Raises Python errors (TypeError,
// ValueError, tilec.CudaError) for arrays tilec cannot pass: an unsupported dtype, a
// pointer that is not device memory, a GPU array without a CUDA driver.
void classify(PyObject *v, const char *name, ArgInfo &out);

// A Python int (data_ptr(), a stream handle) as 64 bits; OverflowError (a Python error,
// thrown) for negatives and values past 2^64. Cheaper than PyLong_AsUnsignedLongLong.
uint64_t to_u64(PyObject *v);

// torch._C._cuda_getCurrentRawStream when torch is imported (borrowed; nullptr otherwise).
PyObject *torch_raw_stream_fn();

// Forgets the torch types found so far (tests that stand in a fake torch module).
void reset_arg_types();

// One-time Python objects (interned attribute names).
void init_arg_names();

} // namespace tilec::python::gpu
