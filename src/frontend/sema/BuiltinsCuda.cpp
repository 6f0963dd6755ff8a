// triton.language.extra.cuda: the hardware's timer and SM id, the launch's thread count,
// and grid dependency control for programmatic dependent launch (`launch_pdl=True`).
// (Its libdevice submodule is BuiltinsLibdevice.cpp.)
#include "frontend/sema/BuiltinsImpl.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;

namespace {

Val hw_register(Emitter &e, const Args &a, const char *reg, DType d) {
  return Val::of(emit(e, OpKind::HwRegister, {}, Type(d), a.loc(), {{"reg", std::string(reg)}}));
}

Val globaltimer(Emitter &e, const Args &a) { return hw_register(e, a, "globaltimer", DType::I64); }
Val smid(Emitter &e, const Args &a) { return hw_register(e, a, "smid", DType::I32); }

// constexprs, as in Triton: the launch's num_warps is known when the kernel compiles
Val num_warps(Emitter &e, const Args &) { return Val::integer(e.options().num_warps); }
Val num_threads(Emitter &e, const Args &) { return Val::integer(32 * e.options().num_warps); }

Val grid_dep(Emitter &e, const Args &a, const char *action) {
  e.builder().create(OpKind::GridDepControl, {}, {}, {{"action", std::string(action)}}, a.loc());
  return Val::none();
}
Val gdc_wait(Emitter &e, const Args &a) { return grid_dep(e, a, "wait"); }
Val gdc_launch_dependents(Emitter &e, const Args &a) { return grid_dep(e, a, "launch_dependents"); }

} // namespace

void add_cuda_builtins(std::vector<Def> &t) {
  t.insert(t.end(), {
                        {"globaltimer", "", globaltimer, kCuda},
                        {"smid", "", smid, kCuda},
                        {"num_warps", "", num_warps, kCuda},
                        {"num_threads", "", num_threads, kCuda},
                        {"gdc_wait", "", gdc_wait, kCuda},
                        {"gdc_launch_dependents", "", gdc_launch_dependents, kCuda},
                    });
}

} // namespace tilec::sema::builtins
