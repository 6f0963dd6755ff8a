// The simulator's private state, shared by its source files (not a public header).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interp/simt/Simulator.h"
#include "simt/Format.h"
#include "simt/TensorMap.h"

namespace tilec::simt::sim {

constexpr int kWarp = 32;

// f(thread) for each lane of `warp` set in `mask`, in lane order.
template <typename F> void for_lanes(uint32_t mask, int warp, F f) {
  for (int l = 0; l < kWarp; ++l)
    if (mask >> l & 1)
      f(warp * kWarp + l);
}
// Global strings live at fake global addresses (for %s and loads); far from host heaps.
constexpr uint64_t kStringBase = 0x7ff0'0000'0000'0000ull;
// Generic addresses of kernel parameters (cvta.param): kParamBase + the param's offset.
constexpr uint64_t kParamBase = 0x7fe0'0000'0000'0000ull;

// An instruction with its operands pre-decoded for execution.
struct Decoded {
  const Instr *in = nullptr;
  std::vector<Ty> src_ty;    // per src: the type it is read as
  std::vector<uint64_t> imm; // per src: immediate bits (when an immediate)
  uint32_t target = 0;       // bra: the target pc
};

enum class ThreadState : uint8_t { Running, Waiting, Exited };

// cp.async groups in flight, per thread (SimAsync.cpp); made on first use in each CTA.
struct AsyncState;
// bar_id of a thread that yielded on a failed mbarrier.try_wait (SimAsync.cpp wakes it).
constexpr uint8_t kMbarrierWait = 0xff;

// A cp.async.bulk.tensor in flight (SimTma.cpp): the shared bytes [lo, hi) it writes,
// their final contents, and the mbarrier its bytes complete on when it lands.
struct BulkCopy {
  uint64_t lo = 0, hi = 0, bar = 0, tx_bytes = 0;
  std::vector<uint8_t> image; // hi - lo bytes
  const Decoded *d = nullptr; // the issuing instruction and thread, named in faults
  int thread = 0;
};

// A TMA store whose source the hardware may still be reading (SimTma.cpp): the shared bytes
// [lo, hi) and what it writes where, done at the cp.async.bulk.wait_group.read that
// retires its group (group -1: not committed yet).
struct BulkStore {
  uint64_t lo = 0, hi = 0;
  SimTensorMap map;
  int64_t coord[kTensorMapMaxRank] = {};
  int64_t group = -1;
  const Decoded *d = nullptr;
  int thread = 0;
};

struct Cta {
  std::array<int64_t, 3> id{0, 0, 0};
  std::vector<uint64_t> regs;     // [reg * nthreads + thread]
  std::vector<uint32_t> pc;       // per thread
  std::vector<ThreadState> state; // per thread
  std::vector<uint8_t> bar_id;    // per thread: the barrier it waits on
  std::vector<uint8_t> shared;
  std::array<int64_t, 16> arrived{};  // per barrier id
  std::array<int64_t, 16> expected{}; // per barrier id (0: every live thread)
  uint64_t steps = 0;
  std::shared_ptr<AsyncState> async;
  std::vector<BulkCopy> bulk;       // TMA copies not landed yet
  std::vector<BulkStore> stores;    // TMA stores not done yet
  std::vector<int64_t> bulk_groups; // per thread: the bulk groups it committed
};

// Thrown inside the machine; converted to SimError with the output so far.
struct Fault {
  std::string msg;
};

class Machine {
public:
  Machine(const Function &fn, const std::vector<SimArg> &args,
          const std::vector<SimBuffer> &buffers, const SimOptions &opts);
  RunResult run();

  // ---- used by the exec_* handlers ----
  const Function &fn;
  const SimOptions &opts;
  std::vector<Decoded> code;
  std::string output;
  uint64_t total_steps = 0;
  int nthreads = 0;

