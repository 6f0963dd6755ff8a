#include "ir/RingOps.h"

namespace tilec::ir {

namespace {

int ceil_log2(int64_t v) {
  int b = 0;
  while ((int64_t{1} << b) < v)
    ++b;
  return b;
}

bool is_i32_scalar(const Type &t) { return !t.ptr && t.is_scalar() && t.elem == DType::I32; }

// The placement's problems: the per-stage bases (stage component 0, within [d0, d1], one
// per bit of d0*d1, together reaching every element) followed by the stage bits.
std::string check_placement(const Type &t) {
  const auto &b = t.layout->bases[0].second;
  int64_t s = t.shape[0], d0 = t.shape[1], d1 = t.shape[2];
  if (!is_power_of_two(d0) || !is_power_of_two(d1))
    return "a ring buffer's tile dims must be powers of two, got " + t.str();
  int per_stage = ceil_log2(d0 * d1);
  if (static_cast<int>(b.size()) != per_stage + ceil_log2(s))
    return "a ring buffer's layout needs " + std::to_string(per_stage + ceil_log2(s)) +
           " offset bases (" + std::to_string(per_stage) + " within a stage, then the stage bits)";
  std::vector<std::pair<int64_t, int>> rows; // Gaussian elimination over F2 of (d0, d1)
  for (int i = 0; i < per_stage; ++i) {
    const auto &v = b[static_cast<size_t>(i)];
    if (v[0] != 0 || v[1] < 0 || v[1] >= d0 || v[2] < 0 || v[2] >= d1)
      return "a ring buffer's offset basis " + std::to_string(i) +
             " must stay within one stage's [d0, d1]";
    int64_t x = int64_t{v[1]} * d1 + v[2];
    for (const auto &[r, lead] : rows)
      if ((x >> lead) & 1)
        x ^= r;
    if (x == 0)
      return "a ring buffer's offset bases must reach every element of a stage";
    int lead = 63 - __builtin_clzll(static_cast<unsigned long long>(x));
    rows.emplace_back(x, lead);
  }
  for (int j = 0; j < ceil_log2(s); ++j) {
    const auto &v = b[static_cast<size_t>(per_stage + j)];
    if (v[0] != (1 << j) || v[1] != 0 || v[2] != 0)
      return "a ring buffer's offset bits above a stage must select the stage";
  }
  return "";
}

} // namespace

bool is_tensor_map_arg(const Function &fn, size_t i) {
  if (i >= fn.arg_names.size())
    return false;
  const std::string &n = fn.arg_names[i];
  return n.size() > 5 && n.compare(n.size() - 5, 5, ".tmap") == 0;
}

bool is_ring_op(OpKind k) {
  return k == OpKind::LocalAlloc || k == OpKind::AsyncCopy || k == OpKind::AsyncCommit ||
         k == OpKind::AsyncWait || k == OpKind::LocalLoad || k == OpKind::TmaCopy ||
         k == OpKind::TmaWait || k == OpKind::TmaRelease || k == OpKind::TmaFree ||
         k == OpKind::AsyncArrive;
}

bool is_ring_buffer_type(const Type &t) {
  return !t.ptr && t.rank() == 3 && t.layout && t.layout->kind == LayoutKind::Linear &&
         !t.layout->is_distributed();
}

Type ring_buffer_type(DType elem, int64_t stages, int64_t d0, int64_t d1,
                      const std::vector<std::vector<int32_t>> &stage_bases) {
  std::vector<std::vector<int32_t>> b;
  for (const auto &v : stage_bases)
    b.push_back({0, v.at(0), v.at(1)});
  for (int j = 0; j < ceil_log2(stages); ++j)
    b.push_back({1 << j, 0, 0});
  return Type(elem, false, {stages, d0, d1}).with_layout(Layout::linear(3, {{"offset", b}}));
}

namespace {
// Whether op's buffer is a TMA ring with free barriers (warp specialisation).
bool free_ring(const Op &op) {
  const Op *alloc = op.operand(0)->def;
  return alloc && (alloc->int_attr("tma", 0) || alloc->int_attr("mbar", 0)) &&
         alloc->int_attr("free", 0) > 0;
}
} // namespace

std::string verify_ring_op(const Op &op) {
  auto count = [&](size_t lo, size_t hi, size_t res) -> std::string {
    if (op.num_operands() < lo || op.num_operands() > hi || op.num_results() != res)
      return "expected " + std::to_string(lo) + (lo == hi ? "" : " to " + std::to_string(hi)) +
             " operands and " + std::to_string(res) + " results";
    return "";
  };
  // (buf, stage) of async_copy / local_load; the buffer's [d0, d1] and element type.
  auto buf_stage = [&]() -> std::string {
    const Type &b = op.operand(0)->type;
    if (!is_ring_buffer_type(b))
      return "operand 0 must be a ring buffer (from local_alloc), got " + b.str();
    if (!is_i32_scalar(op.operand(1)->type))
      return "the stage must be a scalar i32";
    return "";
  };
  std::string e;
  switch (op.kind()) {
  case OpKind::LocalAlloc: {
    if (!(e = count(0, 0, 1)).empty())
      return e;
    const Type &t = op.result(0)->type;
    if (!is_ring_buffer_type(t))
      return "result must be tile<S x d0 x d1 x elem, #linear<rank=3, offset=[...]>>, got " +
             t.str();
    if (std::string p = check_layout(*t.layout, 3); !p.empty())
      return p;
    return check_placement(t);
  }
  case OpKind::AsyncCopy: {
    if (!(e = count(3, 4, 0)).empty() || !(e = buf_stage()).empty())
      return e;
    const Type &b = op.operand(0)->type, &p = op.operand(2)->type;
    if (!p.ptr || p.elem != b.elem || p.shape != Shape{b.shape[1], b.shape[2]})
      return "the pointer tile must be tile<" + std::to_string(b.shape[1]) + "x" +
             std::to_string(b.shape[2]) + "xptr<" + std::string(ir_name(b.elem)) + ">>, got " +
             p.str();
    if (op.num_operands() == 4) {
      const Type &m = op.operand(3)->type;
      if (m.ptr || m.elem != DType::I1 || m.shape != p.shape)
        return "the mask must be i1 with the pointer's shape, got " + m.str();
    }
    return "";
  }
  case OpKind::AsyncCommit:
    return count(0, 0, 0);
  case OpKind::AsyncWait: {
    if (!(e = count(0, 0, 0)).empty())
      return e;
    const AttrValue *a = op.attr("pending");
    if (!a || !std::holds_alternative<int64_t>(*a) || std::get<int64_t>(*a) < 0)
      return "needs an integer attribute `pending` >= 0";
    return "";
  }
  case OpKind::TmaCopy: {
    if (!(e = count(6, 9, 0)).empty() || !(e = buf_stage()).empty())
      return e;
    const Op *alloc = op.operand(0)->def;
    if (!alloc || alloc->int_attr("tma", 0) == 0)
      return "the buffer must be a TMA ring (local_alloc {tma = 1})";
    const Type &pr = op.operand(2)->type, &m = op.operand(3)->type;
    if (pr.ptr || pr.elem != DType::I1 || !pr.is_scalar())
      return "in_range must be a scalar i1";
    if (!m.ptr || !m.is_scalar())
      return "the tensor map must be a scalar pointer";
    for (size_t i = 4; i < op.num_operands(); ++i)
      if (!is_i32_scalar(op.operand(i)->type))
        return "the offsets must be i32 scalars";
    std::vector<int64_t> box = op.ints_attr("box");
    const Type &b = op.operand(0)->type;
    int64_t panels = op.int_attr("panels", 0), swz = op.int_attr("swizzle", -1);
    if (box.size() != 2 || box[0] < 1 || box[1] < 1 || panels < 1 ||
        box[0] * box[1] * panels != b.shape[1] * b.shape[2] ||
        (swz != 0 && swz != 32 && swz != 64 && swz != 128))
      return "needs attributes box = [rows, cols], panels and swizzle (0, 32, 64, 128) "
             "covering one stage";
    return "";
  }
  case OpKind::TmaWait: {
    bool free = op.int_attr("free", 0) != 0;
    if (!(e = count(free ? 4 : 3, free ? 4 : 3, 0)).empty() || !(e = buf_stage()).empty())
      return e;
    if (!is_i32_scalar(op.operand(2)->type))
      return "the phase must be a scalar i32";
    if (free && !free_ring(op))
      return "a wait for a free stage needs a ring with free barriers (local_alloc {free})";
    if (free && op.operand(3)->type != Type(DType::I1))
      return "`when` must be a scalar i1";
    return "";
  }
  case OpKind::AsyncArrive: {
    if (!(e = count(3, 3, 0)).empty() || !(e = buf_stage()).empty())
      return e;
    if (op.operand(2)->type != Type(DType::I1))
      return "in_range must be a scalar i1";
    const Op *alloc = op.operand(0)->def;
    if (!alloc || !alloc->int_attr("mbar", 0))
      return "the buffer must be a cp.async ring with barriers (local_alloc {mbar = 1})";
    return "";
  }
  case OpKind::TmaFree: {
    if (!(e = count(3, 3, 0)).empty() || !(e = buf_stage()).empty())
      return e;
    if (!free_ring(op))
      return "the buffer must be a TMA ring with free barriers (local_alloc {tma, free})";
    if (op.operand(2)->type != Type(DType::I1))
      return "`when` must be a scalar i1";
    return "";
  }
  case OpKind::TmaRelease:
    if (!(e = count(1, 1, 0)).empty())
      return e;
    if (!is_ring_buffer_type(op.operand(0)->type))
      return "operand 0 must be a ring buffer";
    return "";
  case OpKind::LocalLoad: {
    if (!(e = count(2, 2, 1)).empty() || !(e = buf_stage()).empty())
      return e;
    const Type &b = op.operand(0)->type, &r = op.result(0)->type;
    int64_t trans = op.int_attr("trans", 0); // the stage read transposed (a second reader)
    Shape want = trans ? Shape{b.shape[2], b.shape[1]} : Shape{b.shape[1], b.shape[2]};
    if (trans != 0 && trans != 1)
      return "trans must be 0 or 1";
    if (r.ptr || r.elem != b.elem || r.shape != want)
      return "result must be a [" + std::to_string(want[0]) + ", " + std::to_string(want[1]) +
             "] tile of " + std::string(ir_name(b.elem)) + ", got " + r.str();
    return "";
  }
  default:
    return "not a ring op";
  }
}

} // namespace tilec::ir
