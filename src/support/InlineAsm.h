// tl.inline_asm_elementwise's register rules, shared by Sema (which checks the user's
// constraints against them) and the lowering (which builds the registers). Each asm
// instance handles `pack` elements a thread holds; elements under 32 bits share
// registers, as many as fit in 32 bits and in `pack` (Triton's rule).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

namespace tilec::inline_asm {

inline int elems_per_reg(int bits, int64_t pack) {
  return bits >= 32 ? 1 : static_cast<int>(std::min<int64_t>(32 / bits, pack));
}
// An 8-bit element alone (pack 1) travels in a 32-bit register, zero-extended: PTX has no
// 8-bit registers, and Triton passes an i8 operand as an `r` one.
inline int reg_bits(int bits, int64_t pack) {
  return bits == 8 && pack == 1 ? 32 : bits * elems_per_reg(bits, pack);
}
// Registers one operand or result takes in one asm instance.
inline int64_t regs_per_instance(int bits, int64_t pack) {
  return pack / elems_per_reg(bits, pack);
}
// The register width a constraint letter names (LLVM's NVPTX letters); 0: unsupported.
inline int constraint_bits(char c) {
  switch (c) {
  case 'h':
    return 16;
  case 'r':
  case 'f':
    return 32;
  case 'l':
  case 'd':
    return 64;
  default:
    return 0;
  }
}

// The asm text with each `$N` replaced by name(N) and `$$` by `$`. Returns false, with
// `bad` the reference, at the first `$` that names no register in [0, count).
template <typename Name>
bool substitute(const std::string &text, size_t count, Name &&name, std::string &out,
                std::string &bad) {
  out.clear();
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$') {
      out += text[i];
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])))
      ++j;
    if (j == i + 1 || j - i > 6 || std::stoul(text.substr(i + 1, j - i - 1)) >= count) {
      bad = text.substr(i, std::max<size_t>(j - i, 2));
      return false;
    }
    out += name(std::stoul(text.substr(i + 1, j - i - 1)));
    i = j - 1;
  }
  return true;
}

} // namespace tilec::inline_asm
