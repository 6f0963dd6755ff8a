// Argument classification for GPU launches (GpuArgs.h). Runs on every launch: the common
// cases (torch tensors, Python ints/floats) use the C API directly.
#include "GpuArgs.h"
#include "GpuArgsImpl.h"
#include "Gpu.h"
#include "GpuTorchAbi.h"

#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/Driver.h"

namespace tilec::python::gpu {

namespace {

constexpr const char *kDtypeNames[] = {"i1",  "i8",   "i16",  "i32",  "i64",     "u8",   "u16",
                                       "u32", "u64",  "fp16", "bf16", "fp32",    "fp64", "fp8e4nv",
                                       "fp8e5"};

struct Names {
  PyObject *data_ptr, *dtype, *get_device, *is_cuda, *cai, *dlpack, *dlpack_device, *array_if,
      *torch;
};
Names g_names{};

void intern(PyObject *&slot, const char *s) {
  if (!slot)
    slot = PyUnicode_InternFromString(s);
}

// torch, found once it is imported (tilec never imports it).
struct Torch {
  PyObject *tensor_type = nullptr;
  PyObject *raw_stream = nullptr;
  std::vector<std::pair<PyObject *, uint8_t>> dtypes; // torch.dtype singletons
};
Torch g_torch;

void find_torch() {
  if (g_torch.tensor_type)
    return;
  PyObject *mod = PyDict_GetItemWithError(PyImport_GetModuleDict(), g_names.torch); // borrowed
  if (!mod) {
    PyErr_Clear();
    return;
  }
  PyObject *t = PyObject_GetAttrString(mod, "Tensor");
  if (!t || !PyType_Check(t)) {
    Py_XDECREF(t);
    PyErr_Clear();
    return;
  }
  PyObject *c = PyObject_GetAttrString(mod, "_C");
  if (c) {
    g_torch.raw_stream = PyObject_GetAttrString(c, "_cuda_getCurrentRawStream");
    Py_DECREF(c);
  }
  PyErr_Clear();
  g_torch.tensor_type = t; // kept for the life of the process
}

} // namespace

// str(torch dtype) -> ArgInfo::dtype code: the one table of torch's dtypes (the Python path's
// comes from it: _C.torch_dtype_names).
const std::pair<const char *, uint8_t> kTorchDtypes[15] = {
    {"torch.bool", kDI1},     {"torch.int8", kDI8},       {"torch.int16", kDI16},
    {"torch.int32", kDI32},   {"torch.int64", kDI64},     {"torch.uint8", kDU8},
    {"torch.uint16", kDU16},  {"torch.uint32", kDU32},    {"torch.uint64", kDU64},
    {"torch.float16", kDF16}, {"torch.bfloat16", kDBF16}, {"torch.float32", kDF32},
    {"torch.float64", kDF64}, {"torch.float8_e4m3fn", kDF8E4}, {"torch.float8_e5m2", kDF8E5}};

namespace {

uint8_t torch_dtype(PyObject *dt) {
  for (const auto &e : g_torch.dtypes)
    if (e.first == dt)
      return e.second;
  uint8_t code = kDNone;
  nb::str s = nb::str(nb::handle(dt));
  std::string_view name = s.c_str();
  for (const auto &e : kTorchDtypes)
    if (name == e.first)
      code = e.second;
  Py_INCREF(dt); // torch.dtype objects are immortal singletons; keep the key alive anyway
  g_torch.dtypes.emplace_back(dt, code);
  return code;
}


// The tensor type's own data_ptr / get_device / dtype, resolved once per type and called
// without attribute lookup: for torch's C methods and getters (METH_NOARGS, getset) the
// C function is called directly, anything else (a Python override) through a normal call.
// The entry stays valid while the type's version tag does (any change to the type or a base
// bumps it).
struct TensorType {
  PyTypeObject *type = nullptr;
  unsigned version = 0;
  PyObject *data_ptr = nullptr, *get_device = nullptr, *dtype = nullptr; // borrowed from the MRO
  PyObject *is_cuda = nullptr; // nullptr: the type has none (get_device decides)
};
constexpr int kTensorTypes = 4;
TensorType g_tensor_types[kTensorTypes];
int g_tensor_types_next = 0;

const TensorType *tensor_type(PyTypeObject *t) {
  for (const auto &e : g_tensor_types)
    if (e.type == t && e.version == t->tp_version_tag && e.version != 0)
      return &e;
  if (t->tp_version_tag == 0) {
    // no valid tag: setting a class attribute (a subclass counting calls in a class
    // variable) clears it; a lookup through the type's method cache assigns a new one
    _PyType_Lookup(t, g_names.data_ptr);
    if (t->tp_version_tag == 0)
      return nullptr;
  }
  TensorType &e = g_tensor_types[g_tensor_types_next++ % kTensorTypes];
  Py_XDECREF(e.type);
  Py_INCREF(t);
  e.type = t;
  e.version = t->tp_version_tag;
  e.data_ptr = _PyType_Lookup(t, g_names.data_ptr);
  e.get_device = _PyType_Lookup(t, g_names.get_device);
  e.dtype = _PyType_Lookup(t, g_names.dtype);
  e.is_cuda = _PyType_Lookup(t, g_names.is_cuda);
  return &e;
}

// v.<name>() through the method found on v's type.
PyObject *call_noargs(PyObject *v, PyObject *method, PyObject *name) {
  if (method && Py_IS_TYPE(method, &PyMethodDescr_Type)) {
    PyMethodDef *def = reinterpret_cast<PyMethodDescrObject *>(method)->d_method;
    if ((def->ml_flags & (METH_VARARGS | METH_FASTCALL | METH_NOARGS | METH_O | METH_KEYWORDS |
                          METH_METHOD)) == METH_NOARGS)
      return def->ml_meth(v, nullptr);
  }
  return PyObject_CallMethodNoArgs(v, name);
}

PyObject *get_attr(PyObject *v, PyObject *descr, PyObject *name) {
  if (descr && Py_IS_TYPE(descr, &PyGetSetDescr_Type)) {
    PyGetSetDef *gs = reinterpret_cast<PyGetSetDescrObject *>(descr)->d_getset;
    if (gs->get)
      return gs->get(v, gs->closure);
  }
  return PyObject_GetAttr(v, name);
}

// Whether the process sees exactly one CUDA device (the driver's count, asked once; the
// test device reports its own): a tensor whose is_cuda is true is then on device 0.
int g_single_device = -1; // -1: not asked yet

bool single_device() {
  if (g_single_device < 0) {
    if (TestDevice *t = test_device()) {
      g_single_device = t->devices == 1;
    } else {
      g_single_device = 0;
      try {
        if (runtime::driver_available())
          g_single_device = runtime::device_count() == 1;
      } catch (const std::exception &) {
        // no usable driver: get_device decides, and the launch reports the driver's error
      }
    }
  }
  return g_single_device == 1;
}

// The tensor's CUDA ordinal, -1 when it is not on a CUDA device. With one device, torch's
// is_cuda (a getter returning a bool singleton) answers for CUDA tensors, far cheaper than
// get_device(); anything else asks get_device().
long tensor_device(PyObject *v, const TensorType *tt) {
  if (tt && tt->is_cuda && single_device()) {
    PyObject *c = get_attr(v, tt->is_cuda, g_names.is_cuda);
    if (!c)
      throw nb::python_error();
    bool cuda = c == Py_True;
    Py_DECREF(c);
    if (cuda)
      return 0;
  }
  nb::object dev = nb::steal(tt ? call_noargs(v, tt->get_device, g_names.get_device)
                                : PyObject_CallMethodNoArgs(v, g_names.get_device));
  if (!dev.is_valid())
    throw nb::python_error();
  long device = PyLong_AsLong(dev.ptr());
  if (device == -1 && PyErr_Occurred())
    throw nb::python_error();
  return device;
}


// The Python getters' answers for a CUDA tensor (torch_abi checks its shim against them).
bool python_facts(PyObject *v, torch_abi::Facts &out) {
  try {
    const TensorType *tt = tensor_type(Py_TYPE(v));
    long device = tensor_device(v, tt);
    if (device < 0)
      return false;
    nb::object ptr = nb::steal(tt ? call_noargs(v, tt->data_ptr, g_names.data_ptr)
                                  : PyObject_CallMethodNoArgs(v, g_names.data_ptr));
    nb::object dt =
        nb::steal(tt ? get_attr(v, tt->dtype, g_names.dtype) : PyObject_GetAttr(v, g_names.dtype));
    if (!ptr.is_valid() || !dt.is_valid())
      throw nb::python_error();
    out.data = to_u64(ptr.ptr());
    out.cuda = true;
    out.device = static_cast<int>(device);
    out.dtype = torch_dtype(dt.ptr());
    return true;
  } catch (const nb::python_error &) {
    return false; // the error is cleared when the python_error goes
  }
}

void torch_arg(PyObject *v, const char *name, ArgInfo &out) {
  torch_abi::Facts f;
  if (torch_abi::read(v, f, python_facts) && f.cuda && f.dtype != kDNone) {
    device_array(out, f.data, f.device, f.dtype);
    return;
  }
  // Three queries per tensor: the device (is_cuda or get_device(), -1 for CPU tensors),
  // data_ptr() and dtype.
  const TensorType *tt = tensor_type(Py_TYPE(v));
  long device = tensor_device(v, tt);
  if (device < 0) {
    out.cls = ArgClass::HostArray;
    out.host_kind = "a CPU tensor";
    nb::object d = nb::getattr(nb::handle(v), "device");
    if (nb::cast<std::string>(nb::str(d.attr("type"))) != "cpu")
      out.host_kind = "a tensor on a non-CUDA device";
    return;
  }
  nb::object ptr = nb::steal(tt ? call_noargs(v, tt->data_ptr, g_names.data_ptr)
                                : PyObject_CallMethodNoArgs(v, g_names.data_ptr));
  if (!ptr.is_valid())
    throw nb::python_error();
  nb::object dt = nb::steal(tt ? get_attr(v, tt->dtype, g_names.dtype)
                               : PyObject_GetAttr(v, g_names.dtype));
  if (!dt.is_valid())
    throw nb::python_error();
  uint8_t code = torch_dtype(dt.ptr());
  if (code == kDNone)
    bad_dtype(name, "torch tensors of dtype " + nb::cast<std::string>(nb::str(dt)));
  device_array(out, to_u64(ptr.ptr()), static_cast<int>(device), code);
}

bool is_numpy_type(PyTypeObject *t) { return std::strncmp(t->tp_name, "numpy.", 6) == 0; }

// numpy's array and scalar types (numpy is imported by tilec itself).
struct Numpy {
  PyTypeObject *ndarray = nullptr;
  PyTypeObject *generic = nullptr;
  PyTypeObject *bool_type = nullptr;
  PyObject *true_obj = nullptr;
};
Numpy g_numpy;

void find_numpy() {
  if (g_numpy.ndarray)
    return;
  PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy"); // borrowed
  if (!mod)
    return;
  auto type_attr = [&](const char *n) -> PyTypeObject * {
    PyObject *o = PyObject_GetAttrString(mod, n);
    if (!o || !PyType_Check(o)) {
      Py_XDECREF(o);
      PyErr_Clear();
      return nullptr;
    }
    return reinterpret_cast<PyTypeObject *>(o); // kept for the life of the process
  };
  g_numpy.generic = type_attr("generic");
  g_numpy.bool_type = type_attr("bool_");
  g_numpy.true_obj = PyObject_GetAttrString(mod, "True_");
  if (!g_numpy.true_obj)
    PyErr_Clear();
  g_numpy.ndarray = type_attr("ndarray");
}

void int_value(PyObject *v, ArgInfo &out) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (overflow == 0) {
    if (x == -1 && PyErr_Occurred())
      throw nb::python_error();
    out.cls = ArgClass::Int;
    out.i = x;
    out.int_class = (x >= INT32_MIN && x <= INT32_MAX) ? kI32 : kI64;
    return;
  }
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(v);
    if (!PyErr_Occurred()) {
      out.cls = ArgClass::Int;
      out.i = static_cast<int64_t>(u);
      out.int_class = kU64;
      return;
    }
    PyErr_Clear();
  }
  out.cls = ArgClass::Other; // does not fit in 64 bits: the slow path reports it
}

} // namespace

