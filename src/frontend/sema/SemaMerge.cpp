// Joining values where control flow meets: the results of an `if`, loop-carried
// values, and the return values of a callee that returns from several places.
#include "frontend/sema/Operators.h"
#include "frontend/sema/SemaImpl.h"

namespace tilec::sema::detail {

namespace {
Val plan_rec(const Val &a, const Val &b, const std::string &path, SourceLoc loc,
             const MismatchMsg &msg, std::vector<JoinLeaf> &leaves) {
  if (a.is_aggregate() || b.is_aggregate()) {
    if (!a.same_structure(b))
      throw CompileError(loc, msg(path, value_type_str(a), value_type_str(b)));
    Val t = a;
    if (a.block && !(*a.block == *b.block))
      t.block = std::make_shared<const BlockPtrInfo>(a.block->merged(*b.block));
    for (size_t i = 0; i < a.elems.size(); ++i)
      t.elems[i] =
          plan_rec(a.elems[i], b.elems[i], path + "[" + std::to_string(i) + "]", loc, msg, leaves);
    return t;
  }
  if (same_val(a, b))
    return a;
  // Only run-time values (and numbers, which become run-time values) can differ
  // between paths: None, dtypes, strings and functions must agree.
  bool a_ok = a.is_tensor() || is_py_number(a);
  bool b_ok = b.is_tensor() || is_py_number(b);
  if (!a_ok || !b_ok)
    throw CompileError(loc, msg(path, value_type_str(a), value_type_str(b)));
  Val hole;
  hole.kind = Val::Kind::Tensor;
  hole.i = static_cast<int64_t>(leaves.size());
  leaves.push_back({path, a, b});
  return hole;
}
} // namespace

JoinPlan Lowerer::plan_join(const Val &a, const Val &b, const std::string &name, SourceLoc loc,
                            const MismatchMsg &msg) {
  JoinPlan plan;
  plan.tmpl = plan_rec(a, b, name, loc, msg, plan.leaves);
  return plan;
}

ir::Value *Lowerer::leaf_value(const Val &v, SourceLoc loc) {
  if (v.is_tensor()) {
    TILEC_ASSERT(v.tensor, "join leaf without an IR value");
    return v.tensor;
  }
  TILEC_ASSERT(is_py_number(v), "join leaf is neither a tensor nor a number");
  return to_tensor(*this, v, loc);
}

void Lowerer::realize_join(const JoinPlan &plan, ir::Builder &ba, ir::Builder &bb,
                           std::vector<ir::Value *> &va, std::vector<ir::Value *> &vb,
                           SourceLoc loc, const MismatchMsg &msg) {
  InsertionGuard guard(b_);
  for (const JoinLeaf &leaf : plan.leaves) {
    b_ = ba;
    ir::Value *x = leaf_value(leaf.a, loc);
    ba = b_;
    b_ = bb;
    ir::Value *y = leaf_value(leaf.b, loc);
    bb = b_;
    if (x->type != y->type)
      throw CompileError(loc,
                         msg(leaf.name, value_type_str(Val::of(x)), value_type_str(Val::of(y))));
    va.push_back(x);
    vb.push_back(y);
  }
}

Val Lowerer::fill_holes(const Val &tmpl, const std::vector<ir::Value *> &values) {
  if (tmpl.kind == Val::Kind::Tensor && !tmpl.tensor)
    return Val::of(values.at(static_cast<size_t>(tmpl.i)));
  if (tmpl.is_aggregate()) {
    Val t = tmpl;
    for (Val &e : t.elems)
      e = fill_holes(e, values);
    return t;
  }
  return tmpl;
}

} // namespace tilec::sema::detail
