// torch tensor facts through torch's C shim (GpuTorchAbi.h).
#include "GpuTorchAbi.h"
#include "GpuArgs.h"
#include "support/Env.h"

#include <dlfcn.h>

#include <cstring>
#include <iterator>

namespace tilec::python::gpu::torch_abi {

namespace {

using Handle = void *; // AtenTensorHandle: an at::Tensor*, itself one TensorImpl pointer
using GetPtr = int32_t (*)(Handle, void **);
using GetI32 = int32_t (*)(Handle, int32_t *);
using Code = int32_t (*)();
using GetStream = int32_t (*)(int32_t, void **);

enum class Check : uint8_t { Unchecked, On, Off };

// Where THPVariable keeps its at::Tensor (`at::Tensor cdata` right after the header, as in
// torch 2.10 and later; the older c10::MaybeOwned<at::Tensor> form is not read).
constexpr size_t kTensorOffset =
    (sizeof(PyObject) + alignof(void *) - 1) / alignof(void *) * alignof(void *);

struct Abi {
  bool loaded = false; // dlsym tried
  Check tensors = Check::Unchecked;
  Check stream = Check::Unchecked;
  std::string why;
  GetPtr data_ptr = nullptr;
  GetI32 device_type = nullptr, device_index = nullptr, dtype = nullptr;
  GetStream cuda_stream = nullptr;
  int32_t cuda_type = -1;
  uint8_t dtypes[64]; // c10::ScalarType code -> tilec dtype index (255: none)
  PyTypeObject *tensor = nullptr, *parameter = nullptr; // the exact types read
};
Abi g;

void off(Check &c, std::string why) {
  c = Check::Off;
  if (g.why.empty())
    g.why = std::move(why);
}

void *library(const char *name) {
  // only a library torch has already loaded: tilec never loads torch itself
  return dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
}

template <typename F> F symbol(void *lib, const char *name) {
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}

PyTypeObject *module_type(const char *module, const char *attr) {
  PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), module); // borrowed
  if (!mod)
    return nullptr;
  PyObject *t = PyObject_GetAttrString(mod, attr);
  if (!t || !PyType_Check(t)) {
    Py_XDECREF(t);
    PyErr_Clear();
    return nullptr;
  }
  return reinterpret_cast<PyTypeObject *>(t); // kept until reset()
}

void load() {
  g.loaded = true;
  std::memset(g.dtypes, 255, sizeof g.dtypes);
  if (!env::flag(env::Var::TorchShim)) {
    off(g.tensors, "TILEC_TORCH_SHIM=0");
    off(g.stream, "TILEC_TORCH_SHIM=0");
    return;
  }
  g.tensor = module_type("torch", "Tensor");
  g.parameter = module_type("torch.nn.parameter", "Parameter");
  if (!g.tensor) {
    off(g.tensors, "torch is not imported");
    off(g.stream, "torch is not imported");
    return;
  }
  void *cpu = library("libtorch_cpu.so");
  g.data_ptr = symbol<GetPtr>(cpu, "aoti_torch_get_data_ptr");
  g.device_type = symbol<GetI32>(cpu, "aoti_torch_get_device_type");
  g.device_index = symbol<GetI32>(cpu, "aoti_torch_get_device_index");
  g.dtype = symbol<GetI32>(cpu, "aoti_torch_get_dtype");
  Code cuda = symbol<Code>(cpu, "aoti_torch_device_type_cuda");
  if (!g.data_ptr || !g.device_type || !g.device_index || !g.dtype || !cuda)
    off(g.tensors, cpu ? "libtorch_cpu.so lacks the aoti_torch shim" : "no libtorch_cpu.so");
  else
    g.cuda_type = cuda();
  static const std::pair<const char *, const char *> kDtypes[] = {
      {"aoti_torch_dtype_bool", "i1"},          {"aoti_torch_dtype_int8", "i8"},
      {"aoti_torch_dtype_int16", "i16"},        {"aoti_torch_dtype_int32", "i32"},
      {"aoti_torch_dtype_int64", "i64"},        {"aoti_torch_dtype_uint8", "u8"},
      {"aoti_torch_dtype_uint16", "u16"},       {"aoti_torch_dtype_uint32", "u32"},
      {"aoti_torch_dtype_uint64", "u64"},       {"aoti_torch_dtype_float16", "fp16"},
      {"aoti_torch_dtype_bfloat16", "bf16"},    {"aoti_torch_dtype_float32", "fp32"},
      {"aoti_torch_dtype_float64", "fp64"},     {"aoti_torch_dtype_float8_e4m3fn", "fp8e4nv"},
      {"aoti_torch_dtype_float8_e5m2", "fp8e5"}};
  for (const auto &[fn, name] : kDtypes) {
    Code c = symbol<Code>(cpu, fn);
    if (!c)
      continue; // a dtype the shim cannot name: the Python getters classify it
    int32_t code = c();
    for (uint8_t i = 0; i < 255 && std::strcmp(dtype_name(i), "?") != 0; ++i)
      if (code >= 0 && code < int32_t(std::size(g.dtypes)) && std::strcmp(dtype_name(i), name) == 0)
        g.dtypes[code] = i;
  }
  g.cuda_stream =
      symbol<GetStream>(library("libtorch_cuda.so"), "aoti_torch_get_current_cuda_stream");
  if (!g.cuda_stream)
    off(g.stream, "no aoti_torch_get_current_cuda_stream");
}