[[noreturn]] void bad_dtype(const char *name, const std::string &what) {
  throw nb::type_error(("argument '" + std::string(name) + "': " + what +
                        " cannot be passed to a kernel")
                           .c_str());
}

void device_array(ArgInfo &out, uint64_t p, int device, uint8_t dtype) {
  out.cls = ArgClass::DeviceArray;
  out.i = static_cast<int64_t>(p);
  out.aligned = p % 16 == 0;
  out.device = device;
  out.dtype = dtype;
}

uint64_t to_u64(PyObject *v) {
  // PyLong_AsUnsignedLongLong goes through _PyLong_AsByteArray (CPython 3.11): slow for the
  // pointers of every launch, which always fit in 63 bits
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (!overflow && x >= 0)
    return static_cast<uint64_t>(x);
  if (x == -1 && PyErr_Occurred())
    throw nb::python_error();
  uint64_t u = PyLong_AsUnsignedLongLong(v); // the exact error for negatives
  if (u == static_cast<uint64_t>(-1) && PyErr_Occurred())
    throw nb::python_error();
  return u;
}

const char *dtype_name(uint8_t dtype) {
  return dtype < std::size(kDtypeNames) ? kDtypeNames[dtype] : "?";
}

PyObject *torch_raw_stream_fn() {
  find_torch();
  return g_torch.raw_stream;
}

