// The lowering framework shared by the op families (src/lower/Lower*.cpp).
//
// Values. Each Tile IR value maps to the registers this thread holds: for a tile, one
// register per index of its linear layout's "register" dim (register r holds the element
// at coordinates L(r, lane, warp)); for a scalar, one register, the same in every thread.
// Registers of a value may be shared with other values (a splat repeats one register),
// so only registers a lowering created for the purpose (loop-carried values, if results)
// are ever written twice.
//
// Register types by dtype (reg_ty): i1 -> pred; i8/i16 -> s16, u8/u16 -> u16 (8-bit values
// are kept sign- or zero-extended to 16 bits); i32/u32/i64/u64 as such; fp8 -> b16 (the
// byte in the low half); fp16, bf16, fp32, fp64 as such; pointers -> u64.
//
// Thread coordinates. A linear layout is XOR-linear in its inputs, so the coordinates of
// register r of thread (lane, warp) are R(r) ^ T(lane, warp): R is known at compile time,
// T is computed once per layout in the kernel's prologue (thread_coords). When R(r)'s bits
// and the bits T can set are disjoint, ^ is +, and R(r) becomes an immediate offset.
//
// Blocks. Block 0 is the prologue (parameters, thread index, per-layout coordinates): it
// may be appended to at any time (in_prologue) and falls through to the body.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/AxisInfo.h"
#include "ir/IR.h"
#include "layout/LinearLayout.h"
#include "lower/Lower.h"
#include "simt/Builder.h"

namespace tilec::lower {

using simt::Operand;
using simt::Reg;
using simt::Ty;

// Register type of a value of this element type (see above).
Ty reg_ty(ir::DType d, bool ptr = false);
inline Ty reg_ty(const ir::Type &t) { return reg_ty(t.elem, t.ptr); }
// Bytes one element occupies in memory (pointers 8, i1 1).
int mem_bytes(const ir::Type &t);

// Per layout: the thread-dependent part of the coordinates.
struct ThreadCoords {
  std::vector<Reg> dim;      // per tile dim: T_d(lane, warp) (u32)
  std::vector<int32_t> span; // per tile dim: the bits T_d may set
  Reg flat;                  // row-major flat index of T (u32)
  int64_t flat_span = 0;     // the bits `flat` may set
};

class LoweringContext {
public:
  LoweringContext(const ir::Module &m, const ir::Function &fn, simt::Function &out,
                  const LowerOptions &opts);
  LoweringContext(const LoweringContext &) = delete;
  LoweringContext &operator=(const LoweringContext &) = delete;

  // Lowers the whole function into `out`.
  void run();

  simt::Builder &b() { return b_; }
  simt::Function &fn() { return out_; }
  const ir::Module &module() const { return m_; }
  const ir::Function &function() const { return ir_fn_; } // the one being lowered
  const LowerOptions &opts() const { return opts_; }
  int num_warps() const { return out_.num_warps; }
  const analysis::AxisInfoAnalysis &axis() const { return *axis_; }
  // Whether v's axis facts hold whatever the signs of the values: false when an integer
  // division or remainder (which axis info reads as if the dividend were non-negative, as
  // Triton does) or a loop-carried tile is among v's sources. Masks guarding vector
  // accesses share Triton's assumption; values computed once per run need exact facts.
  bool axis_exact(const ir::Value *v);

  // ---- values ----
  const std::vector<Reg> &get(const ir::Value *v) const;
  Reg scalar(const ir::Value *v) const; // a value held in one register
  void set(const ir::Value *v, std::vector<Reg> regs);
  bool has(const ir::Value *v) const { return vals_.count(v) != 0; }
  // Integer registers known to equal `base + imm` without wrapping (arange's registers):
  // addptr then adds imm * size to base's address, and ptxas folds it into the access's
  // immediate offset instead of keeping one 64-bit address per register live.
  struct Affine {
    Reg base;
    int64_t imm = 0;
  };
  void note_affine(Reg r, Reg base, int64_t imm) { affine_[r.id] = {base, imm}; }
  const Affine *affine(Reg r) const {
    auto it = affine_.find(r.id);
    return it == affine_.end() ? nullptr : &it->second;
  }