  uint64_t &reg(Cta &c, Reg r, int thread) {
    return c.regs[static_cast<size_t>(r.id) * nthreads + thread];
  }
  // The bits of src i for `thread` (registers, immediates, special registers, symbols).
  uint64_t src(Cta &c, const Decoded &d, size_t i, int thread);
  void set_dst(Cta &c, const Decoded &d, size_t i, int thread, uint64_t bits);
  // Lanes of `mask` (warp-relative) whose guard holds.
  uint32_t guarded(Cta &c, const Decoded &d, int warp, uint32_t mask);

  [[noreturn]] void fault(const Cta &c, const Decoded &d, int thread, const std::string &what);

  // Memory. `addr` is the byte address in the instruction's space; bytes = access size.
  uint8_t *memory(Cta &c, const Decoded &d, int thread, uint64_t addr, uint64_t bytes, bool write);
  uint64_t address(Cta &c, const Decoded &d, int thread, size_t i = 0); // src i + offset
  Space space_of(const Decoded &d) const;

  // Barriers.
  void arrive(Cta &c, int id, int64_t count, int64_t nthreads_arriving);
  void maybe_release(Cta &c);

  const std::vector<SimBuffer> &buffers;
  std::vector<uint8_t> params;          // packed parameter values
  std::vector<uint32_t> param_offsets;  // byte offset of each param
  std::vector<uint64_t> string_addr;    // fake global address of each string
  std::vector<std::string> string_data; // with the NUL

private:
  void decode();
  void run_cta(Cta &c);
  void step(Cta &c, int warp, uint32_t pc, uint32_t mask);
  RegNames rn_;
};

// d with its instruction's space replaced, for Machine::memory's checks of an access in
// another space than the instruction's own (cp.async's source, wgmma's operands).
struct InSpace {
  Instr in;
  Decoded d;
  InSpace(const Decoded &orig, Space s) : in(*orig.in), d(orig) {
    in.m.space = s;
    d.in = &in;
  }
};

// Per-lane evaluation of the pure instructions (arithmetic, logic, compare, select,
// conversions, math): dst bits from src bits. May throw Fault for unsupported forms.
uint64_t eval_pure(const Decoded &d, const uint64_t *src);
// cvt (SimCvt.cpp).
uint64_t eval_cvt(const Decoded &d, const uint64_t *src);

// vprintf: formats `fmt` with the argument buffer `buf` (laid out as the PTX printer
// lays it out) and appends to `out`; %s pointers are resolved to the kernel's strings.
void format_printf(const std::string &fmt, const std::vector<uint8_t> &buf, std::string &out,
                   const Machine &m);

// Handlers, one per instruction (the dispatch comes from Instrs.def).
#define INSTR(Id, Mn, Nd, Ns)                                                                      \
  void exec_##Id(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask);
#include "simt/Instrs.def"
#undef INSTR

// mbarrier complete_tx (SimAsync.cpp): `bytes` of the transactions of the mbarrier at
// .shared `bar` are done; completes the phase when no arrivals are pending either. d and
// thread name the instruction whose transfer it was in faults.
void mbarrier_complete_tx(Machine &m, Cta &c, const Decoded &d, int thread, uint64_t bar,
                          uint64_t bytes);
// TMA copies in flight (SimTma.cpp): the fault for an access to shared bytes one of them is
// still writing, and landing them all (when no thread can run); true if any landed.
void check_bulk_access(Machine &m, Cta &c, const Decoded &d, int thread, uint64_t addr,
                       uint64_t bytes, bool write);
bool land_bulk_copies(Machine &m, Cta &c);
// A write of shared bytes [addr, addr + bytes) by thread t while a TMA store still reads
// them is a fault (SimTma.cpp); so is a CTA that ends with one (check_stores_done).
void check_store_sources(Machine &m, Cta &c, const Decoded &d, int t, uint64_t addr,
                         uint64_t bytes);
void check_stores_done(Machine &m, Cta &c);

// wgmma register hazards (SimAsync.cpp): whether `warp` has wgmma registers in flight, and
// the fault for an instruction that touches one before its wgmma.wait_group.
bool wgmma_in_flight(const Cta &c, int warp);
void check_wgmma_hazard(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask);

} // namespace tilec::simt::sim
