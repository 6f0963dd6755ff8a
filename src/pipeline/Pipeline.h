// The compile pipeline: one flat, named list of stages (Pipeline.cpp). Today it ends at
// Tile IR (what the CPU interpreter runs); GPU stages append to the same list.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/sema/Sema.h"
#include "ir/IR.h"

namespace tilec::simt {
struct Function;
}

namespace tilec::pipeline {

struct PipelineOptions {
  sema::CompileOptions compile;
  // Stage after which to record the IR text ("all" for every stage); empty: TILEC_DUMP.
  std::string dump_stage;
  // Stop after this stage (empty: run them all). `tilec ir --stage` uses it.
  std::string stop_after;
  bool verify = false; // run the verifier after every stage (also on with TILEC_VERIFY=1)
};

struct CompiledTileKernel {
  std::shared_ptr<SourceManager> sources; // owns the texts op locations point into
  std::unique_ptr<ir::Module> module;
  std::string static_output;                                 // static_print text
  std::vector<std::pair<std::string, std::string>> dumps;     // (stage, IR text)
  std::vector<std::pair<std::string, double>> stage_seconds;  // filled when TILEC_TIME=1
};

// Runs the stages on `kernel` specialised by `args`. User errors throw CompileError
// (render it with render_diagnostic(*sources, ...): the SourceManager is passed in so
// the caller can render even when compilation fails).
CompiledTileKernel compile_to_tile_ir(const std::shared_ptr<const sema::FunctionSource> &kernel,
                                      const std::vector<sema::ArgSpec> &args,
                                      const PipelineOptions &opts,
                                      std::shared_ptr<SourceManager> sources);

// The stage names, in order ("frontend", "canonicalize", "cse", "dce", ...): the tile
// stages compile_to_tile_ir runs.
std::vector<std::string> stage_names();
// The GPU stages that follow them ("layouts", "allocate-shared", "lower", "ptx").
std::vector<std::string> gpu_stage_names();

// The stages that transform Tile IR (all but "frontend", "lower", the Thread IR passes and
// "ptx"), by name: what `tilec opt --passes` runs on IR text. find_tile_ir_pass gives null
// for any other name.
using TileIrPass = void (*)(ir::Module &);
std::vector<std::string> tile_ir_pass_names();
TileIrPass find_tile_ir_pass(const std::string &name);

// Runs the stages after "frontend" on `k.module` (IR that did not come from Sema, e.g.
// parsed text in a test), with the same dump / time / verify / stop_after handling.
void run_tile_stages(CompiledTileKernel &k, const PipelineOptions &opts);

// The GPU stages on `k.module` (after the tile stages): the Tile IR passes transform the
// module; "lower" and "ptx" run the hooks, which return the text to dump (Thread IR, PTX);
// the Thread IR passes between them run on *thread_ir, which "lower" sets.
// compile_to_ptx (GpuPipeline.h) is the usual entry point. Honours opts.stop_after when it
// names a GPU stage.
struct GpuStageHooks {
  std::function<std::string()> lower;
  std::function<std::string()> ptx;
  simt::Function *const *thread_ir = nullptr; // where "lower" leaves the Thread IR stages'
  int sm = 90;                                // input; the target they tune for
};
void run_gpu_stages(CompiledTileKernel &k, const PipelineOptions &opts,
                    const GpuStageHooks &hooks);

} // namespace tilec::pipeline
