// A GPU launch from Python: the .params packed from classified arguments (descriptors'
// tensor maps encoded), the stream (torch's current one by default), the global scratch of
// kernels that build tensor maps (triton.set_allocator's allocator), and the launch itself
// (or the test device's recorder).
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <algorithm>
#include <cstring>

#include "Bindings.h"
#include "Gpu.h"
#include "GpuTorchAbi.h"
#include "runtime/LaunchProfile.h"
#include "runtime/LaunchScratch.h"

namespace tilec::python::gpu {

std::vector<int> param_positions(const runtime::KernelMetadata &meta,
                                 const std::vector<std::string> &names) {
  std::vector<int> pos;
  pos.reserve(meta.params.size());
  for (const auto &p : meta.params) {
    if (p.kind == runtime::ParamKind::Scratch) { // no argument: launch_kernel fills it
      pos.push_back(-1);
      continue;
    }
    int found = -1;
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == p.name)
        found = static_cast<int>(i);
    if (found < 0)
      throw nb::value_error(("kernel '" + meta.name + "' takes a parameter '" + p.name +
                             "' that the function does not have")
                                .c_str());
    pos.push_back(found);
  }
  return pos;
}

bool takes_tensor_map(const runtime::KernelMetadata &meta) {
  for (const auto &p : meta.params)
    if (p.kind == runtime::ParamKind::TensorMap)
      return true;
  return false;
}

void pack_params(const runtime::KernelMetadata &meta, const std::vector<int> &positions,
                 const ArgInfo *infos, const std::vector<std::string> &names, uint64_t *slots,
                 runtime::TensorMapBytes *maps, void **ptrs) {
  using runtime::ParamKind;
  for (size_t i = 0; i < meta.params.size(); ++i) {
    ParamKind kind = meta.params[i].kind;
    if (kind == ParamKind::Scratch) {
      slots[i] = 0; // launch_kernel's (global_scratch)
      continue;
    }
    const ArgInfo &a = infos[positions[i]];
    // the common cases first: a GPU array for a pointer, an int already in the range of
    // the .param's kind (the slot is the value, sign-extended, as pack_param would make it)
    if ((kind == ParamKind::Ptr && a.cls == ArgClass::DeviceArray) ||
        (a.cls == ArgClass::Int && a.int_class != kU64 &&
         (kind == ParamKind::I64 || (kind == ParamKind::I32 && a.int_class == kI32)))) {
      slots[i] = static_cast<uint64_t>(a.i);
      continue;
    }
    const std::string &name = names[positions[i]];
    auto fail = [&](const std::string &what) {
      throw nb::type_error(
          ("argument '" + name + "' of kernel '" + meta.name + "': " + what).c_str());
    };
    if (kind == ParamKind::TensorMap) {
      if (a.cls != ArgClass::TensorMap || !a.tma || !maps || !ptrs)
        fail("the kernel takes a TensorDescriptor's TMA tensor map");
      runtime::encode_tensor_map(*a.tma, meta.params[i].tma_box, "argument '" + name + "'",
                                 maps[i]);
      ptrs[i] = maps[i].bytes;
      continue;
    }
    if (kind == ParamKind::Ptr) {
      if (a.cls != ArgClass::DeviceArray)
        fail(a.cls == ArgClass::HostArray
                 ? std::string("is ") + a.host_kind + ", but the kernel runs on a GPU"
                 : "the kernel takes a pointer (a GPU tensor)");
      slots[i] = static_cast<uint64_t>(a.i);
    } else if (runtime::param_kind_is_int(kind)) {
      if (a.cls != ArgClass::Int && a.cls != ArgClass::Bool)
        fail(std::string("the kernel takes an integer (") + runtime::param_kind_name(kind) + ")");
      int bits = runtime::param_kind_bits(kind);
      bool fits = true;
      if (kind == ParamKind::U64)
        fits = a.int_class == kU64 || a.i >= 0;
      else if (a.int_class == kU64)
        fits = false;
      else if (bits < 64 && runtime::param_kind_is_signed(kind))
        fits = a.i >= -(int64_t(1) << (bits - 1)) && a.i < (int64_t(1) << (bits - 1));
      else if (bits < 64)
        fits = a.i >= 0 && a.i < (int64_t(1) << bits);
      if (!fits)
        throw nb::value_error(
            ("argument '" + name +
             "' = " + (a.int_class == kU64 ? std::to_string(uint64_t(a.i)) : std::to_string(a.i)) +
             " does not fit in " + runtime::param_kind_name(kind))
                .c_str());
      slots[i] = runtime::pack_param(kind, a.i, 0);
    } else {
      double f = 0;
      if (a.cls == ArgClass::Float)
        f = a.f;
      else if (a.cls == ArgClass::Int || a.cls == ArgClass::Bool)
        f = a.int_class == kU64 ? double(uint64_t(a.i)) : double(a.i);
      else
        fail(std::string("the kernel takes a float (") + runtime::param_kind_name(kind) + ")");
      slots[i] = runtime::pack_param(kind, 0, f);
    }
  }
}

namespace {
// torch._C._cuda_getCurrentRawStream(device)
uint64_t torch_stream(int device) {
  nb::object dev = nb::steal(PyLong_FromLong(device));
  nb::object r = nb::steal(PyObject_CallOneArg(torch_raw_stream_fn(), dev.ptr()));
  if (!r.is_valid())
    throw nb::python_error();
  return to_u64(r.ptr());
}

bool python_stream(int device, uint64_t &out) {
  try {
    out = torch_stream(device);
    return true;
  } catch (const nb::python_error &) {
    return false;
  }
}
} // namespace

