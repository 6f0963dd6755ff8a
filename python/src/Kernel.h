// The compiled kernel object behind tilec's CompiledKernel (Compile.cpp, Run.cpp).
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <string>

#include "interp/tile/Interpreter.h"
#include "pipeline/Pipeline.h"

namespace tilec::python {

struct Kernel {
  pipeline::CompiledTileKernel compiled;
  ir::Function *function = nullptr;        // the kernel in compiled.module
  std::unique_ptr<interp::Executable> exe; // planned once; refers to *function
  int has_breakpoints = -1;                // breakpoint ops in *function (-1: not looked yet)
};

// Runs `k` over `grid` (3 ints) on the tile interpreter with the GIL released.
// args: one Python value per run-time parameter, in Function::arg_names order (pointers
// as addresses); buffers: (name, address, bytes, writable) for every pointer argument.
// Returns what device_print wrote.
std::string run_kernel(Kernel &k, const nanobind::tuple &grid, const nanobind::list &args,
                       const nanobind::list &buffers,
                       std::vector<interp::AccessEvent> *access_log = nullptr);
// Whether the kernel calls breakpoint() (it then stops in tilec._debugger's pdb).
bool has_breakpoints(Kernel &k);
// run_kernel recording every access: (output, the AccessEvents as bytes), for access maps.
nanobind::tuple run_kernel_logged(Kernel &k, const nanobind::tuple &grid,
                                  const nanobind::list &args, const nanobind::list &buffers);

} // namespace tilec::python
