// The private halves of the public API's classes (include/tilec/tilec.h) and the mapping
// of internal exceptions onto the public ones.
#pragma once

#include <functional>

#include "runtime/Launcher.h"
#include "tilec/CliAot.h" // tools/tilec: the AOT compiler shared with `tilec compile`
#include "tilec/tilec.h"

namespace tilec {

struct CompiledKernel::Impl {
  runtime::KernelBinary binary;
  std::vector<cli::AotParam> signature; // every kernel parameter, bound
  std::vector<ParamInfo> params;        // the .params
  std::vector<std::string> arg_names;   // the run-time parameters
};

namespace api {

// Runs `f`, rethrowing tilec's internal exceptions as the public ones (CompileError with
// the rendered diagnostic, using `sm` for source lines when given).
void translate_errors(const std::function<void()> &f, const SourceManager *sm = nullptr);

} // namespace api

} // namespace tilec
