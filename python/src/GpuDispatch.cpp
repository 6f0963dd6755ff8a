// The launch fast path: `kernel[grid](*args, **kwargs)` for a @jit function that already
// has a GPU kernel for the arguments' specialisation runs here, in C++, from binding the
// arguments to cuLaunchKernel. Anything unusual (a new specialisation, an argument type
// the fast path does not know, CPU arrays, a binding error) falls back to the Python
// path, which compiles, registers the kernel here (add) and reports errors.
//
// The specialisation key (GpuDispatchKey.cpp) is a list of 64-bit words computed from the
// arguments with the rules the Python path (tilec/_args.py) uses too: ints by range
// (i32/i64/u64), divisibility by 16 and equality to 1, tensor descriptors (those two:
// runtime/ArgRules.h), floats, bools, None, pointers by dtype and 16-byte alignment,
// constexprs by value, the launch options, and the device's compute capability. The types
// are in GpuDispatch.h.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include "GpuDispatch.h"

#include "ir/Type.h"
#include "support/Env.h"

namespace tilec::python::gpu {

namespace dispatch {

int elem_bytes(uint8_t dtype) {
  auto d = ir::dtype_from_ir_name(dtype_name(dtype));
  return d ? ir::byte_size(*d) : 4;
}

// tilec.tools.tensor_descriptor.TensorDescriptor (borrowed from the module, which lives on).
PyTypeObject *descriptor_type() {
  static PyTypeObject *t = [] {
    nb::object cls = nb::module_::import_("tilec.tools.tensor_descriptor").attr("TensorDescriptor");
    return reinterpret_cast<PyTypeObject *>(cls.release().ptr());
  }();
  return t;
}

// A sequence of Python ints (at most kMaxDescRank) into `out`; false when it is not one.
bool int_list(PyObject *seq, int64_t *out, int &n) {
  nb::object fast = nb::steal(PySequence_Fast(seq, "not a sequence"));
  if (!fast.is_valid()) {
    PyErr_Clear();
    return false;
  }
  Py_ssize_t len = PySequence_Fast_GET_SIZE(fast.ptr());
  if (len < 1 || len > kMaxDescRank)
    return false;
  PyObject **items = PySequence_Fast_ITEMS(fast.ptr());
  for (Py_ssize_t i = 0; i < len; ++i) {
    if (!PyLong_Check(items[i]))
      return false;
    int overflow = 0;
    out[i] = PyLong_AsLongLongAndOverflow(items[i], &overflow);
    if (overflow || (out[i] == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
  }
  n = static_cast<int>(len);
  return true;
}

Dispatcher::Dispatcher(nb::list names, std::vector<bool> constexprs, std::vector<bool> specialize,
                       nb::list defaults, nb::object jitfn_ref, nb::object constexpr_type,
                       nb::object normalize_grid)
    : jitfn_ref_(std::move(jitfn_ref)), constexpr_type_(std::move(constexpr_type)),
      normalize_grid_(std::move(normalize_grid)) {
  size_t n = nb::len(names);
  if (constexprs.size() != n || specialize.size() != n || nb::len(defaults) != n)
    throw nb::value_error("Dispatcher: parameter lists differ in length");
  for (size_t i = 0; i < n; ++i) {
    Param p;
    p.name_str = nb::cast<std::string>(names[i]);
    p.name = nb::steal(PyUnicode_InternFromString(p.name_str.c_str()));
    p.is_constexpr = constexprs[i];
    p.specialize = specialize[i];
    nb::tuple d = nb::cast<nb::tuple>(defaults[i]); // (has_default, value[, keyword_only])
    p.has_default = nb::cast<bool>(d[0]);
    p.default_value = nb::borrow(d[1]);
    p.keyword_only = nb::len(d) > 2 && nb::cast<bool>(d[2]);
    params_.push_back(std::move(p));
    names_.push_back(params_.back().name_str);
  }
  for (int j = 0; j < kNumOptions; ++j)
    option_names_[j] = nb::steal(PyUnicode_InternFromString(kOptionNames[j]));
}

// The fast path. Returns the launch's result, or nullptr-handle on a miss (nothing ran).
nb::object Dispatcher::launch(PyObject *grid, const CallArgs &args) {
  if (entries_.empty() || !globals_unchanged())
    return nb::object(); // nothing compiled yet (the Python path checks the driver first)
                         // or a global the kernels read was bound again
  Bound b(params_.size());
  Status st = prepare(args, b);
  if (st != Status::Ready)
    return nb::object();
  const Entry *e = find(b);
  if (!e)
    return nb::object();
  run(*e, grid, b);
  ++fast_launches_;
  return e->result;
}

// Registers `kernel_obj` (a tilec GpuCompiledKernel: `._native` is the GpuKernel) for the
// specialisation of these arguments. False when the fast path cannot key them.
bool Dispatcher::add(const CallArgs &args, nb::object kernel_obj) {
  Bound b(params_.size());
  if (prepare(args, b) != Status::Ready)
    return false;
  auto kernel = nb::cast<std::shared_ptr<runtime::GpuKernel>>(kernel_obj.attr("_native"));
  Entry e;
  e.hash = key_hash();
  e.key = scratch_key_;
  e.kernel = kernel;
  if (!b.descs.empty()) {
    e.desc_names = names_;
    for (std::string &n : part_names(b))
      e.desc_names.push_back(std::move(n));
  }
  e.positions = param_positions(kernel->meta(), b.descs.empty() ? names_ : e.desc_names);
  e.tma = takes_tensor_map(kernel->meta());
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i].is_constexpr && const_is_obj(b.values[i]))
      e.const_objs.emplace_back(static_cast<int>(i), nb::borrow(unwrap(b.values[i])));
  e.result = std::move(kernel_obj);
  for (auto &old : entries_)
    if (old->hash == e.hash && same_key(*old) && same_consts(*old, b)) {
      *old = std::move(e);
      last_ = old.get();
      return true;
    }
  entries_.push_back(std::make_unique<Entry>(std::move(e)));
  last_ = entries_.back().get();
  return true;
}

// What a miss falls back to: jitfn.run(*args, grid=grid, **kwargs).
nb::object Dispatcher::fallback(PyObject *grid, const CallArgs &args) {
  nb::object fn = nb::steal(PyObject_CallNoArgs(jitfn_ref_.ptr()));
  if (!fn.is_valid())
    throw nb::python_error();
  if (fn.is_none())
    throw nb::value_error("the @jit function of this launcher no longer exists");
  nb::object pos = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(args.npos)));
  if (!pos.is_valid())
    throw nb::python_error();
  for (size_t i = 0; i < args.npos; ++i)
    PyTuple_SET_ITEM(pos.ptr(), i, Py_NewRef(args.pos[i]));
  nb::dict kw;
  args.each_kw([&](PyObject *k, PyObject *v) { return PyDict_SetItem(kw.ptr(), k, v) == 0; });
  if (PyErr_Occurred())
    throw nb::python_error();
  kw["grid"] = nb::handle(grid);
  ++fallbacks_;
  nb::object run = fn.attr("run");
  nb::object r = nb::steal(PyObject_Call(run.ptr(), pos.ptr(), kw.ptr()));
  if (!r.is_valid())
    throw nb::python_error();
  return r;
}

