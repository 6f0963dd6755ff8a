#include "ir/Verifier.h"

#include <algorithm>
#include <unordered_set>

#include "ir/Printer.h"
#include "ir/RingOps.h"

namespace tilec::ir {

namespace {

std::string types_str(const std::vector<Type> &ts) {
  std::string s = "(";
  for (size_t i = 0; i < ts.size(); ++i)
    s += (i ? ", " : "") + ts[i].str();
  return s + ")";
}

std::vector<Type> operand_types(const Op &op, size_t from = 0, size_t to = SIZE_MAX) {
  std::vector<Type> ts;
  for (size_t i = from; i < std::min(to, op.num_operands()); ++i)
    ts.push_back(op.operand(i)->type);
  return ts;
}

std::vector<Type> result_types(const Op &op) {
  std::vector<Type> ts;
  for (size_t i = 0; i < op.num_results(); ++i)
    ts.push_back(op.result(i)->type);
  return ts;
}

std::vector<Type> arg_types(const Block &b) {
  std::vector<Type> ts;
  for (size_t i = 0; i < b.num_args(); ++i)
    ts.push_back(b.arg(i)->type);
  return ts;
}

bool is_int_type(const Type &t) { return !t.is_ptr() && is_int(t.elem); }
bool is_float_type(const Type &t) { return !t.is_ptr() && is_float(t.elem); }
bool is_i1_type(const Type &t) { return !t.is_ptr() && t.elem == DType::I1; }
int bit_width(const Type &t) { return t.is_ptr() ? 64 : bits(t.elem); }

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
                      (p->kind() == OpKind::While && p->region(1)->block() == op.parent()));
      check(ok, op, "`yield` outside an if/for/while-after/reduce/scan region");
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
  void verify_shape_op(const Op &op);
  void verify_memory_op(const Op &op);
  void verify_region_op(const Op &op);

  const Function &fn_;
  std::vector<std::unordered_set<const Value *>> visible_;
};

