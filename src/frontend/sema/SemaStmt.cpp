// Statements: sequences (with early return), assignment, `if`, assert, and the
// constructs kernels may not use.
#include <list>

#include "frontend/sema/EmitUtil.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/SemaImpl.h"

namespace tilec::sema::detail {

namespace {
// Undoes the quiet_ increments of one lower_seq call, however it ends.
struct QuietScope {
  int &quiet;
  int added = 0;
  ~QuietScope() { quiet -= added; }
  void add() {
    ++quiet;
    ++added;
  }
};
} // namespace

// Lowers `stmts[start:]`, then the continuations `next` (iteratively, so long unrolled
// loops do not nest calls). A statement that may return lowers the rest itself.
Exit Lowerer::lower_seq(const ast::StmtList &stmts, size_t start, const Cont *next) {
  // Unrolled static_range loops whose body may return, and their continuations (lists:
  // the addresses must stay stable; empty ones cost nothing).
  std::list<StaticUnroll> unrolls;
  std::list<Cont> conts;
  QuietScope quiet{quiet_};
  const ast::StmtList *cur = &stmts;
  for (size_t i = start;;) {
    for (; cur && i < cur->size(); ++i) {
      const ast::Stmt &s = *(*cur)[i];
      if (--stmt_budget_ < 0)
        throw CompileError(s.loc, "kernel too large: more than " +
                                      std::to_string(kMaxLoweredStatements) +
                                      " statements after unrolling static_range loops, "
                                      "inlining @jit calls and copying the code after early "
                                      "returns");
      frame().stmt_loc = s.loc;
      emit_stop(s.loc, 0); // the kernel debugger (SemaDebug.cpp); a no-op without it
      if (s.kind == ast::StmtKind::Return) {
        auto &r = static_cast<const ast::ReturnStmt &>(s);
        if (frame().loop_depth > 0)
          throw CompileError(s.loc, "Cannot have `return` statements inside `while` or `for` "
                                    "statements");
        Exit x;
        x.returned = true;
        x.loc = s.loc;
        if (r.value)
          x.value = eval(*r.value);
        if (frame().is_kernel && x.value.kind != Val::Kind::None)
          throw CompileError(r.value->loc, "a kernel cannot return a value");
        return x; // statements after a return are dead, as in Triton
      }
      if (s.kind == ast::StmtKind::If) {
        auto &ifs = static_cast<const ast::IfStmt &>(s);
        if (contains_return(ifs.body) || contains_return(ifs.orelse)) {
          // The rest of the function runs only where the branch did not return: lower
          // it into the branches (Triton branches to the function's exit instead).
          Cont rest{cur, i + 1, next};
          Val cond = eval(*ifs.test);
          if (!cond.is_tensor())
            return lower_seq(constexpr_truth(cond, ifs.test->loc) ? ifs.body : ifs.orelse, 0,
                             &rest);
          return lower_returning_if(ifs, cond, rest);
        }
      }
      if (s.kind == ast::StmtKind::For &&
          contains_return(static_cast<const ast::ForStmt &>(s).body)) {
        // Triton unrolls static_range in place, so a return in its body is an early
        // return: continue with the iterations as continuations. Run-time loops reject it.
        StaticUnroll u;
        lower_for(static_cast<const ast::ForStmt &>(s), &u);
        if (u.loop) {
          const Cont *rest = &conts.emplace_back(Cont{cur, i + 1, next});
          next = &conts.emplace_back(Cont{nullptr, 0, rest, &unrolls.emplace_back(u), 0});
          cur = nullptr;
        }
        continue;
      }
      lower_stmt(s);
    }
    if (!next)
      return Exit{};
    if (next->lowered) // a second copy (after an early return) prints nothing
      quiet.add();
    next->lowered = true;
    const Cont &c = *next;
    if (!c.unroll) {
      cur = c.stmts;
      i = c.start;
      next = c.next;
      continue;
    }
    cur = nullptr;
    next = c.next;
    if (c.iter == c.unroll->count)
      continue;
    const StaticUnroll &u = *c.unroll;
    set_var(u.var, Val::integer(u.start + c.iter * u.step)); // a constexpr in each copy
    cur = &u.loop->body;
    i = 0;
    next = &conts.emplace_back(Cont{nullptr, 0, c.next, &u, c.iter + 1});
  }
}

void Lowerer::lower_stmt(const ast::Stmt &s) {
  switch (s.kind) {
  case ast::StmtKind::Assign:
    return lower_assign(static_cast<const ast::AssignStmt &>(s));
  case ast::StmtKind::AugAssign:
    return lower_aug_assign(static_cast<const ast::AugAssignStmt &>(s));
  case ast::StmtKind::AnnAssign:
    return lower_ann_assign(static_cast<const ast::AnnAssignStmt &>(s));
  case ast::StmtKind::Expr: {
    const ast::Expr &value = *static_cast<const ast::ExprStmt &>(s).value;
    dropped_ = &value; // eval_call checks @must_use_result callees against it
    Val result = eval(value);
    dropped_ = nullptr;
    keep_statement_hint(value, result);
    return;
  }
  case ast::StmtKind::Pass:
    return;
  case ast::StmtKind::If:
    return lower_if(static_cast<const ast::IfStmt &>(s));
  case ast::StmtKind::For:
    return lower_for(static_cast<const ast::ForStmt &>(s));
  case ast::StmtKind::While:
    return lower_while(static_cast<const ast::WhileStmt &>(s));
  case ast::StmtKind::Assert:
    return lower_assert(static_cast<const ast::AssertStmt &>(s));
  case ast::StmtKind::Import: { // `import pdb` (for pdb.set_trace()) is the one import allowed
    const auto &imp = static_cast<const ast::ImportStmt &>(s);
    for (const ast::ImportAlias &a : imp.names)
      if (a.name != "pdb")
        reject_stmt(s);
    for (const ast::ImportAlias &a : imp.names)
      set_var(a.asname.empty() ? a.name : a.asname, Val::module("pdb"));
    return;
  }
  case ast::StmtKind::Return: // handled by lower_seq
  default:
    reject_stmt(s);
  }
}

// Triton's hints annotate the value they are given (its defining op, or the loop argument
// it is), so `tl.multiple_of(a_ptrs, [16, 16])` with its result dropped still holds for
// a_ptrs: tutorial 08 hints its loop-carried pointer tiles that way, and without it their
// loads, from pointers read from memory, are not vectorised. Here the variable named by
// the hint's input (through nested hints: `tl.max_contiguous(tl.multiple_of(x, 8), 8)`)
// is rebound to the hinted value, so the uses after the statement see it.
void Lowerer::keep_statement_hint(const ast::Expr &e, const Val &result) {
  if (!result.is_tensor())
    return;
  const ir::Value *hinted = result.tensor; // down the chain of hints to what they annotate
  while (hinted->def && hinted->def->kind() == ir::OpKind::Hint)
    hinted = hinted->def->operand(0);
  if (hinted == result.tensor)
    return;
  const ast::Expr *input = &e; // down the nested calls' inputs to a name
  while (input && input->kind == ast::ExprKind::Call) {
    const auto &call = static_cast<const ast::CallExpr &>(*input);
    input = call.args.empty() ? nullptr : call.args[0].get();
    for (const ast::Keyword &k : call.keywords)
      if (k.name == "input")
        input = k.value.get();
  }
  if (!input || input->kind != ast::ExprKind::Name)
    return;
  const std::string &name = static_cast<const ast::NameExpr &>(*input).id;
  auto it = frame().scope.find(name);
  if (it != frame().scope.end() && it->second.is_tensor() && it->second.tensor == hinted)
    set_var(name, result);
}

void Lowerer::reject_stmt(const ast::Stmt &s) {
  switch (s.kind) {
  case ast::StmtKind::Break:
    throw CompileError(s.loc, "break is not supported");
  case ast::StmtKind::Continue:
    throw CompileError(s.loc, "continue is not supported");
  case ast::StmtKind::Import:
  case ast::StmtKind::ImportFrom:
    throw CompileError(s.loc, "import is not supported inside a kernel");
  case ast::StmtKind::FunctionDef:
    throw CompileError(s.loc, "nested function definition is not supported");
  case ast::StmtKind::Unsupported:
    throw CompileError(s.loc,
                       static_cast<const ast::UnsupportedStmt &>(s).what + " is not supported");
  default:
    throw CompileError(s.loc, "unsupported statement");
  }
}

// --- assignment ---

void Lowerer::lower_assign(const ast::AssignStmt &s) {
  Val v = sanitize_assigned(eval(*s.value), s.value->loc);
  for (const ast::ExprPtr &t : s.targets)
    assign_target(*t, v);
}

void Lowerer::assign_target(const ast::Expr &target, const Val &value) {
  switch (target.kind) {
  case ast::ExprKind::Name:
    set_var(static_cast<const ast::NameExpr &>(target).id, value);
    return;
  case ast::ExprKind::Tuple:
  case ast::ExprKind::List: {
    const auto &elts = target.kind == ast::ExprKind::Tuple
                           ? static_cast<const ast::TupleExpr &>(target).elts
                           : static_cast<const ast::ListExpr &>(target).elts;
    for (const ast::ExprPtr &e : elts)
      if (e->kind == ast::ExprKind::Starred)
        throw CompileError(e->loc, "starred assignment targets are not supported");
    if (value.kind != Val::Kind::Tuple)
      throw CompileError(target.loc,
                         "cannot unpack non-tuple value of type " + py_type_name(value));
    if (value.elems.size() > elts.size())
      throw CompileError(target.loc, "too many values to unpack (expected " +
                                         std::to_string(elts.size()) + ")");
    if (value.elems.size() < elts.size())
      throw CompileError(target.loc, "not enough values to unpack (expected " +
                                         std::to_string(elts.size()) + ", got " +
                                         std::to_string(value.elems.size()) + ")");
    for (size_t i = 0; i < elts.size(); ++i)
      assign_target(*elts[i], value.elems[i]);
    return;
  }
  case ast::ExprKind::Attribute:
    throw CompileError(target.loc, "assignment to an attribute is not supported");
  case ast::ExprKind::Subscript:
    throw CompileError(target.loc, "assignment to a subscript is not supported (tensors are "
                                   "immutable: build a new one, e.g. with tl.where)");
  case ast::ExprKind::Starred:
    throw CompileError(target.loc, "starred assignment targets are not supported");
  default:
    throw CompileError(target.loc, "cannot assign to this expression");
  }
}

void Lowerer::lower_aug_assign(const ast::AugAssignStmt &s) {
  if (s.target->kind != ast::ExprKind::Name) {
    assign_target(*s.target, Val::none()); // reports why the target is invalid
    throw CompileError(s.target->loc, "invalid augmented assignment target");
  }
  const std::string &name = static_cast<const ast::NameExpr &>(*s.target).id;
  Val lhs = lookup(name, s.target->loc);
  Val rhs = eval(*s.value);
  set_var(name, sanitize_assigned(binary_op(*this, s.op, lhs, rhs, s.loc), s.loc));
}

void Lowerer::lower_ann_assign(const ast::AnnAssignStmt &s) {
  if (!s.value)
    return; // a bare annotation binds nothing
  if (!is_constexpr_annotation(s.annotation.get())) {
    assign_target(*s.target, sanitize_assigned(eval(*s.value), s.value->loc));
    return;
  }
  if (s.target->kind != ast::ExprKind::Name)
    throw CompileError(s.target->loc, "only a name can be annotated tl.constexpr");
  const std::string &name = static_cast<const ast::NameExpr &>(*s.target).id;
  Val v = eval(*s.value);
  if (v.kind == Val::Kind::Tensor)
    throw CompileError(s.value->loc, "'" + name +
                                         "' is annotated tl.constexpr but its value is a "
                                         "tensor, not a compile-time constant");
  set_var(name, std::move(v)); // kept as a constexpr: no literal typing
}

void Lowerer::lower_assert(const ast::AssertStmt &s) {
  CallArgs args;
  args.loc = s.loc;
  args.args.push_back(eval(*s.test));
  if (s.msg)
    args.args.push_back(eval(*s.msg));
  if (opts_.debug) // Triton's assert is device_assert, which is off unless debugging
    call_builtin(*this, "device_assert", std::move(args));
}

// --- if ---

namespace {
// The message for a variable whose two incoming values cannot be joined after an if.
MismatchMsg if_mismatch(bool has_else) {
  return [has_else](const std::string &name, const std::string &a, const std::string &b) {
    return "Mismatched type for " + name + ": variable '" + name + "' has type " + a +
           " after the then branch but " + b +
           (has_else ? " after the else branch" : " when the branch is not taken") +
           "; both paths of an `if` must leave it with the same type";
  };
}
} // namespace

void Lowerer::lower_if(const ast::IfStmt &s) {
  Val cond = eval(*s.test);
  if (!cond.is_tensor()) { // a constexpr picks a branch; the other is not even checked
    lower_seq(constexpr_truth(cond, s.test->loc) ? s.body : s.orelse, 0, nullptr);
    return;
  }
  ir::Value *c = emit_condition(cond, s.test->loc);
  ir::Builder after = b_;
  ir::Op *op = b_.create(ir::OpKind::If, {c}, {}, {}, s.loc, 2);
  const Scope entry = frame().scope;
  Scope out[2];
  for (int k = 0; k < 2; ++k) {
    frame().scope = entry;
    b_.set_insertion_point_to_end(op->region(static_cast<size_t>(k))->block());
    lower_seq(k == 0 ? s.body : s.orelse, 0, nullptr);
    out[k] = std::move(frame().scope);
  }

  // Variables visible after the if: those that existed before, and those both
  // branches define (one defined in a single branch is not visible after).
  Scope merged = entry;
  const MismatchMsg msg = if_mismatch(!s.orelse.empty());
  std::vector<std::pair<std::string, JoinPlan>> plans;
  for (auto &[name, tv] : out[0]) {
    auto it = out[1].find(name);
    if (it == out[1].end())
      continue;
    const Val &ev = it->second;
    if (same_val(tv, ev)) {
      merged[name] = tv;
      continue;
    }
    plans.emplace_back(name, plan_join(tv, ev, name, s.loc, msg));
  }

  ir::Builder then_b(op->region(0)->block()), else_b(op->region(1)->block());
  std::vector<ir::Value *> then_vals, else_vals;
  for (auto &entry_plan : plans)
    realize_join(entry_plan.second, then_b, else_b, then_vals, else_vals, s.loc, msg);
  then_b.create(ir::OpKind::Yield, then_vals, {}, {}, s.loc);
  else_b.create(ir::OpKind::Yield, else_vals, {}, {}, s.loc);
  std::vector<ir::Value *> results;
  for (ir::Value *v : then_vals)
    results.push_back(op->add_result(v->type));
  size_t cursor = 0;
  for (auto &[name, plan] : plans) {
    std::vector<ir::Value *> slice(results.begin() + static_cast<long>(cursor),
                                   results.begin() +
                                       static_cast<long>(cursor + plan.leaves.size()));
    cursor += plan.leaves.size();
    merged[name] = fill_holes(plan.tmpl, slice);
  }
  frame().scope = std::move(merged);
  b_ = after;
}

// `if c: ... return ...` with a run-time c: each branch runs the rest of the function
// (unless it returned), and the if's results are the function's return value.
Exit Lowerer::lower_returning_if(const ast::IfStmt &s, const Val &cond, const Cont &rest) {
  ir::Value *c = emit_condition(cond, s.test->loc);
  ir::Builder after = b_;
  ir::Op *op = b_.create(ir::OpKind::If, {c}, {}, {}, s.loc, 2);
  const Scope entry = frame().scope;
  Exit ex[2];
  for (int k = 0; k < 2; ++k) {
    frame().scope = entry;
    b_.set_insertion_point_to_end(op->region(static_cast<size_t>(k))->block());
    ex[k] = lower_seq(k == 0 ? s.body : s.orelse, 0, &rest);
  }
  frame().scope = entry;

  const MismatchMsg msg = [&](const std::string &, const std::string &a, const std::string &b) {
    return "Inconsistent return types: function '" + function_name() + "' returns " + a +
           " on one path but " + b + " on another; every return must give the same types";
  };
  ir::Builder then_b(op->region(0)->block()), else_b(op->region(1)->block());
  std::vector<ir::Value *> then_vals, else_vals;
  Exit out;
  out.returned = ex[0].returned || ex[1].returned;
  out.loc = ex[0].returned ? ex[0].loc : ex[1].loc;
  if (same_val(ex[0].value, ex[1].value)) {
    out.value = ex[0].value;
    then_b.create(ir::OpKind::Yield, {}, {}, {}, s.loc);
    else_b.create(ir::OpKind::Yield, {}, {}, {}, s.loc);
  } else {
    // a mismatch is reported at the else branch's return (Triton points there)
    SourceLoc at = ex[1].returned ? ex[1].loc : s.loc;
    JoinPlan plan = plan_join(ex[0].value, ex[1].value, "return value", at, msg);
    realize_join(plan, then_b, else_b, then_vals, else_vals, at, msg);
    then_b.create(ir::OpKind::Yield, then_vals, {}, {}, s.loc);
    else_b.create(ir::OpKind::Yield, else_vals, {}, {}, s.loc);
    std::vector<ir::Value *> results;
    for (ir::Value *v : then_vals)
      results.push_back(op->add_result(v->type));
    out.value = fill_holes(plan.tmpl, results);
  }
  b_ = after;
  return out;
}

} // namespace tilec::sema::detail
