#include "runtime/OccupancyCap.h"

#include <gtest/gtest.h>

#include "runtime/PtxCompiler.h"

using namespace tilec::runtime;

TEST(OccupancyCap, OneMoreCtaJustOverARegisterBoundary) {
  GpuTarget h100{9, 0};
  // the seed attention: 128 threads, 202 registers (2 CTAs), ~49 KB shared: ask for 3
  EXPECT_EQ(occupancy_min_ctas(h100, 202, 128, 49152 + 1024), 3);
  // 3 CTAs would leave 168 registers: under 4/5 of 216, so not asked
  EXPECT_EQ(occupancy_min_ctas(h100, 216, 128, 49152), 0);
  // shared memory already allows no more: 2 x 100 KB
  EXPECT_EQ(occupancy_min_ctas(h100, 202, 128, 100 * 1024), 0);
  // the seed matmul (256 threads, 188 registers, 1 CTA): 2 would need 128 registers
  EXPECT_EQ(occupancy_min_ctas(h100, 188, 256, 160 * 1024), 0);
  // threads cap the SM at 2 CTAs of 1024, which 32 registers already reach
  EXPECT_EQ(occupancy_min_ctas(h100, 32, 1024, 0), 0);
  // 12 CTAs of 4 warps already hide latency: not asked
  EXPECT_EQ(occupancy_min_ctas(h100, 36, 128, 0), 0);
  // 168 registers: 3 CTAs (12 warps); a 4th would leave 128, under 4/5 of 168
  EXPECT_EQ(occupancy_min_ctas(h100, 168, 128, 0), 0);
  // 8 warps of 96 registers: 2 CTAs (16 warps) already
  EXPECT_EQ(occupancy_min_ctas(h100, 120, 256, 0), 0);
  // an unknown target is left alone
  EXPECT_EQ(occupancy_min_ctas(GpuTarget{7, 5}, 202, 128, 0), 0);
  EXPECT_EQ(occupancy_min_ctas(GpuTarget{8, 0}, 202, 128, 0), 3);
}

TEST(OccupancyCap, DirectiveAfterThreadCount) {
  // tilec prints .reqntid; PTX from elsewhere (ptx_ab.py's variants) may say .maxntid
  std::string ptx = ".visible .entry k()\n.reqntid 128, 1, 1\n{\n  ret;\n}\n";
  EXPECT_EQ(with_min_ctas(ptx, 3),
            ".visible .entry k()\n.reqntid 128, 1, 1\n.minnctapersm 3\n{\n  ret;\n}\n");
  ptx = ".visible .entry k()\n.maxntid 128, 1, 1\n{\n  ret;\n}\n";
  EXPECT_EQ(with_min_ctas(ptx, 3),
            ".visible .entry k()\n.maxntid 128, 1, 1\n.minnctapersm 3\n{\n  ret;\n}\n");
  EXPECT_EQ(with_min_ctas(".visible .entry k()\n{\n}\n", 3), "");
  EXPECT_EQ(with_min_ctas(".visible .entry k()\n.reqntid 128, 1, 1\n.maxnreg 200\n{\n}\n", 3), "");
}

TEST(OccupancyCap, PtxasLog) {
  std::string log = "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
                    "ptxas info    : Function properties for k\n"
                    "    72 bytes stack frame, 84 bytes spill stores, 88 bytes spill loads\n"
                    "ptxas info    : Used 168 registers, used 1 barriers\n";
  EXPECT_EQ(log_registers(log), 168);
  EXPECT_EQ(log_spill_bytes(log), 84);
  EXPECT_EQ(log_registers("nothing"), -1);
}

TEST(OccupancyCap, SetmaxnregBudget) {
  // 8 consumer warps and a producer warpgroup: 168 registers at entry are a pool of
  // 168 x 384; the producer gives back 128 x (168 - 40), the consumers take 256 x (232 - 168)
  std::string ptx = ".visible .entry k()\n.reqntid 384, 1, 1\n.minnctapersm 1\n{\n"
                    "  setmaxnreg.dec.sync.aligned.u32 40;\n  ret;\n"
                    "  setmaxnreg.inc.sync.aligned.u32 232;\n  ret;\n}\n";
  EXPECT_TRUE(setmaxnreg_fits(ptx, 168));
  EXPECT_TRUE(setmaxnreg_fits(ptx, 165));  // allocated in units of 8: 168
  EXPECT_FALSE(setmaxnreg_fits(ptx, 160)); // 256 x 72 taken, 128 x 120 given back
  EXPECT_FALSE(setmaxnreg_fits(ptx, 240)); // .inc 232 from 240 would not be an increase
  EXPECT_FALSE(setmaxnreg_fits(ptx, -1));  // no ptxas log: unknown
  EXPECT_TRUE(setmaxnreg_fits(".visible .entry k()\n.reqntid 128, 1, 1\n{\n}\n", -1));
  // cp.async producers: as many warps as the consumers, their count in a header comment
  std::string two = ".visible .entry k()\n.reqntid 512, 1, 1\n.minnctapersm 1\n"
                    "// tilec: setmaxnreg.dec by 256 threads\n{\n"
                    "  setmaxnreg.dec.sync.aligned.u32 56;\n"
                    "  setmaxnreg.inc.sync.aligned.u32 200;\n}\n";
  EXPECT_TRUE(setmaxnreg_fits(two, 128)); // 256 x 56 + 256 x 200 = 512 x 128
  EXPECT_FALSE(setmaxnreg_fits(two, 120));
  EXPECT_EQ(without_setmaxnreg(ptx),
            ".visible .entry k()\n.reqntid 384, 1, 1\n.minnctapersm 1\n{\n  ret;\n  ret;\n}\n");
}
