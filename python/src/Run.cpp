// Kernel.run(): Python launch values -> interpreter arguments and buffers, then the grid
// on the tile interpreter with the GIL released.
#include <nanobind/stl/string.h>

#include <cstring>
#include <exception>

#include "support/FloatFormats.h"

#include "Bindings.h"
#include "Interrupt.h"
#include "Kernel.h"

namespace tilec::python {

namespace {

interp::KernelArg to_kernel_arg(const ir::Type &t, nb::handle v, const std::string &name) {
  if (t.is_ptr()) {
    uint64_t p = 0;
    if (!nb::try_cast<uint64_t>(v, p))
      throw nb::type_error(("argument '" + name + "' must be an address").c_str());
    return interp::KernelArg::pointer_value(p);
  }
  if (ir::is_float(t.elem)) {
    double d = 0;
    if (!nb::try_cast<double>(v, d))
      throw nb::type_error(("argument '" + name + "' must be a float").c_str());
    return interp::KernelArg::floating(d);
  }
  if (nb::isinstance<nb::bool_>(v))
    return interp::KernelArg::integer(nb::cast<bool>(v) ? 1 : 0);
  int64_t i = 0;
  if (nb::try_cast<int64_t>(v, i))
    return interp::KernelArg::integer(i);
  uint64_t u = 0; // u64 values above INT64_MAX travel as their bit pattern
  if (nb::try_cast<uint64_t>(v, u))
    return interp::KernelArg::integer(static_cast<int64_t>(u));
  throw nb::type_error(("argument '" + name + "' must be an int").c_str());
}

// One value of a debugger stop for Python: (dtype, shape, bytes) with bf16 and fp8
// widened to fp32 (numpy has no such types) and pointers as "ptr" (u64 addresses).
nb::tuple debug_value(const interp::DebugValue &v) {
  nb::list shape;
  for (int64_t d : v.shape)
    shape.append(d);
  const auto *src = static_cast<const uint8_t *>(v.data);
  float (*widen)(uint8_t) = nullptr;
  if (!v.pointer && v.dtype == ir::DType::F8E5)
    widen = tilec::fp8e5_to_float;
  else if (!v.pointer && v.dtype == ir::DType::F8E4NV)
    widen = tilec::fp8e4nv_to_float;
  if (widen || (!v.pointer && v.dtype == ir::DType::BF16)) {
    size_t n = widen ? v.bytes : v.bytes / 2;
    std::vector<float> f(n);
    for (size_t i = 0; i < n; ++i) {
      uint16_t bits = 0;
      if (!widen)
        std::memcpy(&bits, src + 2 * i, 2);
      f[i] = widen ? widen(src[i]) : tilec::bf16_to_float(bits);
    }
    return nb::make_tuple("fp32", nb::tuple(shape),
                          nb::bytes(reinterpret_cast<const char *>(f.data()), n * 4));
  }
  std::string dt = v.pointer ? "ptr" : std::string(ir::ir_name(v.dtype));
  return nb::make_tuple(dt, nb::tuple(shape),
                        nb::bytes(reinterpret_cast<const char *>(src), v.bytes));
}

// The kernel debugger: every stop calls tilec._debugger.stop(pid, grid, is_breakpoint,
// frames, values) with the GIL held; it answers "continue", "next", "step" or "return".
// An exception it raises (pdb's quit is BdbQuit) ends the launch and is raised again.
interp::DebugHook make_debug_hook(std::exception_ptr &raised) {
  return [&raised](const interp::DebugStop &s) {
    nb::gil_scoped_acquire gil;
    try {
      nb::list values;
      for (const interp::DebugValue &v : s.values)
        values.append(debug_value(v));
      nb::object r = nb::module_::import_("tilec._debugger").attr("stop")(
          nb::make_tuple(s.pid[0], s.pid[1], s.pid[2]),
          nb::make_tuple(s.grid[0], s.grid[1], s.grid[2]), s.breakpoint, s.frames, values);
      std::string a = nb::cast<std::string>(r);
      if (a == "next")
        return interp::DebugAction::Next;
      if (a == "step")
        return interp::DebugAction::Step;
      if (a == "return")
        return interp::DebugAction::Return;
      return interp::DebugAction::Continue;
    } catch (...) {
      raised = std::current_exception();
      return interp::DebugAction::Quit;
    }
  };
}

} // namespace

bool has_breakpoints(Kernel &k) {
  if (k.has_breakpoints < 0) {
    k.has_breakpoints = 0;
    ir::walk(k.function->entry(), [&](ir::Op *op) {
      k.has_breakpoints |= op->kind() == ir::OpKind::Breakpoint;
    });
  }
  return k.has_breakpoints != 0;
}

std::string run_kernel(Kernel &k, const nb::tuple &grid, const nb::list &args,
                       const nb::list &buffers, std::vector<interp::AccessEvent> *access_log) {
  const ir::Function &fn = *k.function;
  const ir::Block *entry = fn.entry();
  if (nb::len(args) != entry->num_args())
    throw nb::value_error(("kernel '" + fn.name + "' takes " + std::to_string(entry->num_args()) +
                           " run-time arguments, got " + std::to_string(nb::len(args)))
                              .c_str());
  if (nb::len(grid) != 3)
    throw nb::value_error("grid must have 3 dimensions");
  std::vector<interp::KernelArg> kargs;
  kargs.reserve(entry->num_args());
  for (size_t i = 0; i < entry->num_args(); ++i) {
    const std::string &name = i < fn.arg_names.size() ? fn.arg_names[i] : std::string("?");
    kargs.push_back(to_kernel_arg(entry->arg(i)->type, args[i], name));
  }
  std::vector<interp::Buffer> bufs;
  bufs.reserve(nb::len(buffers));
  for (nb::handle b : buffers) {
    nb::tuple t = nb::cast<nb::tuple>(b);
    interp::Buffer buf;
    buf.name = nb::cast<std::string>(t[0]);
    buf.base = nb::cast<uint64_t>(t[1]);
    buf.size_bytes = nb::cast<uint64_t>(t[2]);
    buf.writable = nb::len(t) < 4 || nb::cast<bool>(t[3]);
    bufs.push_back(std::move(buf));
  }
  interp::LaunchOptions opts;
  opts.access_log = access_log;
  std::exception_ptr debugger_raised;
  interp::DebugHook debug_hook;
  if (has_breakpoints(k)) {
    debug_hook = make_debug_hook(debugger_raised);
    opts.debug_hook = &debug_hook;
  }
  for (size_t d = 0; d < 3; ++d)
    opts.grid[d] = nb::cast<int64_t>(grid[d]);

  bool faulted = false;
  std::string fault, fault_output;
  interp::RunResult result;
  {
    SigintScope ctrl_c;
    nb::gil_scoped_release release;
    try {
      result = k.exe->run(kargs, bufs, opts, *k.compiled.sources);
    } catch (const interp::KernelError &e) {
      faulted = true;
      fault = e.what();
      fault_output = e.output();
    }
  }
  raise_if_interrupted();
  if (debugger_raised)
    std::rethrow_exception(debugger_raised); // e.g. pdb's quit: the user's choice, no fault
  if (faulted) {
    // what the programs printed before the fault comes first, as it would on a device
    if (!fault_output.empty())
      nb::module_::import_("sys").attr("stdout").attr("write")(fault_output);
    LocatedError le;
    le.kind = LocatedError::Kind::Kernel;
    le.rendered = fault;
    le.message = fault;
    throw le;
  }
  return std::move(result.output);
}

nb::tuple run_kernel_logged(Kernel &k, const nb::tuple &grid, const nb::list &args,
                            const nb::list &buffers) {
  std::vector<interp::AccessEvent> log;
  std::string out = run_kernel(k, grid, args, buffers, &log);
  return nb::make_tuple(out, nb::bytes(reinterpret_cast<const char *>(log.data()),
                                       log.size() * sizeof(interp::AccessEvent)));
}

} // namespace tilec::python
