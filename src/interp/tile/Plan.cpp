// Builds the execution plan: one slot per SSA value, one Node per op with what the
// executor needs precomputed (operand slots, dispatch dtypes, shapes, attributes).
#include <algorithm>
#include <unordered_map>

#include "interp/tile/Runtime.h"

namespace tilec::interp {

using ir::OpKind;

namespace {

ir::DType key_of(const ir::Type &t) { return t.is_ptr() ? ir::DType::U64 : t.elem; }

std::vector<int64_t> row_major_strides(const ir::Shape &shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    st[i - 1] = st[i] * shape[i];
  return st;
}

int64_t pred_code(const std::string &p) {
  static const char *names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  for (int64_t i = 0; i < 6; ++i)
    if (p == names[i])
      return i;
  throw_internal(__FILE__, __LINE__, "cmp: unknown predicate '" + p + "'");
}

AtomicKind atomic_code(const std::string &op) {
  if (op == "add" || op == "fadd")
    return AtomicKind::Add;
  if (op == "max" || op == "umax")
    return AtomicKind::Max;
  if (op == "min" || op == "umin")
    return AtomicKind::Min;
  if (op == "and")
    return AtomicKind::And;
  if (op == "or")
    return AtomicKind::Or;
  if (op == "xor")
    return AtomicKind::Xor;
  if (op == "xchg")
    return AtomicKind::Xchg;
  throw_internal(__FILE__, __LINE__, "atomic_rmw: unknown op '" + op + "'");
}

// A combiner region made only of elementwise ops and constants: it can run on many
// element pairs at once.
bool batchable(const ir::Block *b) {
  for (const auto &op : b->ops())
    if (op->num_regions() != 0 || !(ir::is_elementwise(op->kind()) ||
                                    op->kind() == OpKind::Constant || op->kind() == OpKind::Yield))
      return false;
  return true;
}

// A combiner region that is exactly `yield op(arg0, arg1)` for a one-operand reduce/scan.
FastCombiner detect_fast(const ir::Op *op) {
  if (op->num_operands() != 1 || op->num_regions() != 1)
    return FastCombiner::None;
  const ir::Block *b = op->region(0)->block();
  if (!b || b->num_args() != 2 || b->ops().size() != 2)
    return FastCombiner::None;
  const ir::Op *bin = b->ops().front().get();
  const ir::Op *y = b->ops().back().get();
  if (y->kind() != OpKind::Yield || y->num_operands() != 1 || bin->num_results() != 1 ||
      y->operand(0) != bin->result() || bin->num_operands() != 2)
    return FastCombiner::None;
  bool args = (bin->operand(0) == b->arg(0) && bin->operand(1) == b->arg(1)) ||
              (bin->operand(0) == b->arg(1) && bin->operand(1) == b->arg(0));
  if (!args || bin->result()->type != b->arg(0)->type)
    return FastCombiner::None;
  bool nan = bin->int_attr("propagate_nan", 0) != 0;
  switch (bin->kind()) {
  case OpKind::Add:
    return FastCombiner::Add;
  case OpKind::Mul:
    return FastCombiner::Mul;
  case OpKind::Max:
    return nan ? FastCombiner::MaxNan : FastCombiner::Max;
  case OpKind::Min:
    return nan ? FastCombiner::MinNan : FastCombiner::Min;
  case OpKind::And:
    return FastCombiner::And;
  case OpKind::Or:
    return FastCombiner::Or;
  case OpKind::Xor:
    return FastCombiner::Xor;
  default:
    return FastCombiner::None;
  }
}

class PlanBuilder {
public:
  explicit PlanBuilder(Plan &p) : plan_(p) {}

  // `lanes` > 1: every value of the block gets that many elements (a batched combiner).
  void build_block(const ir::Block *b, BlockPlan &bp, int64_t lanes = 1) {
    int64_t saved = lanes_;
    lanes_ = lanes;
    for (size_t i = 0; i < b->num_args(); ++i)
      bp.args.push_back(add_slot(b->arg(i)));
    for (const auto &up : b->ops()) {
      const ir::Op *op = up.get();
      if (ir::is_terminator(op->kind())) {
        TILEC_ASSERT(op == b->ops().back().get(), "terminator in the middle of a block");
        for (ir::Value *v : op->operands())
          bp.yields.push_back(get(v));
        bp.returns = op->kind() == OpKind::Return;
        continue;
      }
      bp.nodes.emplace_back();
      make_node(op, bp.nodes.back());
    }
    lanes_ = saved;
  }

private:
  int32_t add_slot(const ir::Value *v) {
    SlotInfo s;
    s.type = &v->type;
    s.numel = lanes_ > 1 ? lanes_ : v->type.numel();
    s.elem_bytes = v->type.is_ptr() ? 8 : ir::byte_size(v->type.elem);
    s.key = key_of(v->type);
    uint64_t align = s.numel > 1 ? 64 : 8;
    plan_.arena_bytes = (plan_.arena_bytes + align - 1) / align * align;
    s.offset = plan_.arena_bytes;
    plan_.arena_bytes += std::max<uint64_t>(s.bytes(), 1);
    auto id = static_cast<int32_t>(plan_.slots.size());
    plan_.slots.push_back(s);
    slot_of_[v] = id;
    return id;
  }

