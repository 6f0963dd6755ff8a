// Loops: `for` over range / tl.range (a `for` op), tl.static_range (unrolled), `while`.
#include <optional>

#include "frontend/sema/EmitUtil.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/Promotion.h"
#include "frontend/sema/SemaImpl.h"

namespace tilec::sema::detail {

namespace {

constexpr int64_t kMaxUnroll = int64_t{1} << 16;

// Triton's wording, so users find it in Triton's documentation and issues.
std::string loop_mismatch(const std::string &name, const std::string &a, const std::string &b) {
  return "Loop-carried variable " + name + " has initial type " + a + " but is re-assigned to " +
         b + " in loop! Please make sure that the type stays consistent.";
}

struct ParamSpec {
  const char *name;
  bool required;
  Val def;
};

// Binds a call to named parameters with Python's rules and messages.
std::vector<Val> bind_args(const std::string &fname, const std::vector<ParamSpec> &params,
                           const CallArgs &args) {
  if (args.args.size() > params.size())
    throw CompileError(args.loc, fname + "() takes at most " + std::to_string(params.size()) +
                                     " arguments (" + std::to_string(args.args.size()) + " given)");
  std::vector<std::optional<Val>> bound(params.size());
  for (size_t i = 0; i < args.args.size(); ++i)
    bound[i] = args.args[i];
  for (const auto &[key, v] : args.kwargs) {
    size_t i = 0;
    while (i < params.size() && key != params[i].name)
      ++i;
    if (i == params.size())
      throw CompileError(args.loc, fname + "() got an unexpected keyword argument '" + key + "'");
    if (bound[i])
      throw CompileError(args.loc, fname + "() got multiple values for argument '" + key + "'");
    bound[i] = v;
  }
  std::vector<Val> out;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!bound[i] && params[i].required)
      throw CompileError(args.loc, fname + "() missing required argument '" +
                                       std::string(params[i].name) + "'");
    out.push_back(bound[i] ? *bound[i] : params[i].def);
  }
  return out;
}

bool is_int_bound(const Val &v) {
  if (v.kind == Val::Kind::Int || v.kind == Val::Kind::Bool)
    return true;
  if (!v.is_tensor())
    return false;
  const ir::Type &t = v.tensor->type;
  return !t.is_ptr() && !ir::is_float(t.elem);
}

// Walks `tmpl` (the join plan of a carried variable) against the body's final value,
// collecting the values that go where the holes are.
void collect_yields(const Val &tmpl, const Val &v, const std::string &path, SourceLoc loc,
                    std::vector<std::pair<std::string, Val>> &out) {
  if (tmpl.kind == Val::Kind::Tensor && !tmpl.tensor) {
    out.emplace_back(path, v);
    return;
  }
  if (tmpl.is_aggregate()) {
    if (!tmpl.same_structure(v))
      throw CompileError(loc, "Loop-carried variable " + path +
                                  " changes its tuple structure in the loop (now " +
                                  value_type_str(v) + ")");
    for (size_t i = 0; i < v.elems.size(); ++i)
      collect_yields(tmpl.elems[i], v.elems[i], path + "[" + std::to_string(i) + "]", loc, out);
    return;
  }
  if (!same_val(tmpl, v))
    throw CompileError(loc, loop_mismatch(path, value_type_str(tmpl), value_type_str(v)));
}

} // namespace

LoopCarry Lowerer::find_carries(const ast::StmtList &body, const std::string &iv_name,
                                const ir::Type *iv_type, SourceLoc loc) {
  LoopCarry c;
  const Scope entry = frame().scope;
  ir::Region scratch(nullptr);
  ir::Block *blk = scratch.ensure_block();
  struct DropUses { // before `scratch` dies: its ops use values that outlive it
    ir::Block *b;
    ~DropUses() { drop_all_uses(b); }
  } drop{blk};
  InsertionGuard guard(b_);
  b_.set_insertion_point_to_end(blk);
  if (iv_type)
    set_var(iv_name, Val::of(blk->add_arg(*iv_type)));
  ++dry_run_depth_;
  ++frame().loop_depth;
  lower_seq(body, 0, nullptr);
  --frame().loop_depth;
  --dry_run_depth_;

  for (const auto &[name, live] : entry) {
    if (iv_type && name == iv_name)
      continue; // the loop variable is rebound every iteration, never carried
    auto it = frame().scope.find(name);
    TILEC_ASSERT(it != frame().scope.end(), "a variable vanished in a loop body");
    if (same_val(live, it->second))
      continue;
    JoinPlan plan = plan_join(live, it->second, name, loc, loop_mismatch);
    for (JoinLeaf &leaf : plan.leaves) {
      c.body_types.push_back(leaf_value(leaf.b, loc)->type);
      leaf.b = Val::none(); // it lives in the scratch block
    }
    c.names.push_back(name);
    c.plans.push_back(std::move(plan));
  }
  frame().scope = entry;
  return c;
}