// The last entry launched is compared first, word by word; the key is hashed only when it
// differs.
const Entry *Dispatcher::find(Bound &b) {
  if (last_ && same_key(*last_) && same_consts(*last_, b))
    return last_;
  uint64_t h = key_hash();
  for (const auto &e : entries_)
    if (e->hash == h && same_key(*e) && same_consts(*e, b)) {
      last_ = e.get();
      return last_;
    }
  return nullptr;
}

runtime::LaunchGrid Dispatcher::eval_grid(PyObject *grid, Bound &b) {
  runtime::LaunchGrid g;
  nb::object meta;
  nb::object value = nb::borrow(grid);
  if (PyCallable_Check(grid)) {
    meta = meta_dict(b);
    value = nb::steal(PyObject_CallOneArg(grid, meta.ptr()));
    if (!value.is_valid())
      throw nb::python_error();
  }
  if (fast_grid(value.ptr(), g))
    return g;
  if (!meta.is_valid())
    meta = meta_dict(b);
  nb::tuple t = nb::cast<nb::tuple>(normalize_grid_(value, meta));
  return {nb::cast<uint32_t>(t[0]), nb::cast<uint32_t>(t[1]), nb::cast<uint32_t>(t[2])};
}

void Dispatcher::run(const Entry &e, PyObject *grid, Bound &b) {
  runtime::LaunchGrid g = eval_grid(grid, b);
  size_t n = e.positions.size();
  Scratch<uint64_t, 32> slots(n);
  Scratch<void *, 32> ptrs(n);
  for (size_t i = 0; i < n; ++i)
    ptrs[i] = &slots[i];
  if (e.desc_names.empty()) {
    pack_params(e.kernel->meta(), e.positions, b.infos.data(), names_, slots.data());
  } else { // the parameters, then each descriptor's base, shapes and strides
    size_t np = params_.size();
    std::vector<ArgInfo> infos(np);
    for (size_t i = 0; i < np; ++i)
      if (b.infos[i].cls != ArgClass::Other)
        infos[i] = b.infos[i];
    for (const DescParts &d : b.descs) {
      infos.push_back(d.base);
      auto int_part = [&](int64_t v, uint8_t cls) {
        ArgInfo a;
        a.cls = ArgClass::Int;
        a.int_class = cls;
        a.i = v;
        infos.push_back(a);
      };
      for (int k = 0; k < d.rank; ++k)
        int_part(d.shape[k], kI32);
      for (int k = 0; k + 1 < d.rank; ++k)
        int_part(d.strides[k], kI64);
      ArgInfo m; // d.tmap
      m.cls = ArgClass::TensorMap;
      m.tma = &d.tma;
      infos.push_back(m);
    }
    if (e.tma) {
      Scratch<runtime::TensorMapBytes, 32> maps(n); // by .param index, on the stack
      pack_params(e.kernel->meta(), e.positions, infos.data(), e.desc_names, slots.data(),
                  maps.data(), ptrs.data());
      launch_now(e, grid, b, g, ptrs.data());
      return;
    }
    pack_params(e.kernel->meta(), e.positions, infos.data(), e.desc_names, slots.data());
  }
  launch_now(e, grid, b, g, ptrs.data());
}

