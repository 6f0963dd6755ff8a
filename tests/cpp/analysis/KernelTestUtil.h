// Compiles the user's seed kernels (tests/data/seed_kernels.py) or inline kernel text to
// Tile IR through the real front end, for analysis and layout tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tilec/CliArgs.h"
#include "frontend/sema/ModuleResolver.h"
#include "ir/IR.h"
#include "ir/Printer.h"
#include "pipeline/Pipeline.h"

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
inline Kernel compile_with(std::shared_ptr<const sema::FunctionSource> src, std::shared_ptr<SourceManager> sm,
                           const std::string &sig, const std::vector<int64_t> &constexprs,
                           int num_warps) {
  std::vector<sema::ArgSpec> args = cli::parse_signature(sig);
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

inline Kernel seed_kernel(const std::string &name, const std::string &sig,
                          const std::vector<int64_t> &constexprs, int num_warps = 4) {
  auto sm = std::make_shared<SourceManager>();
  sema::ModuleResolver r(*sm, seeds_path().string());
  return compile_with(r.kernel(name), sm, sig, constexprs, num_warps);
}

// A kernel written inline (a `@triton.jit def ...` text with tl/triton available).
inline Kernel inline_kernel(const std::string &text, const std::string &sig,
                            const std::vector<int64_t> &constexprs, int num_warps = 4) {
  auto sm = std::make_shared<SourceManager>();
  std::string file = "import tilec as triton\nimport tilec.language as tl\n\n" + text;
  sema::ModuleResolver r(*sm, "inline.py", file);
  std::vector<std::string> fns = r.jit_functions();
  EXPECT_FALSE(fns.empty());
  return compile_with(r.kernel(fns.back()), sm, sig, constexprs, num_warps);
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
