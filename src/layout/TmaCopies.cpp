#include "layout/TmaCopies.h"

#include <algorithm>

#include "ir/RingOps.h"
#include "support/Env.h"

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

bool tma_map_usable(const ir::Op &load, const ir::Op *loop, bool kernel_maps) {
  const ir::Value *map = load.operand(3);
  const ir::Op *d = map->def;
  if (!d) { // a kernel argument: a host descriptor's map
    const ir::Region *r = map->owner ? map->owner->parent() : nullptr;
    return r && !r->parent();
  }
  if (!kernel_maps || d->kind() != ir::OpKind::MakeTmap || d->num_operands() != 4)
    return false;
  for (const ir::Block *b = d->parent(); b && b->parent() && b->parent()->parent();
       b = b->parent()->parent()->parent())
    if (!loop || b->parent()->parent() == loop)
      return false; // built in the loop: the copies of later iterations would need it first
  // Triton's contract for tl.make_tensor_descriptor: a 16-byte aligned base and strides in
  // whole 16-byte units (Triton builds every such map on Hopper). Where axis info cannot
  // prove it (tutorial 08 reads its bases and strides from memory), the lowering checks it
  // when it builds the map (tma_map_provably_aligned).
  return true;
}

bool tma_map_provably_aligned(const ir::Op &make_tmap, const analysis::AxisInfoAnalysis &ax) {
  int64_t eb = static_cast<int64_t>(ir::byte_size(make_tmap.operand(0)->type.elem));
  const analysis::AxisInfo &base = ax.get(make_tmap.operand(0)),
                           &stride = ax.get(make_tmap.operand(3));
  return base.rank() == 1 && base.divisibility[0] % 16 == 0 && stride.rank() == 1 &&
         (stride.divisibility[0] * eb) % 16 == 0;
}

std::optional<TmaCopyPlan> tma_store_plan(int64_t rows, int64_t cols, int elem_bytes) {
  if (rows < 1 || rows > 256 || cols < 1 || (cols * elem_bytes) % 16 != 0)
    return std::nullopt;
  for (int swz : {128, 64, 32}) // a row of the block fills the swizzle's rows
    if (cols * elem_bytes >= swz && rows % 8 == 0)
      return TmaCopyPlan{rows, swz / elem_bytes, swz, cols * elem_bytes / swz};
  if (cols > 256)
    return std::nullopt;
  return TmaCopyPlan{rows, cols, 0, 1};
}

LinearLayout tma_box_layout(const TmaCopyPlan &p, int64_t rows, int64_t cols, int elem_bytes) {
  std::vector<LinearLayout::Basis> bases(static_cast<size_t>(__builtin_ctzll(rows * cols)));
  for (int64_t r = 0; r < rows; ++r) // the placement is a bijection: each offset bit's (r, c)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t off = tma_element_offset(p, r, c, elem_bytes);
      if (off && (off & (off - 1)) == 0)
        bases[static_cast<size_t>(__builtin_ctzll(off))] = {static_cast<int32_t>(r),
                                                            static_cast<int32_t>(c)};
    }
  return LinearLayout({{kOffset, std::move(bases)}}, {{dim_name(0), static_cast<int32_t>(rows)},
                                                      {dim_name(1), static_cast<int32_t>(cols)}});
}

// Whether `extent` elements of `elem_bytes` are provably whole 16-byte units: a TMA store
// writes whole units, so past an inner extent of another size (measured on an H200; Triton
// 3.6 does, its issue #11583), into memory the descriptor does not describe.
static bool whole_units(const analysis::AxisInfoAnalysis &ax, const ir::Value *extent,
                        size_t elem_bytes) {
  const analysis::AxisInfo &e = ax.get(extent);
  return e.rank() == 1 && (e.divisibility[0] * static_cast<int64_t>(elem_bytes)) % 16 == 0;
}

const ir::Op *outermost_loop(const ir::Op &op) {
  const ir::Op *loop = nullptr;
  for (const ir::Op *o = &op; o->parent() && o->parent()->parent();) {
    o = o->parent()->parent()->parent();
    if (!o)
      break;
    if (o->kind() == ir::OpKind::For || o->kind() == ir::OpKind::While)
      loop = o;
  }
  return loop;
}

void make_tma_stores(ir::Module &m, std::map<ir::Value *, TmaCopyPlan> &boxes) {
  bool kernel_maps = m.int_attr(kKernelMapsAttr, 0) != 0;
  bool defer = env::get(env::Var::TmaStoreDefer) != "0";
  for (auto &f : m.functions) {
    analysis::AxisInfoAnalysis ax(*f, &m);
    std::vector<ir::Op *> stores;
    ir::walk(f->entry(), [&](ir::Op *op) {
      if (op->kind() == ir::OpKind::Store && op->int_attr("tma", 0) && op->num_operands() == 7 &&
          tma_map_usable(*op, nullptr, kernel_maps) &&
          whole_units(ax, op->operand(4), ir::byte_size(op->operand(1)->type.elem)))
        stores.push_back(op);
    });
    for (ir::Op *op : stores) {
      ir::Value *v = op->operand(1), *map = op->operand(3);
      const ir::Type &t = v->type;
      std::optional<TmaCopyPlan> p =
          tma_store_plan(t.shape[0], t.shape[1], static_cast<int>(ir::byte_size(t.elem)));
      if (!p)
        continue;
      auto [it, fresh] = boxes.emplace(map, *p);
      if (!fresh && !(it->second.box0 == p->box0 && it->second.box1 == p->box1 &&
                      it->second.swizzle_bytes == p->swizzle_bytes))
        continue; // the map's copies took another box
      if (v->def && v->def->kind() == ir::OpKind::ConvertLayout)
        v = v->def->operand(0); // the lowering stages any layout
      ir::Builder b;
      b.set_insertion_point(op);
      std::vector<ir::NamedAttr> attrs = {{"box", std::vector<int64_t>{p->box0, p->box1}},
                                          {"swizzle", int64_t{p->swizzle_bytes}},
                                          {"panels", p->panels}};
      if (defer && outermost_loop(*op))
        attrs.push_back({"defer", int64_t{1}});
      b.create(ir::OpKind::TmaStore, {v, map, op->operand(5), op->operand(6)}, {}, std::move(attrs),
               op->loc());
      op->erase();
    }
  }
}

int64_t count_kernel_maps(const ir::Module &m) {
  int64_t n = 0;
  for (const auto &f : m.functions)
    ir::walk(f->entry(), [&](const ir::Op *op) { n += op->kind() == ir::OpKind::MakeTmap; });
  return n;
}

void place_kernel_maps(ir::Module &m, const std::map<ir::Value *, TmaCopyPlan> &boxes,
                       int64_t descriptors) {
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
  if (slots) // a slot for each descriptor, written or not, as Triton counts them
    m.attrs.push_back({"scratch_bytes", std::max(slots, descriptors) * 128});
}

} // namespace tilec::layout
