// The prefix of a tl.device_print, as Triton's front end makes it: with values to print it
// starts with " " and ends with ": "; applying it again changes nothing. The GPU printf
// (lower/LowerDebug.cpp) and the interpreter's print (interp/tile/Print.cpp) both use it.
#pragma once

#include <string>

namespace tilec {

inline std::string munge_print_prefix(std::string p, bool has_args) {
  if (has_args && (p.empty() || p.back() != ' '))
    p += " ";
  if (has_args && (p.size() < 2 || p.compare(p.size() - 2, 2, ": ") != 0))
    p = p.substr(0, p.size() - 1) + ": ";
  if (p.size() > 2 && p.front() != ' ')
    p = " " + p;
  return p;
}

} // namespace tilec
