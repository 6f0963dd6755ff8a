#include <gtest/gtest.h>

#include <cstdlib>

#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "pipeline/Pipeline.h"

using namespace tilec;
using namespace tilec::pipeline;

namespace {

const char *kAdd = R"(@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)
)";

std::shared_ptr<sema::FunctionSource> source(const std::string &name, const std::string &text) {
  auto f = std::make_shared<sema::FunctionSource>();
  f->name = name;
  f->file = "kernels.py";
  f->source = text;
  f->first_line = 10;
  f->globals = {{"tl", sema::Val::module("tilec.language")},
                {"triton", sema::Val::module("tilec")}};
  return f;
}

std::vector<sema::ArgSpec> add_args() {
  std::vector<sema::ArgSpec> args(5);
  for (int i = 0; i < 3; ++i) {
    args[i].kind = sema::ArgSpec::Kind::Pointer;
    args[i].dtype = ir::DType::F32;
  }
  args[3].kind = sema::ArgSpec::Kind::Int;
  args[4].kind = sema::ArgSpec::Kind::Constexpr;
  args[4].value = sema::Val::integer(256);
  return args;
}

PipelineOptions verified() {
  PipelineOptions o;
  o.verify = true;
  return o;
}

// Restores an environment variable when the test ends.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char *n, const char *v) : name(n) { setenv(n, v, 1); }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

} // namespace

TEST(Pipeline, StageNames) {
  EXPECT_EQ(stage_names(), (std::vector<std::string>{"frontend", "canonicalize", "licm", "cse",
                                                     "dce", "cleanup"}));
}

TEST(Pipeline, CompilesTheVectorAdd) {
  PipelineOptions o = verified();
  o.dump_stage = "all";
  CompiledTileKernel k = compile_to_tile_ir(source("add_kernel", kAdd), add_args(), o, nullptr);
  ASSERT_TRUE(k.module);
  ASSERT_TRUE(k.sources);
  ASSERT_EQ(k.dumps.size(), stage_names().size());
  for (size_t i = 0; i < k.dumps.size(); ++i)
    EXPECT_EQ(k.dumps[i].first, stage_names()[i]);
  std::string final_ir = ir::print(*k.module);
  EXPECT_EQ(k.dumps.back().second, final_ir);
  // after the pipeline: no dead or duplicate ops; one splat of the offsets' base
  EXPECT_NE(final_ir.find("tt.func @add_kernel(%x_ptr: ptr<fp32>"), std::string::npos) << final_ir;
  EXPECT_EQ(final_ir.find("program_id", final_ir.find("program_id") + 1), std::string::npos);
  size_t loads = 0;
  for (size_t p = final_ir.find(" = load "); p != std::string::npos;
       p = final_ir.find(" = load ", p + 1))
    ++loads;
  EXPECT_EQ(loads, 2u);
  EXPECT_TRUE(k.stage_seconds.empty()); // TILEC_TIME is off
}

TEST(Pipeline, StopAfterAndSelectedDumps) {
  PipelineOptions o = verified();
  o.stop_after = "frontend";
  o.dump_stage = "frontend,dce";
  CompiledTileKernel k = compile_to_tile_ir(source("add_kernel", kAdd), add_args(), o, nullptr);
  ASSERT_EQ(k.dumps.size(), 1u);
  EXPECT_EQ(k.dumps[0].first, "frontend");
  EXPECT_EQ(k.dumps[0].second, ir::print(*k.module));

  o.stop_after = "nonsense";
  try {
    compile_to_tile_ir(source("add_kernel", kAdd), add_args(), o, nullptr);
    FAIL();
  } catch (const CompileError &e) {
    EXPECT_EQ(e.message(), "unknown pipeline stage 'nonsense' (stages: frontend, canonicalize, "
                           "licm, cse, dce, cleanup)");
  }
}

