// The Tile IR verifier's rules for shape, memory and region ops (VerifierImpl.h).
#include "ir/VerifierImpl.h"

namespace tilec::ir::verifier {

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
  // a tma load's or store's three operands, its tensor map, (a store's) the tensor's inner
  // extent and an i32 offset a dim
  auto tma_operands = [&](size_t results, const std::string &what, size_t extents) {
    counts(op, 4 + extents + p.rank(), 4 + extents + p.rank(), results);
    check(op.operand(3)->type.is_scalar() && op.operand(3)->type.is_ptr(), op,
          "a tma " + what + "'s fourth operand is its tensor map's address (a scalar pointer)");
    for (size_t i = 4; i < op.num_operands(); ++i)
      check(op.operand(i)->type == Type(DType::I32), op,
            "a tma " + what + "'s extent and offsets must be i32 scalars");
  };
  switch (op.kind()) {
  case OpKind::Load:
    if (op.int_attr("tma", 0)) { // (ptr, mask, other, tensor map, offsets...): Ops.def
      tma_operands(1, "load", 0);
    } else {
      counts(op, 1, 3, 1);
    }
    check(op.result(0)->type == elem, op, "result must be the pointee type " + elem.str());
    if (op.num_operands() > 1)
      mask_ok(1);
    if (op.num_operands() > 2)
      check(op.operand(2)->type == elem, op, "`other` must have the result's type");
    return;
  case OpKind::Store:
    if (op.int_attr("tma", 0)) { // (ptr, value, mask, tensor map, extent, offsets...): Ops.def
      tma_operands(0, "store", 1);
    } else {
      counts(op, 2, 3, 0);
    }
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
  case OpKind::WarpSpecialize: // Ops.def
    counts(op, 0, 0, 0);
    check(op.num_regions() == 2 && op.int_attr("producer_warps", 0) > 0, op,
          "needs a producer and a consumer region and producer_warps > 0");
    region_sig(op, 0, {}, OpKind::Yield, {}, "producer region");
    region_sig(op, 1, {}, OpKind::Yield, {}, "consumer region");
    return;
  default:
    fail(&op, "no verifier rule for this op");
  }
}

} // namespace tilec::ir::verifier
