// triton.language.extra.cuda: the hardware's timer and SM id, the launch's thread count,
// grid dependency control for programmatic dependent launch (`launch_pdl=True`), and
// Triton's fp8e4b15 conversion functions.
// (Its libdevice submodule is BuiltinsLibdevice.cpp.)
#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

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

// convert_custom_float8_sm80 / _sm70 (Triton's, which its casts of fp8e4b15 call): an
// fp8e4b15 argument to fp16, then fp32 when dst_ty is fp32 (any other dst_ty: fp16, as in
// Triton); an fp16 or fp32 argument to fp8e4b15 whatever dst_ty says. The two differ only
// in the instructions Triton picks; the conversions are the casts' (FloatFormats.h).
Val convert_custom_float8(Emitter &e, const Args &a) {
  Value *x = a.tensor("arg");
  DType src = x->type.is_ptr() ? DType::I1 : x->type.elem;
  Type dst = a.const_dtype("dst_ty");
  if (src == DType::F8E4B15) {
    Value *h = cast_elem(e, x, Type(DType::F16), a.loc());
    if (!dst.is_ptr() && dst.elem == DType::F32)
      h = cast_elem(e, h, Type(DType::F32), a.loc());
    return Val::of(h);
  }
  if (x->type.is_ptr() || (src != DType::F16 && src != DType::F32))
    a.fail("convert_custom_float8: arg must be fp8e4b15, float16 or float32, got " +
           tensor_str(x->type));
  return Val::of(cast_elem(e, x, Type(DType::F8E4B15), a.loc()));
}

} // namespace

void add_cuda_builtins(std::vector<Def> &t) {
  t.insert(t.end(), {
                        {"globaltimer", "", globaltimer, kCuda},
                        {"smid", "", smid, kCuda},
                        {"num_warps", "", num_warps, kCuda},
                        {"num_threads", "", num_threads, kCuda},
                        {"gdc_wait", "", gdc_wait, kCuda},
                        {"gdc_launch_dependents", "", gdc_launch_dependents, kCuda},
                        {"convert_custom_float8_sm80", "arg, dst_ty, fp_downcast_rounding=None",
                         convert_custom_float8, kCuda},
                        {"convert_custom_float8_sm70", "arg, dst_ty, fp_downcast_rounding=None",
                         convert_custom_float8, kCuda},
                    });
}

} // namespace tilec::sema::builtins