TEST(Pipeline, EnvDumpPrintsToStderrAndTimeRecords) {
  ScopedEnv dump("TILEC_DUMP", "cse");
  ScopedEnv time("TILEC_TIME", "1");
  ::testing::internal::CaptureStderr();
  CompiledTileKernel k =
      compile_to_tile_ir(source("add_kernel", kAdd), add_args(), verified(), nullptr);
  std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(k.dumps.size(), 1u);
  EXPECT_EQ(k.dumps[0].first, "cse");
  size_t header = err.find("// -----// IR after cse //----- //\n");
  ASSERT_NE(header, std::string::npos) << err;
  EXPECT_EQ(err.substr(header + 35, k.dumps[0].second.size()), k.dumps[0].second);
  EXPECT_EQ(err.find("IR after dce"), std::string::npos);
  ASSERT_EQ(k.stage_seconds.size(), stage_names().size());
  EXPECT_EQ(k.stage_seconds[0].first, "frontend");
  EXPECT_GE(k.stage_seconds[0].second, 0.0);
  EXPECT_NE(err.find("tilec: stage frontend"), std::string::npos) << err;
}

TEST(Pipeline, UnknownDumpStageWarns) {
  ScopedEnv dump("TILEC_DUMP", "frontend,bogus");
  ::testing::internal::CaptureStderr();
  CompiledTileKernel k =
      compile_to_tile_ir(source("add_kernel", kAdd), add_args(), verified(), nullptr);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(
      err.find(
          "tilec: TILEC_DUMP names no pipeline stage 'bogus' (stages: frontend, "
          "canonicalize, licm, cse, dce, cleanup, flatten-loops, fold-flattened, strength-reduce, plan-rings, "
          "pipeline-loads, prefetch-loads, "
          "layouts, remove-conversions, pipeline-loops, sink-past-loops, warp-specialize, "
          "allocate-shared, lower, "
          "sink-fragment-loads, fuse-cvt-packs, fold-xor-pairs, fold-byte-packs, contract-fma, "
          "coalesce-copies, "
          "exp-vote-tail, overlap-wgmma, defer-wgmma-wait, ptx)"),
      std::string::npos)
      << err;
  ASSERT_EQ(k.dumps.size(), 1u);
  EXPECT_EQ(k.dumps[0].first, "frontend");
}

TEST(Pipeline, UserErrorsPropagateWithTheirLocation) {
  auto sm = std::make_shared<SourceManager>();
  const char *bad = "@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, undefined_name)\n";
  std::vector<sema::ArgSpec> args(1);
  args[0].kind = sema::ArgSpec::Kind::Pointer;
  try {
    compile_to_tile_ir(source("k", bad), args, verified(), sm);
    FAIL();
  } catch (const CompileError &e) {
    EXPECT_EQ(e.loc().line, 12);
    std::string r = render_diagnostic(*sm, e.loc(), "error", e.message());
    EXPECT_EQ(r.rfind("kernels.py:12:", 0), 0u) << r;
    EXPECT_NE(r.find("undefined_name"), std::string::npos) << r;
  }
}

TEST(Pipeline, RunTileStagesOnParsedIR) {
  CompiledTileKernel k;
  k.module = ir::parse_module(R"(tt.func @k(%p: ptr<i32>, %n: i32) {
  %0 = constant {value = 2} : i32
  %1 = constant {value = 3} : i32
  %2 = mul %0, %1 : i32
  %3 = add %n, %2 : i32
  %4 = add %n, %2 : i32
  %5 = mul %3, %4 : i32
  store %p, %5
  return
}
)");
  PipelineOptions o = verified();
  o.dump_stage = "canonicalize,cse";
  run_tile_stages(k, o);
  EXPECT_EQ(ir::print(*k.module), R"(tt.func @k(%p: ptr<i32>, %n: i32) {
  %0 = constant {value = 6} : i32
  %1 = add %n, %0 : i32
  %2 = mul %1, %1 : i32
  store %p, %2
  return
}
)");
  ASSERT_EQ(k.dumps.size(), 2u);
  EXPECT_EQ(k.dumps[0].first, "canonicalize");
}

TEST(Pipeline, VerifierFailuresNameTheStage) {
  CompiledTileKernel k;
  k.module = ir::parse_module("tt.func @k(%n: i32) {\n  %0 = add %n, %n : i32\n}\n");
  try {
    run_tile_stages(k, verified());
    FAIL();
  } catch (const InternalError &e) {
    EXPECT_EQ(std::string(e.what()).rfind("after pipeline stage 'canonicalize': IR verification "
                                          "failed in @k: the kernel body must end with `return`",
                                          0),
              0u)
        << e.what();
  }
}