  int32_t get(const ir::Value *v) {
    auto it = slot_of_.find(v);
    TILEC_ASSERT(it != slot_of_.end(), "value used before its definition");
    return it->second;
  }

  const SlotInfo &slot(int32_t s) const { return plan_.slots[static_cast<size_t>(s)]; }

  void make_node(const ir::Op *op, Node &n) {
    n.op = op;
    n.kind = op->kind();
    for (ir::Value *v : op->operands())
      n.in.push_back(get(v));
    // Regions first: their values must not see the op's own results (SSA), and loops
    // need their block-argument slots.
    for (size_t i = 0; i < op->num_regions(); ++i) {
      n.regions.push_back(std::make_unique<BlockPlan>());
      if (const ir::Block *b = op->region(i)->block())
        build_block(b, *n.regions.back());
    }
    for (size_t i = 0; i < op->num_results(); ++i)
      n.out.push_back(add_slot(op->result(i)));
    if (!n.out.empty()) {
      n.rdt = slot(n.out[0]).key;
      n.numel = slot(n.out[0]).numel;
    } else {
      for (int32_t s : n.in) // store: a scalar pointer may go with a tile of values
        n.numel = std::max(n.numel, slot(s).numel);
    }
    n.dt = n.in.empty() ? n.rdt : slot(n.in[0]).key;
    if (!n.in.empty())
      n.shape = op->operand(0)->type.shape;
    if (ir::is_elementwise(n.kind) || n.kind == OpKind::Load || n.kind == OpKind::Store ||
        n.kind == OpKind::AtomicRmw || n.kind == OpKind::AtomicCas) {
      for (int32_t s : n.in) {
        int64_t ne = slot(s).numel;
        TILEC_ASSERT(ne == n.numel || ne == 1,
                     std::string(op->name()) + ": operand shapes differ from the result's");
        n.bcast.push_back(ne == 1 && n.numel > 1);
      }
    }
    plan_kind(op, n);
  }

  // What the node's kind reads from its attributes and regions.
  void plan_kind(const ir::Op *op, Node &n) {
    switch (n.kind) {
    case OpKind::Arange:
      n.a = op->int_attr("start", 0);
      break;
    case OpKind::Cmp:
      n.a = pred_code(op->str_attr("pred"));
      break;
    case OpKind::Min:
    case OpKind::Max:
      n.a = op->int_attr("propagate_nan", 0);
      break;
    case OpKind::Cast:
      n.a = op->str_attr("rounding", "rtne") == "rtz";
      break;
    case OpKind::Broadcast: {
      // Source stride of every result dim (0 where broadcast), for the gather.
      const ir::Shape &in = n.shape, &res = op->result()->type.shape;
      TILEC_ASSERT(in.size() <= res.size(), "broadcast to a lower rank");
      std::vector<int64_t> src = row_major_strides(in);
      n.ints.assign(res.size(), 0);
      size_t lead = res.size() - in.size();
      for (size_t i = 0; i < in.size(); ++i) {
        TILEC_ASSERT(in[i] == res[lead + i] || in[i] == 1, "broadcast of a dim that is not 1");
        n.ints[lead + i] = in[i] == 1 ? 0 : src[i];
      }
      break;
    }
    case OpKind::Permute: {
      std::vector<int64_t> order = op->ints_attr("order"), src = row_major_strides(n.shape);
      TILEC_ASSERT(order.size() == n.shape.size(), "permute order has the wrong length");
      for (int64_t o : order) {
        TILEC_ASSERT(o >= 0 && o < static_cast<int64_t>(src.size()), "permute order out of range");
        n.ints.push_back(src[static_cast<size_t>(o)]);
      }
      break;
    }
    case OpKind::AtomicRmw:
      n.atomic = atomic_code(op->str_attr("op", "add"));
      break;
    case OpKind::HwRegister:
      n.a = op->str_attr("reg") == "smid";
      break;
    case OpKind::ProgramId:
    case OpKind::NumPrograms:
      n.a = op->int_attr("axis", 0);
      TILEC_ASSERT(n.a >= 0 && n.a < 3, "program axis must be 0, 1 or 2");
      break;
    case OpKind::Reduce:
    case OpKind::Scan:
      plan_combine(op, n);
      break;
    case OpKind::Gather:
      n.a = op->int_attr("axis", 0);
      TILEC_ASSERT(n.a >= 0 && n.a < static_cast<int64_t>(n.shape.size()),
                   "gather axis out of range");
      break;
    case OpKind::Dot: {
      n.ints = op->operand(1)->type.shape;
      std::string p = op->str_attr("input_precision", "ieee");
      n.a = p == "tf32";
      break;
    }
    case OpKind::Print:
      plan_.has_print = true;
      break;
    case OpKind::Breakpoint: { // a: breakpoint() itself; b: frame depth (0: the kernel)
      n.a = op->int_attr("kind", 0);
      std::string frames = op->str_attr("frames", "");
      n.b = static_cast<int64_t>(std::count(frames.begin(), frames.end(), '\n')) - 1;
      break;
    }
    case OpKind::For:
    case OpKind::While:
    case OpKind::If:
      check_control_flow(n);
      break;
    default:
      break;
    }
  }