void Verifier::verify_specific(const Op &op) {
  if (is_ring_op(op.kind())) {
    std::string problem = verify_ring_op(op);
    check(problem.empty(), op, problem);
    return;
  }
  auto same_types = [&](const char *what) {
    const Type &t = op.result(0)->type;
    for (size_t i = 0; i < op.num_operands(); ++i)
      check(op.operand(i)->type == t, op,
            std::string(what) + " operands and result must have one type, got " +
                types_str(operand_types(op)) + " -> " + t.str());
  };
  switch (op.kind()) {
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::Rem:
  case OpKind::Min:
  case OpKind::Max:
    counts(op, 2, 2, 1);
    same_types("arithmetic");
    check(!op.result(0)->type.is_ptr(), op, "arithmetic on pointers (use addptr)");
    if (op.kind() == OpKind::Div)
      str_attr_in(op, "rounding", {"rn"}, false);
    return;
  case OpKind::And:
  case OpKind::Or:
  case OpKind::Xor:
  case OpKind::Shl:
  case OpKind::Shr:
  case OpKind::Umulhi:
    counts(op, 2, 2, 1);
    same_types("integer");
    check(is_int_type(op.result(0)->type), op, "needs integer operands");
    return;
  case OpKind::Neg:
  case OpKind::Abs:
    counts(op, 1, 1, 1);
    same_types("unary");
    check(!op.result(0)->type.is_ptr(), op, "needs numeric operands");
    return;
  case OpKind::Not:
    counts(op, 1, 1, 1);
    same_types("unary");
    check(is_int_type(op.result(0)->type), op, "needs an integer operand");
    return;
  case OpKind::Exp:
  case OpKind::Exp2:
  case OpKind::Log:
  case OpKind::Log2:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Sin:
  case OpKind::Cos:
  case OpKind::Erf:
  case OpKind::Floor:
  case OpKind::Ceil:
    counts(op, 1, 1, 1);
    same_types("math");
    check(is_float_type(op.result(0)->type), op, "needs a float operand");
    return;
  case OpKind::Fma:
    counts(op, 3, 3, 1);
    same_types("fma");
    check(is_float_type(op.result(0)->type), op, "needs float operands");
    return;
  case OpKind::Cmp: {
    counts(op, 2, 2, 1);
    const Type &a = op.operand(0)->type;
    check(op.operand(1)->type == a, op, "compared operands must have one type");
    check(op.result(0)->type == Type(DType::I1, false, a.shape).with_layout(a.layout), op,
          "result must be i1 of the operands' shape");
    str_attr_in(op, "pred", {"eq", "ne", "lt", "le", "gt", "ge"}, true);
    return;
  }
  case OpKind::Select:
    counts(op, 3, 3, 1);
    check(is_i1_type(op.operand(0)->type), op, "condition must be i1");
    check(op.operand(1)->type == op.result(0)->type && op.operand(2)->type == op.result(0)->type,
          op, "both choices and the result must have one type");
    return;
  case OpKind::Cast: {
    counts(op, 1, 1, 1);
    const Type &a = op.operand(0)->type, &r = op.result(0)->type;
    check(a.is_ptr() == r.is_ptr(), op, "cast between pointer and non-pointer (use bitcast)");
    str_attr_in(op, "rounding", {"rtne", "rtz"}, false);
    return;
  }
  case OpKind::Bitcast:
    counts(op, 1, 1, 1);
    check(bit_width(op.operand(0)->type) == bit_width(op.result(0)->type), op,
          "bitcast between types of different bit widths");
    return;
  case OpKind::AddPtr:
    counts(op, 2, 2, 1);
    check(op.operand(0)->type.is_ptr(), op, "first operand must be a pointer");
    check(is_int_type(op.operand(1)->type), op, "offsets must be integers");
    check(op.result(0)->type == op.operand(0)->type, op, "result must have the pointer's type");
    return;
  case OpKind::Dot: {
    counts(op, 3, 3, 1);
    const Type &a = op.operand(0)->type, &b = op.operand(1)->type, &c = op.operand(2)->type;
    check(!a.is_ptr() && !b.is_ptr() && !c.is_ptr(), op, "operands must be numeric tiles");
    check((a.rank() == 2 || a.rank() == 3) && b.rank() == a.rank() && c.rank() == a.rank(), op,
          "operands must all be rank 2 (or rank 3, batched)");
    int r = a.rank();
    bool batch_ok = r == 2 || (a.shape[0] == b.shape[0] && a.shape[0] == c.shape[0]);
    check(batch_ok && a.shape[r - 1] == b.shape[r - 2] && c.shape[r - 2] == a.shape[r - 2] &&
              c.shape[r - 1] == b.shape[r - 1],
          op,
          "shapes do not match [M,K] x [K,N] + [M,N]: " + a.str() + ", " + b.str() + ", " +
              c.str());
    check(op.result(0)->type == c, op, "result must have the accumulator's type");
    str_attr_in(op, "input_precision", {"tf32", "tf32x3", "ieee"}, false);
    return;
  }
  case OpKind::Gather: {
    counts(op, 2, 2, 1);
    const Type &s = op.operand(0)->type, &i = op.operand(1)->type, &r = op.result(0)->type;
    check(s.is_tile() && i.is_tile() && i.rank() == s.rank(), op,
          "src and index must be tiles of one rank");
    check(is_int_type(i), op, "index must be an integer tile");
    int64_t axis = axis_attr(op, "axis", s.rank());
    for (int d = 0; d < s.rank(); ++d)
      check(d == axis || i.shape[static_cast<size_t>(d)] == s.shape[static_cast<size_t>(d)], op,
            "index must have src's dims except along `axis`");
    check(r.element() == s.element() && r.shape == i.shape, op,
          "result must have src's element type and index's shape");
    return;
  }
  case OpKind::Histogram: {
    counts(op, 1, 2, 1);
    const Type &x = op.operand(0)->type, &r = op.result(0)->type;
    check(x.rank() == 1 && is_int_type(x), op, "input must be a 1-D integer tile");
    if (op.num_operands() > 1)
      check(is_i1_type(op.operand(1)->type) && op.operand(1)->type.shape == x.shape, op,
            "mask must be i1 with the input's shape");
    check(r.rank() == 1 && r.elem == DType::I32 && !r.is_ptr(), op, "result must be tile<Bxi32>");
    return;
  }
  case OpKind::ProgramId:
  case OpKind::NumPrograms:
    counts(op, 0, 0, 1);
    check(op.result(0)->type == Type(DType::I32), op, "result must be i32");
    axis_attr(op, "axis", 3);
    return;
  case OpKind::Print:
    check(op.num_results() == 0, op, "has no results");
    return;
  case OpKind::InlineAsm: {
    check(op.num_results() >= 1, op, "has at least one result");
    check(op.int_attr("pack", 0) >= 1, op, "pack must be >= 1");
    const Type &r0 = op.result(0)->type;
    for (size_t i = 0; i < op.num_results(); ++i)
      check(op.result(i)->type.shape == r0.shape &&
                (r0.is_scalar() || same_layout(op.result(i)->type.layout, r0.layout)),
            op, "results must share one shape and layout");
    for (size_t i = 0; i < op.num_operands(); ++i)
      check(op.operand(i)->type.shape == r0.shape &&
                (r0.is_scalar() || same_layout(op.operand(i)->type.layout, r0.layout)),
            op, "operands must have the results' shape and layout");
    return;
  }
  case OpKind::Assert:
    counts(op, 1, 1, 0);
    check(is_int_type(op.operand(0)->type), op, "condition must be an integer or i1");
    return;
  case OpKind::Barrier:
    counts(op, 0, 0, 0);
    return;
  case OpKind::HwRegister: {
    counts(op, 0, 0, 1);
    std::string reg = op.str_attr("reg", "");
    check(reg == "globaltimer" || reg == "smid", op, "reg must be globaltimer or smid");
    check(op.result(0)->type == Type(reg == "smid" ? DType::I32 : DType::I64), op,
          "result must be i64 (globaltimer) or i32 (smid)");
    return;
  }
  case OpKind::GridDepControl: {
    counts(op, 0, 0, 0);
    std::string action = op.str_attr("action", "");
    check(action == "wait" || action == "launch_dependents", op,
          "action must be wait or launch_dependents");
    return;
  }
  case OpKind::ConvertLayout: {
    counts(op, 1, 1, 1);
    const Type &a = op.operand(0)->type, &r = op.result(0)->type;
    check(a.is_tile() && r.same_ignoring_layout(a), op,
          "converts a tile to the same shape and element type");
    check(r.has_layout(), op, "result must have a layout");
    return;
  }
  case OpKind::Hint:
    counts(op, 1, 1, 1);
    same_types("hint");
    return;
  case OpKind::Load:
  case OpKind::Store:
  case OpKind::AtomicRmw:
  case OpKind::AtomicCas:
    verify_memory_op(op);
    return;
  case OpKind::Reduce:
  case OpKind::Scan:
  case OpKind::If:
  case OpKind::For:
  case OpKind::While:
    verify_region_op(op);
    return;
  default:
    verify_shape_op(op);
    return;
  }
}

