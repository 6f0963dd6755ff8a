// Runs passes over IR text and returns the printed result (verifying before and after).
#pragma once

#include <string>

#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "transforms/CSE.h"
#include "transforms/Canonicalize.h"
#include "transforms/DCE.h"
#include "transforms/LICM.h"

namespace tilec::testing {

inline std::string run_passes(const std::string &text,
                              std::initializer_list<void (*)(ir::Module &)> passes) {
  auto m = ir::parse_module(text);
  ir::verify(*m);
  for (auto p : passes) {
    p(*m);
    ir::verify(*m);
  }
  return ir::print(*m);
}

// A kernel whose body is `body` (ops indented by two spaces), for short expectations.
inline std::string kernel(const std::string &args, const std::string &body) {
  return "tt.func @k(" + args + ") {\n" + body + "  return\n}\n";
}

} // namespace tilec::testing