  // Reduce and scan: axis, direction, and the combiner's fast form or batched copies.
  void plan_combine(const ir::Op *op, Node &n) {
    n.a = op->int_attr("axis", 0);
    n.b = op->int_attr("reverse", 0);
    TILEC_ASSERT(n.a >= 0 && n.a < static_cast<int64_t>(n.shape.size()),
                 "reduce/scan axis out of range");
    TILEC_ASSERT(n.regions.size() == 1 && n.regions[0]->args.size() == 2 * n.in.size() &&
                     n.regions[0]->yields.size() == n.in.size(),
                 "reduce/scan combiner must take 2N scalars and yield N");
    n.fast = detect_fast(op);
    if (n.fast == FastCombiner::None && batchable(op->region(0)->block())) {
      // Independent pairs per pass: every (outer, inner) lane of a scan step; half the
      // axis times those lanes for a reduce level. Capped to bound the memory.
      int64_t lanes = 1, axis_len = n.shape[static_cast<size_t>(n.a)];
      for (int64_t d : n.shape)
        lanes *= d;
      lanes /= axis_len;
      if (n.kind == OpKind::Reduce)
        lanes *= (axis_len + 1) / 2;
      n.batch = std::min<int64_t>(lanes, 1024);
      // Reduce levels shrink by half: narrower copies keep the wasted lanes under 2x.
      for (int64_t w = n.batch; w > 1 && (n.kind == OpKind::Reduce || w == n.batch);
           w = (w + 1) / 2) {
        n.batched.push_back(std::make_unique<BlockPlan>());
        build_block(op->region(0)->block(), *n.batched.back(), w);
      }
    }
  }

  // for / while / if: the regions' arguments and yields agree with the op's values; a
  // for's yields that alias another iteration argument are staged (Node::stage).
  void check_control_flow(Node &n) {
    switch (n.kind) {
    case OpKind::For: {
      const BlockPlan &body = *n.regions.at(0);
      TILEC_ASSERT(n.in.size() >= 3 && body.args.size() == n.in.size() - 2 &&
                       body.yields.size() == n.out.size() && n.out.size() == n.in.size() - 3,
                   "for: operands, body arguments, yields and results disagree");
      for (size_t i = 0; i < body.yields.size(); ++i) {
        bool aliases = false;
        for (size_t j = 1; j < body.args.size(); ++j)
          aliases |= body.yields[i] == body.args[j] && j != i + 1;
        n.stage.push_back(aliases);
      }
      break;
    }
    case OpKind::While: {
      TILEC_ASSERT(n.regions.size() == 2, "while needs a before and an after region");
      const BlockPlan &before = *n.regions[0], &after = *n.regions[1];
      TILEC_ASSERT(before.args.size() == n.in.size() && !before.yields.empty() &&
                       before.yields.size() - 1 == n.out.size() &&
                       after.args.size() == n.out.size() &&
                       after.yields.size() == before.args.size(),
                   "while: inits, region arguments, condition and yield disagree");
      break;
    }
    case OpKind::If:
      TILEC_ASSERT(n.regions.size() == 2, "if needs then and else regions");
      for (auto &r : n.regions)
        TILEC_ASSERT(r->yields.size() == n.out.size(),
                     "if: a branch yields the wrong number of values");
      break;
    default:
      break;
    }
  }

  Plan &plan_;
  std::unordered_map<const ir::Value *, int32_t> slot_of_;
  int64_t lanes_ = 1;
};

void collect_constants(const BlockPlan &b, std::vector<const Node *> &out) {
  for (const Node &n : b.nodes) {
    if (n.kind == OpKind::Constant)
      out.push_back(&n);
    for (const auto &r : n.regions)
      collect_constants(*r, out);
    for (const auto &r : n.batched)
      collect_constants(*r, out);
  }
}

} // namespace

std::unique_ptr<Plan> build_plan(const ir::Function &fn) {
  auto plan = std::make_unique<Plan>();
  plan->fn = &fn;
  PlanBuilder b(*plan);
  b.build_block(fn.entry(), plan->entry);
  collect_constants(plan->entry, plan->constants);
  return plan;
}

} // namespace tilec::interp
