// The pieces of the `tilec._C` extension, one file per area; Module.cpp calls them all.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec {
class SourceManager;
struct SourceLoc;
class CompileError;
namespace sema {
struct Val;
struct ArgSpec;
struct NamedTupleInfo;
} // namespace sema
} // namespace tilec

namespace tilec::python {

namespace nb = nanobind;

// A located user-facing error on its way to Python: the exception translator (Errors.cpp)
// turns it into tilec.CompilationError or tilec.KernelError with file/line/col attributes.
struct LocatedError {
  enum class Kind { Compile, Kernel } kind = Kind::Compile;
  std::string rendered; // file:line:col: error: message, the line and a caret
  std::string message;  // the bare message
  std::string file;     // empty when there is no location
  int line = 0;
  int col = 0;
  // A place in a function's source: the error's own (frames[0]) and then each call it is
  // inside, innermost first; `text` is the function's source (decorators included) and
  // `first_line` the absolute line of its first line (tilec.errors renders from these).
  struct Frame {
    std::string file, text;
    int line = 0, col = 0, first_line = 1;
  };
  std::vector<Frame> frames;
};

// Renders a CompileError found while compiling against `sm` into a LocatedError.
LocatedError compile_error(const SourceManager &sm, SourceLoc loc, const std::string &message);
// The same, with the calls the error is inside.
LocatedError compile_error(const SourceManager &sm, const CompileError &e);

// A Python value (None, bool, int, float, str, tuple, or one of the marker classes
// ModuleRef/DTypeRef/BuiltinRef, or a FunctionSource) -> a Sema value. Returns false, with
// `what` describing the value, for anything a kernel cannot use (an Unsupported marker).
bool value_from_python(nb::handle h, sema::Val &out, std::string &what);

// A HostFunctionRef (HostFunction.cpp) -> a Val of kind HostFunction; false for anything
// else.
bool host_function_from_python(nb::handle h, sema::Val &out);

// The class a _C.NamedTupleType object describes (a TypeError for anything else).
std::shared_ptr<const sema::NamedTupleInfo> named_tuple_info(nb::handle h);

// A compile error raised with the GIL released: writes its static_print output to
// sys.stdout (as Triton does) and returns the LocatedError to throw (Compile.cpp).
LocatedError compile_failure(const SourceManager &sm, const CompileError &e);

// One parameter's specialisation tuple from the Python layer -> an ArgSpec (Compile.cpp
// documents the forms); `index` names the parameter in errors.
sema::ArgSpec to_arg_spec(const nb::handle &spec, size_t index);

void bind_errors(nb::module_ &m);
void bind_frontend(nb::module_ &m);
void bind_host_function(nb::module_ &m); // HostFunction.cpp, from bind_frontend
void bind_compile(nb::module_ &m);
void bind_support(nb::module_ &m);
void bind_arg_rules(nb::module_ &m); // ArgRules.cpp: runtime/ArgRules.h for tilec/_args.py
void bind_gpu(nb::module_ &m); // GpuKernel.cpp, GpuDispatch.cpp
void bind_simt(nb::module_ &m); // Simt.cpp: compile_ptx, compile_simt (SIMT simulator)

} // namespace tilec::python

namespace tilec::cli {
// cli_main, the console script's entry: defined by the command line (tools/tilec/
// CliPython.cpp), which the extension links.
void bind_cli(nanobind::module_ &m);

} // namespace tilec::python
