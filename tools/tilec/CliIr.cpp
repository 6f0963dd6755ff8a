// `tilec ir FILE.py:KERNEL --signature ...`: a kernel's Tile IR after a pipeline stage.
#include <algorithm>
#include <cstdio>

#include "aot/Signature.h"
#include "CliCommands.h"
#include "frontend/sema/ModuleResolver.h"
#include "ir/Printer.h"
#include "pipeline/GpuPipeline.h"
#include "pipeline/Pipeline.h"

namespace tilec::cli {

int parse_count(const ParsedArgs &a, const std::string &name, int def) {
  if (!a.has(name))
    return def;
  std::string v = a.get(name);
  try {
    size_t used = 0;
    int n = std::stoi(v, &used);
    if (used == v.size() && n > 0)
      return n;
  } catch (const std::exception &) {
  }
  throw UsageError("--" + name + " needs a positive integer, got '" + v + "'");
}

int run_ir(const std::vector<std::string> &args) {
  ParsedArgs a = parse_args(args, {"signature", "constexpr", "stage", "num-warps", "num-stages"},
                            {"debug", "locations"});
  if (a.positional.size() != 1)
    throw UsageError("ir takes one FILE.py:KERNEL");
  const std::string &target = a.positional[0];
  size_t colon = target.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == target.size())
    throw UsageError("expected FILE.py:KERNEL, got '" + target + "'");
  std::string path = target.substr(0, colon), name = target.substr(colon + 1);

  pipeline::PipelineOptions opts;
  opts.verify = true;
  opts.compile.num_warps = parse_count(a, "num-warps", opts.compile.num_warps);
  opts.compile.num_stages = parse_count(a, "num-stages", opts.compile.num_stages);
  std::string bad = pipeline::launch_options_error(opts.compile.num_warps, opts.compile.num_stages, 0);
  if (!bad.empty())
    throw UsageError(bad);
  opts.compile.debug = a.has("debug");
  opts.stop_after = a.get("stage");
  if (!opts.stop_after.empty()) {
    auto names = pipeline::stage_names();
    if (std::find(names.begin(), names.end(), opts.stop_after) == names.end()) {
      std::string list;
      for (const auto &n : names)
        list += (list.empty() ? "" : ", ") + n;
      throw UsageError("unknown --stage '" + opts.stop_after + "' (stages: " + list + ")");
    }
  }
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

  auto sm = std::make_shared<SourceManager>();
  try {
    std::shared_ptr<const sema::FunctionSource> fs = sema::resolve_kernel(*sm, path, name);
    std::vector<sema::ArgSpec> specs =
        bind_arguments(name, kernel_params(*fs), signature, constexprs);
    pipeline::CompiledTileKernel k = pipeline::compile_to_tile_ir(fs, specs, opts, sm);
    if (!k.static_output.empty())
      std::fputs(k.static_output.c_str(), stderr);
    ir::PrintOptions po;
    po.locations = a.has("locations");
    po.sources = k.sources.get();
    std::fputs(ir::print(*k.module, po).c_str(), stdout);
    return 0;
  } catch (const CompileError &e) {
    std::fputs(sema::static_output_of(e).c_str(), stderr); // printed before the error
    std::fputs(render_diagnostic(*sm, e.loc(), "error", e.message()).c_str(), stderr);
    return 1;
  }
}

} // namespace tilec::cli
