// The services Sema offers to the operator and builtin code (Operators.h, Builtins.h):
// where to build IR, the options, and calling a @jit function (for combiners).
#pragma once

#include <string>
#include <vector>

#include "frontend/sema/Sema.h"
#include "frontend/sema/Value.h"

namespace tilec::sema {

class Emitter {
public:
  virtual ~Emitter() = default;
  virtual ir::Builder &builder() = 0;
  virtual const CompileOptions &options() const = 0;
  // Calls a @jit function value (Kind::Function), inlined at the builder's insertion
  // point: how tl.reduce / tl.associative_scan build their combiner regions.
  virtual Val call_function(const Val &fn, std::vector<Val> args, SourceLoc loc) = 0;
  // `base.attr` as the kernel would read it (hasattr / getattr); a CompileError when
  // there is no such attribute.
  virtual Val attribute(const Val &base, const std::string &attr, SourceLoc loc) = 0;
  // Appends to what static_print produced.
  virtual void static_print(const std::string &text) = 0;
  // The user's file path of a location (device_assert messages name it).
  virtual std::string file_path(SourceLoc loc) const = 0;
  // The name of the function being compiled at `loc` (device_assert messages).
  virtual std::string function_name() const = 0;
  // breakpoint() / pdb.set_trace() at `loc`: a stop of the kernel debugger (SemaDebug.cpp).
  virtual void breakpoint(SourceLoc loc) = 0;
  // A compile-time warning at `loc` (Python's UserWarning under the bindings; Sema.h).
  virtual void warn(SourceLoc loc, const std::string &msg) = 0;
};

} // namespace tilec::sema
