// For the `tilec` CLI, which has no Python: reads a .py file, parses it leniently and
// builds the FunctionSource of a kernel with the globals Python would have resolved:
//   - modules bound by `import tilec.language as tl`, `import triton.language as tl`,
//     `from tilec import language as tl`, `import tilec as triton`, and
//     `importlib.import_module("<name>")` with a name known at parse time (string
//     literals, `+`, names bound to such strings, and the default of
//     `os.environ.get(KEY, DEFAULT)` / `os.getenv(KEY, DEFAULT)`); `triton` spellings
//     are canonicalised to `tilec`;
//   - other functions decorated with @jit / @triton.jit / @tilec.jit (with their own
//     FunctionSource, built on first use; a recursive reference becomes an
//     unsupported global);
//   - `NAME = <int|float|bool|str|None literal>` (a sign allowed on numbers) and
//     `NAME = tl.constexpr(<literal>)`, also annotated (`NAME: tl.constexpr = 4`).
// Names bound to anything else are absent from `globals`; plain functions, other
// modules and values computed by host code are listed in `unsupported_globals` so Sema
// can name them. Python's rule holds: the last top-level binding of a name wins.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/sema/Sema.h"
#include "support/Diagnostics.h"

namespace tilec::sema {

class ModuleResolver {
public:
  // Reads `path`. Errors (unreadable file) are CompileErrors without a location.
  ModuleResolver(SourceManager &sm, const std::string &path);
  // Uses `text` as the content of `path` (tests, or a caller that already read it).
  ModuleResolver(SourceManager &sm, const std::string &path, std::string text);
  ~ModuleResolver();
  ModuleResolver(const ModuleResolver &) = delete;
  ModuleResolver &operator=(const ModuleResolver &) = delete;

  // The @jit functions the file defines at top level, in file order.
  std::vector<std::string> jit_functions() const;

  // The FunctionSource of kernel `name`. Throws CompileError when the file defines no
  // such function (the message lists the @jit functions found) or when it is not
  // decorated with @jit (at the def).
  std::shared_ptr<const FunctionSource> kernel(const std::string &name);

  // The id under which the whole file is registered in the SourceManager.
  int file_id() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One call: ModuleResolver(sm, path).kernel(name).
std::shared_ptr<const FunctionSource> resolve_kernel(SourceManager &sm, const std::string &path,
                                                     const std::string &name);

} // namespace tilec::sema
