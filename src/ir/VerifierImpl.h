// The Tile IR verifier's machinery (private to src/ir): the Verifier class, whose
// structural checks (dominance, regions, counts, attributes) are defined here and whose
// per-op rules live in Verifier.cpp (verify_specific) and VerifyOps.cpp (shape, memory
// and region ops).
#pragma once

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/IR.h"
#include "ir/Printer.h"
#include "ir/RingOps.h"

namespace tilec::ir::verifier {

inline std::string types_str(const std::vector<Type> &ts) {
  std::string s = "(";
  for (size_t i = 0; i < ts.size(); ++i)
    s += (i ? ", " : "") + ts[i].str();
  return s + ")";
}

inline std::vector<Type> operand_types(const Op &op, size_t from = 0, size_t to = SIZE_MAX) {
  std::vector<Type> ts;
  for (size_t i = from; i < std::min(to, op.num_operands()); ++i)
    ts.push_back(op.operand(i)->type);
  return ts;
}

inline std::vector<Type> result_types(const Op &op) {
  std::vector<Type> ts;
  for (size_t i = 0; i < op.num_results(); ++i)
    ts.push_back(op.result(i)->type);
  return ts;
}

inline std::vector<Type> arg_types(const Block &b) {
  std::vector<Type> ts;
  for (size_t i = 0; i < b.num_args(); ++i)
    ts.push_back(b.arg(i)->type);
  return ts;
}

inline bool is_int_type(const Type &t) { return !t.is_ptr() && is_int(t.elem); }
inline bool is_float_type(const Type &t) { return !t.is_ptr() && is_float(t.elem); }
inline bool is_i1_type(const Type &t) { return !t.is_ptr() && t.elem == DType::I1; }
inline int bit_width(const Type &t) { return t.is_ptr() ? 64 : bits(t.elem); }

class Verifier {
public:
  explicit Verifier(const Function &f) : fn_(f) {}

  void run() {
    if (!fn_.arg_names.empty() && fn_.arg_names.size() != fn_.entry()->num_args())
      fail(nullptr, std::to_string(fn_.arg_names.size()) + " argument names for " +
                        std::to_string(fn_.entry()->num_args()) + " arguments");
    check_types_of(arg_types(*fn_.entry()), nullptr);
    visible_.emplace_back();
    for (size_t i = 0; i < fn_.entry()->num_args(); ++i)
      visible_.back().insert(fn_.entry()->arg(i));
    verify_block(*fn_.entry());
    Op *t = fn_.entry()->terminator();
    if (!t || t->kind() != OpKind::Return)
      fail(t, "the kernel body must end with `return`");
  }

private:
  [[noreturn]] void fail(const Op *op, const std::string &msg) const {
    std::string s = "IR verification failed in @" + fn_.name + ": ";
    if (op)
      s += std::string(op->name()) + ": ";
    s += msg;
    if (op) {
      PrintOptions o;
      o.context = &fn_;
      o.elide_regions = true;
      s += "\n  " + print(*op, o);
    }
    throw InternalError(s);
  }

  void check(bool cond, const Op &op, const std::string &msg) const {
    if (!cond)
      fail(&op, msg);
  }

  void check_types_of(const std::vector<Type> &ts, const Op *op) const {
    for (const Type &t : ts) {
      if (op && op->kind() == OpKind::LocalAlloc)
        continue; // a ring buffer (S stages, any S, in memory): verify_ring_op checks it
      for (int64_t d : t.shape)
        if (!is_power_of_two(d))
          fail(op, "tile dimensions must be powers of two, got " + t.str());
      if (t.layout) {
        if (t.is_scalar())
          fail(op, "a scalar cannot have a layout: " + t.str());
        if (!t.layout->is_distributed())
          fail(op, "a tile value needs a distributed layout, got " + t.str());
        std::string problem = check_layout(*t.layout, t.rank());
        if (!problem.empty())
          fail(op, problem);
      }
    }
  }

  bool is_visible(const Value *v) const {
    for (const auto &scope : visible_)
      if (scope.count(v))
        return true;
    return false;
  }

  void verify_block(const Block &b) {
    for (const auto &up : b.ops()) {
      const Op &op = *up;
      check(op.parent() == &b, op, "op's parent pointer is wrong");
      for (size_t i = 0; i < op.num_operands(); ++i) {
        const Value *v = op.operand(i);
        check(v != nullptr, op, "operand " + std::to_string(i) + " is null");
        check(is_visible(v), op,
              "operand " + std::to_string(i) +
                  " does not dominate its use (defined later, "
                  "in a sibling or inner region, or elsewhere)");
      }
      if (is_terminator(op.kind()))
        check(&op == b.ops().back().get(), op, "a terminator must be the last op of its block");
      check_types_of(result_types(op), &op);
      check_region_count(op);
      // Regions first, so a problem inside one is reported there rather than as a
      // mismatched signature of the op that holds it.
      for (size_t r = 0; r < op.num_regions(); ++r) {
        const Block *rb = op.region(r)->block();
        check(rb != nullptr, op, "region " + std::to_string(r) + " has no block");
        check_types_of(arg_types(*rb), &op);
        visible_.emplace_back();
        for (size_t i = 0; i < rb->num_args(); ++i)
          visible_.back().insert(rb->arg(i));
        verify_block(*rb);
        visible_.pop_back();
      }
      verify_op(op);
      for (size_t i = 0; i < op.num_results(); ++i)
        visible_.back().insert(op.result(i));
    }
  }

