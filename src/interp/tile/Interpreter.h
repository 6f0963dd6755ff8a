// The tile interpreter: runs a Tile IR kernel for every program of a 3-D grid on the CPU.
// It is the reference semantics of the language (src/ir/Ops.def defines each op).
//
//   interp::Executable exe(fn);                        // plan once (reusable, thread-safe)
//   RunResult r = exe.run(args, buffers, {{grid_x, 1, 1}}, sources);
//
// Semantics chosen where Triton leaves room (documented here, tested in tests/cpp/interp):
// - Integers wrap; / and % truncate (C); division by zero is a RuntimeError. Shifts by
//   >= the bit width give 0 (shl, logical shr) or the sign fill (arithmetic shr).
//   float -> int casts truncate and saturate; NaN gives 0.
// - Each float op is computed in the kernel's precision: fp32 in float, fp64 in double;
//   fp16/bf16/fp8 in float and rounded to the dtype after every op. fp8e4nv saturates.
// - reduce combines in a pairwise halving tree: with n elements along the axis, element i
//   is combined with element i + ceil(n/2) (lower index as the left operand), then the
//   first ceil(n/2) are reduced the same way — the order of a warp-shuffle butterfly.
//   scan is a sequential inclusive scan (reverse: from the last element down).
// - dot accumulates in fp32 (fp64 for fp64 inputs, int32/int64 for integers) over k in
//   order, starting from acc. input_precision "tf32" rounds fp32 inputs to tf32 (ties
//   away from zero, like cvt.rna.tf32.f32); "ieee" and "tf32x3" use them exactly.
// - load/store/atomics check every unmasked lane against `buffers`: out-of-bounds, null
//   and misaligned addresses are RuntimeErrors naming the kernel line, the argument,
//   the byte offset and the element index. Masked-off lanes are never touched; a masked
//   load without `other` gives 0. A store or atomic into a buffer that is not writable
//   (a read-only numpy array) is a RuntimeError before any of its bytes change.
// - Atomics are atomic with respect to each other (striped locks), not to plain stores.
// - Programs run in parallel on `num_threads` threads (also when kernels print):
//   device_print text is collected per program and concatenated in program order
//   (x fastest, then y, then z). The prefix gets Triton's front-end munging (a leading
//   " " and a trailing ": "), which is idempotent if the front end already applied it.
//   On a fault, the error of the lowest failing program id is thrown as a KernelError;
//   other programs stop early.
// - A program whose loops (for and while, nested ones counted per iteration) run more than
//   LaunchOptions::max_loop_steps iterations together (default TILEC_INTERP_MAX_STEPS, 10^7)
//   is reported as endless, naming the loop's line: the interpreter never hangs on a loop
//   whose condition stays true or whose range is astronomically long. interrupted()
//   (support/Interrupt.h, set by the host's SIGINT handler) stops a launch the same way.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "interp/tile/KernelArgs.h"
#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace tilec::interp {

// One access of a launch, recorded for an access map (LaunchOptions::access_log): which
// program touched which byte offset of which buffer, and how.
struct AccessEvent {
  enum Kind : uint32_t { Load = 0, Store = 1, Atomic = 2, MaskedOff = 4 }; // MaskedOff: or'd in
  uint64_t offset = 0;                                                     // from the buffer's base
  uint32_t buffer = 0;  // index into the launch's buffers
  uint32_t program = 0; // flat program id (x fastest)
  uint32_t kind = 0;
  uint32_t pad = 0;
};

// The kernel debugger (breakpoint() in a kernel, tilec/_debugger.py): a `breakpoint` op
// that stops hands its values to the hook, which answers how to go on.
struct DebugValue {
  ir::DType dtype = ir::DType::I32; // pointers: their pointee's, with `pointer` set
  bool pointer = false;
  std::vector<int64_t> shape; // {} for a scalar
  const void *data = nullptr; // the interpreter's storage (DTypeTraits.h), valid
  uint64_t bytes = 0;         // during the call only
};
struct DebugStop {
  std::array<int64_t, 3> pid{}, grid{};
  bool breakpoint = false;        // breakpoint() itself (else: before a statement)
  std::string frames;             // the op's `frames` attribute (Ops.def)
  std::vector<DebugValue> values; // its operands, in order
};
// continue: to the next breakpoint(); next: the next statement of this frame or its
// callers; step: the next statement anywhere; return: the next statement of a caller.
// Every program starts in `continue`. quit ends the launch with a KernelError.
enum class DebugAction { Continue, Next, Step, Return, Quit };
using DebugHook = std::function<DebugAction(const DebugStop &)>;

struct LaunchOptions {
  std::array<int64_t, 3> grid{1, 1, 1};
  int num_threads = 0; // 0: TILEC_NUM_THREADS, and when that is 0 too, every core
  // Loop iterations (all loops of one program together) before the program is reported as
  // endless (an error naming the loop's line); -1: TILEC_INTERP_MAX_STEPS; 0: no limit.
  int64_t max_loop_steps = -1;
  // Data-race checking between programs (RaceCheck.h); -1: on when TILEC_SANITIZE names
  // "race"; 0: off; 1: on. Checking runs the programs on one thread.
  int race_check = -1;
  // When set, every load, store and atomic lane is appended here, masked-off lanes too when
  // their address falls in a buffer (the programs then run on one thread, in order).
  std::vector<AccessEvent> *access_log = nullptr;
  // When set, `breakpoint` ops stop here (the programs then run on one thread, in order).
  const DebugHook *debug_hook = nullptr;
};

struct RunResult {
  std::string output; // device_print text, in program order
};

// A fault in the kernel at run time. `output()` holds the device_print text of the
// programs before the failing one, and of the failing one up to the fault.
class KernelError : public RuntimeError {
public:
  KernelError(const std::string &msg, std::string output)
      : RuntimeError(msg), output_(std::move(output)) {}
  const std::string &output() const { return output_; }

private:
  std::string output_;
};

struct Plan;

// A function prepared for execution. Keeps a reference to `fn`, which must outlive it.
class Executable {
public:
  explicit Executable(const ir::Function &fn);
  ~Executable();
  Executable(Executable &&) noexcept;
  Executable &operator=(Executable &&) noexcept;

  // Runs the grid. Argument mistakes (count, kind, a value that does not fit the
  // parameter's type) and kernel faults throw RuntimeError (faults: KernelError).
  RunResult run(const std::vector<KernelArg> &args, const std::vector<Buffer> &buffers,
                const LaunchOptions &opts, const SourceManager &sm) const;

private:
  std::unique_ptr<Plan> plan_;
};

// Plans and runs in one call.
RunResult run(const ir::Function &fn, const std::vector<KernelArg> &args,
              const std::vector<Buffer> &buffers, const LaunchOptions &opts,
              const SourceManager &sm);

} // namespace tilec::interp
