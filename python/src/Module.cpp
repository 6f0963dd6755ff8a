// The `tilec._C` extension module: the C++ compiler and tile interpreter, bound one area
// per file (Errors, Frontend, Compile/Run, Support).
#include "Bindings.h"

NB_MODULE(_C, m) {
  m.doc() = "tilec's C++ core: front end, pipeline and tile interpreter";
  tilec::python::bind_errors(m);
  tilec::python::bind_support(m);
  tilec::python::bind_arg_rules(m);
  tilec::python::bind_frontend(m);
  tilec::python::bind_compile(m);
  tilec::python::bind_gpu(m);
  tilec::python::bind_simt(m);
  tilec::cli::bind_cli(m);
}
