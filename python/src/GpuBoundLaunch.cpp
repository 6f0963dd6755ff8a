// The objects of a launch in C: `kernel[grid]` (JITFunction.__getitem__ as a C method
// descriptor) returns a GpuBoundLaunch whose call is a vectorcall into the dispatcher
// (GpuDispatch.cpp), so `kernel[grid](*args)` runs no Python code of tilec's and builds no
// argument tuple or keyword dict. Also the argument-classification bindings.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <structmember.h>

#include <chrono>
#include <vector>

#include "Gpu.h"
#include "GpuTorchAbi.h"

namespace tilec::python::gpu {

namespace {

// `kernel[grid]`: a small CPython object whose call is a vectorcall (no argument tuple or
// keyword dict is built per launch).
struct BoundLaunch {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject *dispatcher; // a GpuDispatcher (owned)
  PyObject *grid;       // owned
};

PyTypeObject *g_bound_type = nullptr;

PyObject *bound_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                           PyObject *kwnames) {
  try {
    auto *b = reinterpret_cast<BoundLaunch *>(self);
    if (!b->dispatcher)
      throw nb::value_error("this launcher was cleared by the garbage collector");
    nb::object keep_d = nb::borrow(b->dispatcher), grid = nb::borrow(b->grid);
    CallArgs a;
    a.pos = args;
    a.npos = PyVectorcall_NARGS(nargsf);
    a.kwnames = kwnames && PyTuple_GET_SIZE(kwnames) > 0 ? kwnames : nullptr;
    return dispatch_call(keep_d.ptr(), grid.ptr(), a).release().ptr();
  } catch (...) {
    set_python_error(); // not a nanobind function: translate here
    return nullptr;
  }
}

int bound_traverse(PyObject *self, visitproc visit, void *arg) {
  auto *b = reinterpret_cast<BoundLaunch *>(self);
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(b->dispatcher);
  Py_VISIT(b->grid);
  return 0;
}

int bound_clear(PyObject *self) {
  auto *b = reinterpret_cast<BoundLaunch *>(self);
  Py_CLEAR(b->dispatcher);
  Py_CLEAR(b->grid);
  return 0;
}

void bound_dealloc(PyObject *self) {
  PyTypeObject *t = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  bound_clear(self);
  t->tp_free(self);
  Py_DECREF(t);
}

PyMemberDef bound_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(BoundLaunch, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot bound_slots[] = {{Py_tp_call, reinterpret_cast<void *>(PyVectorcall_Call)},
                             {Py_tp_traverse, reinterpret_cast<void *>(bound_traverse)},
                             {Py_tp_clear, reinterpret_cast<void *>(bound_clear)},
                             {Py_tp_dealloc, reinterpret_cast<void *>(bound_dealloc)},
                             {Py_tp_members, bound_members},
                             {0, nullptr}};

PyType_Spec bound_spec = {"tilec._C.GpuBoundLaunch", sizeof(BoundLaunch), 0,
                          Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
                          bound_slots};

} // namespace

PyObject *bind_grid_raw(PyObject *self, PyObject *grid) {
  PyObject *&spare_slot = dispatcher_spare(self);
  PyObject *spare = spare_slot;
  if (spare && Py_REFCNT(spare) == 1) {
    auto *b = reinterpret_cast<BoundLaunch *>(spare);
    Py_SETREF(b->grid, Py_NewRef(grid));
    return Py_NewRef(spare);
  }
  auto *b = reinterpret_cast<BoundLaunch *>(g_bound_type->tp_alloc(g_bound_type, 0));
  if (!b)
    return nullptr;
  b->vectorcall = bound_vectorcall;
  b->dispatcher = Py_NewRef(self);
  b->grid = Py_NewRef(grid);
  Py_XSETREF(spare_slot, Py_NewRef(reinterpret_cast<PyObject *>(b)));
  return reinterpret_cast<PyObject *>(b);
}

namespace {

// JITFunction.__getitem__ in C (a method descriptor of that class): `kernel[grid]` goes
// straight to the dispatcher's bind once the function has one, else to the Python version.
PyObject *g_getitem_fallback = nullptr; // the Python __getitem__ (owned)
PyObject *g_dispatch_attr = nullptr;    // "_gpu_dispatch", interned

PyObject *jit_getitem(PyObject *self, PyObject *grid) {
  PyObject *d = PyObject_GetAttr(self, g_dispatch_attr);
  if (!d)
    return nullptr;
  PyObject *r;
  if (is_dispatcher(d))
    r = bind_grid_raw(d, grid);
  else
    r = PyObject_CallFunctionObjArgs(g_getitem_fallback, self, grid, nullptr);
  Py_DECREF(d);
  return r;
}

PyMethodDef g_getitem_def = {"__getitem__", reinterpret_cast<PyCFunction>(jit_getitem), METH_O,
                             "kernel[grid]: a callable that launches over `grid`."};

nb::object getitem_descriptor(nb::handle cls, nb::object fallback) {
  if (!PyType_Check(cls.ptr()))
    throw nb::type_error("gpu_getitem_descriptor: expected a class");
  Py_XSETREF(g_getitem_fallback, fallback.release().ptr());
  if (!g_dispatch_attr)
    g_dispatch_attr = PyUnicode_InternFromString("_gpu_dispatch");
  PyObject *descr = PyDescr_NewMethod(reinterpret_cast<PyTypeObject *>(cls.ptr()), &g_getitem_def);
  if (!descr)
    throw nb::python_error();
  return nb::steal(descr);
}

nb::object any_device_array(nb::tuple args, nb::dict kwargs) {
  auto check = [](nb::handle v) {
    ArgInfo a;
    try {
      classify(v.ptr(), "?", a);
    } catch (const nb::python_error &) {
      return true; // an array the GPU path reports on (e.g. an unsupported dtype)
    } catch (const std::exception &) {
      return true; // a GPU array without a driver: the GPU path reports it
    }
    return a.cls == ArgClass::DeviceArray;
  };
  for (nb::handle v : args)
    if (check(v))
      return nb::bool_(true);
  for (auto kv : kwargs)
    if (check(kv.second))
      return nb::bool_(true);
  return nb::bool_(false);
}

nb::list classify_values(nb::list values, std::vector<std::string> names) {
  nb::list out;
  for (size_t i = 0; i < nb::len(values); ++i) {
    ArgInfo a;
    classify(values[i].ptr(), i < names.size() ? names[i].c_str() : "?", a);
    if (a.cls == ArgClass::DeviceArray)
      out.append(nb::make_tuple("device", dtype_name(a.dtype), a.aligned, a.device));
    else if (a.cls == ArgClass::HostArray)
      out.append(nb::make_tuple("host", a.host_kind));
    else
      out.append(nb::none());
  }
  return out;
}

// Host seconds for `count` classifications of `values` in C++ (the launch-cost benchmark).
double classify_loop(nb::list values, int count) {
  size_t n = nb::len(values);
  std::vector<PyObject *> vs(n);
  for (size_t i = 0; i < n; ++i)
    vs[i] = values[i].ptr();
  auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < count; ++c)
    for (size_t i = 0; i < n; ++i) {
      ArgInfo a;
      classify(vs[i], "?", a);
    }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

void bind_gpu_launch_objects(nb::module_ &m) {
  g_bound_type = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&bound_spec));
  if (!g_bound_type)
    throw nb::python_error();
  m.attr("GpuBoundLaunch") = nb::borrow(reinterpret_cast<PyObject *>(g_bound_type));
  m.def("gpu_getitem_descriptor", &getitem_descriptor, nb::arg("cls"), nb::arg("fallback"),
        "A C __getitem__ for the @jit class `cls`: kernel[grid] binds through the launch "
        "fast path when the function has one, else calls fallback(self, grid).");