  void counts(const Op &op, size_t min_ops, size_t max_ops, size_t results) const {
    check(op.num_operands() >= min_ops && op.num_operands() <= max_ops, op,
          "expected " +
              (min_ops == max_ops ? std::to_string(min_ops)
                                  : std::to_string(min_ops) + " to " + std::to_string(max_ops)) +
              " operands, got " + std::to_string(op.num_operands()));
    check(op.num_results() == results, op,
          "expected " + std::to_string(results) + " results, got " +
              std::to_string(op.num_results()));
  }

  void num_regions(const Op &op, size_t n) const {
    check(op.num_regions() == n, op,
          "expected " + std::to_string(n) + " regions, got " + std::to_string(op.num_regions()));
  }

  int64_t axis_attr(const Op &op, const char *name, int64_t limit) const {
    const AttrValue *a = op.attr(name);
    check(a && std::holds_alternative<int64_t>(*a), op,
          std::string("missing integer attribute `") + name + "`");
    int64_t v = std::get<int64_t>(*a);
    check(v >= 0 && v < limit, op,
          std::string("attribute `") + name + "` = " + std::to_string(v) + " out of range [0, " +
              std::to_string(limit) + ")");
    return v;
  }

  void str_attr_in(const Op &op, const char *name, std::initializer_list<const char *> allowed,
                   bool required) const {
    const AttrValue *a = op.attr(name);
    if (!a) {
      check(!required, op, std::string("missing attribute `") + name + "`");
      return;
    }
    const std::string *s = std::get_if<std::string>(a);
    check(s != nullptr, op, std::string("attribute `") + name + "` must be a string");
    bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const char *x) { return *s == x; });
    check(ok, op, std::string("attribute `") + name + "` has unknown value \"" + *s + "\"");
  }

  // The region's block takes `args` and ends in `term` yielding `yields`.
  void region_sig(const Op &op, size_t r, const std::vector<Type> &args, OpKind term,
                  const std::vector<Type> &yields, const char *what) const {
    const Block &b = *op.region(r)->block();
    check(arg_types(b) == args, op,
          std::string(what) + " arguments are " + types_str(arg_types(b)) + ", expected " +
              types_str(args));
    const Op *t = b.terminator();
    check(t && t->kind() == term, op,
          std::string(what) + " must end with `" + std::string(op_name(term)) + "`");
    size_t skip = term == OpKind::Condition ? 1 : 0;
    if (skip) {
      check(t->num_operands() >= 1 && is_i1_type(t->operand(0)->type) &&
                t->operand(0)->type.is_scalar(),
            op, "`condition` needs a scalar i1 first operand");
    }
    check(operand_types(*t, skip) == yields, op,
          std::string(what) + " yields " + types_str(operand_types(*t, skip)) + ", expected " +
              types_str(yields));
  }

  void check_region_count(const Op &op) const {
    size_t expected_regions = 0;
    switch (op.kind()) {
    case OpKind::If:
      expected_regions = 2;
      break;
    case OpKind::While:
    case OpKind::WarpSpecialize:
      expected_regions = 2;
      break;
    case OpKind::For:
    case OpKind::Reduce:
    case OpKind::Scan:
      expected_regions = 1;
      break;
    default:
      break;
    }
    num_regions(op, expected_regions);
  }

  void verify_op(const Op &op) {
    if (is_elementwise(op.kind()) && op.num_results() == 1) {
      const Shape &s = op.result(0)->type.shape;
      for (size_t i = 0; i < op.num_operands(); ++i)
        check(op.operand(i)->type.shape == s, op,
              "elementwise operands and result must share one shape");
      // after layout assignment they share one layout too (casts change the dtype only)
      const LayoutRef &l = op.result(0)->type.layout;
      for (size_t i = 0; i < op.num_operands(); ++i)
        check(op.operand(i)->type.is_scalar() || same_layout(op.operand(i)->type.layout, l), op,
              "elementwise operands and result must share one layout");
    }
    if (op.kind() == OpKind::Yield) {
      const Op *p = op.parent()->parent() ? op.parent()->parent()->parent() : nullptr;
      bool ok = p && (p->kind() == OpKind::If || p->kind() == OpKind::For ||
                      p->kind() == OpKind::Reduce || p->kind() == OpKind::Scan ||
                      p->kind() == OpKind::WarpSpecialize ||
                      (p->kind() == OpKind::While && p->region(1)->block() == op.parent()));
      check(ok, op, "`yield` outside an if/for/while-after/reduce/scan/warp_specialize region");
      return;
    }
    if (op.kind() == OpKind::Condition) {
      const Op *p = op.parent()->parent() ? op.parent()->parent()->parent() : nullptr;
      check(p && p->kind() == OpKind::While && p->region(0)->block() == op.parent(), op,
            "`condition` outside a while's before region");
      return;
    }
    if (op.kind() == OpKind::Return) {
      counts(op, 0, 0, 0);
      check(op.parent() == fn_.entry(), op, "`return` may only end the kernel body");
      return;
    }
    verify_specific(op);
  }

  void verify_specific(const Op &op);
  void verify_elementwise_op(const Op &op); // Verifier.cpp
  // Every operand has the result's type (`what` names the op family in the message).
  void same_types(const Op &op, const char *what) {
    const Type &t = op.result(0)->type;
    for (size_t i = 0; i < op.num_operands(); ++i)
      check(op.operand(i)->type == t, op,
            std::string(what) + " operands and result must have one type, got " +
                types_str(operand_types(op)) + " -> " + t.str());
  }
  void verify_shape_op(const Op &op);
  void verify_memory_op(const Op &op);
  void verify_region_op(const Op &op);

  const Function &fn_;
  std::vector<std::unordered_set<const Value *>> visible_;
};

} // namespace tilec::ir::verifier
