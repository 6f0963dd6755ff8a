#include "support/Target.h"

#include <cctype>

namespace tilec {

std::string TargetSpec::arch() const {
  return "sm_" + std::to_string(cc) + (arch_specific ? "a" : "");
}

std::optional<TargetSpec> parse_target(std::string_view text) {
  std::string_view s = text;
  bool sm = s.substr(0, 3) == "sm_", cuda = s.substr(0, 5) == "cuda:";
  s.remove_prefix(sm ? 3 : cuda ? 5 : 0);
  bool suffix = !s.empty() && s.back() == 'a';
  if (suffix)
    s.remove_suffix(1);
  if (s.empty() || s.size() > 3)
    return std::nullopt;
  int cc = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
    cc = cc * 10 + (c - '0');
  }
  if (cc < 50 || cc >= 200 || (suffix && cc < 90))
    return std::nullopt;
  TargetSpec t;
  t.cc = cc;
  t.arch_specific = suffix || (!sm && cc >= 90); // "sm_90" is exactly sm_90
  return t;
}

int64_t max_shared_per_block(int cc) {
  switch (cc) { // the CUDA C++ Programming Guide's table of compute capabilities
  case 70:
  case 72:
    return 96 << 10;
  case 75:
    return 64 << 10;
  case 80:
  case 87:
    return 163 << 10;
  case 86:
  case 89:
  case 120:
  case 121:
    return 99 << 10;
  case 90:
  case 100:
  case 101:
  case 103:
    return 227 << 10;
  default:
    return 48 << 10;
  }
}

} // namespace tilec