void Dispatcher::launch_now(const Entry &e, PyObject *, Bound &b, runtime::LaunchGrid g,
                            void **ptrs) {
  runtime::CUstream stream = resolve_stream(b.options[kStreamOption], b.device);
  unsigned attrs = b.options[kCooperativeOption] || b.options[kPdlOption]
                       ? launch_attrs(b.options[kCooperativeOption], b.options[kPdlOption])
                       : 0;
  launch_kernel(*e.kernel, b.device, g, stream, ptrs, attrs,
                num_ctas_of(b.options[kNumCtasOption]));
}

} // namespace dispatch

using dispatch::Dispatcher;

namespace {

int dispatcher_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self))
    return 0;
  return nb::inst_ptr<Dispatcher>(self)->traverse(visit, arg);
}

int dispatcher_clear(PyObject *self) {
  nb::inst_ptr<Dispatcher>(self)->clear();
  return 0;
}

nb::object bind_grid(nb::handle self, nb::handle grid) {
  PyObject *r = bind_grid_raw(self.ptr(), grid.ptr());
  if (!r)
    throw nb::python_error();
  return nb::steal(r);
}

} // namespace

nb::object dispatch_call(PyObject *dispatcher, PyObject *grid, const CallArgs &a) {
  Dispatcher *d = nb::inst_ptr<Dispatcher>(dispatcher);
  nb::object r = d->launch(grid, a);
  return r.is_valid() ? r : d->fallback(grid, a);
}

PyObject *&dispatcher_spare(PyObject *dispatcher) {
  return nb::inst_ptr<Dispatcher>(dispatcher)->spare_;
}

bool is_dispatcher(PyObject *o) {
  static PyObject *type = nb::type<Dispatcher>().ptr(); // registered before any call
  return reinterpret_cast<PyObject *>(Py_TYPE(o)) == type;
}

namespace {

PyType_Slot dispatcher_slots[] = {{Py_tp_traverse, reinterpret_cast<void *>(dispatcher_traverse)},
                                  {Py_tp_clear, reinterpret_cast<void *>(dispatcher_clear)},
                                  {0, nullptr}};

} // namespace

void bind_gpu_dispatch(nb::module_ &m) {
  nb::class_<Dispatcher>(m, "GpuDispatcher",
                         "The C++ launch fast path of one @jit function: its GPU kernels by "
                         "specialisation key.",
                         nb::type_slots(dispatcher_slots))
      .def(nb::init<nb::list, std::vector<bool>, std::vector<bool>, nb::list, nb::object,
                    nb::object, nb::object>(),
           nb::arg("names"), nb::arg("constexprs"), nb::arg("specialize"), nb::arg("defaults"),
           nb::arg("jitfn_ref"), nb::arg("constexpr_type"), nb::arg("normalize_grid"))
      .def(
          "launch",
          [](Dispatcher &d, nb::handle grid, nb::tuple args, nb::dict kwargs) -> nb::object {
            nb::object r = d.launch(grid.ptr(), CallArgs::of(args.ptr(), kwargs.ptr()));
            return r.is_valid() ? r : nb::none();
          },
          nb::arg("grid"), nb::arg("args"), nb::arg("kwargs"),
          "Launches when a kernel for this specialisation is registered: returns its result, "
          "or None (nothing launched).")
      .def(
          "add",
          [](Dispatcher &d, nb::tuple args, nb::dict kwargs, nb::object kernel) {
            return d.add(CallArgs::of(args.ptr(), kwargs.ptr()), std::move(kernel));
          },
          nb::arg("args"), nb::arg("kwargs"), nb::arg("kernel"),
          "Registers `kernel` for the specialisation of these arguments; False when the fast "
          "path cannot key them (the Python path then launches every time).")
      .def("watch", &Dispatcher::watch, nb::arg("globals"),
           "The globals the kernels read, (dict, name, value) triples: a launch misses "
           "unless each dict holds that very value under the name.")
      .def("bind", &bind_grid, nb::arg("grid"),
           "kernel[grid]: a callable that launches over `grid`.")
      .def_prop_ro("num_kernels", &Dispatcher::num_entries)
      .def_prop_ro("fast_launches", &Dispatcher::fast_launches,
                   "Launches the fast path made (tests and benchmarks).")
      .def_prop_ro("fallbacks", &Dispatcher::fallbacks,
                   "Calls of a bound launch that went to the Python path.");

  m.def("debug_env", &debug_env,
        "TILEC_DEBUG or TRITON_DEBUG, from os.environ: launches without a debug= option "
        "compile kernels with device_assert on.");
  m.def("fp_fusion_env", &fp_fusion_env,
        "TRITON_DEFAULT_FP_FUSION, from os.environ (true when unset): launches without an "
        "enable_fp_fusion= option contract float mul-adds when it is true.");
  bind_gpu_launch_objects(m);
}

} // namespace tilec::python::gpu
