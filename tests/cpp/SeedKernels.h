// The user's seed kernels for the C++ tests, read from tests/data/seed_kernels.py (the one
// copy of shared/seeds/kernels.py in the repository; CMake passes its folder as
// TILEC_TEST_DATA_DIR).
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilec::test {

inline std::string seed_kernels_path() { return TILEC_TEST_DATA_DIR "/seed_kernels.py"; }

inline const std::string &seed_kernels_text() {
  static const std::string text = [] {
    std::ifstream in(seed_kernels_path());
    if (!in)
      throw std::runtime_error("cannot read " + seed_kernels_path());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  return text;
}

// The def of `name` with its decorators, as inspect.getsource gives it (decorator
// arguments may span lines).
inline std::string seed_kernel(const std::string &name) {
  std::vector<std::string> lines;
  std::istringstream in(seed_kernels_text());
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  size_t def = 0;
  while (def < lines.size() && lines[def].rfind("def " + name + "(", 0) != 0)
    ++def;
  if (def == lines.size())
    throw std::runtime_error("no kernel '" + name + "' in " + seed_kernels_path());
  size_t first = def;
  auto in_decorator = [&](const std::string &l) {
    return !l.empty() && (l[0] == '@' || l[0] == ' ' || l[0] == ')' || l[0] == ']');
  };
  while (first > 0 && in_decorator(lines[first - 1]))
    --first;
  size_t end = def + 1;
  while (end < lines.size() && (lines[end].empty() || lines[end][0] == ' '))
    ++end;
  while (end > def + 1 && lines[end - 1].empty())
    --end;
  std::string text;
  for (size_t i = first; i < end; ++i)
    text += lines[i] + "\n";
  return text;
}

} // namespace tilec::test
