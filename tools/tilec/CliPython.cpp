// The Python console script's entry (`tilec` installed by pip runs tilec._cli, which calls
// _C.cli_main): the command line offers it to the extension module, which it links; the
// compiler library itself does not depend on the command line.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "tilec/Cli.h"

namespace tilec::cli {

void bind_cli(nanobind::module_ &m) {
  m.def(
      "cli_main",
      [](const std::vector<std::string> &args) {
        nanobind::gil_scoped_release release;
        return run(args);
      },
      nanobind::arg("args"), "Runs the `tilec` command line with `args` (argv without the program).");
}

} // namespace tilec::cli
