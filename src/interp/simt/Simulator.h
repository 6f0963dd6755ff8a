// The SIMT simulator: runs a Thread IR kernel for a grid on the CPU, the way a GPU would,
// so that lowering is tested without one (tests/cpp/simt_interp).
//
//   simt::RunResult r = simt::run(fn, {simt::SimArg::pointer(x), simt::SimArg::integer(n)},
//                                 {{base, bytes, "x_ptr"}}, {.grid = {g, 1, 1}});
//
// Model (documented choices are tested):
// - A CTA has fn.num_warps warps of 32 lanes. Each lane has its own registers and pc.
//   A warp runs the instruction at the lowest pc among its runnable lanes for every lane
//   at that pc (the active mask), so divergent branches reconverge where the paths meet
//   in the block order (structured if/else and loops laid out top-down) — no
//   reconvergence stack is needed. Guards mask lanes without changing their pc.
// - Warps of a CTA run one after another until each blocks at a barrier or exits;
//   bar.sync/bar.arrive count threads (per id); a barrier without a count waits for every
//   thread of the CTA that has not exited. CTAs run one after another in grid order
//   (x fastest), so atomics are trivially atomic; membar/fence are no-ops.
// - shfl.sync follows the PTX pseudo-code exactly (clamp in c[4:0], segment mask in
//   c[12:8]); every lane of the member mask must execute the same shfl (a lane that is
//   not there is an error, as is reading from a lane that did not take part).
//   vote.sync likewise.
// - Registers start as poison (a NaN pattern of their width; predicates false), so a
//   value read before it is written shows in the results.
// - Memory: global addresses are host pointers, checked against `buffers` (out of
//   bounds, null and misaligned accesses are errors naming the instruction, its source
//   location, the lane and the CTA). Shared memory is per CTA, fn.shared_bytes long,
//   addresses are offsets from 0 and checked. Params are read from the launch args.
//   Generic (space-less) ld/st address global memory; .local and .const are not modelled.
//   Constant strings have fake global addresses (readable, and printable with %s), and so
//   have kernel parameters (cvta.param; readable). A byte-array parameter (a TMA tensor
//   map) takes a SimArg::blob of its exact size.
// - Asynchronous copies, mbarriers, wgmma: SimAsync.cpp; TMA copies: SimTma.cpp (they land
//   when no thread can run without them; touching their destination before is an error).
// - Floats: IEEE single/double with the instruction's rounding mode (.rn default, .rz
//   .rm .rp exact), .ftz flushes subnormal inputs and results, .sat clamps to [0,1].
//   fp16/bf16 arithmetic rounds to the format after each op. The .approx instructions
//   (ex2, lg2, sin, cos, rsqrt, rcp, tanh, div/sqrt .approx) use the precise function:
//   tests compare them with a tolerance. Integer division by zero gives all ones (the
//   value real hardware produces); PTX leaves it unspecified.
// - vprintf formats its argument buffer as C printf does (%d %i %u %x %X %o %c %s %p %f
//   %e %g %a with flags, width, precision and the h/hh/l/ll/z length modifiers) into
//   RunResult::output, in CTA order. __assertfail and trap stop the run with a
//   SimError naming the failed assertion.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "interp/tile/KernelArgs.h"
#include "simt/ThreadIR.h"
#include "support/Diagnostics.h"

namespace tilec::simt {

// The arguments (one per Function::params entry, in order; values are converted to the
// param's type: a float for f32/f64 params, an integer must fit the param's width) and the
// memory regions they may access, named in errors: the tile interpreter's own types.
using SimArg = interp::KernelArg;
using SimBuffer = interp::Buffer;

struct SimOptions {
  std::array<int64_t, 3> grid{1, 1, 1};
  uint64_t max_steps = 0;                 // instructions per CTA before a hang is reported; 0: 1e9
  const SourceManager *sources = nullptr; // to quote source lines in errors
};

struct RunResult {
  std::string output; // vprintf text, in CTA order
  uint64_t steps = 0; // warp-instructions executed, all CTAs
};

// A fault while running (bad access, failed assertion, trap, shuffle from an absent
// lane, deadlock, hang). output() holds the vprintf text up to the fault.
class SimError : public RuntimeError {
public:
  SimError(const std::string &msg, std::string output)
      : RuntimeError(msg), output_(std::move(output)) {}
  const std::string &output() const { return output_; }

private:
  std::string output_;
};

// Runs fn over the grid. Argument mistakes throw RuntimeError; faults throw SimError.
// The function is verified first (simt::verify), so malformed IR is an InternalError.
RunResult run(const Function &fn, const std::vector<SimArg> &args,
              const std::vector<SimBuffer> &buffers, const SimOptions &opts = {});

} // namespace tilec::simt
