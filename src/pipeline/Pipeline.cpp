#include "pipeline/Pipeline.h"

#include <chrono>
#include <cstdio>
#include <functional>

#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "support/Env.h"
#include "transforms/CSE.h"
#include "transforms/Canonicalize.h"
#include "transforms/DCE.h"
#include "transforms/LICM.h"

namespace tilec::pipeline {

namespace {

struct Stage {
  const char *name;
  void (*run)(ir::Module &); // null for "frontend", which creates the module
};

// The pipeline, in order. GPU stages append here.
const std::vector<Stage> &stages() {
  static const std::vector<Stage> list = {
      {"frontend", nullptr}, // Sema: AST -> Tile IR
      {"canonicalize", transforms::canonicalize},
      {"licm", transforms::licm}, // before CSE, so hoisted ops merge with their twins
      {"cse", transforms::cse},
      {"dce", transforms::dce},
      {"cleanup", transforms::canonicalize}, // fold what LICM/CSE/DCE exposed
  };
  return list;
}

bool is_stage(const std::string &name) {
  for (const Stage &s : stages())
    if (name == s.name)
      return true;
  return false;
}

std::string stage_list() {
  std::string s;
  for (const Stage &st : stages())
    s += (s.empty() ? "" : ", ") + std::string(st.name);
  return s;
}

// Which stages to dump: a comma-separated list of names, or "all".
struct DumpRequest {
  std::vector<std::string> names;
  bool all = false;
  bool to_stderr = false;
  bool wants(const std::string &stage) const {
    if (all)
      return true;
    for (const std::string &n : names)
      if (n == stage)
        return true;
    return false;
  }
};

DumpRequest dump_request(const PipelineOptions &opts) {
  DumpRequest r;
  std::string spec = opts.dump_stage;
  if (spec.empty()) {
    spec = env::get(env::Var::Dump);
    r.to_stderr = true; // the environment asks for a printout; a caller only records
  }
  size_t start = 0;
  while (start <= spec.size() && !spec.empty()) {
    size_t comma = spec.find(',', start);
    std::string name =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name == "all")
      r.all = true;
    else if (!name.empty() && is_stage(name))
      r.names.push_back(name);
    else if (!name.empty() && r.to_stderr)
      std::fputs(("tilec: TILEC_DUMP names no pipeline stage '" + name +
                  "' (stages: " + stage_list() + ")\n")
                     .c_str(),
                 stderr);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return r;
}

// Runs `list[first..]` on k.module with the dump / time / verify handling.
void run_stages(CompiledTileKernel &k, const PipelineOptions &opts, size_t first,
                const std::function<void()> &frontend) {
  if (!opts.stop_after.empty() && !is_stage(opts.stop_after))
    throw CompileError(SourceLoc{}, "unknown pipeline stage '" + opts.stop_after +
                                        "' (stages: " + stage_list() + ")");
  DumpRequest dump = dump_request(opts);
#ifdef NDEBUG
  constexpr bool kDebugBuild = false;
#else
  constexpr bool kDebugBuild = true; // DESIGN.md: debug builds verify after every stage
#endif
  bool verify = kDebugBuild || opts.verify || env::flag(env::Var::Verify);
  bool timing = env::flag(env::Var::Time);
  const auto &list = stages();
  for (size_t i = first; i < list.size(); ++i) {
    const Stage &s = list[i];
    auto t0 = std::chrono::steady_clock::now();
    if (s.run)
      s.run(*k.module);
    else
      frontend();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (timing) {
      k.stage_seconds.emplace_back(s.name, secs);
      char line[128];
      std::snprintf(line, sizeof line, "tilec: stage %-14s %9.3f ms\n", s.name, secs * 1e3);
      std::fputs(line, stderr);
    }
    if (verify) {
      try {
        ir::verify(*k.module);
      } catch (const InternalError &e) {
        throw InternalError(std::string("after pipeline stage '") + s.name + "': " + e.what());
      }
    }
    if (dump.wants(s.name)) {
      k.dumps.emplace_back(s.name, ir::print(*k.module));
      if (dump.to_stderr) {
        std::string text =
            std::string("// -----// IR after ") + s.name + " //----- //\n" + k.dumps.back().second;
        std::fputs(text.c_str(), stderr);
      }
    }
    if (opts.stop_after == s.name)
      break;
  }
}

} // namespace

std::vector<std::string> stage_names() {
  std::vector<std::string> names;
  for (const Stage &s : stages())
    names.push_back(s.name);
  return names;
}

CompiledTileKernel compile_to_tile_ir(const std::shared_ptr<const sema::FunctionSource> &kernel,
                                      const std::vector<sema::ArgSpec> &args,
                                      const PipelineOptions &opts,
                                      std::shared_ptr<SourceManager> sources) {
  CompiledTileKernel k;
  k.sources = sources ? std::move(sources) : std::make_shared<SourceManager>();
  run_stages(k, opts, 0, [&] {
    sema::SemaResult r = sema::lower_kernel(kernel, args, opts.compile, *k.sources);
    TILEC_ASSERT(r.module, "Sema returned no module");
    k.module = std::move(r.module);
    k.static_output = std::move(r.static_output);
  });
  return k;
}

void run_tile_stages(CompiledTileKernel &k, const PipelineOptions &opts) {
  TILEC_ASSERT(k.module, "run_tile_stages without a module");
  run_stages(k, opts, 1, [] {});
}

} // namespace tilec::pipeline
