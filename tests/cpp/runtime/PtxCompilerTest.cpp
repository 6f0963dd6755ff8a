#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/PtxCompiler.h"
#include "runtime_test_kernels.h"

using namespace tilec;
using namespace tilec::runtime;

namespace {

// Skips the test on machines without ptxas (CI images without the CUDA toolkit).
#define REQUIRE_PTXAS()                                                                            \
  auto ptxas = find_ptxas();                                                                       \
  if (!ptxas)                                                                                      \
  GTEST_SKIP() << "no ptxas on this machine"

} // namespace

TEST(GpuTarget, ArchNamesAndParsing) {
  EXPECT_EQ((GpuTarget{9, 0}).arch(), "sm_90a");
  EXPECT_EQ((GpuTarget{8, 0}).arch(), "sm_80");
  EXPECT_EQ((GpuTarget{8, 6}).arch(), "sm_86");
  EXPECT_EQ((GpuTarget{10, 0}).arch(), "sm_100a");
  for (const char *s : {"sm_90a", "sm_90", "cuda:90", "90"}) {
    auto t = GpuTarget::parse(s);
    ASSERT_TRUE(t) << s;
    EXPECT_EQ(t->cc(), 90) << s;
  }
  EXPECT_EQ(GpuTarget::parse("sm_100a")->major, 10);
  EXPECT_FALSE(GpuTarget::parse("sm_x"));
  EXPECT_FALSE(GpuTarget::parse("9"));
  EXPECT_FALSE(GpuTarget::parse(""));
}

TEST(PtxCompiler, CompilesHandWrittenPtxForSm80AndSm90a) {
  REQUIRE_PTXAS();
  for (GpuTarget t : {GpuTarget{8, 0}, GpuTarget{9, 0}}) {
    Cubin c = compile_with_ptxas(*ptxas, test_kernels::kVectorAddPtx, t, PtxOptions{},
                                 "add_kernel");
    ASSERT_GE(c.image.size(), 64u);
    EXPECT_EQ(c.image.substr(0, 4), std::string("\x7f" "ELF", 4));
    EXPECT_NE(c.compiler.find("ptxas"), std::string::npos);
    EXPECT_GT(c.seconds, 0.0);
  }
}

TEST(PtxCompiler, ReportsPtxasSyntaxErrorsClearly) {
  REQUIRE_PTXAS();
  std::string bad = test_kernels::kVectorAddPtx;
  bad.replace(bad.find("add.f32"), 7, "addd.f32");
  try {
    compile_with_ptxas(*ptxas, bad, GpuTarget{9, 0}, PtxOptions{}, "add_kernel");
    FAIL() << "ptxas accepted invalid PTX";
  } catch (const PtxasError &e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("ptxas failed to compile kernel 'add_kernel' for sm_90a"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("add_kernel.ptx, line"), std::string::npos) << msg; // no temp path
    EXPECT_EQ(msg.find("/tilec-ptxas-"), std::string::npos) << msg;
    EXPECT_NE(msg.find("addd"), std::string::npos) << msg;
    EXPECT_FALSE(e.loc().valid()); // a CompileError without a source location
  }
}

TEST(PtxCompiler, CompilePtxPrefersPtxas) {
  REQUIRE_PTXAS();
  Cubin c = compile_ptx(test_kernels::kVectorAddPtx, GpuTarget{8, 0}, PtxOptions{}, "add_kernel");
  EXPECT_NE(c.compiler.find("ptxas"), std::string::npos);
  EXPECT_NE(ptx_compiler_identity().find("ptxas:"), std::string::npos);
}

TEST(PtxCompiler, MaxRegistersAndLineInfoOptionsAreAccepted) {
  REQUIRE_PTXAS();
  PtxOptions o;
  o.max_registers = 32;
  o.line_info = true;
  o.opt_level = 2;
  Cubin c = compile_with_ptxas(*ptxas, test_kernels::kVectorAddPtx, GpuTarget{9, 0}, o, "k");
  EXPECT_FALSE(c.image.empty());
}

TEST(PtxCompiler, ExplicitPtxasPathMustExist) {
  setenv("TILEC_PTXAS", "/nonexistent/ptxas", 1);
  try {
    find_ptxas();
    FAIL() << "a missing TILEC_PTXAS was accepted";
  } catch (const PtxasError &e) {
    EXPECT_NE(std::string(e.what()).find("TILEC_PTXAS is set to '/nonexistent/ptxas'"),
              std::string::npos);
  }
  unsetenv("TILEC_PTXAS");
}

TEST(PtxCompiler, SearchesPathAndFallsBackWithoutPtxas) {
  // With an empty PATH and no CUDA_HOME, only /usr/local/cuda/bin can provide ptxas.
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  const char *old_home = std::getenv("CUDA_HOME");
  std::string saved_home = old_home ? old_home : "";
  setenv("PATH", "/nonexistent-dir", 1);
  unsetenv("CUDA_HOME");
  auto p = find_ptxas();
  if (p) {
    EXPECT_EQ(*p, "/usr/local/cuda/bin/ptxas");
  } else { // no ptxas and no device: a clear error, not a crash
    EXPECT_THROW(compile_ptx(test_kernels::kVectorAddPtx, GpuTarget{9, 0}, {}, "k", -1),
                 PtxasError);
  }
  setenv("PATH", old_path.c_str(), 1);
  if (old_home)
    setenv("CUDA_HOME", saved_home.c_str(), 1);
}

// The occupancy cap's second build (one more CTA per SM) is speculative: when ptxas refuses
// that register budget (wgmma accumulators that need more, error C7602), the first build
// stands. A stand-in ptxas (TILEC_PTXAS) reports 156 registers and fails with the cap.
TEST(PtxCompiler, ARefusedOccupancyCapKeepsTheFirstBuild) {
  char dir[] = "/tmp/tilec-fake-ptxas-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string script = std::string(dir) + "/ptxas";
  FILE *f = std::fopen(script.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("#!/bin/sh\n"
             "out=; in=\n"
             "while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift ;; *.ptx) in=$1 ;; esac; "
             "shift; done\n"
             "if grep -q minnctapersm \"$in\"; then\n"
             "  echo 'ptxas fatal   : (C7602) Insufficient registers (128)'; exit 255; fi\n"
             "printf '\\177ELF-cubin' > \"$out\"\n"
             "echo 'ptxas info    : Used 156 registers, used 1 barriers'\n",
             f);
  std::fclose(f);
  chmod(script.c_str(), 0755);
  setenv("TILEC_PTXAS", script.c_str(), 1);
  PtxOptions o;
  o.threads = 256; // 156 registers: one CTA of 8 warps; the cap asks for two
  o.shared_bytes = 64 * 1024;
  std::string ptx = ".visible .entry k()\n.reqntid 256, 1, 1\n{\n  ret;\n}\n";
  Cubin c;
  EXPECT_NO_THROW(c = compile_ptx(ptx, GpuTarget{9, 0}, o, "k"));
  EXPECT_EQ(c.image, "\x7f" "ELF-cubin");
  EXPECT_EQ(c.compiler.find(".minnctapersm"), std::string::npos) << c.compiler;
  unsetenv("TILEC_PTXAS");
  unlink(script.c_str());
  rmdir(dir);
}
