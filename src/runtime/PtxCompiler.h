// PTX -> cubin: ptxas when one is found (TILEC_PTXAS, PATH, the CUDA toolkit's usual
// homes), else the driver's JIT through cuLink*, which also returns the cubin so the disk
// cache can keep it.
#pragma once

#include <optional>
#include <string>

#include "support/Diagnostics.h"

namespace tilec::runtime {

// The GPU a cubin is built for: compute capability major.minor.
struct GpuTarget {
  int major = 9;
  int minor = 0;
  int cc() const { return major * 10 + minor; }
  // ptxas's -arch: sm_90a on 9.0 (and the later "a" architectures wgmma/tcgen05 need),
  // sm_XY elsewhere.
  std::string arch() const;
  // The compute capability of a target as support/Target.h parses it ("sm_90a", "sm_80",
  // "cuda:90", "90"); nullopt for anything else. (A cubin for 9.0 is always sm_90a.)
  static std::optional<GpuTarget> parse(const std::string &s);
};

struct PtxOptions {
  int opt_level = 3;   // ptxas -O
  int max_registers = 0; // --maxrregcount (0: ptxas decides)
  bool line_info = false; // -lineinfo
  // The CTA's threads and dynamic shared memory: when given (threads > 0), compile_ptx may
  // build again for one more CTA per SM (runtime/OccupancyCap.h).
  int threads = 0;
  int shared_bytes = 0;
};

struct Cubin {
  std::string image;    // the ELF bytes
  std::string compiler; // "ptxas <path>" (+ " .minnctapersm N") or "driver JIT (CUDA <v>)"
  std::string log;      // ptxas / JIT informational output
  double seconds = 0;
};

// ptxas rejected the PTX (or the JIT did). A user-facing compile error without a source
// location: the message quotes the compiler's own output.
class PtxasError : public CompileError {
public:
  explicit PtxasError(std::string message) : CompileError(SourceLoc{}, std::move(message)) {}
};

// The ptxas tilec will use, searched once per value of TILEC_PTXAS / PATH: TILEC_PTXAS
// (which must exist), then PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin.
// nullopt when there is none. Throws PtxasError when TILEC_PTXAS names a missing file.
std::optional<std::string> find_ptxas();

// What identifies the PTX compiler in cache keys: the ptxas path with its size and
// modification time (cheap, no process spawned), or "driver-jit:<version>".
std::string ptx_compiler_identity();

// Runs ptxas on `ptx`; `kernel` names the kernel in error messages. Temporary files live
// in a private directory removed afterwards. Throws PtxasError with ptxas's message.
Cubin compile_with_ptxas(const std::string &ptxas, const std::string &ptx, const GpuTarget &t,
                         const PtxOptions &opts, const std::string &kernel);

// The driver's JIT, in a context of `device` (whose GPU decides the target).
Cubin compile_with_driver(const std::string &ptx, const PtxOptions &opts,
                          const std::string &kernel, int device);

// ptxas if found, else the driver's JIT on `device` (which must then be >= 0).
Cubin compile_ptx(const std::string &ptx, const GpuTarget &t, const PtxOptions &opts,
                  const std::string &kernel, int device = -1);

} // namespace tilec::runtime
