// cp.async, mbarrier, wgmma and TMA kernels (tests/cpp/simt/AsyncPrograms.h,
// TmaPrograms.h): their printed forms, ptxas acceptance for sm_80 / sm_90 / sm_90a, and the
// printer's refusal of instructions the target lacks.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "../simt/AsyncPrograms.h"
#include "../simt/TmaPrograms.h"
#include "codegen/PtxPrinter.h"

using namespace tilec;
using namespace tilec::simt;
using codegen::print_ptx;
using codegen::PtxTarget;

namespace {

std::string ptxas_path() {
  if (const char *e = std::getenv("TILEC_PTXAS"); e && *e && std::filesystem::exists(e))
    return e;
  for (const char *c : {"/usr/local/cuda/bin/ptxas", "/opt/cuda/bin/ptxas", "/usr/bin/ptxas"})
    if (std::filesystem::exists(c))
      return c;
  return std::system("command -v ptxas > /dev/null 2>&1") == 0 ? "ptxas" : "";
}

// "" when ptxas accepts `ptx` for `arch`, else its log.
std::string ptxas_errors(const std::string &ptx, const std::string &arch) {
  static int counter = 0;
  auto stem = std::filesystem::temp_directory_path() /
              ("tilec_async_ptx_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::string src = stem.string() + ".ptx", out = stem.string() + ".cubin",
              log = stem.string() + ".log";
  std::ofstream(src) << ptx;
  bool ok = std::system(("\"" + ptxas_path() + "\" -arch=" + arch + " \"" + src + "\" -o \"" + out +
                         "\" > \"" + log + "\" 2>&1")
                            .c_str()) == 0;
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  for (const std::string &f : {src, out, log})
    std::filesystem::remove(f);
  return ok ? "" : text.empty() ? "ptxas failed" : text;
}

PtxTarget target(int sm, bool arch_specific) {
  PtxTarget t;
  t.sm = sm;
  t.arch_specific = arch_specific;
  return t;
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

#define REQUIRE_PTXAS()                                                                            \
  if (ptxas_path().empty())                                                                        \
  GTEST_SKIP() << "ptxas not found (set TILEC_PTXAS)"

std::string refusal(const Function &fn, const PtxTarget &t) {
  try {
    print_ptx(fn, t);
  } catch (const CompileError &e) {
    return e.message();
  }
  return "";
}

} // namespace

TEST(AsyncPtx, PrintedForms) {
  std::string cp = print_ptx(test::cp_async_kernel(true, 2), target(80, false));
  EXPECT_TRUE(contains(cp, "cp.async.cg.shared.global [%r")) << cp;
  EXPECT_TRUE(contains(cp, "+512], [%rd")) << cp;
  EXPECT_TRUE(contains(cp, "], 16, %r")) << cp;
  EXPECT_TRUE(contains(cp, "cp.async.commit_group;\n")) << cp;
  EXPECT_TRUE(contains(cp, "cp.async.wait_group 1;\n")) << cp;
  std::string mb = print_ptx(test::mbarrier_kernel(), target(90, true));
  EXPECT_TRUE(contains(mb, "mbarrier.init.shared::cta.b64 [%r")) << mb;
  EXPECT_TRUE(contains(mb, "], 32;")) << mb;
  EXPECT_TRUE(contains(mb, "mbarrier.arrive.shared::cta.b64 %rd")) << mb;
  EXPECT_TRUE(contains(mb, "mbarrier.try_wait.parity.shared::cta.b64 %p")) << mb;
  test::WgmmaCase wc;
  wc.mn_b = true;
  std::string wg = print_ptx(test::wgmma_kernel(wc), target(90, true));
  EXPECT_TRUE(contains(wg, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%r")) << wg;
  EXPECT_TRUE(contains(wg, ", 0, 1, 1, 0, 1;")) << wg; // scale_d 0 first, trans_b
  EXPECT_TRUE(contains(wg, ", 1, 1, 1, 0, 1;")) << wg;
  EXPECT_TRUE(contains(wg, "fence.proxy.async.shared::cta;")) << wg;
  EXPECT_TRUE(contains(wg, "wgmma.fence.sync.aligned;")) << wg;
  EXPECT_TRUE(contains(wg, "wgmma.commit_group.sync.aligned;")) << wg;
  EXPECT_TRUE(contains(wg, "wgmma.wait_group.sync.aligned 0;")) << wg;
  test::WgmmaCase ar;
  ar.a_regs = true;
  std::string wa = print_ptx(test::wgmma_kernel(ar), target(90, true));
  EXPECT_TRUE(contains(wa, "}, {%r")) << wa; // A as a register list
}

TEST(AsyncPtx, PrinterRefusesWhatTheTargetLacks) {
  test::WgmmaCase wc;
  Function wg = test::wgmma_kernel(wc);
  EXPECT_TRUE(contains(refusal(wg, target(80, false)),
                       "`fence.proxy.async.shared::cta` needs sm_90; the target is sm_80"))
      << refusal(wg, target(80, false));
  EXPECT_TRUE(contains(refusal(wg, target(90, false)),
                       "`wgmma.fence.sync.aligned` needs sm_90a; the target is sm_90"))
      << refusal(wg, target(90, false));
  EXPECT_TRUE(contains(refusal(test::mbarrier_kernel(), target(80, false)),
                       "`mbarrier` needs sm_90; the target is sm_80"));
  EXPECT_EQ(refusal(test::cp_async_kernel(true, 1), target(80, false)), "");
}

TEST(AsyncPtxas, CpAsyncSm80AndSm90a) {
  REQUIRE_PTXAS();
  Function fn = test::cp_async_kernel(true, 2);
  EXPECT_EQ(ptxas_errors(print_ptx(fn, target(80, false)), "sm_80"), "");
  EXPECT_EQ(ptxas_errors(print_ptx(fn, target(90, true)), "sm_90a"), "");
}

TEST(AsyncPtxas, MbarrierSm90a) {
  REQUIRE_PTXAS();
  EXPECT_EQ(ptxas_errors(print_ptx(test::mbarrier_kernel(), target(90, true)), "sm_90a"), "");
}

TEST(AsyncPtxas, MbarrierInitAndArriveSm80) {
  REQUIRE_PTXAS();
  Function fn;
  fn.name = "mbar80";
  fn.num_warps = 1;
  fn.shared_bytes = 8;
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg bar = b.shared_addr(0);
  mbarrier_init(b, Operand::addr(bar), imm(32));
  mbarrier_arrive(b, Operand::addr(bar));
  mbarrier_inval(b, Operand::addr(bar));
  b.ret();
  EXPECT_EQ(ptxas_errors(print_ptx(fn, target(80, false)), "sm_80"), "");
}

TEST(AsyncPtxas, EveryWgmmaCaseSm90a) {
  REQUIRE_PTXAS();
  for (const test::WgmmaCase &wc : test::wgmma_cases()) {
    std::string ptx = print_ptx(test::wgmma_kernel(wc), target(90, true));
    EXPECT_EQ(ptxas_errors(ptx, "sm_90a"), "") << wc.name() << "\n" << ptx;
  }
}

// TMA: the tensor map as a 128-byte param, its generic address, the copy with its mbarrier.
TEST(AsyncPtx, TmaPrintedForms) {
  test::TmaCase tc;
  Function fn = test::tma_kernel(tc);
  std::string p = print_ptx(fn, target(90, false)), name = fn.name + "_param_0";
  EXPECT_TRUE(contains(p, ".target sm_90\n")) << p;
  EXPECT_TRUE(contains(p, "  .param .align 64 .b8 " + name + "[128],\n")) << p;
  EXPECT_TRUE(contains(p, "  .param .u64 " + fn.name + "_param_1,\n")) << p;
  EXPECT_TRUE(contains(p, ".extern .shared .align 1024 .b8 global_smem[];")) << p;
  EXPECT_TRUE(contains(p, "cvta.param.u64 %rd1, " + name + ";\n")) << p;
  EXPECT_TRUE(contains(p, "mbarrier.arrive.expect_tx.shared::cta.b64 %rd")) << p;
  EXPECT_TRUE(contains(p, "], 128;")) << p;
  EXPECT_TRUE(contains(p, "@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                          "complete_tx::bytes [%r"))
      << p;
  EXPECT_TRUE(contains(p, "], [%rd1, {%r")) << p;
  test::TmaCase d3;
  d3.rank = 3;
  d3.box = {4, 4, 3};
  d3.coord = {-1, 3, 2};
  d3.imm_coords = true;
  std::string q = print_ptx(test::tma_kernel(d3), target(90, true));
  EXPECT_TRUE(contains(q, "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::"
                          "complete_tx::bytes [%r"))
      << q;
  EXPECT_TRUE(contains(q, "], [%rd1, {-1, 3, 2}], [%r")) << q;
}

TEST(AsyncPtx, TmaNeedsSm90) {
  Function fn;
  fn.name = "tma80";
  fn.num_warps = 1;
  fn.shared_bytes = 2048;
  uint32_t pd = fn.add_blob_param("desc", kTensorMapBytes, kTensorMapAlign);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg tmap = cvta_param(b, pd);
  cp_async_bulk_tensor(b, Operand::shared(1024), Operand::shared(0), tmap, {imm(0), imm(0)});
  b.ret();
  EXPECT_EQ(refusal(fn, target(80, false)),
            "`cp.async.bulk.tensor` needs sm_90; the target is sm_80");
  EXPECT_EQ(refusal(fn, target(90, false)), "");
  std::string p = print_ptx(fn, target(90, false));
  EXPECT_TRUE(contains(p, "[global_smem+1024], [%rd1, {0, 0}], [global_smem];")) << p;
}

TEST(AsyncPtxas, TmaSm90AndSm90a) {
  REQUIRE_PTXAS();
  test::TmaCase two;
  two.rounds = 2;
  test::TmaCase d3;
  d3.rank = 3;
  d3.box = {4, 4, 3};
  d3.imm_coords = true;
  test::TmaCase d1;
  d1.rank = 1;
  d1.box = {12, 1, 1};
  for (const test::TmaCase &tc : {two, d3, d1}) {
    Function fn = test::tma_kernel(tc);
    EXPECT_EQ(ptxas_errors(print_ptx(fn, target(90, false)), "sm_90"), "") << tc.name();
    EXPECT_EQ(ptxas_errors(print_ptx(fn, target(90, true)), "sm_90a"), "") << tc.name();
  }
  // five register coordinates, the symbols as addresses
  Function fn;
  fn.name = "tma5d";
  fn.num_warps = 1;
  fn.shared_bytes = 4096;
  uint32_t pd = fn.add_blob_param("desc", kTensorMapBytes, kTensorMapAlign);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg tmap = cvta_param(b, pd);
  Reg x = b.cvt(Ty::S32, Ty::U32, b.special(Sreg::CtaidX));
  mbarrier_init(b, Operand::shared(0), imm(1));
  mbarrier_arrive_expect_tx(b, Operand::shared(0), imm(1024));
  cp_async_bulk_tensor(b, Operand::shared(1024), Operand::shared(0), tmap, {x, x, x, x, x});
  mbarrier_wait(b, Operand::shared(0), imm(0));
  b.ret();
  std::string p = print_ptx(fn, target(90, false));
  EXPECT_TRUE(contains(p, "cp.async.bulk.tensor.5d.")) << p;
  EXPECT_EQ(ptxas_errors(p, "sm_90"), "") << p;
}
