// Version, the TILEC_* environment registry and the CLI entry point.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <tuple>

#include "Bindings.h"
#include "frontend/sema/Sema.h"
#include "pipeline/GpuPipeline.h"
#include "support/Env.h"

namespace tilec::python {

namespace {

env::Var var_named(const std::string &name) {
  const auto &vars = env::all();
  for (size_t i = 0; i < vars.size(); ++i)
    if (name == vars[i].name)
      return static_cast<env::Var>(i);
  throw nb::key_error(("unknown environment variable '" + name + "' (see docs/ENV.md)").c_str());
}

// Compile-time warnings (sema::report_warning) become Python UserWarnings, as Triton's
// warnings.warn calls are; under `-W error` the exception ends the compilation.
void warn_in_python(const std::string &message) {
  nb::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0)
    throw nb::python_error();
}

} // namespace

void bind_support(nb::module_ &m) {
  m.attr("__version__") = TILEC_VERSION;
  sema::set_warning_handler(warn_in_python);
  m.def(
      "env_vars",
      [] {
        std::vector<std::tuple<std::string, std::string, std::string>> out;
        for (const auto &v : env::all())
          out.emplace_back(v.name, v.default_value, v.description);
        return out;
      },
      "(name, default, description) of every TILEC_* environment variable.");
  m.def(
      "env_get", [](const std::string &name) { return env::get(var_named(name)); },
      nb::arg("name"), "The value of a TILEC_* variable (its default when unset).");
  m.def(
      "env_flag", [](const std::string &name) { return env::flag(var_named(name)); },
      nb::arg("name"), "Whether a TILEC_* flag variable is on.");
  m.def("flag_value", [](const std::string &v) { return env::flag_value(v); }, nb::arg("value"),
        "Whether `value` turns a flag on, by the rule of TILEC_* flags (for Triton's own "
        "variables, which tilec honours too).");
  m.def("launch_options_error", &pipeline::launch_options_error, nb::arg("num_warps"),
        nb::arg("num_stages"), nb::arg("maxnreg"),
        "What is wrong with these launch options (maxnreg 0: no limit), or '' (the one rule "
        "the CLI and the compiler check too).");
}

} // namespace tilec::python
