// The GPU compile path: the tile stages, then the GPU stages of the same flat list
// (Pipeline.cpp: "layouts", "allocate-shared", "lower", "ptx"), giving PTX and what a
// launch needs. Used by the Python GPU path, `tilec ptx` and the tests.
//
//   GpuCompileOptions o;  o.pipeline.compile.num_warps = 4;  o.sm = 90;
//   CompiledGpuKernel k = compile_to_ptx(source, args, o, nullptr);
//   k.ptx  // ".version 8.0 .target sm_90a ... .entry add_kernel(...)"
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline/Pipeline.h"
#include "simt/ThreadIR.h"

namespace tilec::pipeline {

struct GpuCompileOptions {
  PipelineOptions pipeline;  // num_warps, num_stages, debug, dumps, stop_after
  int sm = 90;               // compute capability (80, 86, 89, 90, ...)
  bool arch_specific = true; // sm_90a rather than sm_90 (only for sm >= 90)
  // Triton's launch options: enable_fp_fusion lets ptxas contract the user's f32/f64
  // mul+add into fma (their add/sub/mul print without .rn); maxnreg > 0 prints
  // `.maxnreg N` (16..255, else CompileError); 0: no limit.
  bool fp_fusion = true;
  bool reflect_ftz = true; // enable_reflect_ftz: lower::LowerOptions::reflect_ftz
  int maxnreg = 0;
  // TILEC_WARP_SPECIALIZE may split the kernel (compile_to_ptx turns it off for a kernel
  // whose split passes the shared memory the unsplit one fits in)
  bool warp_specialize = true;
};

// One kernel .param, in order: the @jit parameter it carries and its kind, named as the
// runtime's ParamKind ("ptr", "i1", "i32", "i64", "u32", "fp16", "fp32", ...).
struct GpuParam {
  std::string name;
  std::string kind;
};

// The name of the global scratch parameter (kind "scratch:<bytes per program>",
// runtime/KernelBinary.h), which no @jit parameter has.
inline constexpr const char *kScratchParamName = "(global scratch)";

struct CompiledGpuKernel {
  CompiledTileKernel tile; // module (with layouts), sources, dumps, static_print text
  std::string name;        // the PTX .entry
  std::string arch;        // "sm_90a"
  int num_warps = 4;
  int num_stages = 3;
  int shared_bytes = 0; // dynamic shared memory per CTA
  std::vector<GpuParam> params;
  std::shared_ptr<simt::Function> thread_ir; // the lowered kernel (for the simulator)
  std::string thread_ir_text;                // its dump
  std::string ptx;                           // empty when stop_after ends earlier
};

// Compiles `kernel` specialised by `args` to PTX. User errors (including constructs the
// GPU path does not support yet, such as tl.dot) throw CompileError.
CompiledGpuKernel compile_to_ptx(const std::shared_ptr<const sema::FunctionSource> &kernel,
                                 const std::vector<sema::ArgSpec> &args,
                                 const GpuCompileOptions &opts,
                                 std::shared_ptr<SourceManager> sources);

// The GPU stages on a module that already went through the tile stages (IR parsed in a
// test, for instance): fills everything but `tile.sources` and `tile.static_output`.
CompiledGpuKernel compile_module_to_ptx(CompiledTileKernel tile, const GpuCompileOptions &opts);

// What is wrong with a kernel's launch options, or "" when nothing is: num_warps a power of
// two from 1 to 32 (a CTA has at most 1024 threads), num_stages >= 0, maxnreg 0 (no limit)
// or 16..255. The one place of these rules: the CLI, the AOT compiler and the compile entry
// points check through it.
std::string launch_options_error(int num_warps, int num_stages, int maxnreg);

} // namespace tilec::pipeline