bool shim_facts(PyObject *v, Facts &out) {
  Handle h = reinterpret_cast<char *>(v) + kTensorOffset;
  void *data = nullptr;
  int32_t type = -1, index = -1, dtype = -1;
  if (g.data_ptr(h, &data) != 0 || g.device_type(h, &type) != 0 || g.dtype(h, &dtype) != 0)
    return false;
  out.cuda = type == g.cuda_type;
  if (out.cuda && g.device_index(h, &index) != 0)
    return false;
  out.data = reinterpret_cast<uint64_t>(data);
  out.device = out.cuda ? index : -1;
  out.dtype = dtype_of(dtype);
  return true;
}

// Until the first CUDA tensor: its at::Tensor must sit where we read it (the TensorImpl
// address torch reports as _cdata) and the shim must agree with the Python getters. CPU
// tensors, and tensors read without `python_facts`, check the layout only.
void check_tensor(PyObject *v, PythonFacts python_facts) {
  if (size_t(Py_TYPE(v)->tp_basicsize) < kTensorOffset + sizeof(void *)) {
    off(g.tensors, "THPVariable is smaller than expected");
    return;
  }
  PyObject *cdata = PyObject_GetAttrString(v, "_cdata");
  void *impl = cdata ? PyLong_AsVoidPtr(cdata) : nullptr;
  Py_XDECREF(cdata);
  if (PyErr_Occurred())
    PyErr_Clear();
  void *held = nullptr;
  std::memcpy(&held, reinterpret_cast<char *>(v) + kTensorOffset, sizeof held);
  if (!impl || held != impl) {
    off(g.tensors, "THPVariable's layout is not torch 2.10's");
    return;
  }
  Facts shim, py;
  if (!shim_facts(v, shim)) {
    off(g.tensors, "the shim failed on a tensor");
    return;
  }
  if (!shim.cuda || !python_facts)
    return; // decided by the first CUDA tensor a launch reads
  if (!python_facts(v, py) || shim.data != py.data || !py.cuda || shim.device != py.device ||
      shim.dtype != py.dtype) {
    off(g.tensors, "the shim disagrees with the Python getters");
    return;
  }
  g.tensors = Check::On;
}

} // namespace

bool read(PyObject *v, Facts &out, PythonFacts python_facts) {
  if (!g.loaded)
    load();
  if (g.tensors == Check::Off || (Py_TYPE(v) != g.tensor && Py_TYPE(v) != g.parameter))
    return false;
  if (g.tensors == Check::Unchecked) {
    check_tensor(v, python_facts);
    // a launch waits for the full check; a read for tests needs the layout only
    if (g.tensors == Check::Off || (python_facts && g.tensors != Check::On))
      return false;
  }
  return shim_facts(v, out);
}

bool read_unchecked(PyObject *v, Facts &out) { return read(v, out, nullptr); }

uint8_t dtype_of(int32_t scalar_type) {
  return scalar_type >= 0 && scalar_type < int32_t(std::size(g.dtypes)) ? g.dtypes[scalar_type]
                                                                        : 255;
}

bool current_stream(int device, uint64_t &stream, PythonStream python_stream) {
  if (!g.loaded)
    load();
  if (g.stream == Check::Off)
    return false;
  void *s = nullptr;
  if (g.cuda_stream(device, &s) != 0)
    return false;
  if (g.stream == Check::Unchecked) {
    uint64_t py = 0;
    if (!python_stream(device, py) || py != reinterpret_cast<uint64_t>(s)) {
      off(g.stream, "the shim's current stream differs from torch._C's");
      return false;
    }
    g.stream = Check::On;
  }
  stream = reinterpret_cast<uint64_t>(s);
  return true;
}

std::string state() {
  auto word = [](Check c) { return c == Check::On ? "on" : c == Check::Off ? "off" : "unchecked"; };
  std::string s = std::string("tensors ") + word(g.tensors) + ", stream " + word(g.stream);
  if (!g.why.empty())
    s += " (" + g.why + ")";
  return s;
}

void reset() {
  Py_CLEAR(g.tensor);
  Py_CLEAR(g.parameter);
  g = Abi{};
}

} // namespace tilec::python::gpu::torch_abi
