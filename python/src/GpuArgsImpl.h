// Private to the argument classification (GpuArgs.cpp, GpuArgsForeign.cpp): the dtype
// codes of ArgInfo and the helpers the two files share.
#pragma once

#include <cstdint>
#include <string>

#include "GpuArgs.h"

namespace tilec::python::gpu {

// ArgInfo::dtype codes: indices into GpuArgs.cpp's kDtypeNames (kDNone: not a dtype).
enum : uint8_t {
  kDI1,
  kDI8,
  kDI16,
  kDI32,
  kDI64,
  kDU8,
  kDU16,
  kDU32,
  kDU64,
  kDF16,
  kDBF16,
  kDF32,
  kDF64,
  kDF8E4,
  kDF8E5,
  kDNone = 255
};

// DLPack's device types that tilec tells apart.
enum : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };

// Raises TypeError: argument `name` is an array of a dtype tilec has no type for (`what`).
[[noreturn]] void bad_dtype(const char *name, const std::string &what);

// `out` describes a device array at address `p` on `device` with element `dtype`.
void device_array(ArgInfo &out, uint64_t p, int device, uint8_t dtype);

// Arrays of other libraries (GpuArgsForeign.cpp): an object's __cuda_array_interface__
// dict, and a DLPack capsule (its DLManagedTensor is borrowed, not consumed).
void cai_arg(PyObject *iface, const char *name, ArgInfo &out);
void dlpack_arg(PyObject *capsule, const char *name, ArgInfo &out);

} // namespace tilec::python::gpu
