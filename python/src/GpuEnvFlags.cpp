// The environment's say in a launch's compile options, read at every launch (as Triton reads
// its knobs) where the launch gives no option of its own:
// - debug: TILEC_DEBUG or Triton's TRITON_DEBUG (as TILEC_INTERPRET / TRITON_INTERPRET);
// - enable_fp_fusion: TRITON_DEFAULT_FP_FUSION (knobs.language.default_fp_fusion, which
//   writes it; unset means true).
// They are looked up in os.environ's own dict (what Python code sets; Triton reads
// os.environ too): two dict lookups with cached hashes, where getenv scans the whole
// environment (~290 instructions a launch in a large one).
#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>

#include "Gpu.h"
#include "support/Env.h"

namespace tilec::python::gpu {

namespace {

constexpr const char *kFpFusionVar = "TRITON_DEFAULT_FP_FUSION";

// Triton's reading of a boolean knob's variable (knobs.getenv_bool): 1 / y / yes / on /
// true, in any case, around blanks.
bool triton_true(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  std::string l(s);
  for (char &c : l)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l == "1" || l == "y" || l == "yes" || l == "on" || l == "true";
}

struct Environ {
  PyObject *os_dict = nullptr;       // the os module's namespace (owned)
  PyObject *environ = nullptr;       // the os.environ whose _data is below (owned)
  PyObject *data = nullptr;          // os.environ._data: bytes -> bytes on POSIX (owned)
  PyObject *keys[2] = {};            // b"TILEC_DEBUG", b"TRITON_DEBUG"
  PyObject *fp_fusion_key = nullptr; // b"TRITON_DEFAULT_FP_FUSION"
  PyObject *environ_name = nullptr;
  bool usable = false;
};

Environ &environ_state() {
  static Environ e = [] {
    Environ e;
    PyObject *os = PyImport_ImportModule("os");
    if (!os) {
      PyErr_Clear();
      return e;
    }
    e.os_dict = Py_NewRef(PyModule_GetDict(os));
    Py_DECREF(os);
    e.environ_name = PyUnicode_InternFromString("environ");
    e.keys[0] = PyBytes_FromString(env::info(env::Var::Debug).name);
    e.keys[1] = PyBytes_FromString("TRITON_DEBUG");
    e.fp_fusion_key = PyBytes_FromString(kFpFusionVar);
    e.usable = e.environ_name && e.keys[0] && e.keys[1] && e.fp_fusion_key;
    if (!e.usable)
      PyErr_Clear();
    return e;
  }();
  return e;
}

// os.environ._data while os.environ is the object it was (a test may replace it).
PyObject *environ_data(Environ &e) {
  if (!e.usable)
    return nullptr;
  PyObject *environ = PyDict_GetItemWithError(e.os_dict, e.environ_name); // borrowed
  if (!environ) {
    PyErr_Clear();
    return nullptr;
  }
  if (environ != e.environ) {
    Py_XSETREF(e.data, PyObject_GetAttrString(environ, "_data"));
    if (!e.data || !PyDict_Check(e.data)) {
      PyErr_Clear();
      Py_CLEAR(e.data);
    }
    Py_XSETREF(e.environ, Py_NewRef(environ));
  }
  return e.data;
}

} // namespace

bool debug_env() {
  Environ &e = environ_state();
  if (PyObject *data = environ_data(e)) {
    for (PyObject *key : e.keys) {
      PyObject *v = PyDict_GetItemWithError(data, key); // borrowed
      if (v && PyBytes_Check(v) && env::flag_value(PyBytes_AS_STRING(v)))
        return true;
      if (!v && PyErr_Occurred())
        PyErr_Clear();
    }
    return false;
  }
  // No os.environ dict (not CPython's layout): the process environment.
  for (const char *name : {env::info(env::Var::Debug).name, "TRITON_DEBUG"})
    if (const char *s = std::getenv(name); s && env::flag_value(s))
      return true;
  return false;
}

bool fp_fusion_env() {
  Environ &e = environ_state();
  if (PyObject *data = environ_data(e)) {
    PyObject *v = PyDict_GetItemWithError(data, e.fp_fusion_key); // borrowed
    if (v && PyBytes_Check(v))
      return triton_true(PyBytes_AS_STRING(v));
    if (!v && PyErr_Occurred())
      PyErr_Clear();
    return true;
  }
  const char *s = std::getenv(kFpFusionVar);
  return !s || triton_true(s);
}

} // namespace tilec::python::gpu