std::vector<ir::Value *> Lowerer::carried_inits(const LoopCarry &c, SourceLoc loc) {
  std::vector<ir::Value *> out;
  for (const JoinPlan &plan : c.plans)
    for (const JoinLeaf &leaf : plan.leaves) {
      ir::Value *v = leaf_value(leaf.a, loc);
      const ir::Type &body_t = c.body_types[out.size()];
      if (v->type != body_t)
        throw CompileError(loc,
                           loop_mismatch(leaf.name, ir_type_str(v->type), ir_type_str(body_t)));
      out.push_back(v);
    }
  return out;
}

std::vector<ir::Value *>
Lowerer::carried_yields(const LoopCarry &c, const std::vector<ir::Type> &types, SourceLoc loc) {
  std::vector<std::pair<std::string, Val>> leaves;
  for (size_t i = 0; i < c.names.size(); ++i) {
    auto it = frame().scope.find(c.names[i]);
    TILEC_ASSERT(it != frame().scope.end(), "a carried variable vanished in a loop body");
    collect_yields(c.plans[i].tmpl, it->second, c.names[i], loc, leaves);
  }
  TILEC_ASSERT(leaves.size() == types.size(), "loop yields do not match the carried values");
  std::vector<ir::Value *> out;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const auto &[path, v] = leaves[i];
    if (!v.is_tensor() && !is_py_number(v))
      throw CompileError(loc, loop_mismatch(path, ir_type_str(types[i]), value_type_str(v)));
    ir::Value *y = leaf_value(v, loc);
    if (y->type != types[i])
      throw CompileError(loc, loop_mismatch(path, ir_type_str(types[i]), ir_type_str(y->type)));
    out.push_back(y);
  }
  return out;
}

void Lowerer::bind_carried(const LoopCarry &c, const std::vector<ir::Value *> &values) {
  size_t cursor = 0;
  for (size_t i = 0; i < c.names.size(); ++i) {
    size_t n = c.plans[i].leaves.size();
    TILEC_ASSERT(cursor + n <= values.size(), "too few values for the carried variables");
    std::vector<ir::Value *> slice(values.begin() + static_cast<long>(cursor),
                                   values.begin() + static_cast<long>(cursor + n));
    cursor += n;
    set_var(c.names[i], fill_holes(c.plans[i].tmpl, slice));
  }
}

