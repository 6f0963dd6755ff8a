// convert_layout, and the generic register movement the other families reuse.
//
// A conversion from layout S to layout D (same tile) is, per thread:
//  - a relabelling when S and D agree on every lane and warp basis: then thread (l, w)
//    holds R_S(r') ^ T(l, w) and needs R_D(r) ^ T(l, w), so register r of D is the
//    register r' of S with R_S(r') = R_D(r), found at compile time;
//  - otherwise a trip through shared memory: every thread writes its (first copies of)
//    elements at their row-major index, a barrier, every thread reads what D gives it.
#include <map>

#include "lower/LoweringContext.h"

namespace tilec::lower {

using layout::LinearLayout;

namespace {

// The bases of input dim `name`, or none when the layout lacks it; trailing zero bases
// (bits that change nothing) are dropped so "absent" and "all broadcast" compare equal.
std::vector<LinearLayout::Basis> thread_bases(const LinearLayout &l, const char *name) {
  std::vector<LinearLayout::Basis> b;
  if (l.has_in_dim(name))
    b = l.in_dims()[static_cast<size_t>(l.in_dim_index(name))].bases;
  auto zero = [](const LinearLayout::Basis &v) {
    for (int32_t x : v)
      if (x)
        return false;
    return true;
  };
  while (!b.empty() && zero(b.back()))
    b.pop_back();
  return b;
}

bool same_outs(const LinearLayout &a, const LinearLayout &b) {
  if (a.num_out_dims() != b.num_out_dims())
    return false;
  for (int d = 0; d < a.num_out_dims(); ++d)
    if (a.out_dims()[static_cast<size_t>(d)].size != b.out_dims()[static_cast<size_t>(d)].size)
      return false;
  return true;
}

} // namespace

std::vector<Reg> relabel_regs(const std::vector<Reg> &regs, const std::vector<bool> &valid,
                              const LinearLayout &src, const LinearLayout &dst) {
  TILEC_ASSERT(same_outs(src, dst),
               "relabel_regs: layouts of different tiles: " + src.str() + " vs " + dst.str());
  for (const char *dim : {layout::kLane, layout::kWarp})
    if (thread_bases(src, dim) != thread_bases(dst, dim))
      return {};
  std::map<std::vector<int32_t>, Reg> held;
  int32_t ns = src.in_dim_size(layout::kRegister);
  TILEC_ASSERT(static_cast<int32_t>(regs.size()) == ns, "relabel_regs: register count");
  for (int32_t r = 0; r < ns; ++r)
    if (valid.empty() || valid[static_cast<size_t>(r)])
      held.emplace(LoweringContext::reg_coords(src, r), regs[static_cast<size_t>(r)]);
  std::vector<Reg> out;
  int32_t nd = dst.in_dim_size(layout::kRegister);
  for (int32_t r = 0; r < nd; ++r) {
    auto it = held.find(LoweringContext::reg_coords(dst, r));
    if (it == held.end())
      return {};
    out.push_back(it->second);
  }
  return out;
}

std::vector<Reg> convert_regs(LoweringContext &c, const ir::Op &op, const std::vector<Reg> &regs,
                              const LinearLayout &src, const LinearLayout &dst,
                              const ir::Type &elem) {
  std::vector<Reg> out = relabel_regs(regs, {}, src, dst);
  if (!out.empty() || dst.in_dim_size(layout::kRegister) == 0)
    return out;
  // Through shared memory, row-major, no padding (layout/AllocateShared.h's scheme).
  int esize = mem_bytes(elem);
  int64_t base = c.scratch(op, src.total_out_size() * esize);
  std::vector<bool> uniq = LoweringContext::unique_regs(src);
  c.smem_before_write();
  for (int32_t r = 0; r < static_cast<int32_t>(regs.size()); ++r)
    if (uniq[static_cast<size_t>(r)])
      c.smem_store(c.smem_operand(src, base, esize, r), regs[static_cast<size_t>(r)], elem);
  c.smem_after_write();
  // Registers of dst holding the same element read it once.
  std::map<std::vector<int32_t>, Reg> loaded;
  for (int32_t r = 0; r < dst.in_dim_size(layout::kRegister); ++r) {
    std::vector<int32_t> rc = LoweringContext::reg_coords(dst, r);
    auto it = loaded.find(rc);
    if (it != loaded.end()) {
      out.push_back(it->second);
      continue;
    }
    Reg v = c.smem_load(c.smem_operand(dst, base, esize, r), elem);
    loaded.emplace(rc, v);
    out.push_back(v);
  }
  return out;
}

void lower_convert_layout(LoweringContext &c, const ir::Op &op) {
  const ir::Value *x = op.operand(0), *r = op.result(0);
  if (!x->type.is_tile()) {
    c.set(r, c.get(x));
    return;
  }
  c.set(r, convert_regs(c, op, c.get(x), c.layout_of(x->type), c.layout_of(r->type),
                        x->type.element()));
}

} // namespace tilec::lower
