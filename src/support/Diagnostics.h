// Source locations, user-facing compile errors and their rendering.
//
// A user error is a CompileError carrying a SourceLoc; it is rendered as
//   file:line:col: error: message
//   <source line>
//       ^
// Internal invariants use TILEC_ASSERT, which throws InternalError (never aborts, so a
// compiler bug cannot kill the user's Python process). The two are never mixed.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tilec {

// A position in a registered source file. `line` is the absolute 1-based line in the
// user's file (not relative to the function's first line); `col` is 1-based.
struct SourceLoc {
  int file = -1;
  int line = 0;
  int col = 0;
  bool valid() const { return file >= 0 && line > 0; }
};

struct SourceFile {
  std::string path;
  std::string text;      // the text handed to the lexer (e.g. one function's source)
  int first_line = 1;    // absolute line number of text's first line in `path`
  std::vector<size_t> line_starts;
};

// Owns every source text of one compilation (kernel + @jit callees), so locations
// stay small and errors can quote the offending line.
class SourceManager {
public:
  int add(std::string path, std::string text, int first_line = 1);
  const SourceFile &file(int id) const { return files_.at(static_cast<size_t>(id)); }
  size_t num_files() const { return files_.size(); }
  // The text of an absolute line of `file`, without the newline; empty if unknown.
  std::string_view line_text(int file, int line) const;

private:
  std::vector<SourceFile> files_;
};

class CompileError : public std::runtime_error {
public:
  CompileError(SourceLoc loc, std::string message)
      : std::runtime_error(message), loc_(loc), message_(std::move(message)) {}
  SourceLoc loc() const { return loc_; }
  const std::string &message() const { return message_; }
  // The calls of @jit functions the error is inside, innermost first (the call in the
  // function that called the failing one, ..., the call in the kernel). Sema adds each
  // as the error leaves an inlined body.
  const std::vector<SourceLoc> &calls() const { return calls_; }
  void add_call(SourceLoc call) { calls_.push_back(call); }

private:
  SourceLoc loc_;
  std::string message_;
  std::vector<SourceLoc> calls_;
};

// Raised by internal-invariant checks; indicates a bug in tilec, not in the kernel.
class InternalError : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

// A fault in a running kernel (out-of-bounds access, failed device_assert, integer
// division by zero, ...). The message is already rendered (file:line:col and the line).
class RuntimeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_internal(const char *file, int line, const std::string &msg);

// "file:line:col: error: message\n<line>\n<caret>\n"
std::string render_diagnostic(const SourceManager &sm, SourceLoc loc, std::string_view severity,
                              std::string_view message);

} // namespace tilec

#define TILEC_ASSERT(cond, msg)                                                                    \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      ::tilec::throw_internal(__FILE__, __LINE__, std::string("assertion `" #cond "` failed: ") +  \
                                                      std::string(msg));                           \
  } while (0)
