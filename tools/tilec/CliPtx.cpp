// `tilec ptx FILE.py:KERNEL --signature ...`: a kernel compiled down the GPU path (layouts,
// lowering to Thread IR, PTX) with no GPU present.
#include <cstdio>

#include "aot/Signature.h"
#include "CliCommands.h"
#include "frontend/sema/ModuleResolver.h"
#include "pipeline/GpuPipeline.h"
#include "support/Target.h"

namespace tilec::cli {

namespace {

// "sm_90a", "sm_90", "sm_80", "90" -> (compute capability, arch-specific).
std::pair<int, bool> parse_arch(const std::string &arch) {
  if (std::optional<TargetSpec> t = tilec::parse_target(arch))
    return {t->cc, t->arch_specific};
  throw UsageError(std::string("--arch expects a target such as ") + kTargetExamples +
                   ", got '" + arch + "'");
}

} // namespace

int run_ptx(const std::vector<std::string> &args) {
  ParsedArgs a = parse_args(
      args, {"signature", "constexpr", "num-warps", "num-stages", "arch", "output", "maxnreg"},
      {"debug", "thread-ir", "no-fp-fusion", "no-reflect-ftz", "tma"});
  if (a.positional.size() != 1)
    throw UsageError("ptx takes one FILE.py:KERNEL");
  const std::string &target = a.positional[0];
  size_t colon = target.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == target.size())
    throw UsageError("expected FILE.py:KERNEL, got '" + target + "'");
  std::string path = target.substr(0, colon), name = target.substr(colon + 1);

  pipeline::GpuCompileOptions opts;
  opts.pipeline.verify = true;
  opts.pipeline.compile.num_warps = parse_count(a, "num-warps", 4);
  opts.pipeline.compile.num_stages = parse_count(a, "num-stages", 3);
  opts.pipeline.compile.debug = a.has("debug");
  opts.fp_fusion = !a.has("no-fp-fusion");
  opts.reflect_ftz = !a.has("no-reflect-ftz");
  opts.maxnreg = parse_count(a, "maxnreg", 0);
  std::string bad = pipeline::launch_options_error(opts.pipeline.compile.num_warps,
                                                   opts.pipeline.compile.num_stages, opts.maxnreg);
  if (!bad.empty())
    throw UsageError(bad);
  auto [sm, specific] = parse_arch(a.get("arch", "sm_90a"));
  opts.sm = sm;
  opts.arch_specific = specific;
  if (a.has("tma") && sm < 90)
    throw UsageError("--tma needs an sm_90 or newer --arch (TMA copies), got '" +
                     a.get("arch", "sm_90a") + "'");
  opts.pipeline.compile.tma = a.has("tma");
  std::vector<sema::ArgSpec> signature = parse_signature(a.get("signature"));
  std::vector<std::pair<std::string, std::string>> constexprs;
  for (const auto &[opt, value] : a.options) {
    if (opt != "constexpr")
      continue;
    size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--constexpr expects NAME=VALUE, got '" + value + "'");
    constexprs.emplace_back(value.substr(0, eq), value.substr(eq + 1));
  }

  auto sm_ = std::make_shared<SourceManager>();
  std::string text;
  try {
    std::shared_ptr<const sema::FunctionSource> fs = sema::resolve_kernel(*sm_, path, name);
    std::vector<sema::ArgSpec> specs =
        bind_arguments(name, kernel_params(*fs), signature, constexprs);
    pipeline::CompiledGpuKernel k = pipeline::compile_to_ptx(fs, specs, opts, sm_);
    if (!k.tile.static_output.empty())
      std::fputs(k.tile.static_output.c_str(), stderr);
    text = a.has("thread-ir") ? k.thread_ir_text : k.ptx;
  } catch (const CompileError &e) {
    std::fputs(sema::static_output_of(e).c_str(), stderr); // printed before the error
    std::fputs(render_diagnostic(*sm_, e.loc(), "error", e.message()).c_str(), stderr);
    return 1;
  }
  if (!a.has("output")) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  std::string out = a.get("output");
  std::FILE *f = std::fopen(out.c_str(), "w");
  if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
    if (f)
      std::fclose(f);
    std::fprintf(stderr, "tilec: cannot write '%s'\n", out.c_str());
    return 1;
  }
  std::fclose(f);
  return 0;
}

} // namespace tilec::cli
