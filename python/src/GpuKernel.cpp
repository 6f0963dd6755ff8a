// GPU kernel objects (PTX + cubin + metadata, loaded lazily per device), building them
// with ptxas or the driver JIT, the disk cache (keys: GpuCacheKey.cpp), device queries and
// the CUDA exceptions (launching: GpuLaunch.cpp).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <chrono>

#include "Bindings.h"
#include "Gpu.h"
#include "frontend/sema/Sema.h"
#include "runtime/Cache.h"
#include "runtime/PtxCompiler.h"

namespace tilec::python {

namespace gpu {

namespace {

using runtime::GpuKernel;
using runtime::KernelBinary;
using runtime::KernelMetadata;

KernelMetadata metadata_from_dict(const nb::dict &d) {
  KernelMetadata m;
  auto get_int = [&](const char *k, int def) { return d.contains(k) ? nb::cast<int>(d[k]) : def; };
  if (!d.contains("name"))
    throw nb::value_error("kernel metadata needs a 'name'");
  m.name = nb::cast<std::string>(d["name"]);
  m.num_warps = get_int("num_warps", 4);
  m.num_stages = get_int("num_stages", 3);
  m.shared = get_int("shared", 0);
  // the block's warps: a power of two, plus a warp-specialised kernel's producer warps
  if (m.num_warps <= 0 || m.num_warps > 32)
    throw nb::value_error("kernel metadata: num_warps must be 1 to 32");
  if (m.shared < 0)
    throw nb::value_error("kernel metadata: shared must be >= 0");
  if (d.contains("arch"))
    m.arch = nb::cast<std::string>(d["arch"]);
  if (d.contains("params")) {
    for (nb::handle p : nb::cast<nb::sequence>(d["params"])) {
      if (!PySequence_Check(p.ptr()) || nb::len(p) != 2)
        throw nb::value_error("kernel metadata: each param is (name, kind)");
      std::string kind = nb::cast<std::string>(p[1]);
      auto param = runtime::kernel_param(nb::cast<std::string>(p[0]), kind);
      if (!param)
        throw nb::value_error(("kernel metadata: unknown param kind '" + kind + "'").c_str());
      m.params.push_back(std::move(*param));
    }
  }
  return m;
}

nb::dict metadata_to_dict(const KernelMetadata &m) {
  nb::dict d;
  d["name"] = m.name;
  d["num_warps"] = m.num_warps;
  d["num_stages"] = m.num_stages;
  d["shared"] = m.shared;
  d["arch"] = m.arch;
  d["compiler"] = m.compiler;
  nb::list params;
  for (const auto &p : m.params)
    params.append(nb::make_tuple(p.name, runtime::kernel_param_kind_text(p)));
  d["params"] = params;
  return d;
}

nb::bytes as_bytes(const std::string &s) { return nb::bytes(s.data(), s.size()); }

std::shared_ptr<GpuKernel> make_kernel(const std::string &ptx, nb::bytes cubin, nb::dict meta) {
  KernelBinary bin;
  bin.meta = metadata_from_dict(meta);
  bin.ptx = ptx;
  bin.cubin.assign(static_cast<const char *>(cubin.data()), cubin.size());
  return std::make_shared<GpuKernel>(std::move(bin));
}

std::shared_ptr<GpuKernel> build_kernel(const std::string &ptx, nb::dict meta,
                                        const std::string &arch, int device, int max_registers,
                                        bool line_info) {
  KernelBinary bin;
  bin.meta = metadata_from_dict(meta);
  bin.meta.arch = arch;
  bin.ptx = ptx;
  auto target = runtime::GpuTarget::parse(arch);
  if (!target)
    throw nb::value_error(("unknown GPU architecture '" + arch + "'").c_str());
  runtime::PtxOptions opts;
  opts.max_registers = max_registers;
  opts.line_info = line_info;
  opts.threads = 32 * bin.meta.num_warps;
  opts.shared_bytes = bin.meta.shared;
  runtime::Cubin c;
  if (test_device()) {
    c.compiler = "test-device";
  } else {
    nb::gil_scoped_release release;
    c = runtime::compile_ptx(bin.ptx, *target, opts, bin.meta.name, device);
  }
  bin.cubin = std::move(c.image);
  bin.meta.compiler = c.compiler;
  return std::make_shared<GpuKernel>(std::move(bin));
}

nb::dict device_props_dict(int device) {
  const runtime::DeviceProps &p = runtime::device_props(device);
  nb::dict d;
  d["name"] = p.name;
  d["capability"] = nb::make_tuple(p.target.major, p.target.minor);
  d["arch"] = p.target.arch();
  d["multiprocessor_count"] = p.sm_count;
  d["max_threads_per_block"] = p.max_threads_per_block;
  d["max_shared_mem"] = p.max_shared_per_block_optin;
  d["max_shared_per_block"] = p.max_shared_per_block;
  d["max_shared_per_sm"] = p.max_shared_per_sm;
  d["max_registers_per_block"] = p.max_registers_per_block;
  d["max_grid"] = nb::make_tuple(p.max_grid[0], p.max_grid[1], p.max_grid[2]);
  d["sm_clock_rate"] = p.sm_clock_khz;
  d["mem_clock_rate"] = p.mem_clock_khz;
  d["mem_bus_width"] = p.mem_bus_width;
  return d;
}

// Raises `tilec.errors.<cls>(*args)`; a plain RuntimeError if the package is broken.
void raise_python(const char *cls, const nb::tuple &args, const char *fallback) {
  try {
    nb::object c = nb::module_::import_("tilec.errors").attr(cls);
    nb::object inst = c(*args);
    PyErr_SetObject(c.ptr(), inst.ptr());
  } catch (const nb::python_error &) {
    PyErr_SetString(PyExc_RuntimeError, fallback);
  }
}

void translate(const std::exception_ptr &p, void *) {
  try {
    std::rethrow_exception(p);
  } catch (const runtime::OutOfResources &e) {
    raise_python("OutOfResources",
                 nb::make_tuple(e.what(), e.resource(), e.required(), e.limit(), e.kernel()),
                 e.what());
  } catch (const runtime::CudaError &e) {
    nb::object kernel = e.kernel().empty() ? nb::none() : nb::cast(e.kernel());
    raise_python("CudaError", nb::make_tuple(e.what(), e.call(), e.code(), kernel), e.what());
  } catch (const runtime::PtxasError &e) {
    raise_python("CompilationError", nb::make_tuple(e.what(), e.message()), e.what());
  }
}

} // namespace

void set_python_error() {
  try {
    throw;
  } catch (nb::python_error &e) {
    e.restore();
  } catch (const nb::builtin_exception &e) {
    PyObject *type = PyExc_RuntimeError;
    switch (e.type()) {
    case nb::exception_type::value_error:
      type = PyExc_ValueError;
      break;
    case nb::exception_type::type_error:
      type = PyExc_TypeError;
      break;
    case nb::exception_type::key_error:
      type = PyExc_KeyError;
      break;
    case nb::exception_type::index_error:
      type = PyExc_IndexError;
      break;
    case nb::exception_type::attribute_error:
      type = PyExc_AttributeError;
      break;
    default:
      break;
    }
    PyErr_SetString(type, e.what());
  } catch (const std::invalid_argument &e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::exception &e) {
    try {
      translate(std::current_exception(), nullptr);
    } catch (const std::exception &inner) {
      PyErr_SetString(PyExc_RuntimeError, inner.what());
    }
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "tilec internal error: unknown C++ exception");
  }
}

namespace {
TestDevice &test_device_state() {
  static TestDevice *d = new TestDevice; // leaked: no Python calls after finalisation
  return *d;
}
} // namespace

TestDevice *test_device() {
  TestDevice &d = test_device_state();
  return d.cc ? &d : nullptr;
}

namespace {

// The slow path's launch: `names`/`values` are every @jit parameter, in order.
void launch_named(GpuKernel &k, std::tuple<uint32_t, uint32_t, uint32_t> grid, nb::object stream,
                  const std::vector<std::string> &names, const nb::list &values, int device,
                  nb::object cooperative, nb::object pdl, nb::object num_ctas) {
  unsigned attrs = launch_attrs(cooperative.ptr(), pdl.ptr());
  unsigned ctas = num_ctas_of(num_ctas.ptr());
  size_t n = nb::len(values);
  if (n != names.size())
    throw nb::value_error("launch: names and values differ in length");
  std::vector<ArgInfo> infos(n);
  std::vector<runtime::TmaTensor> tmas(n);
  classify_launch_values(values, names, infos, tmas);
  for (const auto &a : infos)
    if (a.cls == ArgClass::DeviceArray && a.device >= 0 && device < 0)
      device = a.device;
  if (device < 0)
    device = 0;
  std::vector<int> pos = param_positions(k.meta(), names);
  runtime::PackedParams params(pos.size());
  std::vector<runtime::TensorMapBytes> maps(takes_tensor_map(k.meta()) ? pos.size() : 0);
  pack_params(k.meta(), pos, infos.data(), names, params.slots.data(), maps.data(),
              params.ptrs.data());
  runtime::CUstream s = resolve_stream(stream.ptr(), device);
  launch_kernel(k, device, {std::get<0>(grid), std::get<1>(grid), std::get<2>(grid)}, s,
                params.ptrs.data(), attrs, ctas);
}

// Host seconds for `count` back-to-back launches from C++ (the floor under the Python
// launch path; benchmarks/gpu_launch_breakdown.py).
double launch_loop(GpuKernel &k, std::tuple<uint32_t, uint32_t, uint32_t> grid,
                   const std::vector<std::string> &names, const nb::list &values, int device,
                   int count, nb::object stream) {
  size_t n = nb::len(values);
  std::vector<ArgInfo> infos(n);
  std::vector<runtime::TmaTensor> tmas(n);
  classify_launch_values(values, names, infos, tmas);
  std::vector<int> pos = param_positions(k.meta(), names);
  runtime::PackedParams params(pos.size());
  std::vector<runtime::TensorMapBytes> maps(takes_tensor_map(k.meta()) ? pos.size() : 0);
  pack_params(k.meta(), pos, infos.data(), names, params.slots.data(), maps.data(),
              params.ptrs.data());
  runtime::CUstream s = resolve_stream(stream.ptr(), device);
  runtime::LaunchGrid g{std::get<0>(grid), std::get<1>(grid), std::get<2>(grid)};
  nb::gil_scoped_release release;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i)
    k.launch(device, g, s, params.ptrs.data());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

void bind_gpu_kernel(nb::module_ &m) {
  init_arg_names();
  nb::register_exception_translator(translate);

  nb::class_<GpuKernel>(m, "GpuKernel",
                        "A kernel compiled for a GPU: PTX, cubin and launch metadata; the module "
                        "is loaded into each device's context at its first launch there.")
      .def(nb::new_(&make_kernel), nb::arg("ptx"), nb::arg("cubin"), nb::arg("metadata"))
      .def_prop_ro("name", [](const GpuKernel &k) { return k.name(); })
      .def_prop_ro("ptx", [](const GpuKernel &k) { return k.binary().ptx; })
      .def_prop_ro("cubin", [](const GpuKernel &k) { return as_bytes(k.binary().cubin); })
      .def_prop_ro("metadata", [](const GpuKernel &k) { return metadata_to_dict(k.meta()); })
      .def("num_regs", &GpuKernel::num_regs, nb::arg("device") = 0)
      .def("spill_bytes", &GpuKernel::spill_bytes, nb::arg("device") = 0)
      .def(
          "store",
          [](const GpuKernel &k, const std::string &key, const std::string &dir) {
            std::string err;
            bool ok = runtime::DiskCache(dir).store(key, k.binary(), &err);
            return std::make_pair(ok, err);
          },
          nb::arg("key"), nb::arg("cache_dir") = "",
          "Stores the kernel in the disk cache under `key`; (ok, error).")
      .def("_launch_loop", &launch_loop, nb::arg("grid"), nb::arg("names"), nb::arg("values"),
           nb::arg("device"), nb::arg("count"), nb::arg("stream").none() = nb::none(),
           "Host seconds for `count` launches from C++ on `stream` (None: torch's current "
           "stream, else the legacy default stream; 2 is CU_STREAM_PER_THREAD).")
      .def("param_buffer_layout", &GpuKernel::param_buffer_layout, nb::arg("device") = 0,
           "(offset, size) of each .param in the buffer of the 'extra' launch form, as the "
           "driver reports them; [] when it cannot (launches then use kernelParams).")
      .def_static(
          "load_cached",
          [](const std::string &key, const std::string &dir) -> std::shared_ptr<GpuKernel> {
            auto bin = runtime::DiskCache(dir).load(key);
            if (!bin)
              return nullptr;
            return std::make_shared<GpuKernel>(std::move(*bin));
          },
          nb::arg("key"), nb::arg("cache_dir") = "", "The kernel cached under `key`, or None.")
      .def("launch", &launch_named, nb::arg("grid"), nb::arg("stream").none(), nb::arg("names"),
           nb::arg("values"), nb::arg("device") = -1,
           nb::arg("launch_cooperative_grid").none() = nb::none(),
           nb::arg("launch_pdl").none() = nb::none(), nb::arg("num_ctas").none() = nb::none(),
           "Launches over `grid` (3 ints): `values` are the @jit parameters called `names`; "
           "the .params take theirs by name. stream None: torch's current stream (or the "
           "default stream).");

  m.def("gpu_build", &build_kernel, nb::arg("ptx"), nb::arg("metadata"), nb::arg("arch"),
        nb::arg("device") = -1, nb::arg("max_registers") = 0, nb::arg("line_info") = false,
        "Compiles PTX to a cubin (ptxas, else the driver's JIT on `device`) -> GpuKernel.");
  m.def("gpu_cache_key", &cache_key, nb::arg("fn"), nb::arg("specs"), nb::arg("options"),
        nb::arg("arch"),
        "The disk-cache key of `fn` (its sources and callees') compiled with these "
        "specialisations, options and architecture by this build of tilec.");
  m.def("gpu_cache_dir", [] { return runtime::DiskCache::default_dir(); });
  m.def("gpu_driver_available", [] {
    if (test_device())
      return std::make_pair(true, std::string());
    std::string why;
    bool ok = runtime::driver_available(&why);
    return std::make_pair(ok, why);
  });
  m.def("gpu_device_count", [] {
    std::string why;
    return runtime::driver_available(&why) ? runtime::device_count() : 0;
  });
  m.def("gpu_device_props", &device_props_dict, nb::arg("device") = 0);
  m.def(
      "gpu_device_arch",
      [](int d) {
        if (TestDevice *t = test_device())
          return runtime::GpuTarget{t->cc / 10, t->cc % 10}.arch();
        return runtime::device_props(d).target.arch();
      },
      nb::arg("device") = 0);
  m.def("gpu_current_device", [] {
    if (test_device())
      return 0;
    int d = runtime::current_device();
    return d < 0 ? 0 : d;
  });
  m.def(
      "gpu_synchronize",
      [](int device) {
        nb::gil_scoped_release release;
        runtime::synchronize(device);
      },
      nb::arg("device") = -1,
      "Waits for the GPU work of `device` (-1: every device tilec launched on); a fault is "
      "raised as tilec.CudaError naming the last kernel tilec launched there.");
  m.def(
      "_gpu_test_device",
      [](int cc, nb::object recorder, int devices) {
        TestDevice &t = test_device_state();
        t.cc = cc;
        t.devices = devices;
        t.recorder = cc && !recorder.is_none() ? std::move(recorder) : nb::object();
        reset_arg_types(); // the test may have stood in (or removed) a fake torch module
      },
      nb::arg("cc"), nb::arg("recorder").none(), nb::arg("devices") = 1,
      "Tests only: cc > 0 stands in `devices` GPUs of that compute capability whose "
      "launches call recorder(name, grid, device, stream, params[, attrs when not 0]) "
      "(None: do nothing); 0 "
      "restores the driver.");
  m.def("gpu_last_kernel", &runtime::last_launched_kernel, nb::arg("device") = 0);
  static const std::pair<const char *, runtime::LaunchForm> kForms[] = {
      {"params", runtime::LaunchForm::KernelParams},
      {"extra", runtime::LaunchForm::ExtraBuffer},
      {"ex", runtime::LaunchForm::LaunchEx},
      {"gpa", runtime::LaunchForm::ProcAddress}};
  m.def(
      "gpu_set_launch_form",
      [](const std::string &form) {
        for (const auto &[name, f] : kForms)
          if (form == name)
            return runtime::set_launch_form(f);
        throw nb::value_error("launch form must be 'params', 'extra', 'ex' or 'gpa'");
      },
      nb::arg("form"),
      "How launches reach the driver: 'params' (cuLaunchKernel with kernelParams, the "
      "default), 'extra' (one CU_LAUNCH_PARAM_BUFFER_POINTER buffer), 'ex' "
      "(cuLaunchKernelEx) or 'gpa' (cuLaunchKernel from cuGetProcAddress). For comparing "
      "them on a GPU.");
  m.def("gpu_launch_form", [] {
    for (const auto &[name, f] : kForms)
      if (runtime::launch_form() == f)
        return name;
    return "params";
  });
  m.def("gpu_find_ptxas", [] { return runtime::find_ptxas(); });
  m.def(
      "gpu_compile_ptx",
      [](const std::string &ptx, const std::string &arch, const std::string &name) {
        auto t = runtime::GpuTarget::parse(arch);
        if (!t)
          throw nb::value_error(("unknown GPU architecture '" + arch + "'").c_str());
        runtime::Cubin c;
        {
          nb::gil_scoped_release release;
          c = runtime::compile_ptx(ptx, *t, {}, name, -1);
        }
        return nb::make_tuple(as_bytes(c.image), c.compiler, c.log, c.seconds);
      },
      nb::arg("ptx"), nb::arg("arch"), nb::arg("name") = "kernel",
      "PTX -> (cubin bytes, compiler, log, seconds) with ptxas; no GPU needed.");
}

} // namespace gpu

void bind_gpu(nb::module_ &m) {
  gpu::bind_gpu_kernel(m);
  gpu::bind_gpu_dispatch(m);
  gpu::bind_gpu_profile(m);
}

} // namespace tilec::python
