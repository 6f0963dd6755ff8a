// The public API's launch half: a CompiledKernel loaded into a CUDA context through the
// runtime's GpuKernel, and typed arguments checked against the signature and packed.
#include "api/ApiImpl.h"

namespace tilec {

struct Kernel::Impl {
  CompiledKernel compiled;
  std::unique_ptr<runtime::GpuKernel> gpu;
  runtime::CUcontext ctx = nullptr;
  int device = 0;
  std::vector<int> positions;              // .param i takes run-time argument positions[i]
  std::vector<const cli::AotParam *> args; // the run-time parameters, in order
};

namespace {

// Makes `ctx` current for the scope (pushing it only when another one is current).
class ContextScope {
public:
  explicit ContextScope(runtime::CUcontext ctx) {
    const runtime::DriverApi &d = runtime::driver();
    runtime::CUcontext cur = nullptr;
    runtime::check(d.cuCtxGetCurrent(&cur), "cuCtxGetCurrent");
    if (cur != ctx) {
      runtime::check(d.cuCtxPushCurrent(ctx), "cuCtxPushCurrent");
      pushed_ = true;
    }
  }
  ~ContextScope() {
    runtime::CUcontext popped = nullptr;
    if (pushed_)
      runtime::driver().cuCtxPopCurrent(&popped);
  }
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;

private:
  bool pushed_ = false;
};

const char *kind_name(Arg::Kind k) {
  switch (k) {
  case Arg::Kind::Pointer:
    return "a pointer";
  case Arg::Kind::Int:
    return "an integer";
  case Arg::Kind::Float:
    return "a float";
  case Arg::Kind::Bool:
    return "a bool";
  }
  return "?";
}

// Checks `a` against run-time parameter `p` of `kernel`; InvalidArgument naming it.
void check_arg(const std::string &kernel, const cli::AotParam &p, const Arg &a) {
  using K = sema::ArgSpec::Kind;
  auto fail = [&](const std::string &why) {
    throw InvalidArgument("argument '" + p.name + "' of kernel '" + kernel + "' (" + p.entry +
                          "): " + why);
  };
  bool ok = false;
  switch (p.spec.kind) {
  case K::Pointer:
    ok = a.kind() == Arg::Kind::Pointer;
    break;
  case K::Int:
  case K::Bool:
    ok = a.kind() == Arg::Kind::Int || a.kind() == Arg::Kind::Bool;
    break;
  case K::Float:
    ok = a.kind() != Arg::Kind::Pointer;
    break;
  default:
    break;
  }
  if (!ok)
    fail(std::string("got ") + kind_name(a.kind()) +
         (p.spec.kind == K::Pointer ? " (pass device addresses as tilec::Arg::ptr(address))" : ""));
  if (p.spec.divisible_by_16 && a.int_value() % 16 != 0)
    fail(p.spec.kind == K::Pointer ? "the address is not 16-byte aligned"
                                   : std::to_string(a.int_value()) + " is not divisible by 16");
  if (p.spec.equal_to_1 && a.int_value() != 1)
    fail("the kernel was specialised for the value 1, got " + std::to_string(a.int_value()));
}

} // namespace

Kernel Kernel::load(const CompiledKernel &k, void *cu_context) {
  auto impl = std::make_shared<Impl>(Impl{k, nullptr, nullptr, 0, {}, {}});
  const CompiledKernel::Impl &ck = k.impl();
  for (const cli::AotParam &p : ck.signature)
    if (!p.is_constexpr())
      impl->args.push_back(&p);
  for (const ParamInfo &p : ck.params) {
    int found = -1;
    for (size_t i = 0; i < impl->args.size(); ++i)
      if (impl->args[i]->name == p.name)
        found = static_cast<int>(i);
    TILEC_ASSERT(found >= 0, "kernel .param '" + p.name + "' is no run-time parameter");
    impl->positions.push_back(found);
  }
  api::translate_errors([&] {
    const runtime::DriverApi &d = runtime::driver();
    runtime::CUcontext ctx = static_cast<runtime::CUcontext>(cu_context);
    if (!ctx) {
      runtime::check(d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
      if (!ctx) {
        ctx = runtime::primary_context(0);
        runtime::check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
      }
    }
    impl->ctx = ctx;
    impl->gpu = std::make_unique<runtime::GpuKernel>(ck.binary);
    ContextScope scope(ctx);
    impl->device = runtime::current_device();
    impl->gpu->function(impl->device); // loads the module in `ctx`
  });
  return Kernel(std::move(impl));
}

void Kernel::launch(Grid grid, void *cu_stream, const std::vector<Arg> &args) const {
  const Impl &k = *impl_;
  const std::string &name = k.compiled.name();
  if (args.size() != k.args.size()) {
    std::string names;
    for (const cli::AotParam *p : k.args)
      names += (names.empty() ? "" : ", ") + p->name;
    throw InvalidArgument("kernel '" + name + "' takes " + std::to_string(k.args.size()) +
                          " arguments (" + names + "), got " + std::to_string(args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i)
    check_arg(name, *k.args[i], args[i]);
  const runtime::KernelMetadata &meta = k.gpu->meta();
  runtime::PackedParams packed(meta.params.size());
  for (size_t i = 0; i < meta.params.size(); ++i) {
    runtime::ParamKind kind = meta.params[i].kind;
    const Arg &a = args[static_cast<size_t>(k.positions[i])];
    if (runtime::param_kind_is_int(kind) && kind != runtime::ParamKind::Ptr) {
      int bits = runtime::param_kind_bits(kind);
      bool is_signed = runtime::param_kind_is_signed(kind);
      int64_t v = a.int_value();
      bool fits = bits >= 64 ||
                  (is_signed ? v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1))
                             : v >= 0 && v < (int64_t(1) << bits));
      if (!fits)
        throw InvalidArgument("argument '" + meta.params[i].name + "' of kernel '" + name +
                              "' = " + std::to_string(v) + " does not fit in " +
                              runtime::param_kind_name(kind));
    }
    double f = a.kind() == Arg::Kind::Float ? a.float_value() : double(a.int_value());
    packed.slots[i] = runtime::pack_param(kind, a.int_value(), f);
  }
  api::translate_errors([&] {
    ContextScope scope(k.ctx);
    k.gpu->launch(k.device, {grid.x, grid.y, grid.z}, static_cast<runtime::CUstream>(cu_stream),
                  packed.ptrs.data());
  });
}

const CompiledKernel &Kernel::compiled() const { return impl_->compiled; }

void *Kernel::context() const { return impl_->ctx; }

int Kernel::num_regs() const {
  int n = 0;
  api::translate_errors([&] {
    ContextScope scope(impl_->ctx);
    n = impl_->gpu->num_regs(impl_->device);
  });
  return n;
}

bool driver_available(std::string *why) { return runtime::driver_available(why); }

std::string device_arch(int device) {
  std::string arch;
  api::translate_errors([&] { arch = runtime::device_props(device).target.arch(); });
  return arch;
}

} // namespace tilec
