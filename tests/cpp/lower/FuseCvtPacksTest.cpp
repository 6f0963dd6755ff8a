// FuseCvtPacks: f32 -> f16/bf16 casts of two elements packed into one 32-bit register
// become one cvt.{rn,rz}.{f16,bf16}x2.f32 (sm_80+), bit-identical to the scalar cvts.
#include <random>

#include "../SeedKernels.h"
#include "../TextCount.h"
#include "LowerTestUtil.h"

namespace tilec::lower::test {
namespace {

// f32 bit patterns: specials, boundaries of both formats, random bits.
std::vector<uint32_t> patterns(size_t n) {
  std::vector<uint32_t> v = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                             0x7f800001, 0x00000001, 0x33000000, 0x33000001, 0x387fe000,
                             0x387ff000, 0x477fefff, 0x477ff000, 0xc77ff000, 0x7f7fffff,
                             0x3f808000, 0x3f818000, 0x3f808001, 0xbf808000, 0x3f801000};
  std::mt19937 g(99);
  while (v.size() < n)
    v.push_back(g());
  return v;
}

struct Case {
  const char *to, *sig, *rounding, *packed;
};

void cast_case(const Case &c, int sm) {
  SCOPED_TRACE(std::string(c.to) + " " + c.rounding + " sm_" + std::to_string(sm));
  std::string conv =
      std::string("x.to(tl.") + c.to +
      (*c.rounding ? std::string(", fp_downcast_rounding=\"") + c.rounding + "\"" : "") + ")";
  std::string src = "@triton.jit\n"
                    "def k(x_ptr, z_ptr):\n"
                    "    offs = tl.arange(0, 256)\n"
                    "    x = tl.load(x_ptr + offs)\n"
                    "    tl.store(z_ptr + offs, " +
                    conv + ")\n";
  GpuKernelUnderTest k(src, "k", {"*fp32:16", std::string("*") + c.sig + ":16"}, 4, sm);
  const std::string &ptx = k.ptx();
  std::string scalar = std::string("cvt.") + (*c.rounding ? "rz" : "rn") + "." +
                       (c.sig == std::string("fp16") ? "f16" : "bf16") + ".f32";
  if (sm >= 80) {
    EXPECT_GT(count(ptx, c.packed), 0u) << ptx;
    EXPECT_EQ(count(ptx, scalar), 0u) << ptx;
  } else {
    EXPECT_EQ(count(ptx, c.packed), 0u) << ptx;
  }
  Inputs in;
  in.buffer(patterns(256), "x_ptr");
  in.buffer(std::vector<uint16_t>(256, 0), "z_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1)};
  Outcome ref = k.run_interp(in), got = k.run_sim(in);
  Compare cmp = Compare::f16(0, 0); // NaNs compare as NaNs, everything else bit for bit
  if (c.sig == std::string("bf16"))
    cmp.kind = Compare::BF16;
  GpuKernelUnderTest::expect_close(ref.bufs[1], got.bufs[1], cmp, "z_ptr");
}

const Case kCases[] = {{"float16", "fp16", "", "cvt.rn.f16x2.f32"},
                       {"bfloat16", "bf16", "", "cvt.rn.bf16x2.f32"},
                       {"float16", "fp16", "rtz", "cvt.rz.f16x2.f32"},
                       {"bfloat16", "bf16", "rtz", "cvt.rz.bf16x2.f32"}};

TEST(FuseCvtPacks, CastsOfPairsArePackedConversions) {
  for (const Case &c : kCases)
    cast_case(c, 90);
  cast_case(kCases[0], 80);
  cast_case(kCases[1], 80);
}

// A cast whose halves are also used one by one keeps the scalar cvt it needs.
TEST(FuseCvtPacks, HalvesReadElsewhereStay) {
  const char *src = R"(@triton.jit
def k(x_ptr, z_ptr, w_ptr):
    offs = tl.arange(0, 256)
    x = tl.load(x_ptr + offs)
    h = x.to(tl.float16)
    tl.store(z_ptr + offs, h)
    tl.store(w_ptr + offs, h.to(tl.float32) * 2.0)
)";
  GpuKernelUnderTest k(src, "k", {"*fp32:16", "*fp16:16", "*fp32:16"});
  Inputs in;
  in.buffer(patterns(256), "x_ptr");
  in.buffer(std::vector<uint16_t>(256, 0), "z_ptr");
  in.buffer(std::vector<float>(256, 0), "w_ptr");
  in.args = {Arg::buffer(0), Arg::buffer(1), Arg::buffer(2)};
  Outcome ref = k.run_interp(in), got = k.run_sim(in);
  GpuKernelUnderTest::expect_close(ref.bufs[1], got.bufs[1], Compare::f16(0, 0), "z_ptr");
  GpuKernelUnderTest::expect_close(ref.bufs[2], got.bufs[2], Compare::f32(0, 0), "w_ptr");
}

// The seed attention's loop: p.to(fp16) feeding wgmma from registers is packed.
TEST(FuseCvtPacks, SeedAttentionLoopHasNoScalarHalfCvts) {
  GpuKernelUnderTest k(tilec::test::seed_kernel("fused_attention_kernel"), "fused_attention_kernel",
                       {"*fp16:16", "*fp16:16", "*fp16:16", "*fp16:16", "i32:16", "i32:16",
                        "i32:16",   "i32:1",    "i32:16",   "i32:16",   "i32:16", "i32:1",
                        "i32:16",   "i32:16",   "i32:16",   "i32:1",    "i32:16", "i32:16",
                        "i32:16",   "i32:1",    "i32",      "i32",      "i32:16", "=128",
                        "=64",      "=64"},
                       4, 90, 2);
  const std::string &ptx = k.ptx();
  size_t body = ptx.find("$L__body_1:"), end = ptx.find("$L__endloop", body);
  ASSERT_NE(body, std::string::npos) << ptx;
  ASSERT_NE(end, std::string::npos) << ptx;
  std::string loop = ptx.substr(body, end - body);
  EXPECT_EQ(count(loop, "cvt.rn.f16.f32"), 0u) << loop;
  EXPECT_EQ(count(loop, "cvt.rn.f16x2.f32"), 32u) << loop;
}

} // namespace
} // namespace tilec::lower::test
