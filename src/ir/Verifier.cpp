// The Tile IR verifier (Verifier.h): the entry points, and the rules of the ops that are
// neither shape, memory nor region ops (VerifyOps.cpp has those; VerifierImpl.h the rest).
#include "ir/Verifier.h"

#include "ir/VerifierImpl.h"

namespace tilec::ir {

namespace verifier {

void Verifier::verify_specific(const Op &op) {
  if (is_ring_op(op.kind())) {
    std::string problem = verify_ring_op(op);
    check(problem.empty(), op, problem);
    return;
  }
  switch (op.kind()) {
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
  case OpKind::Breakpoint:
    check(op.num_results() == 0, op, "has no results");
    check(!op.str_attr("frames", "").empty(), op, "needs its frames");
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
  case OpKind::MakeTmap: {
    size_t n = op.num_operands();
    check(n >= 2 && n % 2 == 0 && n <= 10 && op.num_results() == 1, op,
          "takes a base pointer, R shapes and R - 1 strides (R = 1..5) and gives one map");
    if (n < 2 || n % 2 != 0 || n > 10 || op.num_results() != 1)
      return;
    size_t rank = n / 2;
    const Type &base = op.operand(0)->type, &r = op.result(0)->type;
    check(base.is_ptr() && base.is_scalar(), op, "base must be a scalar pointer");
    check(r.is_ptr() && r.is_scalar() && r.elem == DType::U8, op, "result must be a ptr<u8>");
    for (size_t i = 1; i < n; ++i)
      check(op.operand(i)->type == Type(i <= rank ? DType::I32 : DType::I64), op,
            "shapes must be i32 and strides i64 scalars");
    if (op.has_attr("slot")) {
      std::vector<int64_t> box = op.ints_attr("box");
      int64_t swz = op.int_attr("swizzle", -1);
      check(rank == 2 && box.size() == 2 && box[0] >= 1 && box[0] <= 256 && box[1] >= 1 &&
                box[1] <= 256 && op.int_attr("slot") >= 0 &&
                (swz == 0 || swz == 32 || swz == 64 || swz == 128),
            op, "a placed map needs box = [rows, cols] (1..256), swizzle and slot");
    }
    return;
  }
  case OpKind::TmaStore: {
    counts(op, 4, 4, 0);
    if (op.num_operands() != 4)
      return;
    const Type &v = op.operand(0)->type, &m = op.operand(1)->type;
    check(v.is_tile() && v.rank() == 2 && !v.is_ptr(), op, "the value must be a 2-D tile");
    check(m.is_ptr() && m.is_scalar(), op, "the tensor map must be a scalar pointer");
    check(op.operand(2)->type == Type(DType::I32) && op.operand(3)->type == Type(DType::I32), op,
          "the offsets must be i32 scalars");
    std::vector<int64_t> box = op.ints_attr("box");
    int64_t panels = op.int_attr("panels", 0), swz = op.int_attr("swizzle", -1);
    check(v.rank() == 2 && box.size() == 2 && panels >= 1 && box[0] == v.shape[0] &&
              box[1] * panels == v.shape[1] && (swz == 0 || swz == 32 || swz == 64 || swz == 128),
          op, "needs box = [rows, cols], panels and swizzle (0, 32, 64, 128) covering the value");
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
    same_types(op, "hint");
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
  case OpKind::WarpSpecialize:
    verify_region_op(op);
    return;
  default:
    verify_elementwise_op(op);
    return;
  }
}

// Arithmetic, math, comparisons, casts and addptr: elementwise ops of one shape.
void Verifier::verify_elementwise_op(const Op &op) {
  switch (op.kind()) {
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::Rem:
  case OpKind::Min:
  case OpKind::Max:
    counts(op, 2, 2, 1);
    same_types(op, "arithmetic");
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
    same_types(op, "integer");
    check(is_int_type(op.result(0)->type), op, "needs integer operands");
    return;
  case OpKind::Neg:
  case OpKind::Abs:
    counts(op, 1, 1, 1);
    same_types(op, "unary");
    check(!op.result(0)->type.is_ptr(), op, "needs numeric operands");
    return;
  case OpKind::Not:
    counts(op, 1, 1, 1);
    same_types(op, "unary");
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
    same_types(op, "math");
    check(is_float_type(op.result(0)->type), op, "needs a float operand");
    return;
  case OpKind::Fma:
    counts(op, 3, 3, 1);
    same_types(op, "fma");
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
  default:
    verify_shape_op(op);
    return;
  }
}

} // namespace verifier

void verify(const Function &f) { verifier::Verifier(f).run(); }

void verify(const Module &m) {
  for (const auto &f : m.functions)
    verify(*f);
}

} // namespace tilec::ir
