// Internals of the tile interpreter: the execution plan built once per function, and
// the per-thread executor that runs one program of the grid at a time.
//
// Storage: every SSA value (op result or block argument) gets a fixed slot in one arena
// per thread, sized from its static type, so running a program allocates nothing. A
// tile is a flat row-major array of its storage type (DTypeTraits.h); a scalar is a
// one-element tile; a pointer is a 64-bit host address. Slots are never shared, so a
// constant is written once per thread and the arguments once per launch.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "interp/tile/Interpreter.h"
#include "interp/tile/RaceCheck.h"
#include "ir/IR.h"
#include "support/Diagnostics.h"

namespace tilec::interp {

struct SlotInfo {
  uint64_t offset = 0;
  int64_t numel = 1;
  int32_t elem_bytes = 4;
  ir::DType key = ir::DType::I32; // the dtype to dispatch on (U64 for pointers)
  const ir::Type *type = nullptr;
  uint64_t bytes() const {
    return static_cast<uint64_t>(numel) * static_cast<uint64_t>(elem_bytes);
  }
};

// Reduce/scan combiners recognised as one binary op of the two arguments.
enum class FastCombiner : uint8_t { None, Add, Mul, Max, Min, MaxNan, MinNan, And, Or, Xor };

enum class AtomicKind : uint8_t { Add, Max, Min, And, Or, Xor, Xchg };

struct BlockPlan;

struct Node {
  const ir::Op *op = nullptr;
  ir::OpKind kind = ir::OpKind::Constant;
  std::vector<int32_t> in, out; // operand and result slots
  std::vector<std::unique_ptr<BlockPlan>> regions;
  ir::DType dt = ir::DType::I32;  // dispatch dtype of operand 0 (result 0 when no operands)
  ir::DType rdt = ir::DType::I32; // dispatch dtype of result 0
  int64_t numel = 1;              // numel of result 0 (elementwise: of every tile operand)
  std::vector<uint8_t> bcast;     // per operand: a one-element value used for every element
  int64_t a = 0, b = 0;           // op-specific (axis, predicate, flags, ...)
  std::vector<int64_t> shape;     // op-specific: usually operand 0's shape
  std::vector<int64_t> ints;      // op-specific: permutation order, strides, ...
  std::vector<uint8_t> stage;     // for: yield values that must be staged (they alias args)
  FastCombiner fast = FastCombiner::None;
  // reduce/scan with an elementwise-only combiner: the region planned again with every
  // value `batch >> i` lanes wide (batched[i]), so one pass combines up to that many pairs.
  std::vector<std::unique_ptr<BlockPlan>> batched;
  int64_t batch = 1;
  AtomicKind atomic = AtomicKind::Add;
};

struct BlockPlan {
  std::vector<int32_t> args;
  std::vector<Node> nodes;     // the block's ops, without its terminator
  std::vector<int32_t> yields; // the terminator's operands (yield / condition)
  bool returns = false;        // the terminator is `return`
};

struct Plan {
  const ir::Function *fn = nullptr;
  BlockPlan entry;
  std::vector<SlotInfo> slots;
  uint64_t arena_bytes = 0;
  std::vector<const Node *> constants; // filled once per thread, never recomputed
  bool has_print = false;
};

// Builds the plan; malformed IR (what the verifier rejects) raises InternalError.
std::unique_ptr<Plan> build_plan(const ir::Function &fn);

struct BufferRange {
  uint64_t base = 0, size = 0;
  const std::string *name = nullptr;
  bool writable = true;
  uint32_t index = 0; // in the launch's buffers
  bool contains(uint64_t addr, uint64_t n) const {
    return addr >= base && addr - base <= size && size - (addr - base) >= n;
  }
};

// Runs programs of one launch on one thread. Not shared between threads.
class Exec {
public:
  Exec(const Plan &plan, const SourceManager &sm, const std::vector<BufferRange> &buffers,
       std::array<int64_t, 3> grid);
  Exec(const Exec &) = delete;
  Exec &operator=(const Exec &) = delete;

  void set_args(const std::vector<KernelArg> &args); // validated by the caller
  // Runs one program; device_print text is appended to *out (may be null: no prints).
  void run_program(std::array<int64_t, 3> pid, std::string *out);

  template <class T> T *ptr(int32_t slot) {
    return reinterpret_cast<T *>(arena_.get() + plan_.slots[static_cast<size_t>(slot)].offset);
  }
  const SlotInfo &slot(int32_t s) const { return plan_.slots[static_cast<size_t>(s)]; }
  void copy_slot(int32_t dst, int32_t src) {
    if (dst != src)
      std::memcpy(ptr<uint8_t>(dst), ptr<uint8_t>(src), slot(dst).bytes());
  }
  void exec_block(const BlockPlan &b);

