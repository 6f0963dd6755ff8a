// addptr, load, store.
//
// Loads and stores are vectorised along the dim where each thread's registers are
// contiguous: V elements go in one access when the layout gives the thread V consecutive
// elements there, axis info says the pointers are contiguous and aligned for V (and the
// mask constant over them), and V * size <= 16 bytes. The V elements travel as 1, 2 or 4
// words (b32, or b64 for 8-byte elements; b16/b8 when smaller than 4 bytes), so a
// 16-byte fp32 access is ld.global.v4.b32 straight into the element registers.
// A mask guards the whole access (@p); `other` (0 when absent, as the interpreter has it)
// is moved into the destination first. Stores are done by the owner of each element only
// (replicated lanes/warps and registers skip them); a scalar store by thread 0.
#include "lower/MemoryAccess.h"

#include <cstdint>

#include "layout/Layouts.h"
#include "transforms/PrefetchLoads.h"

namespace tilec::lower {

namespace {

using simt::Cmp;

int ptr_elem_bytes(const ir::Type &ptr) { return ir::byte_size(ptr.elem); }

// A 64-bit offset that is a 32-bit integer times a constant: splats, sign- or
// zero-extending casts and multiplications by constants of it (a block pointer's
// tl.advance adds delta * (int64)stride).
struct NarrowOffset {
  const ir::Value *x = nullptr; // the 32-bit integer; null when v is not of that form
  bool is_signed = true;
  int64_t scale = 1;
};

NarrowOffset narrow_offset(const ir::Value *v) {
  int64_t scale = 1;
  for (;;) {
    const ir::Op *d = v->def;
    if (!d)
      return {};
    if (d->kind() == ir::OpKind::Splat) {
      v = d->operand(0);
    } else if (d->kind() == ir::OpKind::Mul && ir::bits(v->type.elem) == 64) {
      const ir::Value *a = d->operand(0), *k = d->operand(1);
      if (!(k->def && k->def->kind() == ir::OpKind::Constant))
        std::swap(a, k);
      if (!(k->def && k->def->kind() == ir::OpKind::Constant))
        return {};
      int64_t f = k->def->int_attr("value", 0);
      if (f < INT32_MIN || f > INT32_MAX || __builtin_mul_overflow(scale, f, &scale))
        return {};
      v = a;
    } else if (d->kind() == ir::OpKind::Cast) {
      const ir::Value *x = d->operand(0);
      ir::DType from = x->type.elem;
      if (!ir::is_int(from) || ir::is_bool(from) || ir::bits(from) != 32 ||
          ir::bits(v->type.elem) != 64)
        return {};
      return NarrowOffset{x, ir::is_signed_int(from), scale};
    } else {
      return {};
    }
  }
}

void lower_addptr(LoweringContext &c, const ir::Op &op) {
  const ir::Value *p = op.operand(0), *o = op.operand(1), *r = op.result(0);
  int esize = ptr_elem_bytes(p->type);
  const std::vector<Reg> &pr = c.get(p), &orr = c.get(o);
  simt::Builder &b = c.b();
  ir::DType od = o->type.elem;
  int n = c.num_regs(r->type);
  std::vector<Reg> out;
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, Reg>> memo;
  std::vector<std::pair<uint32_t, Reg>> scaled; // a 64-bit offset register -> its bytes
  // x * k with k * size an immediate of x's width: one mad.wide per pointer, as for a
  // 32-bit offset. ptxas keeps such an increment on the uniform datapath, whereas a
  // 64-bit multiply of it lands in vector registers (+20 SASS instructions in a
  // block-pointer matmul's loop, 14 % of its speed).
  NarrowOffset narrow = ir::bits(od) == 64 ? narrow_offset(o) : NarrowOffset{};
  int64_t narrow_imm = 0;
  if (narrow.x && (__builtin_mul_overflow(narrow.scale, int64_t{esize}, &narrow_imm) ||
                   narrow_imm < (narrow.is_signed ? INT32_MIN : 0) || narrow_imm > INT32_MAX))
    narrow.x = nullptr;
  const std::vector<Reg> *narrow_regs = narrow.x ? &c.get(narrow.x) : nullptr;
  if (narrow_regs && narrow_regs->size() != 1 && narrow_regs->size() != orr.size())
    narrow_regs = nullptr, narrow.x = nullptr;
  auto find = [&](Reg base, Reg off) {
    for (const auto &[k, v] : memo)
      if (k.first == base.id && k.second == off.id)
        return v;
    return Reg{};
  };
  for (int i = 0; i < n; ++i) {
    Reg base = pr.size() == 1 ? pr[0] : pr[static_cast<size_t>(i)];
    Reg off = orr.size() == 1 ? orr[0] : orr[static_cast<size_t>(i)];
    Reg res = find(base, off);
    // off = a + k without wrapping: the address of a, plus k elements
    const LoweringContext::Affine *af = c.affine(off);
    if (!res.valid() && af && simt::ty_reg_bits(reg_ty(od)) == 32) {
      Reg at = find(base, af->base);
      if (!at.valid()) {
        // af->base is a thread coordinate (or one xor an in-tile constant): never
        // negative, so the unsigned widening (one IMAD.WIDE.U32) gives the same address
        at = b.mad_wide(Ty::U32, af->base, simt::imm(esize), base);
        memo.push_back({{base.id, af->base.id}, at});
      }
      res = af->imm ? b.add(Ty::S64, at, simt::imm(af->imm * esize)) : at;
      memo.push_back({{base.id, off.id}, res});
    }
    if (!res.valid()) {
      if (od == ir::DType::I1)
        off = b.selp(Ty::U32, simt::imm(1), simt::imm(0), off);
      Ty ot = od == ir::DType::I1 ? Ty::U32 : reg_ty(od);
      int w = simt::ty_reg_bits(ot);
      if (w == 16) {
        ot = simt::ty_is_signed(ot) ? Ty::S32 : Ty::U32;
        off = b.cvt(ot, simt::ty_is_signed(reg_ty(od)) ? Ty::S16 : Ty::U16, off);
        w = 32;
      }
      if (w == 32) {
        res = b.mad_wide(ot, off, simt::imm(esize), base);
      } else if (narrow.x) {
        Reg x =
            narrow_regs->size() == 1 ? (*narrow_regs)[0] : (*narrow_regs)[static_cast<size_t>(i)];
        res = b.mad_wide(narrow.is_signed ? Ty::S32 : Ty::U32, x, simt::imm(narrow_imm), base);
      } else {
        // scaled once per offset register: a splat offset (a block pointer's tl.advance)
        // then costs one 64-bit add per pointer, not a 64-bit multiply-add
        Reg bytes;
        for (const auto &[o, sc] : scaled)
          if (o == off.id)
            bytes = sc;
        if (!bytes.valid()) {
          // a shift, not a multiplication: ptxas folds a 64-bit multiply by a constant
          // into each address it is added to (IMAD.WIDE + moves per pointer)
          bytes = esize == 1 ? off : b.shl(Ty::B64, off, simt::imm(__builtin_ctz(esize)));
          scaled.emplace_back(off.id, bytes);
        }
        res = b.add(Ty::S64, base, bytes);
      }
      memo.push_back({{base.id, off.id}, res});
    }
    out.push_back(res);
  }
  c.set(r, std::move(out));
}

simt::MemHints load_hints(const ir::Op &op) {
  simt::MemHints h;
  std::string cache = op.str_attr("cache"), evict = op.str_attr("evict");
  if (cache == ".ca")
    h.cache = simt::CacheOp::Ca;
  else if (cache == ".cg")
    h.cache = simt::CacheOp::Cg;
  else if (cache == ".cv")
    h.cache = simt::CacheOp::Cv;
  else if (cache == ".cs")
    h.cache = simt::CacheOp::Cs;
  else if (cache == ".wb")
    h.cache = simt::CacheOp::Wb;
  else if (cache == ".wt")
    h.cache = simt::CacheOp::Wt;
  if (h.cache == simt::CacheOp::None) {
    if (evict == "evict_first")
      h.evict = simt::Evict::First;
    else if (evict == "evict_last")
      h.evict = simt::Evict::Last;
  }
  h.vol = op.int_attr("volatile", 0) != 0;
  return h;
}

// A prefetch-loads load (transforms/PrefetchLoads.h): the predicate that its `for` loop has
// a next iteration (iv + step < ub), or invalid when it has none to prefetch for.
Reg next_iteration(LoweringContext &c, const ir::Op &op) {
  if (!op.has_attr(transforms::kPrefetchAttr))
    return {};
  const ir::Region *r = op.parent() ? op.parent()->parent() : nullptr;
  const ir::Op *loop = r ? r->parent() : nullptr;
  const ir::Op *step = loop && loop->kind() == ir::OpKind::For ? loop->operand(2)->def : nullptr;
  if (!step || step->kind() != ir::OpKind::Constant) // the stage took constant steps only
    return {};
  simt::Builder &b = c.b();
  Ty it = reg_ty(loop->operand(0)->type);
  Reg iv = c.get(loop->region(0)->block()->arg(0))[0];
  return b.setp(Cmp::Lt, it, b.add(it, iv, simt::imm(step->int_attr("value", 0))),
                c.scalar(loop->operand(1)));
}

void lower_load(LoweringContext &c, const ir::Op &op) {
  const ir::Value *p = op.operand(0), *r = op.result(0);
  const ir::Value *mask = op.num_operands() > 1 ? op.operand(1) : nullptr;
  const ir::Value *other = op.num_operands() > 2 ? op.operand(2) : nullptr;
  ir::Type elem = r->type.element();
  simt::MemHints hints = load_hints(op);
  int n = c.num_regs(r->type);
  int vec = 1;
  if (r->type.is_tile()) {
    expect_same_layout(c, op, {p, mask, other, r});
    vec = vector_width(c, p, mask, c.layout_of(r->type), mem_bytes(elem));
  }
  const std::vector<Reg> &pr = c.get(p);
  std::vector<Reg> out(static_cast<size_t>(n));
  Reg next = next_iteration(c, op);
  for (int g = 0; g < n; g += vec) {
    Reg guard;
    if (mask)
      guard = c.get(mask)[static_cast<size_t>(c.get(mask).size() == 1 ? 0 : g)];
    std::vector<Reg> init;
    if (mask)
      for (int j = 0; j < vec; ++j)
        init.push_back(other
                           ? c.get(other)[static_cast<size_t>(c.get(other).size() == 1 ? 0 : g + j)]
                           : Reg{});
    std::vector<Reg> vals = load_vector(c, pr[static_cast<size_t>(pr.size() == 1 ? 0 : g)], vec,
                                        elem, guard, mask != nullptr, init, hints);
    for (int j = 0; j < vec; ++j)
      out[static_cast<size_t>(g + j)] = vals[static_cast<size_t>(j)];
    if (next.valid()) { // the same bytes of the next iteration, into L1
      auto gs = c.b().guarded(next);
      c.b().prefetch_l1(Operand::addr(pr[static_cast<size_t>(pr.size() == 1 ? 0 : g)],
                                      op.int_attr(transforms::kPrefetchAttr, 0)));
    }
  }
  c.set(r, std::move(out));
}

void lower_store(LoweringContext &c, const ir::Op &op) {
  const ir::Value *p = op.operand(0), *v = op.operand(1);
  const ir::Value *mask = op.num_operands() > 2 ? op.operand(2) : nullptr;
  ir::Type elem = v->type.element();
  simt::MemHints hints = load_hints(op);
  simt::Builder &b = c.b();
  const std::vector<Reg> &pr = c.get(p), &vr = c.get(v);
  if (!p->type.is_tile()) {
    Reg g = c.thread0_pred();
    if (mask)
      g = b.and_(Ty::Pred, g, c.scalar(mask));
    store_vector(c, pr[0], {vr[0]}, elem, g, hints);
    return;
  }
  expect_same_layout(c, op, {p, v, mask});
  const layout::LinearLayout &l = c.layout_of(p->type);
  int vec = vector_width(c, p, mask, l, mem_bytes(elem));
  Reg owner = c.owner_pred(l);
  std::vector<bool> uniq = LoweringContext::unique_regs(l);
  int n = c.num_regs(p->type);
  std::vector<std::pair<uint32_t, Reg>> guards; // mask register -> mask & owner
  for (int g = 0; g < n; g += vec) {
    if (!uniq[static_cast<size_t>(g)])
      continue; // a replicated register: its first copy stores
    Reg guard = owner;
    if (mask) {
      Reg m = c.get(mask)[static_cast<size_t>(c.get(mask).size() == 1 ? 0 : g)];
      if (owner.valid()) {
        guard = Reg{};
        for (const auto &[id, gr] : guards)
          if (id == m.id)
            guard = gr;
        if (!guard.valid()) {
          guard = b.and_(Ty::Pred, m, owner);
          guards.emplace_back(m.id, guard);
        }
      } else {
        guard = m;
      }
    }
    std::vector<Reg> vals;
    for (int j = 0; j < vec; ++j)
      vals.push_back(vr[static_cast<size_t>(vr.size() == 1 ? 0 : g + j)]);
    store_vector(c, pr[static_cast<size_t>(g)], vals, elem, guard, hints);
  }
}

} // namespace

void lower_memory(LoweringContext &c, const ir::Op &op) {
  switch (op.kind()) {
  case ir::OpKind::AddPtr:
    lower_addptr(c, op);
    return;
  case ir::OpKind::Load:
    lower_load(c, op);
    return;
  case ir::OpKind::Store:
    lower_store(c, op);
    return;
  default:
    TILEC_ASSERT(false, "lower_memory: unexpected op");
  }
}

} // namespace tilec::lower
