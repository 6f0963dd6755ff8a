// tl.inline_asm_elementwise: the user's PTX applied to every `pack` elements. Sema checks
// what it can before any PTX exists: the constraints (one per register, results first,
// LLVM's letters) against the registers the dtypes and `pack` make (support/InlineAsm.h), and
// every $N in the text against their number.
#include <cctype>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Promotion.h"
#include "support/InlineAsm.h"

namespace tilec::sema::builtins {

using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

std::vector<std::string> split_constraints(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(ch))) {
      cur += ch;
    }
  }
  if (!cur.empty() || !out.empty())
    out.push_back(cur);
  return out;
}

// Checks the registers of one operand or result (`what`) against the constraints from
// position `pos` on; returns the position after them.
size_t check_regs(const Args &a, const std::vector<std::string> &cs, size_t pos, bool output,
                  const Type &t, int64_t pack, const std::string &what) {
  if (ir::is_bool(t.elem) && !t.ptr)
    a.fail("inline_asm_elementwise(): " + what +
           " is a boolean tensor; PTX registers do not "
           "hold i1 values (convert it to an integer)");
  int bits = t.ptr ? 64 : ir::bits(t.elem);
  int epr = inline_asm::elems_per_reg(bits, pack);
  int rbits = inline_asm::reg_bits(bits, pack);
  if (pack % epr != 0)
    a.fail("inline_asm_elementwise(): pack=" + std::to_string(pack) + " does not split into " +
           "registers of " + std::to_string(epr) + " " + elem_name(t) + " elements (" + what + ")");
  if (rbits < 16)
    a.fail("inline_asm_elementwise(): " + what +
           " has 8-bit elements, which need pack >= 2 "
           "(PTX has no 8-bit registers to pass them in)");
  int64_t n = inline_asm::regs_per_instance(bits, pack);
  for (int64_t r = 0; r < n; ++r, ++pos) {
    if (pos >= cs.size())
      return pos + static_cast<size_t>(n - r); // counted; the caller reports the total
    std::string c = cs[pos];
    bool is_out = !c.empty() && c[0] == '=';
    if (is_out != output)
      a.fail("inline_asm_elementwise(): constraint " + std::to_string(pos) + " ('" + c +
             "') should be " + (output ? "an output ('=...')" : "an input") + " for " + what);
    std::string letter = output ? c.substr(1) : c;
    int cb = letter.size() == 1 ? inline_asm::constraint_bits(letter[0]) : 0;
    if (cb == 0)
      a.fail("inline_asm_elementwise(): constraint " + std::to_string(pos) + " ('" + c +
             "') is not supported; use h (16-bit), r or f (32-bit), l or d (64-bit)");
    if (cb != rbits)
      a.fail("inline_asm_elementwise(): constraint " + std::to_string(pos) + " ('" + c +
             "') names a " + std::to_string(cb) + "-bit register, but " + what + " (" +
             elem_name(t) + ", pack=" + std::to_string(pack) + ") is passed in " +
             std::to_string(rbits) + "-bit registers");
  }
  return pos;
}

Val inline_asm_elementwise(Emitter &e, const Args &a) {
  std::string text = a.const_str("asm");
  std::string constraints = a.const_str("constraints");
  int64_t pack = a.const_int("pack");
  if (pack < 1)
    a.fail("inline_asm_elementwise(): pack must be >= 1, got " + std::to_string(pack));
  const Val &args_v = a["args"];
  std::vector<Val> items =
      args_v.kind == Val::Kind::Tuple ? args_v.elems : std::vector<Val>{args_v};
  std::vector<Value *> args;
  ir::Shape shape;
  for (const Val &v : items) {
    if (!v.is_tensor() && !is_number(v))
      a.fail("inline_asm_elementwise(): `args` must be tensors, got " + describe(v));
    args.push_back(as_tensor(e, v, a.loc()));
    shape = broadcast_shape(shape, args.back()->type.shape, a.loc());
  }
  for (Value *&v : args)
    v = broadcast_to(e, v, shape, a.loc());
  const Val &dt = a["dtype"];
  bool many = dt.kind == Val::Kind::Tuple;
  std::vector<Val> dts = many ? dt.elems : std::vector<Val>{dt};
  if (dts.empty())
    a.fail("inline_asm_elementwise(): `dtype` needs at least one result type");
  std::vector<Type> results;
  for (const Val &d : dts) {
    if (d.kind != Val::Kind::DType)
      a.fail("inline_asm_elementwise(): `dtype` must be a dtype or a tuple of dtypes, got " +
             describe(d));
    results.push_back(d.type.element().with_shape(shape));
  }
  std::vector<std::string> cs = split_constraints(constraints);
  size_t pos = 0;
  for (size_t i = 0; i < results.size(); ++i)
    pos = check_regs(a, cs, pos, true, results[i], pack, "result " + std::to_string(i));
  size_t outputs = pos;
  for (size_t i = 0; i < args.size(); ++i)
    pos = check_regs(a, cs, pos, false, args[i]->type, pack, "argument " + std::to_string(i));
  if (pos != cs.size())
    a.fail("inline_asm_elementwise(): " + std::to_string(cs.size()) + " constraints for " +
           std::to_string(pos) + " registers (" + std::to_string(outputs) + " results, then " +
           std::to_string(pos - outputs) + " arguments, with pack=" + std::to_string(pack) + ")");
  std::string checked, bad;
  if (!inline_asm::substitute(
          text, cs.size(), [](size_t) { return ""; }, checked, bad))
    a.fail("inline_asm_elementwise(): '" + bad + "' in the assembly names no register: $0..$" +
           std::to_string(cs.size() - 1) +
           " are the results then the arguments ($$ is a dollar sign)");
  ir::Op *op =
      e.builder().create(OpKind::InlineAsm, args, results,
                         {{"asm", text}, {"constraints", constraints}, {"pack", pack}}, a.loc());
  if (!many)
    return Val::of(op->result(0));
  std::vector<Val> out;
  for (size_t i = 0; i < op->num_results(); ++i)
    out.push_back(Val::of(op->result(i)));
  return Val::tuple(std::move(out));
}

} // namespace

void add_asm_builtins(std::vector<Def> &t) {
  t.push_back({"inline_asm_elementwise", "asm, constraints, args, dtype, is_pure, pack",
               inline_asm_elementwise, kTl});
}

} // namespace tilec::sema::builtins
