// Asynchronous copies, mbarriers and warpgroup MMA (sm_80 / sm_90).
#include "interp/simt/SimInternal.h"

namespace tilec::simt::sim {

#define NOT_YET(Id)                                                                                \
  void exec_##Id(Machine &m, Cta &c, const Decoded &d, int, uint32_t) {                            \
    m.fault(c, d, 0, #Id " is not simulated yet");                                                 \
  }
NOT_YET(CpAsync)
NOT_YET(CpAsyncCommit)
NOT_YET(CpAsyncWait)
NOT_YET(Mbarrier)
NOT_YET(WgmmaFence)
NOT_YET(Wgmma)
NOT_YET(WgmmaCommit)
NOT_YET(WgmmaWait)
NOT_YET(FenceProxyAsync)
#undef NOT_YET

} // namespace tilec::simt::sim