runtime::CUstream resolve_stream(PyObject *stream, int device) {
  if (stream && stream != Py_None) {
    PyObject *s = stream;
    nb::object attr;
    if (!PyLong_Check(s)) {
      attr = nb::steal(PyObject_GetAttrString(s, "cuda_stream"));
      if (!attr.is_valid()) {
        PyErr_Clear();
        throw nb::type_error("stream= must be a CUDA stream handle (an int) or an object with "
                             "a .cuda_stream attribute (torch.cuda.Stream)");
      }
      s = attr.ptr();
    }
    return reinterpret_cast<runtime::CUstream>(to_u64(s));
  }
  if (torch_raw_stream_fn()) {
    int d = device < 0 ? 0 : device;
    uint64_t s = 0;
    if (torch_abi::current_stream(d, s, python_stream))
      return reinterpret_cast<runtime::CUstream>(s);
    return reinterpret_cast<runtime::CUstream>(torch_stream(d));
  }
  return nullptr;
}

namespace {

// triton.set_allocator's allocator, or null while none is set (tilec.runtime._allocation).
nb::object user_allocator() {
  static PyObject *get = nullptr, *null_alloc = nullptr; // kept for the process
  if (!get) {
    nb::module_ m = nb::module_::import_("tilec.runtime._allocation");
    get = m.attr("get_allocator").inc_ref().ptr();
    null_alloc = m.attr("_NULL_ALLOCATOR").inc_ref().ptr();
  }
  nb::object a = nb::steal(PyObject_CallNoArgs(get));
  if (!a.is_valid())
    throw nb::python_error();
  return a.ptr() == null_alloc ? nb::object() : a;
}

// The launch's global scratch from the user's allocator, as Triton asks for it
// (size, alignment 128, stream); the buffer it returns is kept until the launch is queued.
// Without an allocator the slot stays 0 and GpuKernel::launch allocates (LaunchScratch.h).
nb::object user_scratch(const runtime::GpuKernel &k, int index, runtime::LaunchGrid g,
                        runtime::CUstream stream, void **params, unsigned num_ctas) {
  nb::object alloc = user_allocator();
  if (!alloc.is_valid())
    return {};
  uint64_t bytes =
      runtime::scratch_launch_bytes(k.meta(), uint64_t(g.x) * g.y * g.z * std::max(1u, num_ctas));
  nb::object buf = alloc(bytes, 128, reinterpret_cast<uint64_t>(stream));
  if (buf.is_none()) // (an allocator that gives nothing: the launch's own memory, as unset)
    return {};
  uint64_t ptr = nb::cast<uint64_t>(buf.attr("data_ptr")());
  if (ptr % 128 != 0)
    throw nb::value_error(("the allocator (triton.set_allocator) returned memory at " +
                           std::to_string(ptr) + ", which is not 128-byte aligned")
                              .c_str());
  std::memcpy(params[index], &ptr, sizeof ptr);
  return buf;
}

} // namespace

void launch_kernel(runtime::GpuKernel &k, int device, runtime::LaunchGrid grid,
                   runtime::CUstream stream, void **params, unsigned attrs, unsigned num_ctas) {
  nb::object scratch; // alive until the launch is queued
  if (int s = k.scratch_param(); s >= 0 && grid.x && grid.y && grid.z)
    scratch = user_scratch(k, s, grid, stream, params, num_ctas);
  // The GIL stays held, as torch's own launches do: releasing and retaking it costs more
  // than cuLaunchKernel's queueing (it blocks only when the launch queue is full).
  if (TestDevice *t = test_device()) {
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || !t->recorder.is_valid())
      return; // no recorder: a dry run (the launch-cost benchmark)
    nb::list slots;
    for (size_t i = 0; i < k.meta().params.size(); ++i)
      slots.append(*static_cast<const uint64_t *>(params[i]));
    nb::object g = nb::make_tuple(grid.x, grid.y, grid.z);
    int64_t t0 = runtime::profile::on() ? runtime::profile::now_ns() : -1;
    if (attrs)
      t->recorder(k.name(), g, device, reinterpret_cast<uint64_t>(stream), slots, attrs);
    else
      t->recorder(k.name(), g, device, reinterpret_cast<uint64_t>(stream), slots);
    if (t0 >= 0) // the stand-in device's launch is done when the recorder returns
      runtime::profile::record_host(k.interned_name(), device, t0, runtime::profile::now_ns() - t0);
    return;
  }
  k.launch(device, grid, stream, params, attrs);
}

unsigned num_ctas_of(PyObject *v) {
  if (!v || v == Py_None)
    return 1;
  long n = PyLong_Check(v) && !PyBool_Check(v) ? PyLong_AsLong(v) : -1;
  if (n < 1 || n > 16) {
    PyErr_Clear();
    throw nb::type_error("num_ctas must be an int from 1 to 16");
  }
  return static_cast<unsigned>(n);
}

unsigned launch_attrs(PyObject *cooperative, PyObject *pdl) {
  auto on = [](PyObject *v, const char *name) {
    if (!v || v == Py_None)
      return false;
    if (!PyBool_Check(v) && !PyLong_Check(v))
      throw nb::type_error(
          (std::string(name) + " must be a bool, got " + Py_TYPE(v)->tp_name).c_str());
    int t = PyObject_IsTrue(v);
    if (t < 0)
      throw nb::python_error();
    return t == 1;
  };
  return (on(cooperative, "launch_cooperative_grid") ? runtime::kLaunchCooperative : 0u) |
         (on(pdl, "launch_pdl") ? runtime::kLaunchPdl : 0u);
}

} // namespace tilec::python::gpu