  // ---- layouts ----
  // The linear layout of a tile type (asserts it has one).
  const layout::LinearLayout &layout_of(const ir::Type &t);
  // Registers a value of type `t` takes (1 for scalars).
  int num_regs(const ir::Type &t);
  // Compile-time coordinates of register r (lane = warp = 0).
  static std::vector<int32_t> reg_coords(const layout::LinearLayout &l, int32_t r);
  // Row-major flat index of coordinates in a tile of the layout's out dims.
  static int64_t flat_index(const layout::LinearLayout &l, const std::vector<int32_t> &c);
  const ThreadCoords &thread_coords(const layout::LinearLayout &l);
  // Coordinate `dim` of register r as a u32 register (T_d ^ R_d(r)).
  Reg coord(const layout::LinearLayout &l, int32_t r, int dim);
  // Flat row-major element index of register r (u32).
  Reg flat(const layout::LinearLayout &l, int32_t r);
  // Registers that hold a first copy of their element within the thread (free register
  // bits zero): stores, prints and reductions use only these.
  static std::vector<bool> unique_regs(const layout::LinearLayout &l);
  // A predicate true in the one thread that owns each element of the layout (the lane and
  // warp bits that only replicate are zero); an invalid Reg when every thread owns its
  // elements.
  Reg owner_pred(const layout::LinearLayout &l);
  // A predicate true in thread 0 only (scalar side effects); in a warp_specialize op's
  // producer region, in the producer's first thread.
  Reg thread0_pred();
  // The warp whose thread 0 issues TMA copies: 0, or the producer's first warp.
  int leader_warp() const { return leader_warp_; }
  // A barrier of every thread that runs this code: bar.sync 0, or after a warp_specialize
  // op's split, a named barrier of its consumer warps (the producer's never reach it).
  void cta_barrier();

  // The address (u64) of this program's global scratch: the kernel's last parameter, a
  // buffer of module attribute `scratch_bytes` per program (tensor maps it builds).
  Reg global_scratch() const;

  // ---- thread index (prologue registers) ----
  // The thread index; with warp-specialised cp.async producers, modulo 32 x num_warps.
  Reg tid();
  // The warp's own index (producers included; not aliased as tid() may be).
  Reg hw_warp();
  Reg lane();
  Reg warp();

  // ---- emission helpers ----
  // Emits into the prologue (no guard, no location), then restores the position.
  void in_prologue(const std::function<void()> &f);
  // A register holding an immediate of type t (emitted where called).
  Reg imm_reg(Ty t, int64_t bits);
  // Starts a new block (after a branch or at a join point).
  simt::BlockId new_block(const std::string &hint);
  // A uniform forward branch (conditional when `cond` is valid) whose target block does not
  // exist yet, and its patching once it does.
  struct PendingBranch {
    simt::BlockId block = 0;
    size_t index = 0;
  };
  PendingBranch branch_ahead(Reg cond, bool negate);
  void patch(PendingBranch p, simt::BlockId target);
  // Emits `body` behind a uniform branch taken when the warp-uniform `cond` is false (the
  // whole warp skips it). The scratch state after is what `body` left it: code that may be
  // skipped must not be what makes scratch safe to write.
  void uniform_if(Reg cond, const std::function<void()> &body);
  // Current source location for emitted instructions.
  void set_loc(SourceLoc l) { b_.set_loc(l); }

