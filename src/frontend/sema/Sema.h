// Sema: AST -> Tile IR with Triton's semantics. The entry point of the front end.
//
// The caller (Python's JITFunction, or the CLI reading a .py file) hands over the
// kernel's source, the globals its body names (already resolved: modules, other @jit
// functions with their own sources and globals, constexpr values) and how each
// parameter is specialised. Sema parses, checks, folds constexprs, inlines callees
// and returns one ir::Function per kernel specialisation.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/sema/Value.h"
#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace tilec::sema {

// The source of one @jit function and the globals it may name.
struct FunctionSource {
  std::string name;   // the def's name
  std::string file;   // the user's file path, for diagnostics
  std::string source; // the def's text, decorators included (may be indented)
  int first_line = 1; // absolute line of source's first line in `file`
  // Globals the body names, resolved by the caller. Values are constexpr Vals,
  // Kind::Module (str = canonical module name), or Kind::Function (fn).
  std::map<std::string, Val> globals;
  // Globals the body names whose Python values cannot be used in a kernel (a plain
  // function, a class, a numpy array, ...): name -> what it is, e.g. "function (not a
  // @jit function)". Sema reports a use as "global 'foo' is a <what> and cannot be used
  // in a kernel" instead of "not defined".
  std::map<std::string, std::string> unsupported_globals;
  bool noinline = false; // accepted and ignored: every callee is inlined
  // @must_use_result: a call whose value an expression statement drops is an error, with
  // `must_use_note` (the decorator's text, may be empty) after Triton's sentence.
  bool must_use_result = false;
  std::string must_use_note;
  // The compiled kernel's name when this is the kernel (`@jit(repr=...)` names it per
  // specialisation); empty: the def's name.
  std::string entry_name;
};

// How one kernel parameter is specialised for this compilation.
struct ArgSpec {
  enum class Kind {
    Pointer,    // type = pointer element dtype; divisible_by_16 = 16-byte aligned address
    Int,        // type = i32/i64/u64 (by value range); divisible_by_16; equal_to_1 is
                // specialised away as the constant 1, as Triton does
    Float,      // type = fp32 (Python float) or other float dtype
    Bool,       // i1
    Constexpr,  // value (int/float/bool/str/None/dtype/tuple)
    None,       // a None passed to a non-constexpr parameter: folded as None
    TensorDesc, // a host TensorDescriptor: dtype = element dtype; desc_* below. In the
                // kernel its base (16-byte aligned), shape (i32) and strides (i64; the
                // last is 1) are arguments of their own
    Tuple,      // a tuple (or NamedTuple: `named`) of arguments, each specialised by its
                // own spec in `elems`; its run-time leaves are kernel arguments named
                // after their path ("t.0", "t.1.2")
  };
  Kind kind = Kind::Int;
  ir::DType dtype = ir::DType::I32;
  bool divisible_by_16 = false;
  bool equal_to_1 = false;
  Val value; // Constexpr
  // TensorDesc: the block shape, NaN padding, and which shape entries and strides (all
  // but the last) are multiples of 16 elements.
  std::vector<int64_t> desc_block_shape;
  bool desc_nan_padding = false;
  std::vector<bool> desc_shape_div16, desc_stride_div16;
  // Tuple: the elements' specs, and the NamedTuple class (null for a plain tuple)
  std::vector<ArgSpec> elems;
  std::shared_ptr<const NamedTupleInfo> named;
};

struct CompileOptions {
  int num_warps = 4;
  int num_stages = 3;
  bool debug = false; // device_assert and Python assert active
  // Host TensorDescriptor parameters also take a tensor map (a `.tmap` part) that their
  // loads carry, for TMA copies on sm_90+ GPUs: set by launchers that encode the maps and
  // give kernels that build maps themselves (make_tmap) their global scratch memory.
  bool tma = false;
  // Compiling for a GPU (PTX, or the SIMT simulator): the checks Triton makes for its
  // target apply (a dot's minimum K). compile_to_ptx sets it; the interpreter runs any K.
  bool gpu = false;
};

struct SemaResult {
  std::unique_ptr<ir::Module> module;
  std::string static_output;         // what static_print wrote, in order (Triton prints to stdout)
  std::vector<std::string> warnings; // "file:line: message" (also reported, below)
};

// Where compile-time warnings go (Triton's UserWarnings, e.g. tl.where on a non-bool
// condition): the handler set last, by default standard error. The Python bindings set
// one that calls warnings.warn. Called once per warning of a compilation.
using WarningHandler = void (*)(const std::string &message);
void set_warning_handler(WarningHandler h);
void report_warning(const std::string &message);

// A CompileError raised after static_print had written something. Triton prints as it
// compiles, so callers show static_output() before the error (the pipeline also attaches
// Sema's output to errors of later stages).
class CompileErrorWithOutput : public CompileError {
public:
  CompileErrorWithOutput(const CompileError &e, std::string static_output)
      : CompileError(e), static_output_(std::move(static_output)) {}
  const std::string &static_output() const { return static_output_; }

private:
  std::string static_output_;
};

// The static_print output `e` carries ("" when none).
inline std::string static_output_of(const CompileError &e) {
  auto *w = dynamic_cast<const CompileErrorWithOutput *>(&e);
  return w ? w->static_output() : std::string();
}

// Lowers `kernel` specialised by `args` (one per parameter, in order) to Tile IR.
// Sources are registered in `sm`. User errors throw CompileError (a
// CompileErrorWithOutput when static_print wrote something before the error).
SemaResult lower_kernel(const std::shared_ptr<const FunctionSource> &kernel,
                        const std::vector<ArgSpec> &args, const CompileOptions &opts,
                        SourceManager &sm);

// The names of every builtin the language module exposes (tl.*, tl.math.*), so the
// Python package can present the same namespace. Defined with the builtin table.
std::vector<std::string> builtin_names();

} // namespace tilec::sema
