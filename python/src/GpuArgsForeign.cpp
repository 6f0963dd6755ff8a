// Arguments that are arrays of other libraries than torch and numpy: objects with a
// __cuda_array_interface__ (CuPy, Numba, JAX through it) and DLPack capsules.
#include "Gpu.h"
#include "GpuArgsImpl.h"

#include <string>
#include <string_view>

#include "runtime/Driver.h"

namespace tilec::python::gpu {

namespace {

// "<f4", "|b1", "<i8", ... (numpy typestr, as __cuda_array_interface__ gives it)
uint8_t typestr_dtype(std::string_view s) {
  if (s.size() < 3)
    return kDNone;
  char kind = s[1];
  std::string_view size = s.substr(2);
  if (kind == 'b' && size == "1")
    return kDI1;
  if (kind == 'f')
    return size == "2" ? kDF16 : size == "4" ? kDF32 : size == "8" ? kDF64 : kDNone;
  if (kind == 'i' || kind == 'u') {
    int bytes = size == "1" ? 1 : size == "2" ? 2 : size == "4" ? 4 : size == "8" ? 8 : 0;
    if (!bytes)
      return kDNone;
    int idx = bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3;
    return static_cast<uint8_t>((kind == 'i' ? kDI8 : kDU8) + idx);
  }
  return kDNone;
}

// The CUDA device owning `ptr`, checked to be device (or managed) memory.
int device_of_pointer(uint64_t ptr, const char *name) {
  const runtime::DriverApi &d = runtime::driver(); // DriverNotFound: a GPU array, no driver
  unsigned mem_type = 0;
  int ordinal = -1;
  runtime::CUresult r =
      d.cuPointerGetAttribute(&mem_type, runtime::CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr);
  if (r == runtime::CUDA_SUCCESS)
    r = d.cuPointerGetAttribute(&ordinal, runtime::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr);
  if (r != runtime::CUDA_SUCCESS ||
      (mem_type != runtime::CU_MEMORYTYPE_DEVICE && mem_type != runtime::CU_MEMORYTYPE_UNIFIED))
    throw nb::value_error(("argument '" + std::string(name) +
                           "': its __cuda_array_interface__ pointer is not CUDA device memory")
                              .c_str());
  return ordinal;
}

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *);
};
struct DLManagedTensorVersioned {
  uint32_t major, minor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensorVersioned *);
  uint64_t flags;
  DLTensor dl_tensor;
};

uint8_t dlpack_dtype(DLDataType t) {
  if (t.lanes != 1)
    return kDNone;
  switch (t.code) {
  case 0: // int
    return t.bits == 8    ? kDI8
           : t.bits == 16 ? kDI16
           : t.bits == 32 ? kDI32
           : t.bits == 64 ? kDI64
                          : kDNone;
  case 1: // uint
    return t.bits == 8    ? kDU8
           : t.bits == 16 ? kDU16
           : t.bits == 32 ? kDU32
           : t.bits == 64 ? kDU64
                          : kDNone;
  case 2: // float
    return t.bits == 16 ? kDF16 : t.bits == 32 ? kDF32 : t.bits == 64 ? kDF64 : kDNone;
  case 4: // bfloat
    return t.bits == 16 ? kDBF16 : kDNone;
  case 6: // bool
    return t.bits == 8 ? kDI1 : kDNone;
  case 10: // float8_e4m3fn
    return t.bits == 8 ? kDF8E4 : kDNone;
  case 12: // float8_e5m2
    return t.bits == 8 ? kDF8E5 : kDNone;
  default:
    return kDNone;
  }
}

} // namespace

void cai_arg(PyObject *iface, const char *name, ArgInfo &out) {
  nb::handle h(iface);
  if (!PyDict_Check(iface))
    throw nb::type_error(
        ("argument '" + std::string(name) + "': __cuda_array_interface__ is not a dict").c_str());
  nb::dict d = nb::borrow<nb::dict>(h);
  nb::tuple data = nb::cast<nb::tuple>(d["data"]);
  std::string typestr = nb::cast<std::string>(d["typestr"]);
  uint8_t code = typestr_dtype(typestr);
  if (code == kDNone)
    bad_dtype(name, "arrays of typestr '" + typestr + "'");
  uint64_t p = nb::cast<uint64_t>(data[0]);
  device_array(out, p, p ? device_of_pointer(p, name) : -2, code);
}

// DLPack (the C ABI, v0.8 and the versioned 1.x capsule).
void dlpack_arg(PyObject *capsule, const char *name, ArgInfo &out) {
  const DLTensor *t = nullptr;
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    t = &static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule, "dltensor"))->dl_tensor;
  } else if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    t = &static_cast<DLManagedTensorVersioned *>(
             PyCapsule_GetPointer(capsule, "dltensor_versioned"))
             ->dl_tensor;
  } else {
    throw nb::type_error(
        ("argument '" + std::string(name) + "' is a capsule that is not an unused DLPack tensor")
            .c_str());
  }
  int32_t dev = t->device.device_type;
  if (dev == kDLCPU || dev == kDLCUDAHost) {
    out.cls = ArgClass::HostArray;
    out.host_kind = "a DLPack tensor in host memory";
    return;
  }
  if (dev != kDLCUDA && dev != kDLCUDAManaged)
    throw nb::value_error(("argument '" + std::string(name) +
                           "' is a DLPack tensor on device "
                           "type " +
                           std::to_string(dev) + ", not a CUDA device")
                              .c_str());
  uint8_t code = dlpack_dtype(t->dtype);
  if (code == kDNone)
    bad_dtype(name, "DLPack tensors of type code " + std::to_string(t->dtype.code) + " with " +
                        std::to_string(t->dtype.bits) + " bits");
  device_array(out, reinterpret_cast<uint64_t>(t->data) + t->byte_offset, t->device.device_id,
               code);
}

} // namespace tilec::python::gpu
