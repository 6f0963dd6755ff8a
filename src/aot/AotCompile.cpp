// Ahead-of-time compilation: Triton-style full signatures bound to a kernel, compiled to
// PTX and a cubin (Aot.h).
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "aot/Aot.h"
#include "frontend/sema/ModuleResolver.h"
#include "ir/Type.h"
#include "runtime/PtxCompiler.h"
#include "support/Target.h"

namespace tilec::aot {

namespace {

std::string without_spaces(const std::string &s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c)))
      out += c;
  return out;
}

// Whether an entry names a type (a pointer, or a dtype with an optional hint) rather than
// a constexpr value.
bool names_type(const std::string &entry) {
  if (!entry.empty() && entry[0] == '*')
    return true;
  if (entry.rfind("tensordesc<", 0) == 0)
    return true;
  std::string head = entry.substr(0, entry.find(':'));
  for (std::string_view prefix : {"tl.", "triton.language.", "tilec.language."})
    if (head.rfind(prefix, 0) == 0) {
      head = head.substr(prefix.size());
      break;
    }
  return ir::dtype_from_ir_name(head) || ir::dtype_from_python_name(head);
}

} // namespace

std::vector<std::string> split_signature(const std::string &sig) {
  std::vector<std::string> out;
  std::string s = without_spaces(sig);
  if (s.empty())
    return out;
  size_t start = 0;
  while (true) {
    size_t comma = entry_comma(s, start);
    std::string e = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (e.empty())
      throw UsageError("bad signature '" + sig + "': empty entry");
    out.push_back(e);
    if (comma == std::string::npos)
      return out;
    start = comma + 1;
  }
}

std::vector<AotParam> bind_full_signature(const std::string &kernel,
                                          const std::vector<KernelParam> &params,
                                          const std::vector<std::string> &entries) {
  std::string names;
  for (const KernelParam &p : params)
    names += (names.empty() ? "" : ", ") + p.name;
  if (entries.size() != params.size())
    throw UsageError("the signature has " + std::to_string(entries.size()) + " entries, but '" +
                     kernel + "' has " + std::to_string(params.size()) + " parameters (" + names +
                     "): give one entry per parameter, a value for each constexpr");
  std::vector<AotParam> out;
  for (size_t i = 0; i < params.size(); ++i) {
    const KernelParam &p = params[i];
    AotParam a;
    a.name = p.name;
    a.entry = entries[i];
    bool type = names_type(a.entry);
    // A constexpr dtype value is spelled as in the kernel (tl.float16): a bare "i32" or
    // "*fp32" is a type, most likely a run-time entry given where a value belongs.
    bool qualified = a.entry.find('.') != std::string::npos;
    if (p.constexpr_annotated && type && !qualified)
      throw UsageError("constexpr parameter '" + p.name + "' of '" + kernel +
                       "' needs a value in the signature, got the type '" + a.entry +
                       "' (a dtype value is written tl.float16)");
    if (type && !p.constexpr_annotated) {
      a.spec = parse_signature_entry(a.entry);
    } else {
      // A value: the parameter is specialised on it (also a non-constexpr one, as in
      // Triton's compile.py); a dtype name is a dtype value for a constexpr parameter.
      a.spec.kind = sema::ArgSpec::Kind::Constexpr;
      a.spec.value = parse_constexpr_value(a.entry);
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::pair<int, bool> parse_target(const std::string &arch) {
  if (std::optional<TargetSpec> t = tilec::parse_target(arch))
    return {t->cc, t->arch_specific};
  throw UsageError(std::string("expected a target such as ") + kTargetExamples + ", got '" + arch +
                   "'");
}

AotKernel aot_compile(const AotRequest &req, SourceManager &sm) {
  std::string bad = pipeline::launch_options_error(req.num_warps, req.num_stages, 0);
  if (!bad.empty())
    throw UsageError(bad);
  pipeline::GpuCompileOptions opts;
  opts.pipeline.compile.num_warps = req.num_warps;
  opts.pipeline.compile.num_stages = req.num_stages;
  opts.pipeline.compile.debug = req.debug;
  auto [cc, specific] = parse_target(req.arch);
  opts.sm = cc;
  opts.arch_specific = specific;
  std::vector<std::string> entries = split_signature(req.signature);

  if (!req.text && !std::filesystem::is_regular_file(req.path))
    throw UsageError("cannot read '" + req.path + "': no such file");
  std::optional<sema::ModuleResolver> resolver;
  if (req.text)
    resolver.emplace(sm, req.path, *req.text);
  else
    resolver.emplace(sm, req.path);
  std::vector<std::string> jit = resolver->jit_functions();
  if (std::find(jit.begin(), jit.end(), req.kernel) == jit.end()) {
    std::string names;
    for (const std::string &n : jit)
      names += (names.empty() ? "'" : ", '") + n + "'";
    throw UsageError(
        "unknown kernel '" + req.kernel + "': '" + req.path + "' defines " +
        (names.empty() ? std::string("no @jit functions") : "the @jit functions " + names));
  }
  std::shared_ptr<const sema::FunctionSource> fs = resolver->kernel(req.kernel);
  AotKernel k;
  k.params = bind_full_signature(req.kernel, kernel_params(*fs), entries);
  std::vector<sema::ArgSpec> specs;
  for (const AotParam &p : k.params)
    specs.push_back(p.spec);
  // The caller's SourceManager must outlive the result: the pipeline keeps a shared_ptr,
  // so give it one that does not own `sm`.
  std::shared_ptr<SourceManager> shared(std::shared_ptr<SourceManager>(), &sm);
  k.gpu = pipeline::compile_to_ptx(fs, specs, opts, shared);
  if (req.build_cubin) {
    if (std::optional<std::string> ptxas = runtime::find_ptxas()) {
      runtime::GpuTarget t;
      t.major = cc / 10;
      t.minor = cc % 10;
      runtime::PtxOptions po;
      po.threads = 32 * k.gpu.num_warps;
      po.shared_bytes = k.gpu.shared_bytes;
      runtime::Cubin c = runtime::compile_ptx(k.gpu.ptx, t, po, k.gpu.name);
      k.cubin = std::move(c.image);
      k.compiler = std::move(c.compiler);
    }
  }
  return k;
}

std::string c_type_of(const sema::ArgSpec &spec) {
  using K = sema::ArgSpec::Kind;
  if (spec.kind == K::TensorDesc)
    return c_desc_type(spec.desc_block_shape.size());
  if (spec.kind == K::Pointer)
    return "unsigned long long";
  if (spec.kind == K::Bool)
    return "bool";
  switch (spec.dtype) {
  case ir::DType::I8:
    return "int8_t";
  case ir::DType::I16:
    return "int16_t";
  case ir::DType::I32:
    return "int32_t";
  case ir::DType::I64:
    return "int64_t";
  case ir::DType::U8:
    return "uint8_t";
  case ir::DType::U16:
    return "uint16_t";
  case ir::DType::U32:
    return "uint32_t";
  case ir::DType::U64:
    return "uint64_t";
  case ir::DType::F16:
  case ir::DType::BF16:
    return "uint16_t"; // the value's bits
  case ir::DType::F32:
    return "float";
  case ir::DType::F64:
    return "double";
  default:
    return "";
  }
}

} // namespace tilec::aot
