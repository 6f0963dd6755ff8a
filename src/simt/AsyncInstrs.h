// Builders and helpers for the sm_80 / sm_90 asynchronous instructions of Thread IR:
// cp.async (groups), mbarrier, wgmma (warpgroup MMA with shared-memory matrix
// descriptors), fence.proxy.async and TMA loads (cp.async.bulk.tensor). Operand
// conventions: simt/Instrs.def.
//
// A double-buffered copy of 16 bytes per thread, waited for before use:
//
//   Reg dst = b.shared_addr(0);                           // a .shared address (u32)
//   cp_async(b, Operand::addr(dst), Operand::addr(src), 16, Operand::imm(16));
//   cp_async_commit(b);
//   ... issue the next stage, cp_async_commit(b) ...
//   cp_async_wait(b, 1);  bar_sync                        // the first group has landed
//
// A TMA load of one box, waited for on an mbarrier (the tensor map is a 128-byte param:
// fn.add_blob_param("desc", kTensorMapBytes, kTensorMapAlign), simt/TensorMap.h):
//
//   Reg tmap = cvta_param(b, desc);                      // its generic address
//   { auto g = b.guarded(is_thread0);
//     mbarrier_arrive_expect_tx(b, bar, imm(box_bytes));
//     cp_async_bulk_tensor(b, dst, bar, tmap, {x, y}); } // x innermost
//   mbarrier_wait(b, bar, imm(phase & 1));               // every reader waits
//
// The targets that have each instruction: instr_min_sm / instr_needs_sm90a (the PTX
// printer refuses the others with a CompileError naming the instruction).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "simt/Builder.h"

