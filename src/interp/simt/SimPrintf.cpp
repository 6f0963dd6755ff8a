// vprintf: C printf formatting of the argument buffer, reading each conversion's
// argument at its own size and alignment (as the CUDA printf host side does), so a
// format that does not match the arguments prints what the GPU would.
#include <cstdio>
#include <cstring>

#include "interp/simt/SimInternal.h"

namespace tilec::simt::sim {

void format_printf(const std::string &fmt, const std::vector<uint8_t> &buf, std::string &out,
                   const Machine &m) {
  size_t at = 0;
  auto take = [&](size_t bytes) -> uint64_t {
    at = (at + bytes - 1) / bytes * bytes;
    if (at + bytes > buf.size())
      throw Fault{"simt: vprintf format \"" + fmt + "\" needs more arguments than were passed"};
    uint64_t v = 0;
    std::memcpy(&v, buf.data() + at, bytes);
    at += bytes;
    return v;
  };
  char tmp[512];
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    size_t start = i++;
    std::string spec = "%";
    while (i < fmt.size() && std::strchr("-+ #0", fmt[i]))
      spec += fmt[i++];
    auto number = [&]() {
      if (i < fmt.size() && fmt[i] == '*') {
        ++i;
        spec += std::to_string(static_cast<int32_t>(take(4)));
        return;
      }
      while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9')
        spec += fmt[i++];
    };
    number();
    if (i < fmt.size() && fmt[i] == '.') {
      spec += fmt[i++];
      number();
    }
    int len = 0; // 0: int, 1: h, 2: hh, 3: l / ll / z / j / t (64-bit)
    while (i < fmt.size() && std::strchr("hlzjtL", fmt[i])) {
      char l = fmt[i++];
      if (l == 'h')
        len = len == 1 ? 2 : 1;
      else
        len = 3;
    }
    if (i >= fmt.size()) {
      out += fmt.substr(start);
      break;
    }
    char conv = fmt[i];
    switch (conv) {
    case '%':
      out += '%';
      continue;
    case 'd':
    case 'i': {
      int64_t v = len == 3 ? static_cast<int64_t>(take(8)) : static_cast<int32_t>(take(4));
      if (len == 1)
        v = static_cast<int16_t>(v);
      if (len == 2)
        v = static_cast<int8_t>(v);
      std::snprintf(tmp, sizeof tmp, (spec + "lld").c_str(), static_cast<long long>(v));
      break;
    }
    case 'u':
    case 'x':
    case 'X':
    case 'o': {
      uint64_t v = len == 3 ? take(8) : static_cast<uint32_t>(take(4));
      if (len == 1)
        v = static_cast<uint16_t>(v);
      if (len == 2)
        v = static_cast<uint8_t>(v);
      std::snprintf(tmp, sizeof tmp, (spec + "ll" + conv).c_str(),
                    static_cast<unsigned long long>(v));
      break;
    }
    case 'c':
      std::snprintf(tmp, sizeof tmp, (spec + "c").c_str(), static_cast<int>(take(4) & 0xff));
      break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
      uint64_t b = take(8);
      double v;
      std::memcpy(&v, &b, 8);
      std::snprintf(tmp, sizeof tmp, (spec + conv).c_str(), v);
      break;
    }
    case 'p': {
      uint64_t v = take(8);
      std::snprintf(tmp, sizeof tmp, (spec + "llx").c_str(), static_cast<unsigned long long>(v));
      out += "0x";
      break;
    }
    case 's': {
      uint64_t p = take(8);
      const char *s = "(unknown string)";
      for (size_t k = 0; k < m.string_addr.size(); ++k)
        if (p >= m.string_addr[k] && p < m.string_addr[k] + m.string_data[k].size())
          s = m.string_data[k].c_str() + (p - m.string_addr[k]);
      if (p == 0)
        s = "(null)";
      std::snprintf(tmp, sizeof tmp, (spec + "s").c_str(), s);
      break;
    }
    default: // not a conversion: print it as written
      out += fmt.substr(start, i - start + 1);
      continue;
    }
    out += tmp;
  }
}

} // namespace tilec::simt::sim
