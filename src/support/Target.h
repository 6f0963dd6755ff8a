// The GPU target a user names, parsed in this one place for every entry point: the command
// line's --arch, AOT and the C++ API, triton.compile's target=, the simulator's and the
// ptxas bindings' arch, the runtime's cubin target.
//   "sm_90a", "sm_100a"  the architecture-specific features (wgmma, setmaxnreg, TMA);
//   "sm_90", "sm_80"     the portable ISA of that compute capability;
//   "cuda:90", "90"      Triton's GPUTarget("cuda", 90): the architecture-specific
//                        features from 90 on, as Triton compiles for them.
// The compute capability is 50..199; an "a" suffix below 90 is refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilec {

struct TargetSpec {
  int cc = 90;               // compute capability, major * 10 + minor
  bool arch_specific = true; // sm_90a rather than sm_90
  std::string arch() const;  // "sm_90a", "sm_80"
};

std::optional<TargetSpec> parse_target(std::string_view text);

// The shared memory one block may use on compute capability `cc` (with the opt-in above
// 48 KB, as the launcher asks for), in bytes; 48 KB for a capability not listed.
int64_t max_shared_per_block(int cc);

// What parse_target accepts, for error messages.
inline constexpr const char *kTargetExamples = "sm_90a, sm_90, sm_80 or cuda:90";

} // namespace tilec
