#include "layout/TmaCopies.h"

#include "ir/RingOps.h"

namespace tilec::layout {

int64_t tma_element_offset(const TmaCopyPlan &p, int64_t r, int64_t c, int elem_bytes) {
  int64_t k = c / p.box1, cc = c % p.box1;
  int64_t byte = (k * p.box0 * p.box1 + r * p.box1 + cc) * elem_bytes;
  if (p.swizzle_bytes)
    byte ^= ((byte >> 7) & (p.swizzle_bytes / 16 - 1)) << 4;
  return byte / elem_bytes;
}

std::optional<TmaCopyPlan> tma_copy_plan(const LinearLayout &stage, int64_t rows, int64_t cols,
                                         bool transposed, int elem_bytes) {
  if (rows < 1 || cols < 1 || rows > 256 || stage.total_in_size() != rows * cols)
    return std::nullopt;
  for (int swz : {128, 64, 32, 0}) {
    TmaCopyPlan p;
    p.box0 = rows;
    p.box1 = swz ? swz / elem_bytes : cols;
    p.swizzle_bytes = swz;
    // whole swizzle rows; boxes of at most 256 per dim and 16-byte multiples; every panel
    // aligned to its swizzle pattern (8 rows of S bytes; 128 bytes without a swizzle)
    if (p.box1 < 1 || cols % p.box1 || p.box1 > 256 || (p.box1 * elem_bytes) % 16)
      continue;
    p.panels = cols / p.box1;
    if ((rows * p.box1 * elem_bytes) % (swz ? 8 * swz : 128))
      continue;
    bool same = true;
    for (int64_t r = 0; r < rows && same; ++r)
      for (int64_t c = 0; c < cols && same; ++c) {
        int64_t off = tma_element_offset(p, r, c, elem_bytes);
        std::vector<int32_t> at = stage.apply(std::vector<int32_t>{static_cast<int32_t>(off)});
        same = transposed ? at[0] == c && at[1] == r : at[0] == r && at[1] == c;
      }
    if (same)
      return p;
  }
  return std::nullopt;
}

bool tma_map_usable(const ir::Op &load, const ir::Op &loop, const analysis::AxisInfoAnalysis &ax) {
  const ir::Value *map = load.operand(3);
  const ir::Op *d = map->def;
  if (!d) { // a kernel argument: a host descriptor's map
    const ir::Region *r = map->owner ? map->owner->parent() : nullptr;
    return r && !r->parent();
  }
  if (d->kind() != ir::OpKind::MakeTmap || d->num_operands() != 4)
    return false;
  for (const ir::Block *b = d->parent(); b && b->parent() && b->parent()->parent();
       b = b->parent()->parent()->parent())
    if (b->parent()->parent() == &loop)
      return false; // built in the loop: the copies of later iterations would need it first
  int64_t eb = static_cast<int64_t>(ir::byte_size(d->operand(0)->type.elem));
  const analysis::AxisInfo &base = ax.get(d->operand(0)), &stride = ax.get(d->operand(3));
  return base.rank() == 1 && base.divisibility[0] % 16 == 0 && stride.rank() == 1 &&
         (stride.divisibility[0] * eb) % 16 == 0;
}

void place_kernel_maps(ir::Module &m, const std::map<ir::Value *, TmaCopyPlan> &boxes) {
  int64_t slots = 0;
  for (auto &f : m.functions)
    ir::walk(f->entry(), [&](ir::Op *op) {
      if (op->kind() != ir::OpKind::MakeTmap || op->result(0)->users.empty())
        return;
      auto it = boxes.find(op->result(0));
      if (it == boxes.end())
        return;
      const TmaCopyPlan &p = it->second;
      op->set_attr("box", std::vector<int64_t>{p.box0, p.box1});
      op->set_attr("swizzle", int64_t{p.swizzle_bytes});
      op->set_attr("slot", slots++);
    });
  if (slots)
    m.attrs.push_back({"scratch_bytes", slots * 128});
}

} // namespace tilec::layout
