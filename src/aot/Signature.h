// Signatures as Triton's compile.py and `tilec ir/ptx/compile` spell them, constexpr values
// given as text, and binding both to a kernel's parameters: used by the CLI, the AOT
// compiler, the C++ API and the Python bindings (triton.compile's ASTSource).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/sema/Sema.h"

namespace tilec::aot {

// A mistake in the arguments (a signature, an option, a constexpr): the CLI prints it as
// "tilec: <message>" with exit code 2; the API and the bindings raise it as theirs.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// One signature entry: `*fp32` (pointer), `*fp16:16` (16-byte aligned pointer), `i32`,
// `i64`, `i32:16` (divisible by 16), `i32:1` (equal to 1, specialised away), `fp32`,
// `i1`, `tensordesc<fp16[64, 64]>` (a host tensor descriptor, Triton's spelling; tilec
// takes `tensordesc<fp32[16, 16], nan>` for NaN padding, and `tensordesc<fp16[64, 64]>:16`
// for every shape entry and stride but the last divisible by 16, as the Python path
// specialises). Dtypes may be spelled as in Tile IR (fp16) or as in Triton (float16).
sema::ArgSpec parse_signature_entry(std::string_view entry);
// Comma-separated entries (spaces allowed); an empty string has no entries.
std::vector<sema::ArgSpec> parse_signature(std::string_view sig);
// The position of the first comma at or after `from` that separates signature entries
// (not one inside a tensordesc's <...> or [...]); npos when none.
size_t entry_comma(std::string_view sig, size_t from);

// A --constexpr value: an int (123, -4, 0x10), a float (1.5, 1e-3, inf), True/False,
// None, a dtype (float16, tl.float16, fp16), a quoted string, or else the text as a string.
sema::Val parse_constexpr_value(std::string_view text);

// A kernel parameter as the binding sees it.
struct KernelParam {
  std::string name;
  bool constexpr_annotated = false;
  std::optional<sema::Val> default_value; // a literal default, when it has one
};

// The parameters of the kernel `fs` defines, read from its def (a syntax error is a
// CompileError). KernelParams.cpp.
std::vector<KernelParam> kernel_params(const sema::FunctionSource &fs);

// One ArgSpec per parameter: parameters named by --constexpr (or annotated constexpr
// with a literal default) take constexpr values; the others take the signature's
// entries in order. Throws UsageError naming the problem.
std::vector<sema::ArgSpec>
bind_arguments(const std::string &kernel, const std::vector<KernelParam> &params,
               const std::vector<sema::ArgSpec> &signature,
               const std::vector<std::pair<std::string, std::string>> &constexprs);

} // namespace tilec::aot
