// Placeholder until the tile interpreter lands.
#include "Bindings.h"
#include "Kernel.h"

namespace tilec::python {

std::string run_kernel(Kernel &, const nanobind::tuple &, const nanobind::list &,
                       const nanobind::list &) {
  throw nb::type_error("the tile interpreter is not built yet");
}

} // namespace tilec::python
