// Creation and shape ops: constant, arange, splat, broadcast, expand_dims, reshape,
// permute, join, split, cat, hint.
//
// Shape ops move no data by themselves: each is a linear map between the result's and the
// operand's coordinates, so the layout the operand "should" have is the result layout
// with every basis mapped through it. When the operand already has that layout (up to a
// renumbering of registers) the op is a relabelling; otherwise convert_regs moves the
// data (through shared memory).
#include <cmath>

#include "layout/Layouts.h"
#include "layout/ViewLayouts.h"
#include "lower/LoweringContext.h"

namespace tilec::lower {

using layout::LinearLayout;

namespace {} // namespace

void lower_constant(LoweringContext &c, const ir::Op &op) {
  const ir::Value *r = op.result(0);
  const ir::AttrValue *attr = op.attr("value");
  bool is_f = attr && std::holds_alternative<double>(*attr);
  int64_t iv = op.int_attr("value", 0);
  double fv = op.float_attr("value", 0);
  ir::DType d = r->type.elem;
  Ty t = reg_ty(r->type);
  simt::Builder &b = c.b();
  Reg reg = b.reg(t);
  if (r->type.ptr) {
    b.mov_to(reg, simt::imm(iv));
  } else if (ir::is_float(d)) {
    double x = is_f ? fv : static_cast<double>(iv);
    if (d == ir::DType::F32)
      b.mov_to(reg, Operand::f32(static_cast<float>(x)));
    else if (d == ir::DType::F64)
      b.mov_to(reg, Operand::f64(x));
    else
      b.mov_to(reg, simt::imm(static_cast<int64_t>(ir::float_bits(x, d))));
  } else if (d == ir::DType::I1) {
    b.mov_to(reg, simt::imm(is_f ? fv != 0 : iv != 0));
  } else {
    int64_t v = iv;
    if (is_f) { // a float attribute on an integer constant: saturating truncation
      double lo = ir::is_unsigned_int(d) ? 0.0 : -std::ldexp(1.0, ir::bits(d) - 1);
      double hi = ir::is_unsigned_int(d) ? std::ldexp(1.0, ir::bits(d)) - 1
                                         : std::ldexp(1.0, ir::bits(d) - 1) - 1;
      v = std::isnan(fv) ? 0 : static_cast<int64_t>(std::fmax(lo, std::fmin(hi, std::trunc(fv))));
    }
    int bits = ir::bits(d);
    if (bits < 64) { // canonical: sign- or zero-extended from the dtype's width
      uint64_t mask = (uint64_t{1} << bits) - 1;
      uint64_t u = static_cast<uint64_t>(v) & mask;
      if (ir::is_signed_int(d) && (u >> (bits - 1)))
        u |= ~mask;
      v = static_cast<int64_t>(u);
    }
    b.mov_to(reg, simt::imm(v));
  }
  c.set(r, std::vector<Reg>(static_cast<size_t>(c.num_regs(r->type)), reg));
}

namespace {

void lower_arange(LoweringContext &c, const ir::Op &op) {
  const ir::Value *r = op.result(0);
  const LinearLayout &l = c.layout_of(r->type);
  const ThreadCoords &tc = c.thread_coords(l);
  int64_t start = op.int_attr("start", 0);
  simt::Builder &b = c.b();
  std::vector<Reg> out;
  for (int32_t i = 0; i < c.num_regs(r->type); ++i) {
    int64_t rc = LoweringContext::reg_coords(l, i)[0];
    Reg t = tc.dim[0];
    // The values stay within [start, end): the adds below never wrap.
    if ((rc & tc.span[0]) == 0) {
      out.push_back(rc + start == 0 ? t : b.add(Ty::S32, t, simt::imm(rc + start)));
      c.note_affine(out.back(), t, rc + start);
    } else {
      Reg x = b.xor_(Ty::B32, t, simt::imm(rc));
      out.push_back(start ? b.add(Ty::S32, x, simt::imm(start)) : x);
      if (start)
        c.note_affine(out.back(), x, start);
    }
  }
  c.set(r, std::move(out));
}

// `l` (a layout of a tile of `from` shape) embedded into a tile of `to` shape (same rank,
// each dim at least as large) with one more register bit stepping `extra` (the
// registers of a second operand follow the first's).
LinearLayout with_extra_register(const LinearLayout &l, const ir::Shape &to,
                                 const std::vector<int32_t> &extra) {
  std::vector<LinearLayout::InDim> ins = l.in_dims();
  bool found = false;
  for (LinearLayout::InDim &in : ins)
    if (in.name == layout::kRegister) {
      in.bases.push_back(extra);
      found = true;
    }
  if (!found)
    ins.insert(ins.begin(), LinearLayout::InDim{layout::kRegister, {extra}});
  std::vector<LinearLayout::OutDim> outs;
  for (size_t d = 0; d < to.size(); ++d)
    outs.push_back({layout::dim_name(static_cast<int>(d)), static_cast<int32_t>(to[d])});
  return LinearLayout(std::move(ins), std::move(outs));
}

// The operand's registers in the layout `want` (relabelled, or moved through shared
// memory).
std::vector<Reg> operand_in(LoweringContext &c, const ir::Op &op, const ir::Value *v,
                            const LinearLayout &want) {
  return convert_regs(c, op, c.get(v), c.layout_of(v->type), want, v->type.element());
}

void lower_view(LoweringContext &c, const ir::Op &op) {
  const ir::Value *src = op.operand(0), *r = op.result(0);
  if (!src->type.is_tile()) { // expand_dims / reshape / broadcast of a scalar
    c.set(r, std::vector<Reg>(static_cast<size_t>(c.num_regs(r->type)), c.scalar(src)));
    return;
  }
  LinearLayout want = layout::view_operand_layout(op, c.layout_of(r->type));
  c.set(r, operand_in(c, op, src, want));
}

// join: r[..., k] = (a, b)[k]. The two operands side by side form a layout of the result
// with one more register bit (the last dim); converting it to the result's layout is a
// relabelling when the result keeps the last dim in registers.
void lower_join(LoweringContext &c, const ir::Op &op) {
  const ir::Value *a = op.operand(0), *bv = op.operand(1), *r = op.result(0);
  std::vector<Reg> regs;
  LinearLayout src;
  const ir::Shape &rs = r->type.shape;
  if (a->type.is_tile()) {
    const LinearLayout &la = c.layout_of(a->type);
    std::vector<Reg> rb = c.get(bv);
    if (c.layout_of(bv->type) != la)
      rb = convert_regs(c, op, rb, c.layout_of(bv->type), la, bv->type.element());
    src = layout::paired_layout(la, rs);
    regs = c.get(a);
    regs.insert(regs.end(), rb.begin(), rb.end());
  } else { // join of two scalars: a tile<2>
    src = LinearLayout({{layout::kRegister, {{1}}}}, {{layout::dim_name(0), 2}});
    regs = {c.scalar(a), c.scalar(bv)};
  }
  c.set(r, convert_regs(c, op, regs, src, c.layout_of(r->type), r->type.element()));
}

// split: the inverse of join. The operand is moved into the layout "result layout plus a
// top register bit for the last dim"; the two halves of its registers are the results.
void lower_split(LoweringContext &c, const ir::Op &op) {
  const ir::Value *x = op.operand(0), *ra = op.result(0), *rb = op.result(1);
  const ir::Shape &xs = x->type.shape;
  LinearLayout want;
  int n = 1;
  if (ra->type.is_tile()) {
    const LinearLayout &la = c.layout_of(ra->type);
    TILEC_ASSERT(c.layout_of(rb->type) == la, "split: results with different layouts");
    want = layout::paired_layout(la, xs);
    n = la.in_dim_size(layout::kRegister);
  } else {
    want = layout::paired_layout(LinearLayout({{layout::kRegister, {}}}, {}), xs);
  }
  std::vector<Reg> regs = operand_in(c, op, x, want);
  c.set(ra, std::vector<Reg>(regs.begin(), regs.begin() + n));
  c.set(rb, std::vector<Reg>(regs.begin() + n, regs.end()));
}

// cat along dim 0: b's registers follow a's with a top register bit stepping dim 0 by
// a's length.
void lower_cat(LoweringContext &c, const ir::Op &op) {
  const ir::Value *a = op.operand(0), *bv = op.operand(1), *r = op.result(0);
  const LinearLayout &la = c.layout_of(a->type);
  std::vector<Reg> rb = c.get(bv);
  if (c.layout_of(bv->type) != la)
    rb = convert_regs(c, op, rb, c.layout_of(bv->type), la, bv->type.element());
  const ir::Shape &rs = r->type.shape;
  LinearLayout emb = layout::map_bases(la, rs, [](const LinearLayout::Basis &x) { return x; });
  std::vector<int32_t> extra(rs.size(), 0);
  extra[0] = static_cast<int32_t>(a->type.shape[0]);
  LinearLayout src = with_extra_register(emb, rs, extra);
  std::vector<Reg> regs = c.get(a);
  regs.insert(regs.end(), rb.begin(), rb.end());
  c.set(r, convert_regs(c, op, regs, src, c.layout_of(r->type), r->type.element()));
}

} // namespace

void lower_shape(LoweringContext &c, const ir::Op &op) {
  switch (op.kind()) {
  case ir::OpKind::Arange:
    lower_arange(c, op);
    return;
  case ir::OpKind::Splat: {
    const ir::Value *r = op.result(0);
    c.set(r, std::vector<Reg>(static_cast<size_t>(c.num_regs(r->type)), c.scalar(op.operand(0))));
    return;
  }
  case ir::OpKind::Hint:
    c.set(op.result(0), c.get(op.operand(0)));
    return;
  case ir::OpKind::Broadcast:
  case ir::OpKind::ExpandDims:
  case ir::OpKind::Reshape:
  case ir::OpKind::Permute:
    lower_view(c, op);
    return;
  case ir::OpKind::Join:
    lower_join(c, op);
    return;
  case ir::OpKind::Split:
    lower_split(c, op);
    return;
  case ir::OpKind::Cat:
    lower_cat(c, op);
    return;
  default:
    TILEC_ASSERT(false, "lower_shape: unexpected op");
  }
}

} // namespace tilec::lower
