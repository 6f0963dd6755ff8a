#include "pipeline/Pipeline.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>

#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "layout/AllocateShared.h"
#include "layout/AssignLayouts.h"
#include "layout/PipelineLoops.h"
#include "layout/PlanRings.h"
#include "layout/RemoveConversions.h"
#include "layout/WarpSpecialize.h"
#include "lower/CoalesceCopies.h"
#include "lower/ContractFma.h"
#include "lower/DeferWgmmaWait.h"
#include "lower/ExpVoteTail.h"
#include "lower/FoldBytePacks.h"
#include "lower/FoldXorPairs.h"
#include "lower/FuseCvtPacks.h"
#include "lower/OverlapWgmma.h"
#include "lower/SinkFragmentLoads.h"
#include "simt/Format.h"
#include "simt/Verifier.h"
#include "support/Env.h"
#include "transforms/CSE.h"
#include "transforms/Canonicalize.h"
#include "transforms/DCE.h"
#include "transforms/FlattenLoops.h"
#include "transforms/LICM.h"
#include "transforms/PipelineLoads.h"
#include "transforms/PrefetchLoads.h"
#include "transforms/SinkPastLoops.h"
#include "transforms/StrengthReduce.h"

namespace tilec::pipeline {

namespace {

struct Stage {
  const char *name;
  void (*run)(ir::Module &) = nullptr; // a Tile IR pass
  bool gpu = false;                    // only on the GPU path (run_gpu_stages, GpuPipeline.h)
  void (*run_thread)(simt::Function &, int sm) = nullptr; // a Thread IR pass (after "lower")
  // neither: done by the caller ("frontend"; "lower", "ptx")
};

void sink_past_loops(ir::Module &m) { transforms::sink_past_loops(m); }
void exp_vote_tail(simt::Function &f, int) { lower::exp_vote_tail(f); }
void sink_fragment_loads(simt::Function &f, int) { lower::sink_fragment_loads(f); }
void fuse_cvt_packs(simt::Function &f, int sm) { lower::fuse_cvt_packs(f, sm); }
void fold_xor_pairs(simt::Function &f, int) { lower::fold_xor_pairs(f); }
void fold_byte_packs(simt::Function &f, int) { lower::fold_byte_packs(f); }
void contract_fma(simt::Function &f, int) { lower::contract_fma(f); }
void coalesce_copies(simt::Function &f, int) { lower::coalesce_copies(f); }
void overlap_wgmma(simt::Function &f, int) { lower::overlap_wgmma(f); }
void defer_wgmma_wait(simt::Function &f, int) { lower::defer_wgmma_wait(f); }

// The pipeline, in order: the tile stages (what the CPU interpreter runs), then the GPU
// stages: Tile IR passes, the lowering to Thread IR, Thread IR passes, PTX.
const std::vector<Stage> &stages() {
  static const std::vector<Stage> list = {
      {"frontend"}, // Sema: AST -> Tile IR
      {"canonicalize", transforms::canonicalize},
      {"licm", transforms::licm}, // before CSE, so hoisted ops merge with their twins
      {"cse", transforms::cse},
      {"dce", transforms::dce},
      {"cleanup", transforms::canonicalize}, // fold what LICM/CSE/DCE exposed
      // GPU only: tl.range(..., flatten=True) nests become one loop (FlattenLoops.h), so
      // the rings planned next run on across the outer iterations
      {"flatten-loops", transforms::flatten_loops, true},
      // GPU only: folds what flattening exposed (its no-K-step branch's epilogue works on
      // the accumulator's initial constant); a no-op for other kernels
      {"fold-flattened", transforms::canonicalize, true},
      // GPU only: pointer tiles of the loop variable become carried (about what ptxas
      // makes of them), before the pipelining that shifts them by iterations
      {"strength-reduce", transforms::strength_reduce, true},
      // which loads "pipeline-loops" will put in shared-memory rings: marked `ring`
      {"plan-rings", layout::plan_rings, true},
      // register prefetch of the other loads of dot loops (the interpreter runs loops as
      // written)
      {"pipeline-loads", transforms::pipeline_loads, true},
      // the small loads it leaves in dot loops: the next iteration's bytes prefetched to L1
      {"prefetch-loads", transforms::prefetch_loads, true},
      {"layouts", layout::assign_layouts, true}, // each tile's layout, conversions between
      {"remove-conversions", layout::remove_conversions, true},
      {"pipeline-loops", layout::pipeline_loops, true}, // the cp.async rings of dot loops
      // pure ops used only after a loop move below it (SinkPastLoops.h)
      {"sink-past-loops", sink_past_loops, true},
      // a producer warp issues the TMA copies of tl.range(..., warp_specialize=True) loops
      // (opt-in: TILEC_WARP_SPECIALIZE=1; WarpSpecialize.h)
      {"warp-specialize", layout::warp_specialize, true},
      {"allocate-shared", layout::allocate_shared, true},
      {"lower", nullptr, true}, // Tile IR -> Thread IR
      // Thread IR: mma operands loaded step by step (SinkFragmentLoads.h)
      {"sink-fragment-loads", nullptr, true, sink_fragment_loads},
      {"fuse-cvt-packs", nullptr, true, fuse_cvt_packs}, // cvt, cvt, pack -> one cvt.f16x2
      {"fold-xor-pairs", nullptr, true, fold_xor_pairs}, // tl.sort's x ^ (x ^ partner)
      // words put together from the bytes of at most two words: one prmt (FoldBytePacks.h)
      {"fold-byte-packs", nullptr, true, fold_byte_packs},
      // enable_fp_fusion: mul + add -> fma.rn, as LLVM contracts them (ContractFma.h)
      {"contract-fma", nullptr, true, contract_fma},
      // a loop's yield writes its carried registers directly
      {"coalesce-copies", nullptr, true, coalesce_copies},
      // tl.exp's exact path gets its own copy of what follows, the common one runs on
      // straight (ExpVoteTail.h); after the passes that rewrite a block's instructions
      {"exp-vote-tail", nullptr, true, exp_vote_tail},
      // attention's two dots interleaved with the softmax by tiles (OverlapWgmma.h)
      {"overlap-wgmma", nullptr, true, overlap_wgmma},
      // fewer wgmma waits: a group the block's next wait retires anyway; in bodies of
      // three groups or more (TILEC_WGMMA_DEFER), a loop's last group runs on into the next
      // iteration (DeferWgmmaWait.h)
      {"defer-wgmma-wait", nullptr, true, defer_wgmma_wait},
      {"ptx", nullptr, true}, // Thread IR -> PTX text
  };
  return list;
}

// Whether `name` is a stage of the path (tile or GPU), or of either (any).
bool is_stage(const std::string &name, bool gpu, bool any = false) {
  for (const Stage &s : stages())
    if (name == s.name && (any || s.gpu == gpu))
      return true;
  return false;
}

std::string stage_list(bool gpu, bool all = false) {
  std::string s;
  for (const Stage &st : stages())
    if (all || st.gpu == gpu)
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
    else if (!name.empty() && is_stage(name, false, true))
      r.names.push_back(name);
    else if (!name.empty() && r.to_stderr)
      std::fputs(("tilec: TILEC_DUMP names no pipeline stage '" + name +
                  "' (stages: " + stage_list(false, true) + ")\n")
                     .c_str(),
                 stderr);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return r;
}

// Runs `list[first..]` of one path (the tile stages, or the GPU stages) on k.module with
// the dump / time / verify handling. Stages without a `run` call `hook`, which returns
// their dump text (nullopt: the module's IR).
// Thread IR stages run on *thread (set by the "lower" hook) for target `sm`.
using Hook = std::function<std::optional<std::string>(const Stage &)>;
struct ThreadIr {
  simt::Function *const *fn = nullptr;
  int sm = 0;
};
void run_stages(CompiledTileKernel &k, const PipelineOptions &opts, size_t first, const Hook &hook,
                ThreadIr thread = {}) {
  bool gpu = stages()[first].gpu;
  if (!opts.stop_after.empty() && !is_stage(opts.stop_after, gpu))
    throw CompileError(SourceLoc{}, "unknown pipeline stage '" + opts.stop_after +
                                        "' (stages: " + stage_list(gpu) + ")");
  DumpRequest dump = dump_request(opts);
#ifdef NDEBUG
  constexpr bool kDebugBuild = false;
#else
  constexpr bool kDebugBuild = true; // DESIGN.md: debug builds verify after every stage
#endif
  bool verify = kDebugBuild || opts.verify || env::flag(env::Var::Verify);
  bool timing = env::flag(env::Var::Time);
  const auto &list = stages();
  for (size_t i = first; i < list.size() && list[i].gpu == gpu; ++i) {
    const Stage &s = list[i];
    auto t0 = std::chrono::steady_clock::now();
    std::optional<std::string> text;
    simt::Function *tfn = thread.fn ? *thread.fn : nullptr; // after "lower"
    if (s.run) {
      s.run(*k.module);
    } else if (s.run_thread) {
      TILEC_ASSERT(tfn, std::string("Thread IR stage '") + s.name + "' before lowering");
      s.run_thread(*tfn, thread.sm);
    } else {
      text = hook(s);
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (timing) {
      k.stage_seconds.emplace_back(s.name, secs);
      char line[128];
      std::snprintf(line, sizeof line, "tilec: stage %-14s %9.3f ms\n", s.name, secs * 1e3);
      std::fputs(line, stderr);
    }
    if (verify) {
      try {
        if (s.run_thread)
          simt::verify(*tfn);
        else
          ir::verify(*k.module);
      } catch (const InternalError &e) {
        throw InternalError(std::string("after pipeline stage '") + s.name + "': " + e.what());
      }
    }
    if (dump.wants(s.name)) {
      k.dumps.emplace_back(s.name, text           ? *text
                                   : s.run_thread ? simt::dump(*tfn)
                                                  : ir::print(*k.module));
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
    if (!s.gpu)
      names.push_back(s.name);
  return names;
}

std::vector<std::string> tile_ir_pass_names() {
  std::vector<std::string> names;
  for (const Stage &s : stages())
    if (s.run)
      names.push_back(s.name);
  return names;
}

TileIrPass find_tile_ir_pass(const std::string &name) {
  for (const Stage &s : stages())
    if (s.run && name == s.name)
      return s.run;
  return nullptr;
}

std::vector<std::string> gpu_stage_names() {
  std::vector<std::string> names;
  for (const Stage &s : stages())
    if (s.gpu)
      names.push_back(s.name);
  return names;
}

CompiledTileKernel compile_to_tile_ir(const std::shared_ptr<const sema::FunctionSource> &kernel,
                                      const std::vector<sema::ArgSpec> &args,
                                      const PipelineOptions &opts,
                                      std::shared_ptr<SourceManager> sources) {
  CompiledTileKernel k;
  k.sources = sources ? std::move(sources) : std::make_shared<SourceManager>();
  try {
    run_stages(k, opts, 0, [&](const Stage &) -> std::optional<std::string> {
      sema::SemaResult r = sema::lower_kernel(kernel, args, opts.compile, *k.sources);
      TILEC_ASSERT(r.module, "Sema returned no module");
      k.module = std::move(r.module);
      k.static_output = std::move(r.static_output);
      return std::nullopt;
    });
  } catch (const CompileError &e) {
    // A later stage failed: static_print's output still reaches the user, before the error.
    if (k.static_output.empty() || dynamic_cast<const sema::CompileErrorWithOutput *>(&e))
      throw;
    throw sema::CompileErrorWithOutput(e, std::move(k.static_output));
  }
  return k;
}

void run_tile_stages(CompiledTileKernel &k, const PipelineOptions &opts) {
  TILEC_ASSERT(k.module, "run_tile_stages without a module");
  run_stages(k, opts, 1, [](const Stage &) { return std::nullopt; });
}

void run_gpu_stages(CompiledTileKernel &k, const PipelineOptions &opts,
                    const GpuStageHooks &hooks) {
  TILEC_ASSERT(k.module, "run_gpu_stages without a module");
  size_t first = 0;
  while (!stages()[first].gpu)
    ++first;
  run_stages(
      k, opts, first,
      [&](const Stage &s) -> std::optional<std::string> {
        const std::function<std::string()> &f =
            std::string(s.name) == "lower" ? hooks.lower : hooks.ptx;
        TILEC_ASSERT(f, std::string("no hook for GPU stage '") + s.name + "'");
        return f();
      },
      ThreadIr{hooks.thread_ir, hooks.sm});
}

} // namespace tilec::pipeline
