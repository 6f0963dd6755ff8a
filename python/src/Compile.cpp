// compile(): the C++ pipeline behind @jit, and the compiled kernel object Python keeps in
// its cache (IR text per stage, static_print output, and run() on the tile interpreter).
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "Bindings.h"
#include "Kernel.h"
#include "aot/Signature.h"
#include "ir/Printer.h"
#include "pipeline/GpuPipeline.h"
#include "pipeline/Pipeline.h"
#include "support/Target.h"

namespace tilec::python {

namespace {

ir::DType dtype_named(const std::string &ir_name) {
  auto d = ir::dtype_from_ir_name(ir_name);
  if (!d)
    throw nb::value_error(("unknown dtype '" + ir_name + "'").c_str());
  return *d;
}

} // namespace

// One parameter's specialisation, as the Python layer describes it:
// ("constexpr", value) | ("none", None) | ("bool", None) | ("float", "fp32")
// | ("int", (dtype, divisible_by_16, equal_to_1)) | ("pointer", (dtype, aligned_16))
// | ("tensordesc", (dtype, block_shape, nan_padding, shape_div16, stride_div16)): a host
// TensorDescriptor; the div16 tuples say which shape entries and strides (all but the
// last) are multiples of 16
// | ("tuple", (NamedTupleType or None, [spec, ...])): a tuple of arguments.
sema::ArgSpec to_arg_spec(const nb::handle &spec, size_t index) {
  nb::tuple t = nb::cast<nb::tuple>(spec);
  std::string kind = nb::cast<std::string>(t[0]);
  nb::handle payload = t[1];
  sema::ArgSpec a;
  if (kind == "constexpr") {
    a.kind = sema::ArgSpec::Kind::Constexpr;
    std::string what;
    if (!value_from_python(payload, a.value, what))
      throw nb::type_error(
          ("argument " + std::to_string(index) + ": a constexpr cannot be a " + what).c_str());
  } else if (kind == "none") {
    a.kind = sema::ArgSpec::Kind::None;
  } else if (kind == "bool") {
    a.kind = sema::ArgSpec::Kind::Bool;
    a.dtype = ir::DType::I1;
  } else if (kind == "float") {
    a.kind = sema::ArgSpec::Kind::Float;
    a.dtype = dtype_named(nb::cast<std::string>(payload));
  } else if (kind == "int") {
    nb::tuple p = nb::cast<nb::tuple>(payload);
    a.kind = sema::ArgSpec::Kind::Int;
    a.dtype = dtype_named(nb::cast<std::string>(p[0]));
    a.divisible_by_16 = nb::cast<bool>(p[1]);
    a.equal_to_1 = nb::cast<bool>(p[2]);
  } else if (kind == "pointer") {
    nb::tuple p = nb::cast<nb::tuple>(payload);
    a.kind = sema::ArgSpec::Kind::Pointer;
    a.dtype = dtype_named(nb::cast<std::string>(p[0]));
    a.divisible_by_16 = nb::cast<bool>(p[1]);
  } else if (kind == "tensordesc") {
    nb::tuple p = nb::cast<nb::tuple>(payload);
    a.kind = sema::ArgSpec::Kind::TensorDesc;
    a.dtype = dtype_named(nb::cast<std::string>(p[0]));
    a.divisible_by_16 = true;
    a.desc_block_shape = nb::cast<std::vector<int64_t>>(p[1]);
    a.desc_nan_padding = nb::cast<bool>(p[2]);
    a.desc_shape_div16 = nb::cast<std::vector<bool>>(p[3]);
    a.desc_stride_div16 = nb::cast<std::vector<bool>>(p[4]);
  } else if (kind == "tuple") {
    nb::tuple p = nb::cast<nb::tuple>(payload);
    a.kind = sema::ArgSpec::Kind::Tuple;
    if (!p[0].is_none())
      a.named = named_tuple_info(p[0]);
    for (nb::handle e : p[1])
      a.elems.push_back(to_arg_spec(e, index));
  } else {
    throw nb::value_error(("unknown argument kind '" + kind + "'").c_str());
  }
  return a;
}

LocatedError compile_failure(const SourceManager &sm, const CompileError &e) {
  // static_print's output before the error still reaches the user, as in Triton.
  std::string printed = sema::static_output_of(e);
  if (!printed.empty()) {
    nb::gil_scoped_acquire gil;
    try {
      nb::object out = nb::module_::import_("sys").attr("stdout");
      out.attr("write")(printed);
      out.attr("flush")();
    } catch (const nb::python_error &) { // no usable sys.stdout: the error matters more
    }
  }
  return compile_error(sm, e);
}

namespace {

std::shared_ptr<Kernel> compile(const std::shared_ptr<sema::FunctionSource> &fs,
                                const nb::list &specs, int num_warps, int num_stages, bool debug) {
  std::vector<sema::ArgSpec> args;
  args.reserve(nb::len(specs));
  for (size_t i = 0; i < nb::len(specs); ++i)
    args.push_back(to_arg_spec(specs[i], i));
  pipeline::PipelineOptions opts;
  opts.compile.num_warps = num_warps;
  opts.compile.num_stages = num_stages;
  opts.compile.debug = debug;
  opts.dump_stage = "all"; // every stage's IR, for CompiledKernel.asm
  auto sources = std::make_shared<SourceManager>();
  auto kernel = std::make_shared<Kernel>();
  {
    nb::gil_scoped_release release;
    try {
      kernel->compiled = pipeline::compile_to_tile_ir(fs, args, opts, sources);
    } catch (const CompileError &e) {
      throw compile_failure(*sources, e);
    }
  }
  TILEC_ASSERT(kernel->compiled.module && !kernel->compiled.module->functions.empty(),
               "the pipeline returned no kernel function");
  kernel->function = kernel->compiled.module->functions.front().get();
  kernel->exe = std::make_unique<interp::Executable>(*kernel->function);
  return kernel;
}

// tilec.compile(): a kernel compiled ahead of time from a signature string, as `tilec ptx`
// does (the same parser and binding, src/aot/Signature.h), with constexpr values given
// as Python objects. Returns the PTX, launch metadata and the IR of every stage.
nb::dict compile_aot(const std::shared_ptr<sema::FunctionSource> &fs, const std::string &signature,
                     const nb::dict &constexprs, int num_warps, int num_stages, bool debug, int sm,
                     bool arch_specific, bool enable_fp_fusion, int maxnreg,
                     bool enable_reflect_ftz) {
  std::vector<sema::ArgSpec> specs;
  try {
    std::vector<aot::KernelParam> params;
    try {
      params = aot::kernel_params(*fs);
    } catch (const CompileError &e) {
      SourceManager sm_; // kernel_params parses with a scratch manager holding only fs
      sm_.add(fs->file, fs->source, fs->first_line);
      throw compile_failure(sm_, e);
    }
    std::vector<std::pair<std::string, std::string>> given;
    for (auto [k, v] : constexprs)
      given.emplace_back(nb::cast<std::string>(k), "None"); // the value is set below
    specs = aot::bind_arguments(fs->name, params, aot::parse_signature(signature), given);
    for (size_t i = 0; i < params.size(); ++i) {
      nb::str name(params[i].name.c_str());
      if (!constexprs.contains(name))
        continue;
      std::string what;
      if (!value_from_python(constexprs[name], specs[i].value, what))
        throw nb::type_error(("constexpr '" + params[i].name + "' cannot be a " + what).c_str());
    }
  } catch (const aot::UsageError &e) {
    std::string msg = e.what();
    // the CLI's wording names its flags; here they are compile()'s arguments
    for (auto [from, to] : {std::pair<std::string, std::string>{"--signature", "signature"},
                            {"--constexpr ", "constexprs: "}})
      for (size_t at = msg.find(from); at != std::string::npos; at = msg.find(from, at))
        msg.replace(at, from.size(), to);
    throw nb::value_error(msg.c_str());
  }
  pipeline::GpuCompileOptions o;
  o.pipeline.verify = true;
  o.pipeline.compile.num_warps = num_warps;
  o.pipeline.compile.num_stages = num_stages;
  o.pipeline.compile.debug = debug;
  o.pipeline.dump_stage = "all";
  o.sm = sm;
  o.arch_specific = arch_specific;
  o.fp_fusion = enable_fp_fusion;
  o.reflect_ftz = enable_reflect_ftz;
  o.maxnreg = maxnreg;
  auto sources = std::make_shared<SourceManager>();
  pipeline::CompiledGpuKernel k;
  {
    nb::gil_scoped_release release;
    try {
      k = pipeline::compile_to_ptx(fs, specs, o, sources);
    } catch (const CompileError &e) {
      throw compile_failure(*sources, e);
    }
  }
  nb::dict out;
  out["ptx"] = k.ptx;
  out["name"] = k.name;
  out["arch"] = k.arch;
  out["num_warps"] = k.num_warps;
  out["num_stages"] = k.num_stages;
  out["shared"] = k.shared_bytes;
  out["static_output"] = k.tile.static_output;
  nb::list params;
  for (const pipeline::GpuParam &p : k.params)
    params.append(nb::make_tuple(p.name, p.kind));
  out["params"] = params;
  nb::dict stages;
  for (const auto &[stage, text] : k.tile.dumps)
    stages[nb::str(stage.c_str())] = text;
  out["stages"] = stages;
  out["thread_ir"] = k.thread_ir_text;
  return out;
}

} // namespace

void bind_compile(nb::module_ &m) {
  nb::class_<Kernel>(m, "Kernel", "A kernel compiled for one specialisation.")
      .def_prop_ro("name", [](const Kernel &k) { return k.function->name; })
      .def_prop_ro(
          "arg_names", [](const Kernel &k) { return k.function->arg_names; },
          "The run-time parameters (constexpr and specialised-away ones dropped).")
      .def_prop_ro("static_output", [](const Kernel &k) { return k.compiled.static_output; })
      .def_prop_ro("stages",
                   [](const Kernel &k) {
                     std::vector<std::string> out;
                     for (const auto &d : k.compiled.dumps)
                       out.push_back(d.first);
                     return out;
                   })
      .def_prop_ro("stage_seconds", [](const Kernel &k) { return k.compiled.stage_seconds; })
      .def(
          "ir",
          [](const Kernel &k, const std::string &stage) -> std::string {
            if (stage.empty()) {
              ir::PrintOptions po;
              return ir::print(*k.compiled.module, po);
            }
            for (const auto &d : k.compiled.dumps)
              if (d.first == stage)
                return d.second;
            std::string names;
            for (const auto &d : k.compiled.dumps)
              names += (names.empty() ? "" : ", ") + d.first;
            throw nb::key_error(
                ("no IR recorded for stage '" + stage + "' (stages: " + names + ")").c_str());
          },
          nb::arg("stage") = "", "The Tile IR after `stage` (empty: the final IR).")
      .def(
          "ir_with_locations",
          [](const Kernel &k) {
            ir::PrintOptions po;
            po.locations = true;
            po.sources = k.compiled.sources.get();
            return ir::print(*k.compiled.module, po);
          },
          "The final Tile IR with each op's source location.")
      .def(
          "run",
          [](Kernel &k, const nb::tuple &grid, const nb::list &args, const nb::list &buffers) {
            return run_kernel(k, grid, args, buffers);
          },
          nb::arg("grid"), nb::arg("args"), nb::arg("buffers"),
          "Runs every program of `grid` on the tile interpreter; returns device_print "
          "output. args: one value per run-time parameter (ints, floats, bools, pointer "
          "addresses); buffers: (name, address, bytes, writable) per pointer argument.")
      .def_prop_ro("has_breakpoints", &has_breakpoints,
                   "Whether the kernel calls breakpoint() (runs then stop in pdb).")
      .def("run_logged", &run_kernel_logged, nb::arg("grid"), nb::arg("args"), nb::arg("buffers"),
           "run, recording every access: (output, bytes of (offset u64, buffer u32, program "
           "u32, kind u32, pad u32) records; kind 0 load, 1 store, 2 atomic, +4 masked off).");

  m.def("compile", &compile, nb::arg("fn"), nb::arg("specs"), nb::arg("num_warps") = 4,
        nb::arg("num_stages") = 3, nb::arg("debug") = false,
        "Compiles `fn` specialised by `specs` (one per parameter) to Tile IR.");
  m.def("compile_aot", &compile_aot, nb::arg("fn"), nb::arg("signature"), nb::arg("constexprs"),
        nb::arg("num_warps") = 4, nb::arg("num_stages") = 3, nb::arg("debug") = false,
        nb::arg("sm") = 90, nb::arg("arch_specific") = true, nb::arg("enable_fp_fusion") = true,
        nb::arg("maxnreg") = 0, nb::arg("enable_reflect_ftz") = true,
        "Compiles `fn` for a signature string (`tilec ptx`'s, e.g. \"*fp32:16,i32\") and "
        "constexpr values to PTX; returns a dict: ptx, name, arch, num_warps, num_stages, "
        "shared, static_output, params, stages (stage -> IR text), thread_ir.");
  m.def("stage_names", &pipeline::stage_names, "The pipeline's stage names, in order.");
  m.def(
      "parse_target",
      [](const std::string &text) {
        std::optional<TargetSpec> t = tilec::parse_target(text);
        if (!t)
          throw nb::value_error(
              ("unknown target '" + text + "': expected e.g. " + kTargetExamples).c_str());
        return std::make_pair(t->cc, t->arch_specific);
      },
      nb::arg("target"),
      "(compute capability, architecture-specific) of a target such as 'sm_90a', 'sm_80', "
      "'cuda:90' or '90' (support/Target.h: the rules every entry point uses).");
  m.def("gpu_stage_names", &pipeline::gpu_stage_names,
        "The GPU stages that follow them, in order (Tile IR passes, 'lower', Thread IR "
        "passes, 'ptx').");
}

} // namespace tilec::python