  // ---- shared memory scratch ----
  // The byte offset of `op`'s scratch of `bytes` bytes, a multiple of `align`: its
  // allocation from allocate_shared when large enough, else a region past every allocation.
  int64_t scratch(const ir::Op &op, int64_t bytes, int64_t align = 16);
  // Before writing scratch: a barrier if other threads may still read earlier scratch.
  void smem_before_write();
  // Between writing and reading scratch.
  void smem_after_write();
  // Control flow may reach here from code that read scratch: the next write needs a barrier.
  void smem_unknown() { smem_readers_ = true; }
  // Shared address (u32) of scratch + flat(l) * esize for this thread; per register the
  // immediate offset R_flat(r) * esize is added by smem_operand.
  Operand smem_operand(const layout::LinearLayout &l, int64_t base, int esize, int32_t r);
  void smem_store(const Operand &addr, Reg v, const ir::Type &elem);
  Reg smem_load(const Operand &addr, const ir::Type &elem);

  // ---- asynchronous work left in flight ----
  // `finish` (e.g. wgmma.wait_group 0) runs before the first op lowered outside `scope`
  // (a loop whose wgmma groups stay in flight across iterations), or at the kernel's end.
  void defer_past(const ir::Op *scope, std::function<void()> finish);
  // `f` runs when lowering enters `blk` (before its first op).
  void on_entry(const ir::Block *blk, std::function<void()> f) {
    on_entry_[blk].push_back(std::move(f));
  }
  // The block that falls through into `loop`'s header (where its carried values are
  // initialised): code appended there runs once before the loop.
  simt::BlockId block_before(const ir::Op *loop) const;
  // A TMA store left its boxes' reads in flight (tma_store {defer}): thread 0 waits for
  // them at the kernel's end, before the CTA's shared memory goes.
  void tma_stores_in_flight() { tma_stores_in_flight_ = true; }

