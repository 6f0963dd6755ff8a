// atomic_rmw and atomic_cas: one atom.global per element, done by the element's owner
// (a scalar atomic by thread 0), with the op's memory semantics and scope. When the old
// values are used and other threads (or replicated registers) hold the same elements, the
// owners publish them through shared memory. An unused result stays an atom, as in
// Triton's PTX: ptxas makes it a RED itself. fp32/fp64 max/min use the integer order of
// the bits, as Triton does: atom.max.s32 for a non-negative value, atom.min.u32 for a
// negative one (and the mirror for min). Masked-off elements return 0, as in the tile
// interpreter. On sm_90, fp32 adds over V consecutive aligned elements of a thread go as
// one atom.v2/.v4.f32 (Triton's PTX does the same; a quarter of the atomic traffic).
#include <map>

#include "lower/LoweringContext.h"
#include "lower/MemoryAccess.h"

namespace tilec::lower {

namespace {

using simt::AtomOp;
using simt::Cmp;

simt::Sem sem_of(const std::string &s) {
  if (s == "relaxed")
    return simt::Sem::Relaxed;
  if (s == "acquire")
    return simt::Sem::Acquire;
  if (s == "release")
    return simt::Sem::Release;
  return simt::Sem::AcqRel;
}

simt::Scope scope_of(const std::string &s) {
  if (s == "cta")
    return simt::Scope::Cta;
  if (s == "sys")
    return simt::Scope::Sys;
  return simt::Scope::Gpu;
}

bool has_users(const ir::Value *v) { return !v->users.empty(); }

// The old values, made visible to every thread holding the elements.
std::vector<Reg> publish(LoweringContext &c, const ir::Op &op, const std::vector<Reg> &old,
                         Reg owner, const std::vector<bool> &uniq) {
  const ir::Value *r = op.result(0);
  ir::Type et = r->type.element();
  int es = mem_bytes(et);
  if (!r->type.is_tile()) {
    int64_t base = c.scratch(op, es);
    c.smem_before_write();
    {
      auto g = c.b().guarded(c.thread0_pred());
      c.smem_store(Operand::shared(base), old[0], et);
    }
    c.smem_after_write();
    return {c.smem_load(Operand::shared(base), et)};
  }
  const layout::LinearLayout &l = c.layout_of(r->type);
  std::vector<Reg> out = old;
  if (owner.valid()) {
    int64_t base = c.scratch(op, l.total_out_size() * es);
    c.smem_before_write();
    {
      auto g = c.b().guarded(owner);
      for (int32_t i = 0; i < static_cast<int32_t>(old.size()); ++i)
        if (uniq[static_cast<size_t>(i)])
          c.smem_store(c.smem_operand(l, base, es, i), old[static_cast<size_t>(i)], et);
    }
    c.smem_after_write();
    for (int32_t i = 0; i < static_cast<int32_t>(old.size()); ++i)
      if (uniq[static_cast<size_t>(i)])
        out[static_cast<size_t>(i)] = c.smem_load(c.smem_operand(l, base, es, i), et);
  }
  // Replicated registers take their first copy's value.
  std::map<std::vector<int32_t>, Reg> first;
  for (int32_t i = 0; i < static_cast<int32_t>(out.size()); ++i)
    if (uniq[static_cast<size_t>(i)])
      first.emplace(LoweringContext::reg_coords(l, i), out[static_cast<size_t>(i)]);
  for (int32_t i = 0; i < static_cast<int32_t>(out.size()); ++i)
    out[static_cast<size_t>(i)] = first.at(LoweringContext::reg_coords(l, i));
  return out;
}

// An atom.global of `op`'s memory semantics and scope (operands still to add).
simt::Instr atom_instr(const ir::Op &op, AtomOp a, Ty t) {
  simt::Instr in;
  in.op = simt::Op::Atom;
  in.ty = t;
  in.m.atom = a;
  in.m.sem = sem_of(op.str_attr("sem", "acq_rel"));
  in.m.scope = scope_of(op.str_attr("scope", "gpu"));
  in.m.space = simt::Space::Global;
  in.m.noftz = a == AtomOp::Add && (t == Ty::F16 || t == Ty::BF16);
  return in;
}

// fp16/bf16 min/max (tensor-descriptor reductions; PTX has no scalar 16-bit float atom
// min/max): a compare-and-swap loop per element, in which each thread branches on its own.
// min/max.f16 take the number when the other operand is NaN (fmin/fmax, as the interpreter).
Reg cas_min_max16(LoweringContext &c, const ir::Op &op, Reg addr, Reg val, Reg guard, bool is_max) {
  simt::Builder &b = c.b();
  Ty t = reg_ty(op.operand(1)->type);
  if (c.opts().sm < 80)
    throw CompileError(op.loc(), "atomic min/max on fp16/bf16 needs sm_80 or newer");
  Reg cur = c.imm_reg(t, 0), seen = c.imm_reg(t, 0);
  {
    auto g = b.guarded(guard);
    b.ld_to({cur}, simt::Space::Global, Ty::B16, Operand::addr(addr));
  }
  c.new_block("cas_loop");
  Reg next = is_max ? b.max(t, cur, val) : b.min(t, cur, val);
  {
    auto g = b.guarded(guard);
    simt::Instr in = atom_instr(op, AtomOp::Cas, Ty::B16);
    in.dst = {seen};
    in.src = {Operand::addr(addr), cur, next};
    b.emit(std::move(in));
  }
  Reg again = b.setp(Cmp::Ne, Ty::B16, seen, cur); // another thread changed it first
  if (guard.valid())
    again = b.and_(Ty::Pred, again, guard);
  b.mov_to(cur, seen);
  simt::BlockId loop = b.block();
  b.bra_if(again, loop);
  c.new_block("cas_done");
  return cur;
}

// One element's atomic; returns the old value (written under `guard`, 0 otherwise).
Reg atomic_one(LoweringContext &c, const ir::Op &op, Reg addr, Reg val, Reg cmp, Reg guard) {
  simt::Builder &b = c.b();
  const ir::Type &vt = op.operand(1)->type;
  ir::DType d = vt.elem;
  Ty rt = reg_ty(vt);
  int bits = ir::bits(d);
  Reg old = c.imm_reg(rt, 0);
  auto emit_atom = [&](AtomOp a, Ty t, Operand v, Operand w, Reg g) {
    auto gs = b.guarded(g);
    simt::Instr in = atom_instr(op, a, t);
    in.dst = {old};
    in.src = {Operand::addr(addr), v};
    if (!w.is_none())
      in.src.push_back(w);
    b.emit(std::move(in));
  };
  if (op.kind() == ir::OpKind::AtomicCas) {
    if (bits < 16)
      throw CompileError(op.loc(), "atomic_cas on " + std::string(ir::python_name(d)) +
                                       " is not supported on the GPU (16, 32 or 64 bits)");
    emit_atom(AtomOp::Cas, simt::ty_bits_of(bits), cmp, val, guard);
    return old;
  }
  std::string kind = op.str_attr("op");
  auto unsupported = [&] {
    return CompileError(op.loc(), "atomic " + kind + " on " + std::string(ir::python_name(d)) +
                                      " is not supported on the GPU");
  };
  bool is_f = ir::is_float(d);
  if (kind == "xchg") {
    if (bits < 32)
      throw unsupported();
    emit_atom(AtomOp::Exch, simt::ty_bits_of(bits), val, {}, guard);
    return old;
  }
  if (kind == "and" || kind == "or" || kind == "xor") {
    if (is_f || bits < 32)
      throw unsupported();
    AtomOp a = kind == "and" ? AtomOp::And : kind == "or" ? AtomOp::Or : AtomOp::Xor;
    emit_atom(a, simt::ty_bits_of(bits), val, {}, guard);
    return old;
  }
  if (kind == "add") {
    if (d == ir::DType::BF16 && c.opts().sm < 90)
      throw CompileError(op.loc(), "atomic add on bfloat16 needs sm_90 or newer");
    if ((!is_f && bits < 32) || ir::is_fp8(d))
      throw unsupported();
    Ty t = is_f ? rt : (bits == 64 ? Ty::U64 : simt::ty_is_signed(rt) ? Ty::S32 : Ty::U32);
    emit_atom(AtomOp::Add, t, val, {}, guard);
    return old;
  }
  if (kind == "max" || kind == "min") {
    bool is_max = kind == "max";
    if (!is_f) {
      if (bits < 32)
        throw unsupported();
      emit_atom(is_max ? AtomOp::Max : AtomOp::Min, rt, val, {}, guard);
      return old;
    }
    if (bits == 16)
      return cas_min_max16(c, op, addr, val, guard, is_max);
    if (bits < 32)
      throw unsupported();
    Ty st = bits == 64 ? Ty::S64 : Ty::S32, ut = bits == 64 ? Ty::U64 : Ty::U32;
    Reg neg = b.setp(Cmp::Lt, st, val, simt::imm(0)); // sign bit set
    Reg pos = b.not_(Ty::Pred, neg);
    if (guard.valid()) {
      neg = b.and_(Ty::Pred, neg, guard);
      pos = b.and_(Ty::Pred, pos, guard);
    }
    emit_atom(is_max ? AtomOp::Max : AtomOp::Min, st, val, {}, pos);
    emit_atom(is_max ? AtomOp::Min : AtomOp::Max, ut, val, {}, neg);
    return old;
  }
  throw unsupported();
}

// fp32 add of `vec` consecutive elements at `addr` as one atom.v<vec>.f32 (sm_90);
// returns the old values (0 where `guard` is off).
std::vector<Reg> atomic_add_vector(LoweringContext &c, const ir::Op &op, Reg addr,
                                   const std::vector<Reg> &vals, Reg guard) {
  simt::Builder &b = c.b();
  std::vector<Reg> old;
  for (size_t k = 0; k < vals.size(); ++k)
    old.push_back(c.imm_reg(Ty::F32, 0));
  auto gs = b.guarded(guard);
  simt::Instr in = atom_instr(op, AtomOp::Add, Ty::F32);
  in.m.vec = static_cast<uint8_t>(vals.size());
  for (Reg r : old)
    in.dst.push_back(r);
  in.src.push_back(Operand::addr(addr));
  for (Reg v : vals)
    in.src.push_back(v);
  b.emit(std::move(in));
  return old;
}

// Elements per atomic for `op`: > 1 only for fp32 add on sm_90 (atom.v2/.v4.f32).
int atomic_vector_width(LoweringContext &c, const ir::Op &op, const ir::Value *p,
                        const ir::Value *mask, const layout::LinearLayout &l) {
  if (op.kind() != ir::OpKind::AtomicRmw || op.str_attr("op") != "add" || c.opts().sm < 90 ||
      op.operand(1)->type.elem != ir::DType::F32)
    return 1;
  return vector_width(c, p, mask, l, 4);
}

} // namespace

void lower_atomic(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  bool cas = op.kind() == ir::OpKind::AtomicCas;
  const ir::Value *p = op.operand(0), *r = op.result(0);
  const ir::Value *val = cas ? op.operand(2) : op.operand(1);
  const ir::Value *cmpv = cas ? op.operand(1) : nullptr;
  const ir::Value *mask = !cas && op.num_operands() > 2 ? op.operand(2) : nullptr;
  bool want = has_users(r);
  const std::vector<Reg> &pr = c.get(p), &vr = c.get(val);
  if (!p->type.is_tile()) {
    Reg g = c.thread0_pred();
    if (mask)
      g = b.and_(Ty::Pred, g, c.scalar(mask));
    Reg old = atomic_one(c, op, pr[0], vr[0], cmpv ? c.scalar(cmpv) : Reg{}, g);
    c.set(r, want ? publish(c, op, {old}, Reg{}, {true}) : std::vector<Reg>{old});
    return;
  }
  expect_same_layout(c, op, {p, val, cmpv, mask, r});
  const layout::LinearLayout &l = c.layout_of(p->type);
  Reg owner = c.owner_pred(l);
  std::vector<bool> uniq = LoweringContext::unique_regs(l);
  int n = c.num_regs(p->type);
  int vec = atomic_vector_width(c, op, p, mask, l);
  std::vector<Reg> old(static_cast<size_t>(n));
  for (int i = 0; i < n; i += vec) {
    if (!uniq[static_cast<size_t>(i)])
      continue;
    Reg g = owner;
    if (mask) {
      Reg m = c.get(mask)[static_cast<size_t>(c.get(mask).size() == 1 ? 0 : i)];
      g = g.valid() ? b.and_(Ty::Pred, g, m) : m;
    }
    auto pick = [&](const std::vector<Reg> &v, int k = 0) {
      return v[v.size() == 1 ? 0 : static_cast<size_t>(i + k)];
    };
    if (vec > 1) {
      std::vector<Reg> vals;
      for (int k = 0; k < vec; ++k)
        vals.push_back(pick(vr, k));
      std::vector<Reg> o = atomic_add_vector(c, op, pick(pr), vals, g);
      for (int k = 0; k < vec; ++k)
        old[static_cast<size_t>(i + k)] = o[static_cast<size_t>(k)];
      continue;
    }
    old[static_cast<size_t>(i)] =
        atomic_one(c, op, pick(pr), pick(vr), cmpv ? pick(c.get(cmpv)) : Reg{}, g);
  }
  if (!want) {
    for (int i = 0; i < n; ++i)
      if (!old[static_cast<size_t>(i)].valid())
        old[static_cast<size_t>(i)] = old[0];
    c.set(r, std::move(old));
    return;
  }
  c.set(r, publish(c, op, old, owner, uniq));
}

} // namespace tilec::lower
