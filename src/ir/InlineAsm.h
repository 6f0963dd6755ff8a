// tl.inline_asm_elementwise's register rules, shared by Sema (which checks the user's
// constraints against them) and the lowering (which builds the registers). Each asm
// instance handles `pack` elements a thread holds; elements under 32 bits share
// registers, as many as fit in 32 bits and in `pack` (Triton's rule).
#pragma once

#include <algorithm>
#include <cstdint>

namespace tilec::ir::inline_asm {

inline int elems_per_reg(int bits, int64_t pack) {
  return bits >= 32 ? 1 : static_cast<int>(std::min<int64_t>(32 / bits, pack));
}
inline int reg_bits(int bits, int64_t pack) { return bits * elems_per_reg(bits, pack); }
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

} // namespace tilec::ir::inline_asm