void Verifier::verify_shape_op(const Op &op) {
  switch (op.kind()) {
  case OpKind::Constant: {
    counts(op, 0, 0, 1);
    const AttrValue *v = op.attr("value");
    const Type &t = op.result(0)->type;
    check(v != nullptr, op, "missing attribute `value`");
    if (is_float_type(t))
      check(std::holds_alternative<int64_t>(*v) || std::holds_alternative<double>(*v), op,
            "`value` must be a number");
    else
      check(std::holds_alternative<int64_t>(*v), op,
            "`value` of an integer constant must be an integer");
    return;
  }
  case OpKind::Arange: {
    counts(op, 0, 0, 1);
    const Type &t = op.result(0)->type;
    check(t.rank() == 1 && t.elem == DType::I32 && !t.is_ptr(), op, "result must be tile<Nxi32>");
    check(op.attr("start") && op.attr("end"), op, "needs `start` and `end`");
    check(op.int_attr("end") - op.int_attr("start") == t.shape[0], op,
          "end - start must equal the result's length");
    return;
  }
  default:
    break;
  }
  counts(op, op.kind() == OpKind::Join || op.kind() == OpKind::Cat ? 2 : 1,
         op.kind() == OpKind::Join || op.kind() == OpKind::Cat ? 2 : 1,
         op.kind() == OpKind::Split ? 2 : 1);
  const Type &a = op.operand(0)->type;
  const Type &r = op.result(0)->type;
  check(r.element() == a.element(), op, "operand and result element types differ");
  switch (op.kind()) {
  case OpKind::Splat:
    check(a.is_scalar() && r.is_tile(), op, "splats a scalar to a tile");
    return;
  case OpKind::Broadcast: {
    check(a.is_tile() && r.rank() == a.rank(), op, "operand and result must have one rank");
    for (int i = 0; i < a.rank(); ++i)
      check(a.shape[i] == r.shape[i] || a.shape[i] == 1, op,
            "cannot broadcast " + a.str() + " to " + r.str());
    return;
  }
  case OpKind::ExpandDims: {
    int64_t axis = axis_attr(op, "axis", a.rank() + 1);
    Shape s = a.shape;
    s.insert(s.begin() + axis, 1);
    check(r.shape == s, op, "result shape must be the operand's with a 1 inserted at `axis`");
    return;
  }
  case OpKind::Reshape:
    check(a.is_tile() && r.is_tile() && a.numel() == r.numel(), op,
          "reshape must keep the number of elements");
    return;
  case OpKind::Permute: {
    std::vector<int64_t> order = op.ints_attr("order");
    check(static_cast<int>(order.size()) == a.rank(), op, "`order` must list every dim");
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      check(sorted[i] == static_cast<int64_t>(i), op, "`order` must be a permutation");
    for (size_t i = 0; i < order.size(); ++i)
      check(r.rank() == a.rank() && r.shape[i] == a.shape[static_cast<size_t>(order[i])], op,
            "result dim i must be operand dim order[i]");
    return;
  }
  case OpKind::Join: {
    check(op.operand(1)->type == a, op, "both operands must have one type");
    Shape s = a.shape;
    s.push_back(2);
    check(r.shape == s, op, "result must add a minor dim of 2");
    return;
  }
  case OpKind::Split: {
    check(a.is_tile() && a.shape.back() == 2, op, "operand's last dim must be 2");
    Shape s(a.shape.begin(), a.shape.end() - 1);
    check(r.shape == s && op.result(1)->type == r, op, "results must drop the last dim");
    return;
  }
  case OpKind::Cat: {
    const Type &b = op.operand(1)->type;
    check(a.is_tile() && b == a, op, "operands must be tiles of one type");
    Shape s = a.shape;
    s[0] *= 2;
    check(r.shape == s, op, "result's dim 0 must be the sum of the operands'");
    return;
  }
  default:
    fail(&op, "no verifier rule for this op");
  }
}