  m.def("gpu_any_device_array", &any_device_array, nb::arg("args"), nb::arg("kwargs"),
        "Whether an argument is an array in GPU memory (or one only the GPU path reports on).");
  m.def("_gpu_classify_loop", &classify_loop, nb::arg("values"), nb::arg("count"));
  m.def(
      "_gpu_torch_abi_facts",
      [](nb::handle t) -> nb::object {
        torch_abi::Facts f;
        if (!torch_abi::read_unchecked(t.ptr(), f))
          return nb::none();
        return nb::make_tuple(f.data, f.cuda, f.device, dtype_name(f.dtype));
      },
      "The shim's (data_ptr, is_cuda, device, dtype) of a torch tensor, None when off.");
  m.def("_gpu_torch_abi_reset", &torch_abi::reset,
        "Forgets the shim (TILEC_TORCH_SHIM is read again at the next launch).");
  m.def("_gpu_torch_abi_state", &torch_abi::state,
        "Whether torch tensors and the current stream are read through torch's C shim.");
  m.def(
      "torch_dtype_names",
      [] {
        nb::dict d;
        for (const auto &e : kTorchDtypes)
          d[e.first] = dtype_name(e.second);
        return d;
      },
      "{str(torch dtype): Tile IR dtype name} of the torch dtypes a kernel argument may have.");
  m.def("gpu_classify", &classify_values, nb::arg("values"), nb::arg("names"),
        "Per value: ('device', dtype, aligned_16, device) for GPU arrays, ('host', what) for "
        "host arrays, None otherwise.");
}

} // namespace tilec::python::gpu
