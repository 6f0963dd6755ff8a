// The private halves of the public API's classes (include/tilec/tilec.h) and the mapping
// of internal exceptions onto the public ones.
#pragma once

#include <functional>

#include "runtime/Launcher.h"
#include "aot/Aot.h" // the AOT compiler `tilec compile` shares
#include "tilec/tilec.h"

namespace tilec {

struct CompiledKernel::Impl {
  runtime::KernelBinary binary;
  std::vector<aot::AotParam> signature; // every kernel parameter, bound
  std::vector<ParamInfo> params;        // the .params
  std::vector<std::string> arg_names;   // the run-time parameters
  std::vector<size_t> arg_params;       // run-time argument i is signature[arg_params[i]]
  // Per .param: the run-time argument whose value (or descriptor part) it takes.
  struct Slot {
    size_t arg;
    aot::ParamSource::Part part;
    int dim;
  };
  std::vector<Slot> slots;
};

namespace api {

// Checks `args` against the run-time parameters of `ck` (count, kind, range, hints,
// tensor descriptors' rules) and packs one 8-byte slot per .param, in the kernel's order.
// InvalidArgument names the argument and the problem. No driver needed (Args.cpp).
runtime::PackedParams pack_arguments(const CompiledKernel::Impl &ck, const std::vector<Arg> &args);

// Runs `f`, rethrowing tilec's internal exceptions as the public ones (CompileError with
// the rendered diagnostic, using `sm` for source lines when given).
void translate_errors(const std::function<void()> &f, const SourceManager *sm = nullptr);

} // namespace api

} // namespace tilec
