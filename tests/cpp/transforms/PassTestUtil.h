// Runs passes over IR text and returns the printed result (verifying before and after).
#pragma once

#include <string>

#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "transforms/Passes.h"

namespace tilec::testing {

inline std::string run_passes(const std::string &text, std::initializer_list<const char *> passes) {
  auto m = ir::parse_module(text);
  ir::verify(*m);
  for (const char *p : passes) {
    const transforms::PassInfo *info = transforms::find_pass(p);
    if (!info)
      return std::string("unknown pass ") + p;
    info->run(*m);
    ir::verify(*m);
  }
  return ir::print(*m);
}

// A kernel whose body is `body` (ops indented by two spaces), for short expectations.
inline std::string kernel(const std::string &args, const std::string &body) {
  return "tt.func @k(" + args + ") {\n" + body + "  return\n}\n";
}

} // namespace tilec::testing
