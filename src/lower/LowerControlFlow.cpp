// Structured control flow (if, for, while) and program_id / num_programs.
//
// Conditions are scalars, the same in every thread of the CTA, so every branch is
// uniform (bra.uni) and barriers inside regions are safe. Values that flow out of a
// region (if results, loop-carried values) get registers of their own; a region's yield
// moves its values into them (a parallel move: sources that are also destinations are
// copied first). Blocks are laid out in program order: branches to blocks not created
// yet are patched once their target exists.
#include <set>

#include "lower/LoweringContext.h"

namespace tilec::lower {

namespace {

using simt::Cmp;

std::vector<Reg> fresh_regs(LoweringContext &c, const ir::Type &t) {
  return c.b().regs(reg_ty(t), c.num_regs(t));
}

// dst[i] <- src[i] for all i at once.
void parallel_move(LoweringContext &c, const std::vector<Reg> &dst, std::vector<Reg> src) {
  simt::Builder &b = c.b();
  std::set<uint32_t> dsts;
  for (Reg d : dst)
    dsts.insert(d.id);
  for (size_t i = 0; i < src.size(); ++i)
    if (src[i].id != dst[i].id && dsts.count(src[i].id))
      src[i] = b.mov(c.fn().reg_ty(src[i]), src[i]);
  for (size_t i = 0; i < src.size(); ++i)
    if (src[i].id != dst[i].id)
      b.mov_to(dst[i], src[i]);
}

// Registers of the values `vals` flattened, each expanded to its type's register count.
std::vector<Reg> flat_regs(LoweringContext &c, const std::vector<ir::Value *> &vals) {
  std::vector<Reg> out;
  for (const ir::Value *v : vals) {
    const std::vector<Reg> &r = c.get(v);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

struct Carried {
  std::vector<std::vector<Reg>> per_value;
  std::vector<Reg> flat;
};

Carried carried_regs(LoweringContext &c, const std::vector<const ir::Type *> &types) {
  Carried k;
  for (const ir::Type *t : types) {
    k.per_value.push_back(fresh_regs(c, *t));
    k.flat.insert(k.flat.end(), k.per_value.back().begin(), k.per_value.back().end());
  }
  return k;
}

void yield_into(LoweringContext &c, const ir::Block *blk, const std::vector<Reg> &dst) {
  const ir::Op *term = blk ? blk->terminator() : nullptr;
  if (dst.empty())
    return;
  TILEC_ASSERT(term, "lowering: a region without a terminator yields values");
  parallel_move(c, dst, flat_regs(c, term->operands()));
}

bool has_ops(const ir::Block *blk) {
  if (!blk)
    return false;
  for (const auto &op : blk->ops())
    if (!ir::is_terminator(op->kind()))
      return true;
  return false;
}

void lower_if(LoweringContext &c, const ir::Op &op) {
  Reg cond = c.scalar(op.operand(0));
  std::vector<const ir::Type *> types;
  for (size_t i = 0; i < op.num_results(); ++i)
    types.push_back(&op.result(i)->type);
  Carried res = carried_regs(c, types);
  const ir::Block *then_b = op.num_regions() > 0 ? op.region(0)->block() : nullptr;
  const ir::Block *else_b = op.num_regions() > 1 ? op.region(1)->block() : nullptr;
  bool else_needed = has_ops(else_b) || !res.flat.empty();
  auto to_else = c.branch_ahead(cond, /*negate=*/true);
  c.new_block("then");
  if (then_b)
    c.lower_ops(*then_b);
  c.set_loc(op.loc());
  yield_into(c, then_b, res.flat);
  if (else_needed) {
    auto to_end = c.branch_ahead(Reg{}, false);
    c.patch(to_else, c.new_block("else"));
    if (else_b)
      c.lower_ops(*else_b);
    c.set_loc(op.loc());
    yield_into(c, else_b, res.flat);
    c.patch(to_end, c.new_block("endif"));
  } else {
    c.patch(to_else, c.new_block("endif"));
  }
  for (size_t i = 0; i < op.num_results(); ++i)
    c.set(op.result(i), res.per_value[i]);
}

// Whether an integer value is a known constant, and its value.
bool constant_of(const ir::Value *v, int64_t &out) {
  if (v->def && v->def->kind() == ir::OpKind::Constant) {
    out = v->def->int_attr("value", 0);
    return true;
  }
  return false;
}

void lower_for(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  const ir::Value *lb = op.operand(0), *ub = op.operand(1), *step = op.operand(2);
  Ty it = reg_ty(lb->type);
  Reg iv = b.reg(it);
  b.mov_to(iv, c.scalar(lb));
  std::vector<const ir::Type *> types;
  std::vector<ir::Value *> inits;
  for (size_t i = 3; i < op.num_operands(); ++i) {
    types.push_back(&op.operand(i)->type);
    inits.push_back(op.operand(i));
  }
  Carried k = carried_regs(c, types);
  parallel_move(c, k.flat, flat_regs(c, inits));
  const ir::Block *body = op.region(0)->block();
  simt::BlockId header = c.new_block("loop");
  // step > 0: while iv < ub; step < 0: while iv > ub (Ops.def).
  Reg ubr = c.scalar(ub), stepr = c.scalar(step);
  int64_t sv = 0;
  Reg cont;
  if (constant_of(step, sv)) {
    cont = b.setp(sv > 0 ? Cmp::Lt : Cmp::Gt, it, iv, ubr);
  } else {
    Reg up = b.setp(Cmp::Gt, it, stepr, simt::imm(0));
    Reg lt = b.setp(Cmp::Lt, it, iv, ubr), gt = b.setp(Cmp::Gt, it, iv, ubr);
    cont = b.or_(Ty::Pred, b.and_(Ty::Pred, up, lt), b.and_(Ty::Pred, b.not_(Ty::Pred, up), gt));
  }
  auto exit = c.branch_ahead(cont, /*negate=*/true);
  c.new_block("body");
  c.set(body->arg(0), {iv});
  for (size_t i = 0; i < k.per_value.size(); ++i)
    c.set(body->arg(i + 1), k.per_value[i]);
  c.lower_ops(*body);
  c.set_loc(op.loc());
  yield_into(c, body, k.flat);
  b.mov_to(iv, c.b().add(it, iv, stepr));
  b.bra(header, true);
  c.patch(exit, c.new_block("endloop"));
  for (size_t i = 0; i < op.num_results(); ++i)
    c.set(op.result(i), k.per_value[i]);
}

void lower_while(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  std::vector<const ir::Type *> types;
  std::vector<ir::Value *> inits;
  for (size_t i = 0; i < op.num_operands(); ++i) {
    types.push_back(&op.operand(i)->type);
    inits.push_back(op.operand(i));
  }
  Carried k = carried_regs(c, types);
  parallel_move(c, k.flat, flat_regs(c, inits));
  const ir::Block *before = op.region(0)->block(), *after = op.region(1)->block();
  std::vector<const ir::Type *> ftypes;
  for (size_t i = 0; i < op.num_results(); ++i)
    ftypes.push_back(&op.result(i)->type);
  Carried fwd = carried_regs(c, ftypes);
  simt::BlockId header = c.new_block("while");
  for (size_t i = 0; i < k.per_value.size(); ++i)
    c.set(before->arg(i), k.per_value[i]);
  c.lower_ops(*before);
  const ir::Op *cond = before->terminator();
  TILEC_ASSERT(cond && cond->kind() == ir::OpKind::Condition,
               "lowering: while's first region must end in condition");
  c.set_loc(op.loc());
  std::vector<ir::Value *> forwarded(cond->operands().begin() + 1, cond->operands().end());
  parallel_move(c, fwd.flat, flat_regs(c, forwarded));
  auto exit = c.branch_ahead(c.scalar(cond->operand(0)), /*negate=*/true);
  c.new_block("while_body");
  for (size_t i = 0; i < fwd.per_value.size(); ++i)
    c.set(after->arg(i), fwd.per_value[i]);
  c.lower_ops(*after);
  c.set_loc(op.loc());
  yield_into(c, after, k.flat);
  b.bra(header, true);
  c.patch(exit, c.new_block("endwhile"));
  for (size_t i = 0; i < op.num_results(); ++i)
    c.set(op.result(i), fwd.per_value[i]);
}

} // namespace

void lower_control_flow(LoweringContext &c, const ir::Op &op) {
  switch (op.kind()) {
  case ir::OpKind::If:
    lower_if(c, op);
    return;
  case ir::OpKind::For:
    lower_for(c, op);
    return;
  case ir::OpKind::While:
    lower_while(c, op);
    return;
  default:
    TILEC_ASSERT(false, "lower_control_flow: unexpected op");
  }
}

void lower_program(LoweringContext &c, const ir::Op &op) {
  int64_t axis = op.int_attr("axis", 0);
  TILEC_ASSERT(axis >= 0 && axis < 3, "program_id/num_programs: axis out of range");
  simt::Sreg s = op.kind() == ir::OpKind::ProgramId
                     ? static_cast<simt::Sreg>(static_cast<int>(simt::Sreg::CtaidX) + axis)
                     : static_cast<simt::Sreg>(static_cast<int>(simt::Sreg::NctaidX) + axis);
  c.set(op.result(0), {c.b().special(s)});
}

} // namespace tilec::lower
