// mma.sync and ldmatrix: warp-wide tensor-core instructions, executed by the fragment
// layouts of the PTX ISA.
#include "interp/simt/SimInternal.h"

namespace tilec::simt::sim {

void exec_Mma(Machine &m, Cta &c, const Decoded &d, int, uint32_t) {
  m.fault(c, d, 0, "mma is not simulated yet");
}

void exec_Ldmatrix(Machine &m, Cta &c, const Decoded &d, int, uint32_t) {
  m.fault(c, d, 0, "ldmatrix is not simulated yet");
}

} // namespace tilec::simt::sim