void Lowerer::lower_for(const ast::ForStmt &s, StaticUnroll *defer) {
  if (!s.orelse.empty())
    throw CompileError(s.orelse.front()->loc, "else clause on a for loop is not supported");
  if (s.target->kind != ast::ExprKind::Name)
    throw CompileError(s.target->loc, "the target of a for loop must be a single name");
  const char *only = "only range(), tl.range() and tl.static_range() can be iterated over in "
                     "a kernel";
  if (s.iter->kind != ast::ExprKind::Call)
    throw CompileError(s.iter->loc, only);
  auto &call = static_cast<const ast::CallExpr &>(*s.iter);
  Val f = eval(*call.func);
  bool py_range = f.kind == Val::Kind::Builtin && f.str == std::string(kPyBuiltinPrefix) + "range";
  bool tl_range = f.kind == Val::Kind::Builtin && f.str == "range";
  bool static_range = f.kind == Val::Kind::Builtin && f.str == "static_range";
  if (!py_range && !tl_range && !static_range)
    throw CompileError(s.iter->loc, only);
  CallArgs args = eval_call_args(call);
  if (static_range)
    return lower_static_range(s, args, defer);

  Val start = Val::integer(0), end, step = Val::integer(1);
  std::vector<ir::NamedAttr> attrs;
  if (py_range) {
    if (!args.kwargs.empty())
      throw CompileError(call.loc, "range() takes no keyword arguments");
    size_t n = args.args.size();
    if (n == 0 || n > 3)
      throw CompileError(call.loc,
                         n == 0 ? "range expected at least 1 argument, got 0"
                                : "range expected at most 3 arguments, got " + std::to_string(n));
    end = n == 1 ? args.args[0] : args.args[1];
    if (n >= 2)
      start = args.args[0];
    if (n == 3)
      step = args.args[2];
  } else {
    std::vector<Val> v = bind_args("range",
                                   {{"arg1", true, {}},
                                    {"arg2", false, Val::none()},
                                    {"step", false, Val::none()},
                                    {"num_stages", false, Val::none()},
                                    {"loop_unroll_factor", false, Val::none()},
                                    {"disallow_acc_multi_buffer", false, Val::boolean(false)},
                                    {"flatten", false, Val::boolean(false)},
                                    {"warp_specialize", false, Val::boolean(false)},
                                    {"disable_licm", false, Val::boolean(false)}},
                                   args);
    if (v[1].kind == Val::Kind::None) {
      end = v[0];
    } else {
      start = v[0];
      end = v[1];
    }
    if (v[2].kind != Val::Kind::None)
      step = v[2];
    const char *int_opts[] = {"num_stages", "loop_unroll_factor"};
    for (int k = 0; k < 2; ++k) {
      const Val &o = v[static_cast<size_t>(3 + k)];
      if (o.kind == Val::Kind::None)
        continue;
      if (o.kind != Val::Kind::Int)
        throw CompileError(call.loc, std::string("tl.range's ") + int_opts[k] +
                                         " must be a constexpr int, not " + py_type_name(o));
      attrs.push_back({int_opts[k], o.i});
    }
    const char *flag_opts[] = {"disallow_acc_multi_buffer", "flatten", "warp_specialize",
                               "disable_licm"};
    for (int k = 0; k < 4; ++k) {
      const Val &o = v[static_cast<size_t>(5 + k)];
      if (o.is_tensor())
        throw CompileError(call.loc,
                           std::string("tl.range's ") + flag_opts[k] + " must be a constexpr");
      if (constexpr_truth(o, call.loc))
        attrs.push_back({flag_opts[k], int64_t{1}});
    }
  }
  lower_range_for(s, start, end, step, std::move(attrs));
}

void Lowerer::lower_range_for(const ast::ForStmt &s, const Val &start, const Val &end,
                              const Val &step, std::vector<ir::NamedAttr> attrs) {
  SourceLoc loc = s.iter->loc;
  if (!is_int_bound(start) || !is_int_bound(end) || !is_int_bound(step))
    throw CompileError(loc, "For loop bounds and step must all be ints, are (" +
                                value_type_str(start) + ", " + value_type_str(end) + ", " +
                                value_type_str(step) + ")");
  if ((step.kind == Val::Kind::Int && step.i == 0) || (step.kind == Val::Kind::Bool && !step.b))
    throw CompileError(loc, "range() arg 3 must not be zero");
  ir::Value *bounds[3] = {leaf_value(start, loc), leaf_value(end, loc), leaf_value(step, loc)};
  for (ir::Value *v : bounds)
    if (v->type.is_tile())
      throw CompileError(loc,
                         "For loop bounds and step must be scalars, not " + ir_type_str(v->type));
  // One integer type for the induction variable, as Triton's integer promotion picks.
  ir::DType iv = integer_promote(integer_promote(bounds[0]->type.elem, bounds[1]->type.elem),
                                 bounds[2]->type.elem);
  ir::Type iv_t(iv);
  for (ir::Value *&v : bounds)
    if (v->type != iv_t)
      v = b_.create(ir::OpKind::Cast, {v}, {iv_t}, {}, loc)->result();

  const std::string &iv_name = static_cast<const ast::NameExpr &>(*s.target).id;
  LoopCarry c = find_carries(s.body, iv_name, &iv_t, s.loc);
  std::vector<ir::Value *> operands(bounds, bounds + 3);
  std::vector<ir::Value *> inits = carried_inits(c, s.loc);
  std::vector<ir::Type> types;
  for (ir::Value *v : inits) {
    operands.push_back(v);
    types.push_back(v->type);
  }
  ir::Builder after = b_;
  ir::Op *op = b_.create(ir::OpKind::For, operands, types, std::move(attrs), s.loc, 1);
  ir::Block *body = op->region(0)->block();
  ir::Value *iv_arg = body->add_arg(iv_t);
  std::vector<ir::Value *> args;
  for (const ir::Type &t : types)
    args.push_back(body->add_arg(t));

  const Scope entry = frame().scope;
  bind_carried(c, args);
  set_var(iv_name, Val::of(iv_arg));
  b_.set_insertion_point_to_end(body);
  ++frame().loop_depth;
  lower_seq(s.body, 0, nullptr);
  --frame().loop_depth;
  std::vector<ir::Value *> yields = carried_yields(c, types, s.loc);
  b_.create(ir::OpKind::Yield, yields, {}, {}, s.loc);

  frame().scope = entry;
  std::vector<ir::Value *> results;
  for (size_t i = 0; i < op->num_results(); ++i)
    results.push_back(op->result(i));
  bind_carried(c, results);
  frame().scope.erase(iv_name); // its value after the loop is not defined here
  b_ = after;
}