namespace tilec::simt {

// ---- cp.async (sm_80) ----
// cp.async.{ca,cg}.shared.global [dst], [src], bytes[, src_bytes]: `bytes` is 4, 8 or 16
// (.cg only for 16); `src_bytes` (reg u32 or imm; none: all) are read, the rest of the
// destination is zero-filled (masked loads use 0).
void cp_async(Builder &b, Operand dst_shared, Operand src_global, int bytes, Operand src_bytes = {},
              CacheOp cache = CacheOp::None);
void cp_async_commit(Builder &b);
// cp.async.mbarrier.arrive.noinc [bar]: an arrival once this thread's copies have landed
void cp_async_mbarrier_arrive(Builder &b, Operand bar);
void cp_async_wait(Builder &b, int pending); // cp.async.wait_group pending

// ---- mbarrier (.shared::cta.b64; init/arrive sm_80, expect_tx/try_wait sm_90) ----
void mbarrier_init(Builder &b, Operand bar, Operand count);
Reg mbarrier_arrive(Builder &b, Operand bar); // the state (b64)
Reg mbarrier_arrive_expect_tx(Builder &b, Operand bar, Operand tx_bytes);
Reg mbarrier_try_wait_parity(Builder &b, Operand bar, Operand parity); // pred: phase done
void mbarrier_inval(Builder &b, Operand bar);
// Spins on try_wait.parity until the phase with `parity` has completed (a loop of two
// blocks: the builder continues in the block after it).
void mbarrier_wait(Builder &b, Operand bar, Operand parity);

// ---- TMA (sm_90) ----
// cvta.param.u64: the generic address of kernel parameter `param_index` (u64).
Reg cvta_param(Builder &b, uint32_t param_index);
// cp.async.bulk.tensor.<n>d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: the box
// of the tensor map at generic address `tmap` starting at `coords` (s32 regs or imms,
// innermost first; n = coords.size(), 1..5) lands at `dst_shared` and completes its byte
// count on the mbarrier at `bar_shared` (both .shared addresses).
void cp_async_bulk_tensor(Builder &b, Operand dst_shared, Operand bar_shared, Reg tmap,
                          const std::vector<Operand> &coords);

// TMA store (cp.async.bulk.tensor.<n>d.global.shared::cta.bulk_group): the box at
// `src_shared` goes to the tensor of the map at `tmap` at `coords` (innermost first);
// then cp_async_bulk_commit, and cp_async_bulk_wait_read before the source is reused.
void cp_async_bulk_tensor_store(Builder &b, Operand src_shared, Reg tmap,
                                const std::vector<Operand> &coords);
void cp_async_bulk_commit(Builder &b);
void cp_async_bulk_wait_read(Builder &b, int pending);

// ---- tensor maps built in the kernel (sm_90a; printed as PTX ISA 8.6, instr_min_ptx_minor) ----
// tensormap.replace.tile.<field>.shared::cta.b1024.<b32|b64>: sets one field of the map at
// .shared address `map`; `ord` (the dim) for the fields that have one, else -1.
void tensormap_replace(Builder &b, Operand map, TmapField field, int ord, Ty ty, Operand value);
// The warp copies the map at .shared `map` to `global` (b64 generic address of global
// memory), releasing it to the tensor-map proxy; every lane of the warp runs it.
void tensormap_cp_fenceproxy(Builder &b, Reg global, Operand map);
// fence.proxy.tensormap::generic.acquire.gpu [global], 128: before TMA uses the map.
void fence_proxy_tensormap(Builder &b, Reg global);
void bar_warp_sync(Builder &b); // bar.warp.sync -1
// PTX's elemtype code of a tensor map of `dtype` elements (an ir dtype name: "fp16",
// "bf16", "fp32", "i32", "u8", ...); -1 when TMA has none.
int tensormap_elemtype(std::string_view dtype);

// ---- wgmma (sm_90a) ----
enum class Swizzle : uint8_t { None = 0, B128 = 1, B64 = 2, B32 = 3 }; // descriptor encoding
int swizzle_bytes(Swizzle s);                                          // 0, 128, 64, 32

// A shared-memory matrix descriptor (PTX ISA "matrix descriptor"). Byte quantities; the
// descriptor holds them >> 4. Canonical layouts, with T = 16 bytes of elements:
//   K-major, no swizzle:  ((8,m),(T,2k)) : ((16B, sbo), (elem, lbo))
//   K-major, S-byte swizzle: ((8,m),(T,2k)) : ((S, sbo), (elem, 16B))  (lbo unused)
//   MN-major, no swizzle: ((T,m),(8,k)) : ((elem, sbo), (16B, lbo))
//   MN-major, S-byte swizzle: ((S/elem,m),(8,k)) : ((elem, lbo), (S, sbo))
// then the swizzle XORs address bits [4, 4+log2(S/16)) with bits [7, ...).
struct MatrixDesc {
  uint32_t start = 0; // .shared byte address (16-byte aligned)
  uint32_t lbo = 0;   // leading-dimension byte offset
  uint32_t sbo = 0;   // stride-dimension byte offset
  uint8_t base_offset = 0;
  Swizzle swizzle = Swizzle::None;
  uint64_t encode() const;
  static MatrixDesc decode(uint64_t bits);
};

// The .shared byte address of element (mn, k) of an operand described by `d` (A: mn = m;
// B: mn = n), `mn_major` = the operand is transposed (imm-trans 1).
uint32_t desc_element_addr(const MatrixDesc &d, bool mn_major, int elem_bytes, int mn, int k);

// Emits the descriptor as a b64 register: `start` (u32 .shared address, reg or imm) with
// the constant fields of `d` or'ed in.
Reg wgmma_desc(Builder &b, Operand start, const MatrixDesc &d);
// The same in two steps, for descriptors that differ only in their start: the low word
// (the start field (start >> 4) & 0x3fff, `d`'s leading byte offset above it), to which
// offsets (bytes >> 4) are added in 32 bits, then a low word widened with `d`'s high word.
// A start field stays below 2^14 (.shared addresses), so no add carries out of it; written
// so, ptxas sees a constant high word (one move), where a 64-bit add to an opaque
// descriptor costs a carry chain.
Reg wgmma_desc_low(Builder &b, Operand start, const MatrixDesc &d);
Reg wgmma_desc_of(Builder &b, Operand low, const MatrixDesc &d);

struct WgmmaShape {
  int n = 8;             // 8..256, multiple of 8
  Ty acc = Ty::F32;      // F32, F16 (packed f16x2 registers) or S32
  Ty input = Ty::F16;    // A's: F16, BF16, TF32, S8, or fp8 as E4M3x2 / E5M2x2 (one byte each)
  Ty input_b = Ty::None; // B's where it differs from A's (fp8 only); None: A's
  Ty b() const { return input_b == Ty::None ? input : input_b; }
  int k() const;        // 16, 8 (tf32) or 32 (8-bit: s8, e4m3, e5m2)
  int acc_regs() const; // per thread: n/2 (f32/s32) or n/4 (f16)
};

// wgmma.mma_async: d (acc_regs registers, read and written) += A * B. A from shared
// memory (`a_desc`) or registers (`a_regs`: 4 b32 per thread, the mma.m16n8kK A
// fragment of the warp's 16 rows); `scale_d` false (pred reg or imm 0): D = A * B.
void wgmma(Builder &b, const WgmmaShape &s, const std::vector<Reg> &d, Operand a_desc,
           const std::vector<Reg> &a_regs, Operand b_desc, Operand scale_d, bool trans_a,
           bool trans_b);
void wgmma_fence(Builder &b);
void wgmma_commit(Builder &b);
void wgmma_wait(Builder &b, int pending);
void fence_proxy_async(Builder &b);

// What is wrong with an async/wgmma instruction's operands and modifiers beyond the
// generic checks (empty: nothing). Called by simt::verify.
std::string async_instr_error(const Function &fn, const Instr &in);

// ---- targets ----
int instr_min_sm(const Instr &in);       // 0: every target
bool instr_needs_sm90a(const Instr &in); // the arch-specific sm_90a features (wgmma)
// The wgmma family: wgmma.fence, wgmma.mma_async, wgmma.commit_group, wgmma.wait_group.
bool is_wgmma(Op op);
// The bulk-copy and tensor-map family (cp.async.bulk.*, tensormap.*, fence.proxy.tensormap,
// and bar.warp.sync, which orders a map's building): each reads or writes memory
// asynchronously or orders such accesses.
bool is_bulk_or_tensormap(Op op);
// The PTX ISA 8.x an instruction needs (8.0: 0; cvta.param's 7.7 and cp.async.bulk.tensor's
// 8.0 are met by every version the printer emits; tensormap.*: 8.6, see the .cpp).
int instr_min_ptx_minor(const Instr &in);

} // namespace tilec::simt
