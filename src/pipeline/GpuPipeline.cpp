#include "pipeline/GpuPipeline.h"

#include <algorithm>

#include "codegen/PtxPrinter.h"
#include "frontend/sema/Sema.h"
#include "ir/RingOps.h"
#include "layout/TmaCopies.h"
#include "lower/Lower.h"
#include "simt/Format.h"
#include "simt/TensorMap.h"
#include "support/Env.h"
#include "support/Target.h"

namespace tilec::pipeline {

namespace {

bool names_tile_stage(const std::string &s) {
  auto names = stage_names();
  return std::find(names.begin(), names.end(), s) != names.end();
}

// breakpoint() stops in pdb on the interpreter only: a GPU program cannot hand its
// values to a Python debugger mid-launch. The statement stops around it (in a kernel whose
// breakpoint() a constexpr branch removed) are dropped.
void refuse_breakpoints(ir::Function &fn) {
  ir::walk(fn.entry(), [](ir::Op *op) {
    if (op->kind() != ir::OpKind::Breakpoint)
      return;
    if (op->int_attr("kind", 0) == 1)
      throw CompileError(op->loc(), "breakpoint() stops a kernel in pdb only on tilec's CPU "
                                    "interpreter: run with TILEC_INTERPRET=1 (or pass arrays "
                                    "in host memory), or remove the breakpoint");
    op->erase();
  });
}

} // namespace

std::string launch_options_error(int num_warps, int num_stages, int maxnreg) {
  if (num_warps < 1 || num_warps > 32 || (num_warps & (num_warps - 1)))
    return "num_warps must be a power of 2 from 1 to 32, got " + std::to_string(num_warps);
  if (num_stages < 0)
    return "num_stages must be >= 0, got " + std::to_string(num_stages);
  if (maxnreg != 0 && (maxnreg < 16 || maxnreg > 255))
    return "maxnreg must be from 16 to 255 registers per thread, got " + std::to_string(maxnreg);
  return "";
}

CompiledGpuKernel compile_module_to_ptx(CompiledTileKernel tile, const GpuCompileOptions &opts) {
  std::string bad = launch_options_error(opts.pipeline.compile.num_warps,
                                         opts.pipeline.compile.num_stages, opts.maxnreg);
  if (!bad.empty())
    throw CompileError(SourceLoc{}, bad);
  CompiledGpuKernel k;
  k.tile = std::move(tile);
  TILEC_ASSERT(k.tile.module && !k.tile.module->functions.empty(),
               "compile_module_to_ptx: no kernel");
  const ir::Function &fn = *k.tile.module->functions.front();
  refuse_breakpoints(*k.tile.module->functions.front());
  codegen::PtxTarget target;
  target.sm = opts.sm;
  target.arch_specific = opts.arch_specific && opts.sm >= 90;
  k.name = fn.name;
  k.arch = target.arch();
  GpuStageHooks hooks;
  simt::Function *thread = nullptr;
  hooks.thread_ir = &thread;
  hooks.sm = opts.sm;
  hooks.lower = [&] {
    lower::LowerOptions lo;
    lo.sm = opts.sm;
    lo.fp_fusion = opts.fp_fusion;
    lo.reflect_ftz = opts.reflect_ftz;
    k.thread_ir = std::make_shared<simt::Function>(lower::lower_function(*k.tile.module, fn, lo));
    k.thread_ir->maxnreg = opts.maxnreg;
    thread = k.thread_ir.get();
    return simt::dump(*k.thread_ir);
  };
  hooks.ptx = [&] {
    k.ptx = codegen::print_ptx(*k.thread_ir, target);
    return k.ptx;
  };
  // layouts: the dots that qualify lower to wgmma (#mma<v=3>); TILEC_WGMMA=0 turns it off
  if (target.arch_specific && env::get(env::Var::Wgmma) != "0")
    k.tile.module->attrs.push_back({"wgmma", int64_t{1}});
  // tl.range(..., warp_specialize=True) loops get a producer warp (WarpSpecialize.h)
  // (all: any loop that qualifies, marked or not)
  std::string ws = env::get(env::Var::WarpSpecialize);
  if (opts.sm >= 90 && opts.warp_specialize && (ws == "1" || ws == "all"))
    k.tile.module->attrs.push_back({"warp_specialize", int64_t{ws == "1" ? 1 : 2}});
  if (env::get(env::Var::WarpSpecializeRegs) == "1") // a producer warpgroup, setmaxnreg
    k.tile.module->attrs.push_back({"warp_specialize_regs", int64_t{1}});
  // kernels may build TMA tensor maps (tensormap.replace: sm_90a)
  if (target.arch_specific && opts.sm >= 90)
    k.tile.module->attrs.push_back({layout::kKernelMapsAttr, int64_t{1}});
  // what allocate-shared may give a block (a dot's two operand conversions kept apart)
  k.tile.module->attrs.push_back({"max_shared", max_shared_per_block(opts.sm)});
  // fp64 dots on the tensor cores where they run fp64 at full rate (Triton: sm_80, sm_90)
  if (opts.sm == 80 || opts.sm == 90)
    k.tile.module->attrs.push_back({"f64_mma", int64_t{1}});
  run_gpu_stages(k.tile, opts.pipeline, hooks); // strength-reduce, pipeline-loads, layouts...
  if (k.thread_ir)                              // after the Thread IR passes that ran
    k.thread_ir_text = simt::dump(*k.thread_ir);
  const ir::Module &m = *k.tile.module;
  // a warp_specialize op's producer warps come after those of the layouts
  k.num_warps = static_cast<int>(m.int_attr("num_warps", 4) + m.int_attr("producer_warps", 0));
  k.num_stages = static_cast<int>(m.int_attr("num_stages", 3));
  k.shared_bytes = k.thread_ir ? static_cast<int>(k.thread_ir->shared_bytes)
                               : static_cast<int>(m.int_attr("shared_bytes", 0));
  const ir::Block *body = fn.entry();
  for (size_t i = 0; i < body->num_args(); ++i) {
    const ir::Type &t = body->arg(i)->type;
    GpuParam p;
    p.name = i < fn.arg_names.size() ? fn.arg_names[i] : "arg" + std::to_string(i);
    p.kind = t.ptr ? "ptr" : std::string(ir::ir_name(t.elem));
    if (ir::is_tensor_map_arg(fn, i)) { // its box: pipeline-loops' module attribute
      simt::TmaBox box;
      for (const ir::NamedAttr &a : m.attrs)
        if (a.name == ir::kTmaBoxAttrPrefix + p.name) {
          const auto &v = std::get<std::vector<int64_t>>(a.value);
          box.rank = 2;
          box.box[0] = static_cast<int32_t>(v.at(0));
          box.box[1] = static_cast<int32_t>(v.at(1));
          box.swizzle_bytes = static_cast<int>(v.at(2));
        }
      TILEC_ASSERT(box.rank == 2, "a tensor map parameter without a box");
      p.kind = "tmap:" + simt::tma_box_text(box);
    }
    k.params.push_back(std::move(p));
  }
  // the lowering's last parameter: global scratch for the tensor maps the kernel builds
  if (int64_t bytes = m.int_attr("scratch_bytes", 0); bytes > 0 && k.thread_ir)
    k.params.push_back({kScratchParamName, "scratch:" + std::to_string(bytes)});
  return k;
}

CompiledGpuKernel compile_to_ptx(const std::shared_ptr<const sema::FunctionSource> &kernel,
                                 const std::vector<sema::ArgSpec> &args,
                                 const GpuCompileOptions &opts,
                                 std::shared_ptr<SourceManager> sources) {
  std::string bad = launch_options_error(opts.pipeline.compile.num_warps,
                                         opts.pipeline.compile.num_stages, opts.maxnreg);
  if (!bad.empty()) // before the layouts, which assume a valid warp count
    throw CompileError(SourceLoc{}, bad);
  PipelineOptions tile_opts = opts.pipeline;
  tile_opts.compile.gpu = true;
  bool stop_in_tile = !tile_opts.stop_after.empty() && names_tile_stage(tile_opts.stop_after);
  if (!stop_in_tile)
    tile_opts.stop_after.clear();
  CompiledTileKernel tile = compile_to_tile_ir(kernel, args, tile_opts, sources);
  if (stop_in_tile) {
    CompiledGpuKernel k;
    k.tile = std::move(tile);
    return k;
  }
  std::string static_output = tile.static_output;
  try {
    CompiledGpuKernel k = compile_module_to_ptx(std::move(tile), opts);
    // a warp-specialised kernel keeps its rings for its whole run (WarpSpecialize.h): when
    // that passes the target's shared memory, the kernel as written may still fit
    if (k.tile.module->int_attr("producer_warps", 0) > 0 &&
        k.shared_bytes > max_shared_per_block(opts.sm)) {
      GpuCompileOptions unsplit = opts;
      unsplit.warp_specialize = false;
      return compile_to_ptx(kernel, args, unsplit, sources);
    }
    return k;
  } catch (const CompileError &e) {
    // A GPU stage failed: static_print's output still reaches the user, before the error.
    if (static_output.empty() || dynamic_cast<const sema::CompileErrorWithOutput *>(&e))
      throw;
    throw sema::CompileErrorWithOutput(e, std::move(static_output));
  }
}

} // namespace tilec::pipeline
