// Tensor-core layouts: the mma.sync (v2) accumulator and its dot operands as linear
// layouts (ir/Layout.h: #mma, #dot_op), and the choices layout assignment makes for a dot.
//
// Accumulator [M, N] (batched [B, M, N]), per warp one 16x8 instruction tile, the PTX
// ISA's C fragment (g = lane / 4, t = lane % 4; c0,c1 at (g, 2t + i), c2,c3 at (g + 8, ..)):
//   register: n+1, m+8      lane: n+2, n+4, m+1, m+2, m+4
//   warp:     n+8, n+16, .. (warps_per_cta[N]), then m+16, .. (warps_per_cta[M]), then batch
// Operand A [M, K] with kw = k_width, K_instr = 8 * kw:
//   register: k+1 .. k+kw/2, m+8, k+4kw      lane: k+kw, k+2kw, m+1, m+2, m+4
//   warp:     the accumulator's, with its N bits broadcast (zero)
// Operand B [K, N]:
//   register: k+1 .. k+kw/2, k+4kw           lane: k+kw, k+2kw, n+1, n+2, n+4
//   warp:     the accumulator's, with its M bits broadcast
// Larger tiles repeat the instruction tile in registers (fit_to_shape). These are exactly
// the A/B/C fragments of m16n8k16 (kw 2), m16n8k8 tf32 and fp64 (kw 1) and m16n8k32 8-bit
// (kw 4); fp64's m8n8k4 (sm_80) covers an m16n8k8 tile in four.
//
// A dot operand of a *blocked* parent (the FMA path): the parent's bases with the other
// operand's dim broadcast, and every K element in registers.
#pragma once

#include "ir/IR.h"
#include "layout/LinearLayout.h"
#include "layout/WgmmaLayouts.h"

