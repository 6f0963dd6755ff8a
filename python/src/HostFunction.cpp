// Triton's @constexpr_function for Sema: a global bound to one (the Python layer wraps it in
// a HostFunctionRef) becomes a Val of kind HostFunction whose `call` runs the Python
// function at compile time, on the constexpr arguments converted to Python values, and
// converts the result back (tilec._sources.constexpr_result names what it cannot be).
// The compile runs with the GIL released: the call takes it, and so does the release of
// the Python object, which a Val may outlive the compile with.
#include <nanobind/stl/string.h>

#include <memory>
#include <stdexcept>

#include "Bindings.h"
#include "frontend/sema/Sema.h"

namespace tilec::python {

namespace {

struct HostFunctionRef {
  std::shared_ptr<const sema::HostFunction> fn;
  std::string source;
};

// A Python object held from C++ past the GIL's scope: released under the GIL.
std::shared_ptr<PyObject> hold(nb::handle h) {
  h.inc_ref();
  return std::shared_ptr<PyObject>(h.ptr(), [](PyObject *p) {
    if (!Py_IsInitialized())
      return; // the interpreter is gone: nothing left to release into
    nb::gil_scoped_acquire gil;
    Py_DECREF(p);
  });
}

nb::object to_python(const sema::Val &v, const std::string &fn_name) {
  using K = sema::Val::Kind;
  switch (v.kind) {
  case K::None:
    return nb::none();
  case K::Bool:
    return nb::bool_(v.b);
  case K::Int:
    return v.u64 ? nb::int_(static_cast<uint64_t>(v.i)) : nb::int_(v.i);
  case K::Float:
    return nb::float_(v.f);
  case K::Str:
    return nb::str(v.str.c_str(), v.str.size());
  case K::DType:
    if (!v.type.is_tile())
      return nb::module_::import_("tilec.language.core").attr("_dtype_from_ir")(v.type.str());
    break;
  case K::Tuple:
    if (!v.named) {
      nb::list items;
      for (const sema::Val &e : v.elems)
        items.append(to_python(e, fn_name));
      return nb::tuple(items);
    }
    break;
  default:
    break;
  }
  throw std::runtime_error("constexpr_function '" + fn_name + "' cannot be given " + v.repr() +
                           ": only None, bools, ints, floats, strings, dtypes and tuples of "
                           "them pass to the host");
}

sema::Val call_python(const std::shared_ptr<PyObject> &fn, const std::string &name,
                      const std::vector<sema::Val> &args,
                      const std::vector<std::pair<std::string, sema::Val>> &kwargs) {
  nb::gil_scoped_acquire gil;
  try {
    nb::list pos;
    for (const sema::Val &a : args)
      pos.append(to_python(a, name));
    nb::dict kw;
    for (const auto &[k, a] : kwargs)
      kw[k.c_str()] = to_python(a, name);
    nb::object f = nb::borrow(fn.get())(); // a weak reference: see bind_host_function
    if (f.is_none())
      throw std::runtime_error("constexpr_function '" + name + "' no longer exists");
    nb::object result = f(*nb::tuple(pos), **kw);
    nb::object form = nb::module_::import_("tilec._sources").attr("constexpr_result")(result);
    sema::Val out;
    std::string what;
    if (!value_from_python(form, out, what))
      throw std::runtime_error("constexpr_function '" + name + "' returned a " + what +
                               ", which a kernel cannot use");
    return out;
  } catch (nb::python_error &e) {
    std::string msg = "constexpr_function '" + name + "' raised " +
                      nb::cast<std::string>(nb::str(e.type().attr("__name__"))) + ": " +
                      nb::cast<std::string>(nb::str(e.value()));
    throw std::runtime_error(msg); // reported as a CompileError at the call
  }
}

} // namespace

bool host_function_from_python(nb::handle h, sema::Val &out) {
  if (!nb::isinstance<HostFunctionRef>(h))
    return false;
  const auto &ref = nb::cast<const HostFunctionRef &>(h);
  out = sema::Val::host_function(ref.fn, ref.source);
  return true;
}

// The function is held through a weak reference: a strong one would close a cycle that
// Python's collector cannot see (module globals -> @jit function -> its FunctionSource ->
// this Val -> the function -> its globals). The @constexpr_function object keeps it alive.
void bind_host_function(nb::module_ &m) {
  nb::class_<HostFunctionRef>(
      m, "HostFunctionRef", "A global bound to a @constexpr_function (a weakref to its function).")
      .def(
          "__init__",
          [](HostFunctionRef *self, nb::object fn_ref, std::string name, std::string source) {
            auto h = std::make_shared<sema::HostFunction>();
            h->name = name;
            std::shared_ptr<PyObject> held = hold(fn_ref);
            h->call = [held, name](const std::vector<sema::Val> &a,
                                   const std::vector<std::pair<std::string, sema::Val>> &kw) {
              return call_python(held, name, a, kw);
            };
            new (self) HostFunctionRef{std::move(h), std::move(source)};
          },
          nb::arg("fn_ref"), nb::arg("name"), nb::arg("source"))
      .def("__repr__",
           [](const HostFunctionRef &r) { return "HostFunctionRef('" + r.fn->name + "')"; });
}

} // namespace tilec::python
