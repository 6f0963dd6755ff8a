// Thread IR -> PTX text. A mechanical 1:1 printer (ptxas catches what it gets wrong):
// the module header, the .entry with its .param list, .reqntid from num_warps,
// register declarations by width class, the dynamic shared memory array, the constant
// strings, and every instruction as simt::format_instr prints it; vprintf and
// __assertfail are expanded into their call sequences with a local argument buffer.
#pragma once

#include <string>

#include "simt/ThreadIR.h"

namespace tilec::codegen {

struct PtxTarget {
  int sm = 90;               // 80, 86, 89, 90, ...
  bool arch_specific = true; // sm_90a (only meaningful for sm >= 90)
  int ptx_major = 8;         // .version 8.0 is accepted by ptxas 12.0+ and CUDA 12 drivers
  int ptx_minor = 0;
  std::string arch() const; // "sm_90a"
};

std::string print_ptx(const simt::Function &fn, const PtxTarget &target = {});

} // namespace tilec::codegen
