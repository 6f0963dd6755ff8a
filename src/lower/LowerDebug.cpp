// print (vprintf), assert (__assertfail), barrier.
//
// device_print writes the tile interpreter's lines (Triton's GPU format):
//   pid (<x>, <y>, <z>) idx (<i0>, <i1>)<prefix>[(operand <k>) ]<value>
// each index right-aligned to ceil(log10(dim)) characters. Each element is printed once,
// by its owner (scalars by thread 0); the order of lines across threads is the GPU's.
#include <cmath>

#include "lower/LoweringContext.h"
#include "support/PrintPrefix.h"

namespace tilec::lower {

namespace {

std::string escape(const std::string &s) {
  std::string o;
  for (char ch : s) {
    o += ch;
    if (ch == '%')
      o += '%';
  }
  return o;
}

// The conversion and the argument register for one value of type `t`.
std::pair<std::string, Reg> value_arg(LoweringContext &c, Reg v, const ir::Type &t, bool hex) {
  simt::Builder &b = c.b();
  if (t.ptr)
    return {"0x%llx", v};
  ir::DType d = t.elem;
  int bits = ir::bits(d);
  Ty rt = reg_ty(t);
  // the value's bits (zero-extended) or its value (sign-extended) as 32 or 64 bits
  auto as_u32 = [&](Reg x) {
    if (rt == Ty::Pred)
      return b.selp(Ty::U32, simt::imm(1), simt::imm(0), x);
    int w = simt::ty_reg_bits(rt);
    if (w == 16) {
      Reg u = b.cvt(Ty::U32, Ty::U16, x);
      return bits == 8 ? b.and_(Ty::B32, u, simt::imm(0xff)) : u;
    }
    return x;
  };
  if (hex) {
    if (bits == 64)
      return {"0x%016llx", v};
    std::string f = bits == 1 ? "0x%x" : "0x%0" + std::to_string(bits / 4) + "x";
    return {f, as_u32(v)};
  }
  if (ir::is_float(d)) {
    Reg f64 = d == ir::DType::F64
                  ? v
                  : b.cvt(Ty::F64, Ty::F32,
                          emit_cast(c, v, t, ir::Type(ir::DType::F32), false, SourceLoc{}));
    return {"%f", f64};
  }
  if (d == ir::DType::I1)
    return {"%u", as_u32(v)};
  bool sgn = ir::is_signed_int(d);
  if (bits == 64)
    return {sgn ? "%lld" : "%llu", v};
  if (simt::ty_reg_bits(rt) == 16)
    return {sgn ? "%d" : "%u", b.cvt(sgn ? Ty::S32 : Ty::U32, sgn ? Ty::S16 : Ty::U16, v)};
  return {sgn ? "%d" : "%u", v};
}

void lower_print(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  bool has_args = op.num_operands() > 0;
  std::string prefix = escape(munge_print_prefix(op.str_attr("prefix"), has_args));
  bool hex = op.int_attr("hex", 0) != 0;
  std::vector<Reg> pid = {b.special(simt::Sreg::CtaidX), b.special(simt::Sreg::CtaidY),
                          b.special(simt::Sreg::CtaidZ)};
  std::string head = "pid (%d, %d, %d)";
  if (!has_args) {
    auto g = b.guarded(c.thread0_pred());
    b.vprintf(head + prefix + "\n", pid);
    return;
  }
  for (size_t k = 0; k < op.num_operands(); ++k) {
    const ir::Value *v = op.operand(k);
    std::string operand = op.num_operands() > 1 ? "(operand " + std::to_string(k) + ") " : "";
    const std::vector<Reg> &regs = c.get(v);
    if (!v->type.is_tile()) {
      auto [conv, arg] = value_arg(c, regs[0], v->type.element(), hex);
      std::vector<Reg> args = pid;
      args.push_back(arg);
      auto g = b.guarded(c.thread0_pred());
      b.vprintf(head + " idx ()" + prefix + operand + conv + "\n", args);
      continue;
    }
    const layout::LinearLayout &l = c.layout_of(v->type);
    std::string idx = " idx (";
    for (int d = 0; d < v->type.rank(); ++d) {
      int64_t n = v->type.shape[static_cast<size_t>(d)];
      int w = n > 0 ? static_cast<int>(std::ceil(std::log10(static_cast<double>(n)))) : 0;
      idx += (d ? ", %" : "%") + (w > 0 ? std::to_string(w) : std::string()) + "d";
    }
    idx += ")";
    Reg owner = c.owner_pred(l);
    std::vector<bool> uniq = LoweringContext::unique_regs(l);
    for (int32_t r = 0; r < static_cast<int32_t>(regs.size()); ++r) {
      if (!uniq[static_cast<size_t>(r)])
        continue;
      std::vector<Reg> args = pid;
      for (int d = 0; d < v->type.rank(); ++d)
        args.push_back(c.coord(l, r, d));
      auto [conv, arg] = value_arg(c, regs[static_cast<size_t>(r)], v->type.element(), hex);
      args.push_back(arg);
      auto g = b.guarded(owner);
      b.vprintf(head + idx + prefix + operand + conv + "\n", args);
    }
  }
}

void lower_assert(LoweringContext &c, const ir::Op &op) {
  simt::Builder &b = c.b();
  const ir::Value *cond = op.operand(0);
  const ir::Type et = cond->type.element();
  Reg all;
  for (Reg r : c.get(cond)) {
    Reg ok = et.elem == ir::DType::I1
                 ? r
                 : emit_cast(c, r, et, ir::Type(ir::DType::I1), false, op.loc());
    all = all.valid() ? b.and_(Ty::Pred, all, ok) : ok;
  }
  // The program id first (vprintf), in the interpreter's words: __assertfail's own line
  // names the block only as CUDA's "block: [x,y,z]", and a trap may cut the output short.
  std::vector<Reg> pid = {b.special(simt::Sreg::CtaidX), b.special(simt::Sreg::CtaidY),
                          b.special(simt::Sreg::CtaidZ)};
  int line = static_cast<int>(op.int_attr("line", 0));
  auto g = b.guarded(all, /*negate=*/true);
  b.vprintf(escape(op.str_attr("file")) + ":" + std::to_string(line) + ": pid (%d, %d, %d): " +
                "device_assert failed: " + escape(op.str_attr("message")) + "\n",
            pid);
  b.assert_fail(op.str_attr("message"), op.str_attr("file"), line, op.str_attr("func"));
}

} // namespace

void lower_debug(LoweringContext &c, const ir::Op &op) {
  switch (op.kind()) {
  case ir::OpKind::Print:
    lower_print(c, op);
    return;
  case ir::OpKind::Assert:
    lower_assert(c, op);
    return;
  case ir::OpKind::Barrier:
    c.cta_barrier();
    return;
  default:
    TILEC_ASSERT(false, "lower_debug: unexpected op");
  }
}

} // namespace tilec::lower