void Lowerer::lower_static_range(const ast::ForStmt &s, const CallArgs &args, StaticUnroll *defer) {
  std::vector<Val> v = bind_args(
      "static_range",
      {{"arg1", true, {}}, {"arg2", false, Val::none()}, {"step", false, Val::none()}}, args);
  for (const Val &x : v)
    if (x.kind != Val::Kind::Int && x.kind != Val::Kind::None)
      throw CompileError(args.loc,
                         "static_range arguments must be constexpr ints, not " + value_type_str(x));
  int64_t start = 0, end = 0, step = 1;
  if (v[1].kind == Val::Kind::None) {
    end = v[0].i;
  } else {
    start = v[0].i;
    end = v[1].i;
  }
  if (v[2].kind == Val::Kind::Int)
    step = v[2].i;
  if (step == 0)
    throw CompileError(args.loc, "static_range() arg 3 must not be zero");
  __int128 span = static_cast<__int128>(end) - start;
  __int128 count =
      step > 0
          ? (span > 0 ? (span + step - 1) / step : 0)
          : (span < 0 ? (-span + (-static_cast<__int128>(step)) - 1) / -static_cast<__int128>(step)
                      : 0);
  if (count > kMaxUnroll)
    throw CompileError(args.loc, "static_range of " + std::to_string(static_cast<int64_t>(count)) +
                                     " iterations is too long to unroll (at most " +
                                     std::to_string(kMaxUnroll) + ")");
  const std::string &name = static_cast<const ast::NameExpr &>(*s.target).id;
  if (defer) {
    *defer = StaticUnroll{&s, name, start, step, static_cast<int64_t>(count)};
    return;
  }
  ++frame().loop_depth;
  for (int64_t k = 0; k < static_cast<int64_t>(count); ++k) {
    set_var(name, Val::integer(start + k * step)); // a constexpr in each copy of the body
    lower_seq(s.body, 0, nullptr);
  }
  --frame().loop_depth;
}

void Lowerer::lower_while(const ast::WhileStmt &s) {
  if (!s.orelse.empty())
    throw CompileError(s.orelse.front()->loc, "else clause on a while loop is not supported");
  LoopCarry c = find_carries(s.body, "", nullptr, s.loc);
  std::vector<ir::Value *> inits = carried_inits(c, s.loc);
  std::vector<ir::Type> types;
  for (ir::Value *v : inits)
    types.push_back(v->type);
  ir::Builder after = b_;
  ir::Op *op = b_.create(ir::OpKind::While, inits, types, {}, s.loc, 2);
  const Scope entry = frame().scope;

  // before: the condition over the carried values
  ir::Block *before = op->region(0)->block();
  std::vector<ir::Value *> fwd;
  for (const ir::Type &t : types)
    fwd.push_back(before->add_arg(t));
  bind_carried(c, fwd);
  b_.set_insertion_point_to_end(before);
  Val cond = eval(*s.test);
  std::vector<ir::Value *> cond_ops{emit_condition(cond, s.test->loc)};
  cond_ops.insert(cond_ops.end(), fwd.begin(), fwd.end());
  b_.create(ir::OpKind::Condition, cond_ops, {}, {}, s.test->loc);

  // after: the body
  frame().scope = entry;
  ir::Block *body = op->region(1)->block();
  std::vector<ir::Value *> args;
  for (const ir::Type &t : types)
    args.push_back(body->add_arg(t));
  bind_carried(c, args);
  b_.set_insertion_point_to_end(body);
  ++frame().loop_depth;
  lower_seq(s.body, 0, nullptr);
  --frame().loop_depth;
  std::vector<ir::Value *> yields = carried_yields(c, types, s.loc);
  b_.create(ir::OpKind::Yield, yields, {}, {}, s.loc);

  frame().scope = entry;
  std::vector<ir::Value *> results;
  for (size_t i = 0; i < op->num_results(); ++i)
    results.push_back(op->result(i));
  bind_carried(c, results);
  b_ = after;
}

} // namespace tilec::sema::detail
