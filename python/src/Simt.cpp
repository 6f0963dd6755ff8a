// The GPU compile path for Python: compile_ptx() (PTX + launch metadata, for the runtime's
// GPU launch path) and compile_simt(), a kernel object like Kernel (Compile.cpp) whose run()
// executes the lowered Thread IR on the SIMT simulator instead of the tile interpreter —
// TILEC_SIMT=1 routes host-array launches through it, so the language suites test the
// lowering without a GPU.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "Bindings.h"
#include "Interrupt.h"
#include "interp/simt/Simulator.h"
#include "ir/Printer.h"
#include "pipeline/GpuPipeline.h"
#include "runtime/TensorMap.h"
#include "support/Target.h"

namespace tilec::python {

namespace {

// "sm_90a", "sm_80", "cuda:90", "90" -> (compute capability, arch-specific).
std::pair<int, bool> parse_arch(const std::string &arch) {
  if (std::optional<TargetSpec> t = tilec::parse_target(arch))
    return {t->cc, t->arch_specific};
  throw nb::value_error(
      ("unknown GPU architecture '" + arch + "' (expected " + kTargetExamples + ")").c_str());
}

pipeline::CompiledGpuKernel compile_gpu(const std::shared_ptr<sema::FunctionSource> &fs,
                                        const nb::list &specs, int num_warps, int num_stages,
                                        bool debug, int sm, bool arch_specific, bool dumps,
                                        bool fp_fusion, int maxnreg, bool reflect_ftz, bool tma) {
  std::vector<sema::ArgSpec> args;
  for (size_t i = 0; i < nb::len(specs); ++i)
    args.push_back(to_arg_spec(specs[i], i));
  pipeline::GpuCompileOptions o;
  o.pipeline.compile.num_warps = num_warps;
  o.pipeline.compile.num_stages = num_stages;
  o.pipeline.compile.debug = debug;
  o.pipeline.compile.tma = tma && sm >= 90; // TMA copies: sm_90 on
  if (dumps)
    o.pipeline.dump_stage = "all";
  o.sm = sm;
  o.arch_specific = arch_specific;
  o.fp_fusion = fp_fusion;
  o.reflect_ftz = reflect_ftz;
  o.maxnreg = maxnreg;
  auto sources = std::make_shared<SourceManager>();
  nb::gil_scoped_release release;
  try {
    return pipeline::compile_to_ptx(fs, args, o, sources);
  } catch (const CompileError &e) {
    throw compile_failure(*sources, e);
  }
}

nb::tuple compile_ptx(const std::shared_ptr<sema::FunctionSource> &fs, const nb::list &specs,
                      int num_warps, int num_stages, bool debug, const std::string &arch,
                      bool enable_fp_fusion, int maxnreg, bool enable_reflect_ftz, bool tma) {
  auto [sm, specific] = parse_arch(arch);
  pipeline::CompiledGpuKernel k =
      compile_gpu(fs, specs, num_warps, num_stages, debug, sm, specific, false, enable_fp_fusion,
                  maxnreg, enable_reflect_ftz, tma);
  nb::dict meta;
  meta["name"] = k.name;
  meta["arch"] = k.arch;
  meta["num_warps"] = k.num_warps;
  meta["num_stages"] = k.num_stages;
  meta["shared"] = k.shared_bytes;
  meta["static_output"] = k.tile.static_output;
  nb::list params;
  for (const pipeline::GpuParam &p : k.params)
    params.append(nb::make_tuple(p.name, p.kind));
  meta["params"] = params;
  return nb::make_tuple(k.ptx, meta);
}

// A kernel compiled down the GPU path and run on the SIMT simulator.
struct SimtKernel {
  pipeline::CompiledGpuKernel gpu;
};

// A descriptor's tensor map for the simulator: `v` = (dtype, base address, shape, strides),
// `kind` = "tmap:<box>" (the kernel's).
simt::SimArg sim_tensor_map(const std::string &name, const std::string &kind, nb::handle v) {
  nb::tuple t = nb::cast<nb::tuple>(v);
  std::string dtype = nb::cast<std::string>(t[0]);
  std::vector<int64_t> shape = nb::cast<std::vector<int64_t>>(t[2]);
  std::vector<int64_t> strides = nb::cast<std::vector<int64_t>>(t[3]);
  runtime::TmaTensor tt;
  runtime::TmaBox box;
  std::optional<ir::DType> d = ir::dtype_from_ir_name(dtype);
  if (!d || shape.size() != strides.size() || shape.empty() ||
      shape.size() > size_t(runtime::kMaxTmaRank) ||
      !runtime::parse_tma_box(std::string_view(kind).substr(5), box))
    throw nb::value_error(("argument '" + name + "': not a tensor map's fields").c_str());
  tt.base = nb::cast<uint64_t>(t[1]);
  tt.dtype = dtype;
  tt.elem_bytes = ir::byte_size(*d);
  tt.rank = static_cast<int>(shape.size());
  std::copy(shape.begin(), shape.end(), tt.shape);
  std::copy(strides.begin(), strides.end(), tt.strides);
  runtime::TensorMapBytes m;
  runtime::encode_sim_tensor_map(tt, box, "argument '" + name + "'", m);
  return simt::SimArg::blob(m.bytes, sizeof m.bytes);
}

bool is_scratch_param(const pipeline::GpuParam &p) { return p.kind.rfind("scratch:", 0) == 0; }

std::string run_simt(SimtKernel &k, const nb::tuple &grid, const nb::list &args,
                     const nb::list &buffers) {
  const simt::Function &fn = *k.gpu.thread_ir;
  size_t scratch = 0; // bytes per program of the global scratch parameter (the last one)
  if (!k.gpu.params.empty() && is_scratch_param(k.gpu.params.back()))
    scratch = std::stoull(k.gpu.params.back().kind.substr(8));
  size_t nargs = fn.params.size() - (scratch ? 1 : 0);
  if (nb::len(args) != nargs)
    throw nb::value_error(("kernel '" + fn.name + "' takes " + std::to_string(nargs) +
                           " run-time arguments, got " + std::to_string(nb::len(args)))
                              .c_str());
  std::vector<simt::SimArg> sargs;
  std::vector<simt::SimBuffer> bufs;
  std::vector<uint8_t> scratch_mem; // the launch's global scratch, 128-byte aligned
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const std::string &kind = k.gpu.params[i].kind;
    if (i == nargs) {
      size_t programs = 1;
      for (size_t d = 0; d < 3; ++d)
        programs *= nb::cast<size_t>(grid[d]);
      scratch_mem.assign(scratch * programs + 128, 0);
      uint64_t at = (reinterpret_cast<uint64_t>(scratch_mem.data()) + 127) & ~uint64_t{127};
      sargs.push_back(simt::SimArg::pointer(reinterpret_cast<const void *>(at)));
      bufs.push_back({at, scratch * programs, "global scratch (tensor maps)"});
      continue;
    }
    nb::handle v = args[i];
    if (kind.rfind("tmap:", 0) == 0) { // (dtype, base, shape, strides): the simulator's map
      sargs.push_back(sim_tensor_map(k.gpu.params[i].name, kind, v));
    } else if (kind == "ptr") {
      sargs.push_back(simt::SimArg::pointer(reinterpret_cast<const void *>(nb::cast<uint64_t>(v))));
    } else if (kind[0] == 'f' || kind == "bf16") {
      sargs.push_back(simt::SimArg::floating(nb::cast<double>(v)));
    } else if (nb::isinstance<nb::bool_>(v)) {
      sargs.push_back(simt::SimArg::integer(nb::cast<bool>(v) ? 1 : 0));
    } else {
      int64_t x = 0;
      uint64_t u = 0;
      if (nb::try_cast<int64_t>(v, x))
        sargs.push_back(simt::SimArg::integer(x));
      else if (nb::try_cast<uint64_t>(v, u))
        sargs.push_back(simt::SimArg::integer(static_cast<int64_t>(u)));
      else
        throw nb::type_error(("argument '" + k.gpu.params[i].name + "' must be an int").c_str());
    }
  }
  for (nb::handle b : buffers) {
    nb::tuple t = nb::cast<nb::tuple>(b);
    bufs.push_back(
        {nb::cast<uint64_t>(t[1]), nb::cast<uint64_t>(t[2]), nb::cast<std::string>(t[0])});
  }
  simt::SimOptions so;
  for (size_t d = 0; d < 3; ++d)
    so.grid[d] = nb::cast<int64_t>(grid[d]);
  so.sources = k.gpu.tile.sources.get();
  bool faulted = false;
  std::string fault, fault_output;
  simt::RunResult r;
  {
    SigintScope ctrl_c;
    nb::gil_scoped_release release;
    try {
      r = simt::run(fn, sargs, bufs, so);
    } catch (const simt::SimError &e) {
      faulted = true;
      fault = e.what();
      fault_output = e.output();
    }
  }
  raise_if_interrupted();
  if (faulted) {
    if (!fault_output.empty())
      nb::module_::import_("sys").attr("stdout").attr("write")(fault_output);
    LocatedError le;
    le.kind = LocatedError::Kind::Kernel;
    le.rendered = fault;
    le.message = fault;
    throw le;
  }
  return std::move(r.output);
}

} // namespace

