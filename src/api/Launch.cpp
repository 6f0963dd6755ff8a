// The public API's launch half: a CompiledKernel loaded into a CUDA context through the
// runtime's GpuKernel and launched with arguments packed by Args.cpp.
#include "api/ApiImpl.h"

namespace tilec {

struct Kernel::Impl {
  CompiledKernel compiled;
  std::unique_ptr<runtime::GpuKernel> gpu;
  runtime::CUcontext ctx = nullptr;
  int device = 0;
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

} // namespace

Kernel Kernel::load(const CompiledKernel &k, void *cu_context) {
  auto impl = std::make_shared<Impl>(Impl{k, nullptr, nullptr, 0});
  const CompiledKernel::Impl &ck = k.impl();
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
  runtime::PackedParams packed = api::pack_arguments(k.compiled.impl(), args);
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