  // ---- lowering ----
  void lower_ops(const ir::Block &blk); // every op but the terminator
  void lower_op(const ir::Op &op);
  // Runs `blk` (a combiner region) on scalar registers: binds its arguments to `args`,
  // lowers its ops and returns the registers of its terminator's operands.
  std::vector<Reg> inline_region(const ir::Block &blk, const std::vector<Reg> &args);

private:
  const ir::Module &m_;
  const ir::Function &ir_fn_;
  simt::Function &out_;
  LowerOptions opts_;
  simt::Builder b_;
  std::unique_ptr<analysis::AxisInfoAnalysis> axis_;
  std::unordered_map<const ir::Value *, std::vector<Reg>> vals_;
  std::map<std::pair<const ir::Layout *, ir::Shape>, layout::LinearLayout> layouts_;
  std::map<std::string, ThreadCoords> coords_;
  std::map<std::string, Reg> owners_;
  std::map<std::string, Reg> smem_addrs_; // (layout, scratch base, element size) -> address
  std::unordered_map<uint32_t, Affine> affine_;
  std::unordered_map<const ir::Value *, bool> exact_;
  Reg tid_, lane_, warp_, hw_warp_, thread0_, scratch_;
  int64_t alloc_bytes_ = 0; // shared bytes allocate_shared gave out
  int64_t extra_bytes_ = 0; // scratch past it (ops without a large enough allocation)
  bool smem_readers_ = false;
  std::map<const ir::Block *, std::vector<std::function<void()>>> on_entry_;
  const ir::Op *deferred_scope_ = nullptr;
  std::function<void()> deferred_;
  bool tma_stores_in_flight_ = false;
  int leader_warp_ = 0;     // thread0_pred's warp
  Reg leader_;              // thread0_pred in the producer region
  int barrier_threads_ = 0; // cta_barrier: 0 = bar.sync 0, else bar.sync 1, this count
  friend void lower_warp_specialize(LoweringContext &c, const ir::Op &op);
  std::map<const ir::Op *, simt::BlockId> preheaders_; // loop -> block_before(loop)
};

// The op families (one file each). Each lowers the ops of its family and records results.
void lower_constant(LoweringContext &c, const ir::Op &op);        // LowerShape.cpp
void lower_shape(LoweringContext &c, const ir::Op &op);           // arange splat broadcast ...
void lower_elementwise(LoweringContext &c, const ir::Op &op);     // LowerElementwise.cpp
void lower_cast(LoweringContext &c, const ir::Op &op);            // LowerCast.cpp
void lower_memory(LoweringContext &c, const ir::Op &op);          // LowerMemory.cpp
void lower_atomic(LoweringContext &c, const ir::Op &op);          // LowerAtomic.cpp
void lower_reduce(LoweringContext &c, const ir::Op &op);          // LowerReduce.cpp
void lower_scan(LoweringContext &c, const ir::Op &op);            // LowerScan.cpp
void lower_control_flow(LoweringContext &c, const ir::Op &op);    // LowerControlFlow.cpp
void lower_program(LoweringContext &c, const ir::Op &op);         // program_id, num_programs
void lower_debug(LoweringContext &c, const ir::Op &op);           // LowerDebug.cpp
void lower_convert_layout(LoweringContext &c, const ir::Op &op);  // LowerConvert.cpp
void lower_dot(LoweringContext &c, const ir::Op &op);             // LowerDot.cpp
void lower_inline_asm(LoweringContext &c, const ir::Op &op);      // LowerAsm.cpp
void lower_hardware(LoweringContext &c, const ir::Op &op);        // hw_register, griddepcontrol
void lower_make_tmap(LoweringContext &c, const ir::Op &op);       // LowerTma.cpp
void lower_tma_store(LoweringContext &c, const ir::Op &op);       // LowerTma.cpp
void lower_warp_specialize(LoweringContext &c, const ir::Op &op); // LowerWarpSpecialize.cpp
// gather, histogram: through shared-memory scratch (LowerGather.cpp)
void lower_gather_histogram(LoweringContext &c, const ir::Op &op);
// convert_layout into an mma operand of 16-bit elements through ldmatrix (false: not one)
bool lower_convert_to_dot_operand(LoweringContext &c, const ir::Op &op); // LowerDotOperand.cpp

// Stores the tile `regs` (elements of `elem`) into shared memory at byte `base` + the
// placement `off` ((register, lane, warp) -> element offset): stmatrix where it fits, else
// st.shared of each thread's runs, registers holding a first copy of their element only.
// The caller orders it (smem_before_write / smem_after_write). LowerConvert.cpp.
void store_to_shared(LoweringContext &c, const std::vector<Reg> &regs,
                     const layout::LinearLayout &off, const ir::Type &elem, int64_t base);

// Scalar building blocks shared between families.
// One element of an elementwise op (operands in the op's operand order).
Reg emit_elementwise(LoweringContext &c, const ir::Op &op, const std::vector<Reg> &operands);
// Conversion of one element between element types (cast semantics of Ops.def).
Reg emit_cast(LoweringContext &c, Reg x, const ir::Type &from, const ir::Type &to,
              bool round_to_zero, SourceLoc loc);

// p ? a : b for registers of any type (selp, or pred logic for i1).
Reg select_reg(LoweringContext &c, Reg p, Reg a, Reg b);
// Asserts that the tile values among `vals` (nulls skipped) share one layout: register i
// of each then holds the same element (memory ops index them together).
void expect_same_layout(LoweringContext &c, const ir::Op &op,
                        const std::vector<const ir::Value *> &vals);
// shfl.sync of a register of any type (pred, 16, 32 or 64 bits) with a full member mask.
Reg shfl_any(LoweringContext &c, simt::ShflMode mode, Reg v, Operand b, Operand clamp);

// Moves the registers of a value from layout `src` to layout `dst` (same tile shape):
// a relabelling when each thread already holds what it needs, else through shared memory
// (scratch of `op`). `elem` is the element type.
std::vector<Reg> convert_regs(LoweringContext &c, const ir::Op &op, const std::vector<Reg> &regs,
                              const layout::LinearLayout &src, const layout::LinearLayout &dst,
                              const ir::Type &elem);
// The relabelling alone: empty when some thread lacks an element it needs.
std::vector<Reg> relabel_regs(const std::vector<Reg> &regs, const std::vector<bool> &valid,
                              const layout::LinearLayout &src, const layout::LinearLayout &dst);

} // namespace tilec::lower
