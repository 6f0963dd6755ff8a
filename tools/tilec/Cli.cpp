#include "tilec/Cli.h"

#include <cstdio>

namespace tilec::cli {

int run(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return run(args);
}

int run(const std::vector<std::string> &args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::printf("usage: tilec ir FILE.py:KERNEL --signature SIG [--constexpr N=V ...] "
                "[--stage NAME]\n");
    return args.empty() ? 2 : 0;
  }
  std::fprintf(stderr, "tilec: unknown command '%s'\n", args[0].c_str());
  return 2;
}

} // namespace tilec::cli
