#include "transforms/Canonicalize.h"

#include <cmath>

#include "transforms/FoldUtils.h"

namespace tilec::transforms {

using namespace ir;

namespace {

bool uses_unused(const Op &op) {
  for (size_t i = 0; i < op.num_results(); ++i)
    if (!op.result(i)->users.empty())
      return false;
  return true;
}

class Canonicalizer {
public:
  void run(Function &f) {
    // Each sweep makes progress or stops; the bound only guards against a pattern
    // cycle (a bug), which must not hang the compiler.
    for (int sweep = 0; sweep < 100; ++sweep) {
      changed_ = false;
      process_block(*f.entry());
      if (!changed_)
        return;
    }
  }

private:
  void process_block(Block &b) {
    for (auto it = b.ops().begin(); it != b.ops().end();) {
      Op *op = (it++)->get(); // simplify may erase op or insert before it
      for (size_t r = 0; r < op->num_regions(); ++r)
        process_block(*op->region(r)->block());
      if (simplify(*op))
        changed_ = true;
    }
    // Erase pure ops nobody uses (last to first, so chains go in one sweep).
    for (auto it = b.ops().end(); it != b.ops().begin();) {
      Op *op = (--it)->get();
      if (is_pure(op->kind()) && op->num_results() > 0 && uses_unused(*op)) {
        it = b.ops().erase(it);
        changed_ = true;
      }
    }
  }

  // Replaces op's single result by `v` and erases op.
  bool replace(Op &op, Value *v) {
    op.result(0)->replace_all_uses_with(v);
    op.erase();
    return true;
  }

  Value *make_constant(Op &before, const Type &t, const Scalar &s) {
    Builder b;
    b.set_insertion_point(&before);
    return b.create(OpKind::Constant, {}, {t}, {{"value", to_attr(s)}}, before.loc())->result();
  }

  bool replace_by_constant(Op &op, const Scalar &s) {
    return replace(op, make_constant(op, op.result(0)->type, s));
  }

  // Replaces op by a new op of `kind` on `x`, with op's result type.
  bool rebuild(Op &op, OpKind kind, Value *x, std::vector<NamedAttr> attrs = {}) {
    if (x->type == op.result(0)->type && kind != OpKind::Splat)
      return replace(op, x);
    Builder b;
    b.set_insertion_point(&op);
    Value *v = b.create(kind, {x}, {op.result(0)->type}, std::move(attrs), op.loc())->result();
    return replace(op, v);
  }

  bool simplify(Op &op) {
    // (inline asm is elementwise but opaque: it may even have no operands)
    if (is_elementwise(op.kind()) && is_pure(op.kind()) && op.num_results() == 1) {
      if (fold_constants(op) || identities(op))
        return true;
      return false;
    }
    switch (op.kind()) {
    case OpKind::Splat:
    case OpKind::Broadcast:
    case OpKind::Reshape:
    case OpKind::ExpandDims:
    case OpKind::Permute:
      return shape_op(op);
    case OpKind::Split:
      return split_constant(op);
    case OpKind::If:
      return fold_if(op);
    case OpKind::For:
      return fold_for(op);
    default:
      return false;
    }
  }

  bool fold_constants(Op &op) {
    std::vector<Scalar> args;
    for (size_t i = 0; i < op.num_operands(); ++i) {
      auto c = constant_value(op.operand(i));
      if (!c)
        return false;
      args.push_back(*c);
    }
    DType d = op.operand(op.kind() == OpKind::Select ? 1 : 0)->type.elem;
    if (op.operand(0)->type.is_ptr() || op.result(0)->type.is_ptr())
      return false;
    auto r = fold_elementwise(op, args, d, op.result(0)->type.elem);
    return r && replace_by_constant(op, *r);
  }

  bool identities(Op &op) {
    const Type &rt = op.result(0)->type;
    if (op.kind() == OpKind::Select) {
      Value *a = op.operand(1), *b = op.operand(2);
      if (a == b)
        return replace(op, a);
      if (auto c = constant_value(op.operand(0)))
        return replace(op, c->i ? a : b);
      return false;
    }
    if ((op.kind() == OpKind::Cast || op.kind() == OpKind::Bitcast) && op.operand(0)->type == rt)
      return replace(op, op.operand(0));
    if (op.kind() == OpKind::AddPtr) {
      auto off = constant_value(op.operand(1));
      if (off && off->i == 0 && op.operand(0)->type == rt)
        return replace(op, op.operand(0));
      return false;
    }
    if (op.num_operands() != 2 || rt.is_ptr())
      return false;
    Value *x = op.operand(0), *y = op.operand(1);
    DType d = x->type.elem;
    bool int_type = is_int(d);
    if (x == y) {
      switch (op.kind()) {
      case OpKind::And:
      case OpKind::Or:
      case OpKind::Min:
      case OpKind::Max:
        return replace(op, x);
      case OpKind::Sub:
      case OpKind::Xor:
        if (int_type)
          return replace_by_constant(op, Scalar{false, 0, 0});
        return false;
      case OpKind::Cmp:
        if (int_type) {
          std::string p = op.str_attr("pred");
          return replace_by_constant(op, Scalar{false, p == "eq" || p == "le" || p == "ge", 0});
        }
        return false;
      default:
        return false;
      }
    }
    auto cx = constant_value(x), cy = constant_value(y);
    bool commutative = op.kind() == OpKind::Add || op.kind() == OpKind::Mul ||
                       op.kind() == OpKind::And || op.kind() == OpKind::Or ||
                       op.kind() == OpKind::Xor;
    if (commutative && cx && !cy) {
      std::swap(x, y);
      std::swap(cx, cy);
    }
    if (!cy || x->type != rt)
      return false;
    const Scalar &c = *cy;
    switch (op.kind()) {
    case OpKind::Add:
      // For floats only x + (-0.0) is x: x + (+0.0) turns -0.0 into +0.0.
      if (int_type ? c.i == 0 : (c.f == 0 && std::signbit(c.f)))
        return replace(op, x);
      return false;
    case OpKind::Sub:
      if (int_type ? c.i == 0 : (c.f == 0 && !std::signbit(c.f)))
        return replace(op, x);
      return false;
    case OpKind::Mul:
      if (is_one(c))
        return replace(op, x);
      if (int_type && c.i == 0)
        return replace_by_constant(op, c); // not for floats: NaN * 0, inf * 0, -x * 0
      return false;
    case OpKind::Div:
      if (is_one(c))
        return replace(op, x);
      return false;
    case OpKind::And:
      if (is_all_ones(c, d))
        return replace(op, x);
      if (c.i == 0)
        return replace_by_constant(op, c);
      return false;
    case OpKind::Or:
      if (c.i == 0)
        return replace(op, x);
      if (is_all_ones(c, d))
        return replace_by_constant(op, c);
      return false;
    case OpKind::Xor:
    case OpKind::Shl:
    case OpKind::Shr:
      if (c.i == 0)
        return replace(op, x);
      return false;
    default:
      return false;
    }
  }