void reset_arg_types() {
  g_single_device = -1;
  torch_abi::reset();
  Py_CLEAR(g_torch.tensor_type);
  Py_CLEAR(g_torch.raw_stream);
  for (auto &e : g_torch.dtypes)
    Py_DECREF(e.first);
  g_torch.dtypes.clear();
  for (auto &e : g_tensor_types) {
    Py_CLEAR(e.type);
    e = TensorType{};
  }
}

void init_arg_names() {
  intern(g_names.data_ptr, "data_ptr");
  intern(g_names.dtype, "dtype");
  intern(g_names.get_device, "get_device");
  intern(g_names.is_cuda, "is_cuda");
  intern(g_names.cai, "__cuda_array_interface__");
  intern(g_names.dlpack, "__dlpack__");
  intern(g_names.dlpack_device, "__dlpack_device__");
  intern(g_names.array_if, "__array_interface__");
  intern(g_names.torch, "torch");
}

void classify(PyObject *v, const char *name, ArgInfo &out) {
  if (v == Py_None) {
    out.cls = ArgClass::None;
    return;
  }
  PyTypeObject *t = Py_TYPE(v);
  if (t == &PyBool_Type) {
    out.cls = ArgClass::Bool;
    out.i = v == Py_True;
    return;
  }
  if (PyLong_Check(v)) {
    int_value(v, out);
    return;
  }
  find_torch();
  auto *tensor = reinterpret_cast<PyTypeObject *>(g_torch.tensor_type);
  if (t == tensor) { // before PyFloat_Check, which walks the MRO of anything not a float
    torch_arg(v, name, out);
    return;
  }
  if (PyFloat_Check(v)) {
    out.cls = ArgClass::Float;
    out.f = PyFloat_AS_DOUBLE(v);
    return;
  }
  if (tensor && PyType_IsSubtype(t, tensor)) {
    torch_arg(v, name, out);
    return;
  }
  if (PyCapsule_CheckExact(v)) {
    dlpack_arg(v, name, out);
    return;
  }
  if (is_numpy_type(t)) {
    find_numpy();
    if (g_numpy.ndarray && PyObject_TypeCheck(v, g_numpy.ndarray)) {
      out.cls = ArgClass::HostArray;
      out.host_kind = "a numpy array";
      return;
    }
    if (g_numpy.bool_type && t == g_numpy.bool_type) {
      out.cls = ArgClass::Bool;
      out.i = v == g_numpy.true_obj;
      return;
    }
    if (g_numpy.generic && PyObject_TypeCheck(v, g_numpy.generic)) {
      if (PyIndex_Check(v)) {
        nb::object idx = nb::steal(PyNumber_Index(v));
        if (!idx.is_valid())
          throw nb::python_error();
        int_value(idx.ptr(), out);
        return;
      }
      if (t->tp_as_number && t->tp_as_number->nb_float) {
        double d = PyFloat_AsDouble(v);
        if (d == -1.0 && PyErr_Occurred())
          throw nb::python_error();
        out.cls = ArgClass::Float;
        out.f = d;
        return;
      }
    }
  }
  if (PyObject *cai = PyObject_GetAttr(v, g_names.cai)) {
    nb::object guard = nb::steal(cai);
    cai_arg(cai, name, out);
    return;
  }
  PyErr_Clear();
  if (PyObject *devfn = PyObject_GetAttr(v, g_names.dlpack_device)) {
    nb::object fn = nb::steal(devfn);
    nb::object dev = nb::steal(PyObject_CallNoArgs(devfn));
    if (!dev.is_valid())
      throw nb::python_error();
    int dev_type = nb::cast<int>(nb::cast<nb::tuple>(dev)[0]);
    if (dev_type == kDLCPU || dev_type == kDLCUDAHost) {
      out.cls = ArgClass::HostArray;
      out.host_kind = "an array in host memory";
      return;
    }
    nb::object capsule = nb::steal(PyObject_CallMethodNoArgs(v, g_names.dlpack));
    if (!capsule.is_valid())
      throw nb::python_error();
    dlpack_arg(capsule.ptr(), name, out);
    out.keepalive = std::move(capsule); // the array stays alive while the capsule does
    return;
  }
  PyErr_Clear();
  if (PyObject_HasAttr(v, g_names.array_if)) {
    out.cls = ArgClass::HostArray;
    out.host_kind = "an array in host memory";
    return;
  }
  out.cls = ArgClass::Other;
}

} // namespace tilec::python::gpu