void bind_simt(nb::module_ &m) {
  m.def("compile_ptx", &compile_ptx, nb::arg("fn"), nb::arg("specs"), nb::arg("num_warps") = 4,
        nb::arg("num_stages") = 3, nb::arg("debug") = false, nb::arg("arch") = "sm_90a",
        nb::arg("enable_fp_fusion") = true, nb::arg("maxnreg") = 0,
        nb::arg("enable_reflect_ftz") = true, nb::arg("tma") = false,
        "Compiles `fn` specialised by `specs` to PTX for `arch`; returns (ptx, metadata) with "
        "metadata name, arch, num_warps, num_stages, shared (dynamic shared memory bytes), "
        "static_output and params [(jit parameter name, kind)]. tma: host TensorDescriptor "
        "parameters also take their TMA map (kind 'tmap:<box>') where copies use it.");

  nb::class_<SimtKernel>(m, "SimtKernel",
                         "A kernel compiled to Thread IR, run on the SIMT simulator.")
      .def_prop_ro("name", [](const SimtKernel &k) { return k.gpu.name; })
      .def_prop_ro("arg_names",
                   [](const SimtKernel &k) {
                     std::vector<std::string> names; // the global scratch is no argument
                     for (const auto &p : k.gpu.params)
                       if (!is_scratch_param(p))
                         names.push_back(p.name);
                     return names;
                   })
      .def_prop_ro("static_output", [](const SimtKernel &k) { return k.gpu.tile.static_output; })
      .def_prop_ro("stages",
                   [](const SimtKernel &k) {
                     std::vector<std::string> out;
                     for (const auto &d : k.gpu.tile.dumps)
                       out.push_back(d.first);
                     return out;
                   })
      .def_prop_ro("stage_seconds", [](const SimtKernel &k) { return k.gpu.tile.stage_seconds; })
      .def_prop_ro("ptx", [](const SimtKernel &k) { return k.gpu.ptx; })
      .def_prop_ro("thread_ir", [](const SimtKernel &k) { return k.gpu.thread_ir_text; })
      .def_prop_ro("shared_bytes", [](const SimtKernel &k) { return k.gpu.shared_bytes; })
      .def(
          "ir",
          [](const SimtKernel &k, const std::string &stage) -> std::string {
            if (stage.empty())
              return ir::print(*k.gpu.tile.module);
            for (const auto &d : k.gpu.tile.dumps)
              if (d.first == stage)
                return d.second;
            throw nb::key_error(("no IR recorded for stage '" + stage + "'").c_str());
          },
          nb::arg("stage") = "")
      .def("ir_with_locations",
           [](const SimtKernel &k) {
             ir::PrintOptions po;
             po.locations = true;
             po.sources = k.gpu.tile.sources.get();
             return ir::print(*k.gpu.tile.module, po);
           })
      .def("run", &run_simt, nb::arg("grid"), nb::arg("args"), nb::arg("buffers"),
           "Runs `grid` on the SIMT simulator; returns what device_print wrote.");

  m.def(
      "compile_simt",
      [](const std::shared_ptr<sema::FunctionSource> &fs, const nb::list &specs, int num_warps,
         int num_stages, bool debug, const std::string &arch, bool enable_fp_fusion, int maxnreg,
         bool enable_reflect_ftz, bool tma) {
        auto [sm, specific] = parse_arch(arch);
        auto k = std::make_shared<SimtKernel>();
        k->gpu = compile_gpu(fs, specs, num_warps, num_stages, debug, sm, specific, true,
                             enable_fp_fusion, maxnreg, enable_reflect_ftz, tma);
        return k;
      },
      nb::arg("fn"), nb::arg("specs"), nb::arg("num_warps") = 4, nb::arg("num_stages") = 3,
      nb::arg("debug") = false, nb::arg("arch") = "sm_90a", nb::arg("enable_fp_fusion") = true,
      nb::arg("maxnreg") = 0, nb::arg("enable_reflect_ftz") = true, nb::arg("tma") = false,
      "Compiles `fn` down the GPU path; the result runs on the SIMT simulator (the same "
      "interface as compile()'s Kernel).");
}

} // namespace tilec::python
