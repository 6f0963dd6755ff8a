// The one set of target rules (support/Target.h) every entry point parses --arch,
// target= and arch= with.
#include <gtest/gtest.h>

#include "runtime/PtxCompiler.h"
#include "support/Target.h"

using namespace tilec;

TEST(Target, NamesAndTheirMeaning) {
  struct Row {
    const char *text;
    int cc;
    bool specific;
  };
  for (Row r : {Row{"sm_90a", 90, true}, Row{"sm_90", 90, false}, Row{"sm_80", 80, false},
                Row{"sm_86", 86, false}, Row{"sm_100a", 100, true}, Row{"sm_120", 120, false},
                Row{"cuda:90", 90, true}, Row{"cuda:80", 80, false}, Row{"90", 90, true},
                Row{"80", 80, false}, Row{"cuda:100", 100, true}}) {
    std::optional<TargetSpec> t = parse_target(r.text);
    ASSERT_TRUE(t) << r.text;
    EXPECT_EQ(t->cc, r.cc) << r.text;
    EXPECT_EQ(t->arch_specific, r.specific) << r.text;
  }
  EXPECT_EQ(parse_target("sm_90")->arch(), "sm_90");
  EXPECT_EQ(parse_target("cuda:90")->arch(), "sm_90a");
}

TEST(Target, AnythingElseIsRefused) {
  for (const char *s : {"", "sm_", "cuda:", "sm_80a", "sm_x", "9", "sm_49", "sm_2000", "sm_90aa",
                        "rocm:90", "SM_90", "sm_90 ", "compute_90", "sm_9a"})
    EXPECT_FALSE(parse_target(s)) << "'" << s << "'";
}

TEST(Target, TheRuntimeTakesItsComputeCapabilityFromTheSameRules) {
  EXPECT_EQ(runtime::GpuTarget::parse("cuda:90")->cc(), 90);
  EXPECT_EQ(runtime::GpuTarget::parse("sm_86")->cc(), 86);
  EXPECT_FALSE(runtime::GpuTarget::parse("sm_80a"));
}

TEST(Target, SharedMemoryABlockMayUse) {
  // the CUDA C++ Programming Guide's figures, opt-in included: allocate-shared keeps a dot's
  // two operand buffers apart up to this
  EXPECT_EQ(max_shared_per_block(90), 227 << 10);
  EXPECT_EQ(max_shared_per_block(80), 163 << 10);
  EXPECT_EQ(max_shared_per_block(86), 99 << 10);
  EXPECT_EQ(max_shared_per_block(89), 99 << 10);
  EXPECT_EQ(max_shared_per_block(75), 64 << 10);
  EXPECT_EQ(max_shared_per_block(52), 48 << 10); // not listed: the portable 48 KB
}
