#include "layout/RingLayouts.h"

#include "ir/RingOps.h"
#include "layout/AssignLayouts.h"
#include "layout/Layouts.h"
#include "layout/MmaLayouts.h"

namespace tilec::layout {

namespace {

// The lowering of each consumer kind lands separately (lower/LowerRing.cpp, LowerWgmma,
// LowerDotOperand): until it does, the pass leaves that kind's loops alone.
constexpr bool kWgmmaRingLowered = true;
constexpr bool kMmaSyncRingLowered = true;
// tf32 operands are not put in rings: wgmma reads the top 19 bits of fp32 in shared
// memory (truncation) while tl.dot rounds them to tf32 (the staged path's cvt.rna).
constexpr bool kWgmmaRingTf32 = false;

int elem_bytes(const ir::Type &t) { return ir::bits(t.elem) / 8; }

bool is_mma_sync_operand(const ir::Op &dot, int operand) {
  const ir::LayoutRef &l = dot.operand(static_cast<size_t>(operand))->type.layout;
  return l && l->kind == ir::LayoutKind::DotOperand && l->parent &&
         l->parent->kind == ir::LayoutKind::Mma && l->parent->mma_version == 2 && l->k_width == 2;
}

// Whether a ring could feed the operand (layouts, rank, dtype), lowered or not.
bool eligible(const ir::Op &dot, int operand) {
  if (dot.kind() != ir::OpKind::Dot || operand < 0 || operand > 1)
    return false;
  const ir::Type &t = dot.operand(static_cast<size_t>(operand))->type;
  if (t.rank() != 2 || t.ptr)
    return false;
  int eb = elem_bytes(t);
  if (is_wgmma_dot(dot))
    return eb == 2 || eb == 4 || eb == 1; // fp16/bf16, tf32, int8 (K-major only for 4 and 1)
  return is_mma_sync_operand(dot, operand) && eb == 2;
}

} // namespace

bool ring_consumer_supported(const ir::Op &dot, int operand) {
  if (!eligible(dot, operand))
    return false;
  if (is_wgmma_dot(dot))
    return kWgmmaRingLowered &&
           (kWgmmaRingTf32 || elem_bytes(dot.operand(static_cast<size_t>(operand))->type) != 4);
  return kMmaSyncRingLowered;
}

bool ring_consumer_supported_before_layouts(const ir::Op &dot, int operand, const ir::Module &m) {
  if (dot.kind() != ir::OpKind::Dot || dot.result(0)->type.rank() != 2)
    return false;
  ir::LayoutRef r = dot_result_layout(dot, static_cast<int>(m.int_attr("num_warps", 4)),
                                      module_has_wgmma(m), module_has_f64_mma(m));
  if (!r || r->kind != ir::LayoutKind::Mma)
    return false;
  const ir::Type &t = dot.operand(static_cast<size_t>(operand))->type;
  int eb = elem_bytes(t);
  if (r->mma_version == 3)
    return (eb == 2 || (eb == 4 && kWgmmaRingTf32) || eb == 1) && kWgmmaRingLowered;
  return eb == 2 && mma_k_width(t.elem) == 2 && kMmaSyncRingLowered;
}

namespace {

// The wgmma operand placement of a ring stage, given the instruction N of the dot's layout.
std::optional<WgmmaOperandSmem> wgmma_stage(const ir::Op &dot, int operand, int contiguous_dim,
                                            int32_t instr_n) {
  const ir::Type &t = dot.operand(static_cast<size_t>(operand))->type;
  int eb = elem_bytes(t);
  bool b = operand == 1;
  int kdim = b ? 0 : 1;
  bool mn_major = contiguous_dim != kdim;
  if (mn_major && eb != 2) // tf32 and int8: K-major only
    return std::nullopt;
  int32_t mn = static_cast<int32_t>(t.shape[b ? 1 : 0]);
  int32_t k = static_cast<int32_t>(t.shape[static_cast<size_t>(kdim)]);
  return wgmma_operand_smem(mn, k, eb, mn_major, b, b ? instr_n : 64);
}

} // namespace

std::optional<WgmmaOperandSmem> ring_wgmma_smem(const ir::Op &dot, int operand,
                                                int contiguous_dim) {
  if (!eligible(dot, operand) || !is_wgmma_dot(dot))
    return std::nullopt;
  return wgmma_stage(dot, operand, contiguous_dim, dot.result(0)->type.layout->instr_shape[1]);
}

std::optional<LinearLayout> wgmma_ring_stage_before_layouts(const ir::Op &dot, int operand,
                                                            int contiguous_dim,
                                                            const ir::Module &m) {
  if (!ring_consumer_supported_before_layouts(dot, operand, m))
    return std::nullopt;
  ir::LayoutRef r = dot_result_layout(dot, static_cast<int>(m.int_attr("num_warps", 4)),
                                      module_has_wgmma(m), module_has_f64_mma(m));
  if (r->mma_version != 3 || (contiguous_dim != 0 && contiguous_dim != 1))
    return std::nullopt;
  std::optional<WgmmaOperandSmem> s = wgmma_stage(dot, operand, contiguous_dim, r->instr_shape[1]);
  if (!s)
    return std::nullopt;
  return s->layout;
}

std::optional<LinearLayout> ring_stage_layout(const ir::Op &dot, int operand, int contiguous_dim) {
  if (!eligible(dot, operand) || (contiguous_dim != 0 && contiguous_dim != 1))
    return std::nullopt;
  if (is_wgmma_dot(dot)) {
    std::optional<WgmmaOperandSmem> s = ring_wgmma_smem(dot, operand, contiguous_dim);
    if (!s)
      return std::nullopt;
    return s->layout;
  }
  // mma.sync: rows of the contiguous dim, 16-byte chunks XOR-ed by the row so that 8
  // consecutive rows (an ldmatrix matrix, or 8 cp.async chunks) hit 8 bank groups
  const ir::Shape &shape = dot.operand(static_cast<size_t>(operand))->type.shape;
  int64_t cols = shape[static_cast<size_t>(contiguous_dim)];
  if (cols < 8)
    return std::nullopt;
  int64_t row_bytes = cols * 2;
  int32_t per_phase = row_bytes >= 128 ? 1 : static_cast<int32_t>(128 / row_bytes);
  int32_t max_phase = row_bytes >= 128 ? 8 : static_cast<int32_t>(row_bytes / 16);
  if (max_phase == 1)
    per_phase = 1;
  std::vector<int32_t> order = {contiguous_dim, 1 - contiguous_dim};
  return shared_swizzled(8, per_phase, max_phase, order, shape);
}

int ring_contiguous_dim(const ir::Type &buf) {
  TILEC_ASSERT(ir::is_ring_buffer_type(buf), "ring_contiguous_dim of a non-ring type");
  const auto &b = buf.layout->bases[0].second;
  TILEC_ASSERT(!b.empty(), "a ring buffer without offset bases");
  return b[0][2] != 0 ? 1 : 0;
}

LinearLayout ring_stage_linear(const ir::Type &buf) {
  TILEC_ASSERT(ir::is_ring_buffer_type(buf), "ring_stage_linear of a non-ring type");
  int per_stage = log2i(buf.shape[1] * buf.shape[2]);
  std::vector<LinearLayout::Basis> bases;
  const auto &b = buf.layout->bases[0].second;
  for (int i = 0; i < per_stage; ++i)
    bases.push_back({b[static_cast<size_t>(i)][1], b[static_cast<size_t>(i)][2]});
  return LinearLayout({{kOffset, bases}}, {{"dim0", static_cast<int32_t>(buf.shape[1])},
                                           {"dim1", static_cast<int32_t>(buf.shape[2])}});
}

LinearLayout transposed_stage(const LinearLayout &stage) {
  std::vector<LinearLayout::Basis> bases;
  for (int i = 0; i < stage.in_dim_bits(kOffset); ++i) {
    const LinearLayout::Basis &b = stage.basis(kOffset, i);
    bases.push_back({b[1], b[0]});
  }
  return LinearLayout({{kOffset, bases}},
                      {{"dim0", stage.out_dim_size("dim1")}, {"dim1", stage.out_dim_size("dim0")}});
}

int64_t ring_stage_bytes(const ir::Type &buf) {
  return buf.shape[1] * buf.shape[2] * ir::byte_size(buf.elem);
}

} // namespace tilec::layout