  // A fault of the kernel at node `n`: throws RuntimeError naming the line and program.
  [[noreturn]] void fail(const Node &n, const std::string &msg) const;
  // A store or atomic (`what`) into the read-only buffer `b`.
  [[noreturn]] void fail_read_only(const Node &n, const BufferRange &b, const char *what,
                                   int32_t slot, int64_t flat) const;
  // " at element index (3, 4) of the tile" for a tile slot, "" for a scalar.
  std::string element_suffix(int32_t slot, int64_t flat) const;
  // Bounds/alignment/null check of one access; returns the buffer, or fails naming it.
  const BufferRange &check_access(const Node &n, uint64_t addr, uint64_t bytes, int32_t ptr_slot,
                                  int64_t flat, const char *what) const;
  const BufferRange *find_buffer(uint64_t addr, uint64_t bytes) const;
  // TILEC_SANITIZE=race: records a load or store of `bytes` at `addr` (in buffer `b`) and
  // fails naming both programs and lines when another program's access conflicts.
  void race_access(const Node &n, const BufferRange &b, uint64_t addr, uint32_t bytes, bool write,
                   int32_t lane_slot, int64_t flat);
  // TILEC_SANITIZE=race: atomic op `n` (its `sem`) orders this program's accesses.
  void race_atomic(const Node &n);

  // Scratch memory reused across ops (index k: independent areas).
  uint8_t *scratch(int k, size_t bytes);

  std::array<int64_t, 3> pid{}, grid{};
  int64_t max_loop_steps = INT64_MAX; // iterations of all loops of one program together
  int64_t loop_steps = 0;
  std::string *out = nullptr;
  bool returned = false;
  RaceShadow *race = nullptr;              // set when the launch checks for races (one thread)
  std::vector<AccessEvent> *log = nullptr; // set when the launch records an access map
  const DebugHook *debug = nullptr;        // set when the kernel debugger runs (one thread)
  DebugAction debug_mode = DebugAction::Continue; // reset for every program
  int64_t debug_depth = 0;                 // the frame depth of the last stop
  const Node *debug_last = nullptr;        // the last breakpoint op run, when it stopped
  void log_access(const BufferRange &b, uint64_t addr, uint32_t kind) {
    log->push_back({addr - b.base, b.index,
                    static_cast<uint32_t>(pid[0] + grid[0] * (pid[1] + grid[1] * pid[2])), kind,
                    0});
  }
  // A masked-off lane's address, logged when it falls in a buffer.
  void log_masked(uint64_t addr, uint64_t bytes, uint32_t kind) {
    if (const BufferRange *b = find_buffer(addr, bytes))
      log_access(*b, addr, kind | AccessEvent::MaskedOff);
  }
  const SourceManager &sm;

private:
  void exec_node(const Node &n);
  void exec_if(const Node &n);
  void exec_for(const Node &n);
  void exec_while(const Node &n);
  // One more loop iteration of this program: fails past max_loop_steps or on Ctrl-C.
  void count_iteration(const Node &n, const char *loop);

  const Plan &plan_;
  const std::vector<BufferRange> &buffers_;
  std::unique_ptr<uint8_t[]> arena_;
  std::array<std::vector<uint8_t>, 6> scratch_;
};

// Op families (one file each).
void exec_constant(Exec &ex, const Node &n);
void exec_shape(Exec &ex, const Node &n);       // arange splat broadcast expand_dims reshape
                                                // permute join split cat hint
void exec_arith(Exec &ex, const Node &n);       // binary/unary/ternary arithmetic, cmp, select
void exec_cast(Exec &ex, const Node &n);        // cast, bitcast
void exec_memory(Exec &ex, const Node &n);      // addptr, load, store, atomics
void exec_reduce_scan(Exec &ex, const Node &n); // reduce, scan
void exec_dot(Exec &ex, const Node &n);
void exec_gather_histogram(Exec &ex, const Node &n); // gather, histogram (OpsGather.cpp)
void exec_print(Exec &ex, const Node &n);
void exec_breakpoint(Exec &ex, const Node &n); // the kernel debugger's stops (Debugger.cpp)
void exec_assert(Exec &ex, const Node &n);
void exec_ring(Exec &ex, const Node &n); // local_alloc async_copy async_commit async_wait
                                         // local_load (OpsRing.cpp)

// "(3,)" / "(3, 4)": the multi-index of flat element `flat` of `shape`.
std::string format_index(const std::vector<int64_t> &shape, int64_t flat);
int64_t read_int_scalar(Exec &ex, int32_t slot); // any integer dtype, sign/zero-extended

} // namespace tilec::interp
