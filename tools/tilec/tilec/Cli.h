// The `tilec` command line: shared by the native binary and the Python console script.
#pragma once

#include <string>
#include <vector>

namespace tilec::cli {

// Runs the CLI; output goes to stdout/stderr. Returns the process exit code.
int run(int argc, char **argv);
int run(const std::vector<std::string> &args);

} // namespace tilec::cli
