// Reads of the hardware's registers (tl.extra.cuda.globaltimer / smid) and grid dependency
// control (gdc_wait / gdc_launch_dependents, programmatic dependent launch).
#include "lower/LoweringContext.h"

namespace tilec::lower {

void lower_hardware(LoweringContext &c, const ir::Op &op) {
  if (op.kind() == ir::OpKind::HwRegister) {
    bool smid = op.str_attr("reg") == "smid";
    c.set(op.result(0), {c.b().special(smid ? simt::Sreg::Smid : simt::Sreg::Globaltimer)});
    return;
  }
  TILEC_ASSERT(op.kind() == ir::OpKind::GridDepControl, "lower_hardware: unexpected op");
  // Before sm_90 no launch is programmatic, so there is nothing to wait for or release.
  if (c.opts().sm >= 90)
    c.b().griddepcontrol(op.str_attr("action") == "wait");
}

} // namespace tilec::lower
