// The `tilec` subcommands (Cli.cpp dispatches). Each takes the arguments after its name
// and returns the exit code: 0 success, 1 an error in the kernel or IR (diagnostic on
// stderr), 2 a usage error (UsageError, reported by the dispatcher).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aot/Signature.h"

namespace tilec::cli {

// The compile core (src/aot) the commands are built on: signatures, binding, AOT emission.
using namespace tilec::aot; // NOLINT(google-build-using-namespace)

int run_ir(const std::vector<std::string> &args);
int run_opt(const std::vector<std::string> &args);
int run_env(const std::vector<std::string> &args);
int run_ptx(const std::vector<std::string> &args); // CliPtx.cpp

// Splits `--name=value` / `--name value` options; positional arguments are kept in order.
struct ParsedArgs {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options; // name without "--", value
  bool has(const std::string &name) const;
  std::string get(const std::string &name, const std::string &def = "") const;
};
// `with_value`: option names that take a value; `flags`: options that take none.
ParsedArgs parse_args(const std::vector<std::string> &args,
                      const std::vector<std::string> &with_value,
                      const std::vector<std::string> &flags);
// The positive integer value of option --name, `def` when absent (UsageError otherwise).
int parse_count(const ParsedArgs &a, const std::string &name, int def);

// `tilec compile` / `tilec link` (CliCompile.cpp, CliLink.cpp):
// Writes a file whole; false on any failure.
bool write_text_file(const std::string &path, const std::string &text);
// -o out/add [--name NAME] -> (directory "out", file stem "add"); UsageError when the C
// name (the stem, or --name) is not an identifier.
std::pair<std::string, std::string> output_stem(const ParsedArgs &a);
// Maps -s -g -w -ns -o -n to their long spellings.
std::vector<std::string> expand_short_options(const std::vector<std::string> &args);

int run_compile(const std::vector<std::string> &args); // CliCompile.cpp
int run_link(const std::vector<std::string> &args);    // CliLink.cpp

} // namespace tilec::cli
