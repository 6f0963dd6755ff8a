// The `tilec` subcommands (Cli.cpp dispatches). Each takes the arguments after its name
// and returns the exit code: 0 success, 1 an error in the kernel or IR (diagnostic on
// stderr), 2 a usage error (UsageError, reported by the dispatcher).
#pragma once

#include <string>
#include <vector>

namespace tilec::cli {

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

} // namespace tilec::cli
