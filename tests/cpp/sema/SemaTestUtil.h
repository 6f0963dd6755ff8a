// Helpers for Sema tests: kernels as source strings, lowered to Tile IR and printed.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/sema/Sema.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

namespace tilec::sema::test {

// The globals a kernel file usually has: `tl`, `triton` (tilec is imported as triton).
inline std::map<std::string, Val> std_globals() {
  return {{"tl", Val::module("tilec.language")}, {"triton", Val::module("tilec")}};
}

inline std::shared_ptr<FunctionSource> make_fn(const std::string &name, const std::string &src,
                                               std::map<std::string, Val> globals = std_globals(),
                                               int first_line = 1,
                                               const std::string &file = "kernels.py") {
  auto f = std::make_shared<FunctionSource>();
  f->name = name;
  f->file = file;
  f->source = src;
  f->first_line = first_line;
  f->globals = std::move(globals);
  return f;
}

inline Val fn_val(const std::shared_ptr<FunctionSource> &f) {
  Val v;
  v.kind = Val::Kind::Function;
  v.fn = f;
  return v;
}

inline ArgSpec ptr(ir::DType d = ir::DType::F32, bool div16 = true) {
  ArgSpec a;
  a.kind = ArgSpec::Kind::Pointer;
  a.dtype = d;
  a.divisible_by_16 = div16;
  return a;
}
inline ArgSpec int_arg(ir::DType d = ir::DType::I32, bool div16 = false) {
  ArgSpec a;
  a.kind = ArgSpec::Kind::Int;
  a.dtype = d;
  a.divisible_by_16 = div16;
  return a;
}
inline ArgSpec float_arg(ir::DType d = ir::DType::F32) {
  ArgSpec a;
  a.kind = ArgSpec::Kind::Float;
  a.dtype = d;
  return a;
}
inline ArgSpec cexpr(Val v) {
  ArgSpec a;
  a.kind = ArgSpec::Kind::Constexpr;
  a.value = std::move(v);
  return a;
}
inline ArgSpec cint(int64_t v) { return cexpr(Val::integer(v)); }

struct Lowered {
  std::shared_ptr<SourceManager> sm = std::make_shared<SourceManager>();
  SemaResult result;
  std::string ir;
};

inline Lowered lower(const std::shared_ptr<FunctionSource> &k, const std::vector<ArgSpec> &args,
                     CompileOptions opts = {}) {
  Lowered l;
  l.result = lower_kernel(k, args, opts, *l.sm);
  ir::verify(*l.result.module);
  l.ir = ir::print(*l.result.module);
  if (std::getenv("SEMA_DUMP"))
    std::fprintf(stderr, "%s\n", l.ir.c_str());
  return l;
}

inline Lowered lower(const std::string &name, const std::string &src,
                     const std::vector<ArgSpec> &args, CompileOptions opts = {}) {
  return lower(make_fn(name, src), args, opts);
}

// The CompileError a kernel raises, rendered as "line:col: message".
struct Diag {
  bool raised = false;
  int line = 0, col = 0;
  std::string message, rendered;
  std::vector<int> call_lines; // the calls the error is inside, innermost first
};

inline Diag lower_error(const std::shared_ptr<FunctionSource> &k, const std::vector<ArgSpec> &args,
                        CompileOptions opts = {}) {
  Diag d;
  SourceManager sm;
  try {
    lower_kernel(k, args, opts, sm);
  } catch (const CompileError &e) {
    d.raised = true;
    d.line = e.loc().line;
    d.col = e.loc().col;
    d.message = e.message();
    d.rendered = render_diagnostic(sm, e.loc(), "error", e.message());
    for (SourceLoc call : e.calls())
      d.call_lines.push_back(call.line);
  }
  return d;
}

inline Diag lower_error(const std::string &name, const std::string &src,
                        const std::vector<ArgSpec> &args, CompileOptions opts = {}) {
  return lower_error(make_fn(name, src), args, opts);
}

inline size_t count(const std::string &hay, const std::string &needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1))
    ++n;
  return n;
}

} // namespace tilec::sema::test