namespace tilec::layout {

LinearLayout mma_v2(const std::vector<int32_t> &warps_per_cta, const ir::Shape &shape);
// `l` is a DotOperand encoding; `shape` the operand's tile shape.
LinearLayout dot_operand(const ir::Layout &l, const ir::Shape &shape);

// warps_per_cta of the mma accumulator for a result of `shape` (rank 2 or 3), as
// Triton's warpsPerTileV2 chooses it: warps go to M while it has more instruction tiles
// per warp than N (counted in 16-wide units), else to N; batched: warps to the batch dim
// first.
std::vector<int32_t> mma_warps_per_cta(const ir::Shape &shape, int num_warps);
// k_width of an operand element type: 32 / bits (fp32 as tf32 -> 1).
int32_t mma_k_width(ir::DType operand);
// Whether `dot` can run on mma.sync: its operand types (fp16/bf16, fp32 with tf32
// precision, int8; fp64 -> fp64 when `f64`, the target's tensor cores have fast fp64)
// and M >= 16, N >= 8, K >= the instruction's K. The layout choices below follow it;
// lowering relies on the same test.
bool dot_uses_mma(const ir::Op &dot, bool f64 = false);
// Whether `dot` can run on wgmma (sm_90a): rank 2, fp16/bf16 -> fp32, fp16 -> fp16, fp32
// as tf32 -> fp32, int8 -> int32 or fp8 (e4m3, e5m2) -> fp32 / fp16 (8-bit: K >= 32),
// num_warps a multiple of 4, M a multiple of 64 with every warpgroup given its own
// 64-row x N/wg_n block (none replicated), N >= 16, K >= 16.
bool dot_uses_wgmma(const ir::Op &dot, int num_warps);
// Whether `op` is a dot laid out for wgmma (its result #mma<v=3>).
bool is_wgmma_dot(const ir::Op &op);
// The loop whose K iterations a #mma<v=3> dot pipelines (null: none): the dot accumulates
// into a loop-carried fp32 or int32 tile (acc is a `for` body argument used only by the
// dot, or by its zeroing select below; the result yielded back into it, and maybe read in
// `if`s of the body, a flattened loop's epilogue), no other wgmma dot is in the body nor,
// when the dot stages operands in buffers of its own, an op using shared scratch, and an
// op (not a terminator) follows the loop. Lowering then keeps the wgmma groups in flight
// across iterations (wait_group 1, the accumulator in the carried registers; two operand
// buffers when staged) and retires them at the start of the `if` regions reading them.
const ir::Op *wgmma_pipelined_loop(const ir::Op &dot);
// dot(a, b, select(splat(c), 0, x)) on wgmma, the select used by the dot alone (a
// flattened loop's accumulator reset, transforms/FlattenLoops.h): the wgmma accumulates
// into x's registers with scale-d = !c, and the select itself is not lowered. The select,
// or null. (Not with max_num_imprecise_acc: its partial sums start from zero anyway.)
const ir::Op *wgmma_zeroing_select(const ir::Op &dot);
// The same seen from the select: whether `select` is the zeroing select of a wgmma dot.
bool is_wgmma_zeroing_select(const ir::Op &select);
// The K steps (of 32) an fp8 wgmma dot into fp32 sums in the tensor cores' own reduced
// precision before adding that partial sum to the accumulator with add.f32: Triton's
// Hopper rule for `max_num_imprecise_acc` m (1 <= m <= K; rounded up to whole steps);
// 0 (None, every other dot): never, the tensor cores accumulate all of K.
int wgmma_imprecise_steps(const ir::Op &dot);
// The `for` loop whose body holds a #mma<v=3> `dot` when its operand i (0: A, 1: B) is
// defined outside that loop (null otherwise): lowering stores that operand to shared
// memory once, before the loop, and allocate_shared keeps the dot's scratch for the whole
// loop.
const ir::Op *wgmma_invariant_operand_loop(const ir::Op &dot, int i);
// Whether every thread already holds, in the A operand's registers, the wgmma A fragments
// of its warp's 16 rows of each 64-row tile (attention's p, itself a wgmma result with the
// warps along M): lowering reads A from registers and stages only B. 16-bit elements are
// the fragments as they are; 8-bit ones (fp8 p) are pairs the lowering regroups by
// shuffles within each quad of lanes.
bool wgmma_a_from_registers(const ir::Op &dot);

// Whether a dot operand comes from a ring stage (local_load): read there in place.
bool ring_operand(const ir::Value *v);
// Whether a wgmma dot stages operand i (0: A, 1: B) MN-major: 16-bit elements each
// thread holds more contiguously along MN than along K (its runs of 8 are 16-byte
// stores); K-major otherwise (tf32 and 8-bit operands always).
bool wgmma_staged_mn_major(const ir::Op &dot, int i);
// The shared layout a wgmma dot stages its B operand in.
WgmmaOperandSmem wgmma_staged_b(const ir::Op &dot);
// An earlier wgmma dot of the same block that stores, each time it runs, the same tile as
// this dot's B or its transpose (attention backward's qT for k @ qT and dsT @ qT^T, do for
// ppT @ do and v @ do^T) at the same bytes for every element, K-major for one and
// MN-major for the other: this dot then reads B from that dot's buffer instead of storing
// it again (allocate-shared marks it "shared_b" and keeps the first buffer until it).
// Null when there is none; dots marked "shared_b" are not candidates.
const ir::Op *wgmma_b_twin(const ir::Op &dot);
// An earlier wgmma dot of the same block that stores operands each time it runs, after B
// of this dot is computed, when this dot's only store is its B: that dot stores this B
// too, under its barriers (allocate-shared marks this dot "prestaged" and keeps its buffer
// from that dot on). Attention backward's dk / dv loop: k @ qT stores do for ppT @ do,
// one barrier pair an iteration instead of two. Null when there is none.
const ir::Op *wgmma_stage_host(const ir::Op &dot);
// Operand staging bytes of the A part of a dot's buffer (0: from registers or a ring).
int64_t wgmma_dot_a_bytes(const ir::Op &dot);
// Operand staging bytes of one buffer (A and B, each 1024-byte aligned: the swizzle is a
// function of address bits; no B when it comes from a ring or, "shared_b", a twin).
int64_t wgmma_dot_buffer_bytes(const ir::Op &dot);
// Shared bytes a dot with a #mma<v=3> result stages its operands in: one buffer (two when
// pipelined) from any 16-byte aligned start; 0 for other dots.
int64_t wgmma_dot_smem_bytes(const ir::Op &dot);
// The result layout of `dot`: #mma<v=3> when `wgmma` (the target has it) and
// dot_uses_wgmma, else #mma<v=2> (fp64 too when `f64_mma`) or, for the FMA path, a
// blocked layout.
ir::LayoutRef dot_result_layout(const ir::Op &dot, int num_warps, bool wgmma = false,
                                bool f64_mma = false);

} // namespace tilec::layout
