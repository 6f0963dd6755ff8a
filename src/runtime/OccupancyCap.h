// One more CTA per SM for kernels just over a register boundary. A CTA of 128 threads
// using 202 registers fits twice on an SM (64K registers); at 168 it fits three times.
// The seed attention runs 15-23 % faster on an H100 that way, spilling 84 bytes a thread
// (benchmarks/attention_variants.py). So after ptxas, when the registers alone keep the
// SM below the CTAs its shared memory and threads allow and under 16 warps (where more
// warps hide latency; a second ptxas run costs compile time), and the registers one more
// CTA leaves are at least 4/5 of what ptxas used, the PTX is compiled again with
// `.minnctapersm k+1`, and kept when it spills at most kMaxSpillBytes a thread.
// A kernel that asks for maxnreg (`.maxnreg` in its PTX) is left as it is.
#pragma once

#include <string>

namespace tilec::runtime {

struct GpuTarget;

constexpr int kMaxSpillBytes = 192;

// The CTAs per SM to ask ptxas for (k + 1), or 0 to keep the first build.
int occupancy_min_ctas(const GpuTarget &t, int regs, int threads, int shared_bytes);

// `ptx` with `.minnctapersm n` after each `.reqntid` (or `.maxntid`) line; "" when the PTX
// has neither, or already sets .maxnreg or .minnctapersm.
std::string with_min_ctas(const std::string &ptx, int n);

// A warp-specialised kernel's setmaxnreg (lower/LowerWarpSpecialize.cpp) moves registers
// between warpgroups through the CTA's pool, which holds what ptxas gave each thread at
// entry (`regs`, allocated in units of 8) times the block: the producer's .dec gives back
// (one warpgroup, or the threads its header comment `setmaxnreg.dec by N threads` names),
// the other threads' .inc takes, and an .inc the pool cannot serve waits forever. Whether
// `ptx`'s requests fit (true when it has none).
bool setmaxnreg_fits(const std::string &ptx, int regs);
// `ptx` without its setmaxnreg instructions (every warp keeps the registers at entry).
std::string without_setmaxnreg(const std::string &ptx);

// From ptxas -v's log: the registers and the spill-store bytes of the (one) kernel;
// -1 when absent.
int log_registers(const std::string &log);
int log_spill_bytes(const std::string &log);

} // namespace tilec::runtime