  bool shape_op(Op &op) {
    Value *x = op.operand(0);
    const Type &rt = op.result(0)->type;
    if (auto c = constant_value(x))
      return replace_by_constant(op, *c); // a constant tile is a splat
    Op *inner = x->def;
    switch (op.kind()) {
    case OpKind::Splat:
      return false;
    case OpKind::Broadcast:
      if (x->type == rt)
        return replace(op, x);
      if (inner && inner->kind() == OpKind::Broadcast)
        return rebuild(op, OpKind::Broadcast, inner->operand(0));
      break;
    case OpKind::Reshape:
      if (x->type == rt)
        return replace(op, x);
      if (inner && (inner->kind() == OpKind::Reshape || inner->kind() == OpKind::ExpandDims) &&
          inner->operand(0)->type.is_tile())
        return rebuild(op, OpKind::Reshape, inner->operand(0));
      break;
    case OpKind::ExpandDims:
      if (inner && inner->kind() == OpKind::Reshape)
        return rebuild(op, OpKind::Reshape, inner->operand(0));
      break;
    case OpKind::Permute: {
      std::vector<int64_t> order = op.ints_attr("order");
      bool identity = true;
      for (size_t i = 0; i < order.size(); ++i)
        identity = identity && order[i] == static_cast<int64_t>(i);
      if (identity)
        return replace(op, x);
      if (inner && inner->kind() == OpKind::Permute) {
        // r[i] = x[inner_order[order[i]]]
        std::vector<int64_t> in = inner->ints_attr("order"), composed;
        for (int64_t o : order)
          composed.push_back(in.at(static_cast<size_t>(o)));
        return rebuild(op, OpKind::Permute, inner->operand(0), {{"order", composed}});
      }
      break;
    }
    default:
      break;
    }
    // Shape ops of a splat are a splat of the scalar.
    if (inner && inner->kind() == OpKind::Splat)
      return rebuild(op, OpKind::Splat, inner->operand(0));
    return false;
  }

  // tl.split of a constant tile: both halves are that constant (a flattened loop's
  // no-K-step branch splits its zero accumulator, which otherwise needs a scratch).
  bool split_constant(Op &op) {
    auto c = constant_value(op.operand(0));
    if (!c)
      return false;
    for (size_t i = 0; i < op.num_results(); ++i)
      op.result(i)->replace_all_uses_with(make_constant(op, op.result(i)->type, *c));
    op.erase();
    return true;
  }

  bool fold_if(Op &op) {
    auto c = constant_value(op.operand(0));
    if (!c)
      return false;
    Block *src = op.region(c->i ? 0 : 1)->block();
    Op *term = src->terminator();
    if (!term)
      return false;
    Block *dst = op.parent();
    auto pos = op.self_iterator();
    while (src->ops().front().get() != term)
      dst->insert(pos, src->take(src->ops().front().get()));
    for (size_t i = 0; i < op.num_results(); ++i)
      op.result(i)->replace_all_uses_with(term->operand(i));
    op.erase();
    return true;
  }

  bool fold_for(Op &op) {
    auto lb = constant_value(op.operand(0)), ub = constant_value(op.operand(1)),
         st = constant_value(op.operand(2));
    if (!lb || !ub || !st || st->i == 0)
      return false;
    bool sgn = is_signed_int(op.operand(0)->type.elem);
    auto less = [&](int64_t a, int64_t b) {
      return sgn ? a < b : static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
    };
    bool step_positive = sgn ? st->i > 0 : true;
    bool runs = step_positive ? less(lb->i, ub->i) : less(ub->i, lb->i);
    if (runs)
      return false;
    for (size_t i = 0; i < op.num_results(); ++i)
      op.result(i)->replace_all_uses_with(op.operand(3 + i));
    op.erase();
    return true;
  }

  bool changed_ = false;
};

} // namespace

void canonicalize(Module &m) {
  for (auto &f : m.functions)
    Canonicalizer().run(*f);
}

} // namespace tilec::transforms