void Verifier::verify_memory_op(const Op &op) {
  check(op.num_operands() >= 1, op, "needs a pointer operand");
  const Type &p = op.operand(0)->type;
  auto mask_ok = [&](size_t i) {
    check(is_i1_type(op.operand(i)->type) && op.operand(i)->type.shape == p.shape, op,
          "mask must be i1 with the pointer's shape");
  };
  Type elem = p.with_elem(p.elem); // drops the pointer
  check(p.is_ptr(), op, "first operand must be a pointer");
  switch (op.kind()) {
  case OpKind::Load:
    counts(op, 1, 3, 1);
    check(op.result(0)->type == elem, op, "result must be the pointee type " + elem.str());
    if (op.num_operands() > 1)
      mask_ok(1);
    if (op.num_operands() > 2)
      check(op.operand(2)->type == elem, op, "`other` must have the result's type");
    return;
  case OpKind::Store:
    counts(op, 2, 3, 0);
    check(op.operand(1)->type == elem, op, "stored value must have type " + elem.str());
    if (op.num_operands() > 2)
      mask_ok(2);
    return;
  case OpKind::AtomicRmw:
    counts(op, 2, 3, 1);
    check(op.operand(1)->type == elem && op.result(0)->type == elem, op,
          "value and result must have type " + elem.str());
    if (op.num_operands() > 2)
      mask_ok(2);
    str_attr_in(op, "op", {"add", "max", "min", "and", "or", "xor", "xchg"}, true);
    return;
  case OpKind::AtomicCas:
    counts(op, 3, 3, 1);
    check(op.operand(1)->type == elem && op.operand(2)->type == elem && op.result(0)->type == elem,
          op, "compare value, new value and result must have type " + elem.str());
    return;
  default:
    fail(&op, "no verifier rule for this op");
  }
}

