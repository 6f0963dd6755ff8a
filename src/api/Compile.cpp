// The public API's compile half: options -> the AOT compiler shared with `tilec compile`
// (src/aot/AotCompile.cpp) -> CompiledKernel.
#include <cstdio>

#include "api/ApiImpl.h"
#include "frontend/sema/Sema.h"
#include "runtime/PtxCompiler.h"

namespace tilec {

namespace api {

void translate_errors(const std::function<void()> &f, const SourceManager *sm) {
  try {
    f();
  } catch (const tilec::Error &) {
    throw;
  } catch (const CompileError &e) { // the internal one (PtxasError included)
    std::string text = sema::static_output_of(e);
    SourceManager empty;
    text += render_diagnostic(sm ? *sm : empty, e.loc(), "error", e.message());
    throw tilec::CompilationError(text);
  } catch (const aot::UsageError &e) {
    throw InvalidArgument(e.what());
  } catch (const runtime::OutOfResources &e) {
    throw tilec::OutOfResources(e.what());
  } catch (const runtime::CudaError &e) {
    throw tilec::CudaError(e.code(), e.what());
  } catch (const std::invalid_argument &e) {
    throw InvalidArgument(e.what());
  } catch (const InternalError &e) {
    throw Error(std::string("tilec internal error: ") + e.what());
  }
}

} // namespace api

namespace {

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) // keep it a float: "2" -> "2.0"
    s += ".0";
  return s;
}

// The run-time argument (and descriptor part) .param `name` takes.
CompiledKernel::Impl::Slot slot_of(const std::string &name, const std::vector<aot::AotParam> &sig,
                                   const std::vector<size_t> &arg_params) {
  aot::ParamSource src = aot::param_source(name);
  for (size_t a = 0; a < arg_params.size(); ++a) {
    const aot::AotParam &p = sig[arg_params[a]];
    bool desc = p.spec.kind == sema::ArgSpec::Kind::TensorDesc;
    if (p.name == src.param && desc == (src.part != aot::ParamSource::Part::Whole))
      return {a, src.part, src.dim};
  }
  throw InternalError("kernel .param '" + name + "' is no run-time parameter");
}

CompiledKernel compile(const std::string &path, const std::string *text,
                       const CompileOptions &options) {
  aot::AotRequest req;
  req.path = path;
  if (text)
    req.text = *text;
  req.kernel = options.kernel;
  if (options.params.empty()) {
    req.signature = options.signature;
  } else {
    for (const ParamType &p : options.params)
      req.signature += (req.signature.empty() ? "" : ",") + p.str();
  }
  req.num_warps = options.num_warps;
  req.num_stages = options.num_stages;
  req.arch = options.arch;
  req.debug = options.debug;
  req.build_cubin = options.build_cubin;
  auto impl = std::make_shared<CompiledKernel::Impl>();
  SourceManager sm;
  api::translate_errors(
      [&] {
        if (options.kernel.empty())
          throw aot::UsageError("CompileOptions::kernel names no kernel");
        aot::AotKernel k = aot::aot_compile(req, sm);
        runtime::KernelMetadata &m = impl->binary.meta;
        m.name = k.gpu.name;
        m.num_warps = k.gpu.num_warps;
        m.num_stages = k.gpu.num_stages;
        m.shared = k.gpu.shared_bytes;
        m.arch = k.gpu.arch;
        m.compiler = k.compiler;
        for (const pipeline::GpuParam &p : k.gpu.params) {
          auto param = runtime::kernel_param(p.name, p.kind);
          if (!param)
            throw InternalError("kernel parameter '" + p.name + "' has kind '" + p.kind +
                                "', which the runtime cannot pass");
          m.params.push_back(std::move(*param));
          impl->params.push_back({p.name, p.kind});
        }
        impl->binary.ptx = std::move(k.gpu.ptx);
        impl->binary.cubin = std::move(k.cubin);
        for (size_t i = 0; i < k.params.size(); ++i)
          if (!k.params[i].is_constexpr()) {
            impl->arg_names.push_back(k.params[i].name);
            impl->arg_params.push_back(i);
          }
        for (const pipeline::GpuParam &p : k.gpu.params)
          impl->slots.push_back(slot_of(p.name, k.params, impl->arg_params));
        impl->signature = std::move(k.params);
      },
      &sm);
  return CompiledKernel(std::move(impl));
}

} // namespace

ParamType ParamType::pointer(std::string elem, bool aligned_16) {
  ParamType p;
  p.kind = Kind::Pointer;
  p.dtype = std::move(elem);
  p.divisible_by_16 = aligned_16;
  return p;
}

ParamType ParamType::scalar(std::string dtype, bool divisible_by_16) {
  ParamType p;
  p.dtype = std::move(dtype);
  p.divisible_by_16 = divisible_by_16;
  return p;
}

ParamType ParamType::constant(int64_t v) { return constant_text(std::to_string(v)); }

ParamType ParamType::constant(double v) { return constant_text(number_text(v)); }

ParamType ParamType::constant_text(std::string text) {
  ParamType p;
  p.kind = Kind::Constexpr;
  p.value = std::move(text);
  return p;
}

ParamType ParamType::tensor_desc(std::string elem, std::vector<int64_t> block_shape,
                                 bool nan_padding, bool divisible_by_16) {
  ParamType p;
  p.kind = Kind::TensorDesc;
  p.dtype = std::move(elem);
  p.block_shape = std::move(block_shape);
  p.nan_padding = nan_padding;
  p.divisible_by_16 = divisible_by_16;
  return p;
}

std::string ParamType::str() const {
  if (kind == Kind::Constexpr)
    return value;
  if (kind == Kind::TensorDesc) {
    std::string s = "tensordesc<" + dtype + "[";
    for (size_t i = 0; i < block_shape.size(); ++i)
      s += (i ? "," : "") + std::to_string(block_shape[i]);
    return s + "]" + (nan_padding ? ",nan" : "") + ">" + (divisible_by_16 ? ":16" : "");
  }
  std::string s = (kind == Kind::Pointer ? "*" : "") + dtype;
  if (divisible_by_16)
    s += ":16";
  else if (equal_to_1)
    s += ":1";
  return s;
}

CompiledKernel::CompiledKernel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
const std::string &CompiledKernel::name() const { return impl_->binary.meta.name; }
const std::string &CompiledKernel::ptx() const { return impl_->binary.ptx; }
const std::string &CompiledKernel::cubin() const { return impl_->binary.cubin; }
const std::string &CompiledKernel::arch() const { return impl_->binary.meta.arch; }
int CompiledKernel::num_warps() const { return impl_->binary.meta.num_warps; }
int CompiledKernel::num_stages() const { return impl_->binary.meta.num_stages; }
int CompiledKernel::shared_bytes() const { return impl_->binary.meta.shared; }
const std::vector<ParamInfo> &CompiledKernel::params() const { return impl_->params; }
const std::vector<std::string> &CompiledKernel::arg_names() const { return impl_->arg_names; }

CompiledKernel compile_file(const std::string &path, const CompileOptions &options) {
  return compile(path, nullptr, options);
}

CompiledKernel compile_source(const std::string &source, const std::string &filename,
                              const CompileOptions &options) {
  return compile(filename, &source, options);
}

} // namespace tilec
