// Compiles the user's seed kernels (tests/data/seed_kernels.py) or inline kernel text to
// Tile IR through the real front end, for analysis and layout tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/Printer.h"
#include "pipeline/Pipeline.h"
#include "aot/Signature.h"

namespace tilec::test {

inline std::filesystem::path seeds_path() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "data" /
         "seed_kernels.py";
}

struct Kernel {
  std::shared_ptr<SourceManager> sm = std::make_shared<SourceManager>();
  std::unique_ptr<ir::Module> module;
  ir::Function &fn() const { return *module->functions.at(0); }
};

// `sig`: the run-time parameters as `tilec ptx --signature` takes them ("*fp32:16,i32");
// `constexprs`: the remaining (constexpr) parameters, in order.
inline Kernel compile_with(std::shared_ptr<const sema::FunctionSource> src,
                           std::shared_ptr<SourceManager> sm, const std::string &sig,
                           const std::vector<int64_t> &constexprs, int num_warps) {
  std::vector<sema::ArgSpec> args = aot::parse_signature(sig);
  for (int64_t v : constexprs) {
    sema::ArgSpec a;
    a.kind = sema::ArgSpec::Kind::Constexpr;
    a.value = sema::Val::integer(v);
    args.push_back(a);
  }
  pipeline::PipelineOptions o;
  o.verify = true;
  o.compile.num_warps = num_warps;
  Kernel k;
  k.sm = sm;
  try {
    pipeline::CompiledTileKernel c = pipeline::compile_to_tile_ir(src, args, o, sm);
    k.module = std::move(c.module);
  } catch (const CompileError &e) {
    ADD_FAILURE() << render_diagnostic(*sm, e.loc(), "error", e.what());
    throw;
  }
  return k;
}

// The def of `name` with its decorators (as inspect.getsource gives it) from `file_text`.
inline std::shared_ptr<sema::FunctionSource> function_source(const std::string &file_text,
                                                             const std::string &name) {
  std::vector<std::string> lines;
  for (size_t start = 0; start < file_text.size();) {
    size_t nl = file_text.find('\n', start);
    if (nl == std::string::npos)
      nl = file_text.size();
    lines.push_back(file_text.substr(start, nl - start));
    start = nl + 1;
  }
  size_t def = 0;
  while (def < lines.size() && lines[def].rfind("def " + name + "(", 0) != 0)
    ++def;
  EXPECT_LT(def, lines.size()) << "no kernel " << name;
  size_t first = def;
  while (first > 0 && !lines[first - 1].empty() && lines[first - 1][0] == '@')
    --first;
  size_t end = def + 1;
  while (end < lines.size() && (lines[end].empty() || lines[end][0] == ' '))
    ++end;
  auto f = std::make_shared<sema::FunctionSource>();
  f->name = name;
  f->file = "kernels.py";
  for (size_t i = first; i < end; ++i)
    f->source += lines[i] + "\n";
  f->first_line = static_cast<int>(first) + 1;
  f->globals = {{"tl", sema::Val::module("tilec.language")},
                {"triton", sema::Val::module("tilec")}};
  return f;
}

inline Kernel seed_kernel(const std::string &name, const std::string &sig,
                          const std::vector<int64_t> &constexprs, int num_warps = 4) {
  std::ifstream in(seeds_path());
  std::stringstream ss;
  ss << in.rdbuf();
  return compile_with(function_source(ss.str(), name), std::make_shared<SourceManager>(), sig,
                      constexprs, num_warps);
}

// A kernel written inline: a `@triton.jit def NAME(...)` text using tl.
inline Kernel inline_kernel(const std::string &text, const std::string &sig,
                            const std::vector<int64_t> &constexprs, int num_warps = 4) {
  size_t d = text.find("def ");
  std::string name = text.substr(d + 4, text.find('(', d) - d - 4);
  return compile_with(function_source(text, name), std::make_shared<SourceManager>(), sig,
                      constexprs, num_warps);
}

// The first op of `kind` in program order (nested regions included), or null.
inline ir::Op *find_op(ir::Function &f, ir::OpKind kind, int nth = 0) {
  ir::Op *found = nullptr;
  ir::walk(f.entry(), [&](ir::Op *op) {
    if (!found && op->kind() == kind && nth-- == 0)
      found = op;
  });
  return found;
}

} // namespace tilec::test