void Verifier::verify_region_op(const Op &op) {
  switch (op.kind()) {
  case OpKind::Reduce:
  case OpKind::Scan: {
    size_t n = op.num_operands();
    check(n >= 1 && op.num_results() == n, op, "needs N >= 1 operands and N results");
    const Type &a = op.operand(0)->type;
    check(a.is_tile(), op, "operands must be tiles");
    int64_t axis = axis_attr(op, "axis", a.rank());
    std::vector<Type> elems, accs;
    for (size_t i = 0; i < n; ++i) {
      const Type &t = op.operand(i)->type;
      check(t.shape == a.shape, op, "operands must share one shape");
      Type expect = t;
      if (op.kind() == OpKind::Reduce) {
        expect.shape.erase(expect.shape.begin() + axis);
        // a reduction's result lives in the slice of its operand's layout
        expect.layout = t.layout && !expect.shape.empty()
                            ? Layout::slice(static_cast<int32_t>(axis), t.layout)
                            : nullptr;
      }
      check(op.result(i)->type == expect, op,
            "result " + std::to_string(i) + " must be " + expect.str());
      elems.push_back(t.element());
    }
    accs = elems;
    accs.insert(accs.end(), elems.begin(), elems.end());
    region_sig(op, 0, accs, OpKind::Yield, elems, "combiner region");
    return;
  }
  case OpKind::If: {
    counts(op, 1, 1, op.num_results());
    check(op.operand(0)->type == Type(DType::I1), op, "condition must be a scalar i1");
    region_sig(op, 0, {}, OpKind::Yield, result_types(op), "then region");
    region_sig(op, 1, {}, OpKind::Yield, result_types(op), "else region");
    return;
  }
  case OpKind::For: {
    check(op.num_operands() >= 3, op, "needs lb, ub, step");
    const Type &iv = op.operand(0)->type;
    check(is_int_type(iv) && iv.is_scalar() && op.operand(1)->type == iv &&
              op.operand(2)->type == iv,
          op, "lb, ub and step must be scalar integers of one type");
    std::vector<Type> inits = operand_types(op, 3);
    check(result_types(op) == inits, op, "results must have the types of the initial values");
    std::vector<Type> args = {iv};
    args.insert(args.end(), inits.begin(), inits.end());
    region_sig(op, 0, args, OpKind::Yield, inits, "loop body");
    return;
  }
  case OpKind::While: {
    std::vector<Type> inits = operand_types(op);
    region_sig(op, 0, inits, OpKind::Condition, result_types(op), "before region");
    region_sig(op, 1, result_types(op), OpKind::Yield, inits, "after region");
    return;
  }
  default:
    fail(&op, "no verifier rule for this op");
  }
}

} // namespace

void verify(const Function &f) { Verifier(f).run(); }

void verify(const Module &m) {
  for (const auto &f : m.functions)
    verify(*f);
}

} // namespace tilec::ir
