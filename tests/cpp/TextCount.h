// For tests that check printed IR, Thread IR or PTX: how often `part` occurs in `s`
// (overlapping occurrences counted).
#pragma once

#include <cstddef>
#include <string>

inline size_t count(const std::string &s, const std::string &part) {
  size_t n = 0;
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1))
    ++n;
  return n;
}
