// The programming model (program_id, num_programs), debugging (device_print,
// device_assert, static_print, static_assert, debug_barrier) and compiler hints.
#include <algorithm>
#include <tuple>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;

namespace {

Val program_axis(Emitter &e, const Args &a, OpKind k) {
  const Val &v = a["axis"];
  if (v.kind != Val::Kind::Int && v.kind != Val::Kind::Bool)
    a.fail(a.fn() + " axis must be a constexpr int (0, 1 or 2), got " +
           (v.is_tensor() ? "a tensor" : "a value of type " + py_type_name(v)));
  int64_t axis = v.kind == Val::Kind::Int ? v.i : v.b;
  if (axis < 0 || axis > 2)
    a.fail(a.fn() + " axis must be 0, 1, or 2 but got " + std::to_string(axis));
  return Val::of(emit(e, k, {}, Type(DType::I32), a.loc(), {{"axis", axis}}));
}

Val program_id(Emitter &e, const Args &a) { return program_axis(e, a, OpKind::ProgramId); }
Val num_programs(Emitter &e, const Args &a) { return program_axis(e, a, OpKind::NumPrograms); }

Val debug_barrier(Emitter &e, const Args &a) {
  e.builder().create(OpKind::Barrier, {}, {}, {}, a.loc());
  return Val::none();
}

Val static_print(Emitter &e, const Args &a) {
  std::string sep = a.const_str("sep");
  std::string text;
  for (size_t i = 0; i < a.rest().size(); ++i)
    text += (i ? sep : "") + a.rest()[i].repr();
  e.static_print(text);
  return Val::none();
}

Val static_assert_(Emitter &, const Args &a) {
  const Val &c = a["cond"];
  if (c.kind != Val::Kind::Bool)
    a.fail("static_assert: the condition could not be determined at compile time (got " +
           (c.is_tensor() ? std::string("a tensor") : "a value of type " + py_type_name(c)) +
           "); make sure it depends only on constexpr values");
  if (!c.b) {
    const Val &m = a["msg"];
    std::string msg = m.kind == Val::Kind::Str ? m.str : m.repr();
    a.fail(msg.empty() ? "static_assert failed" : "static_assert failed: " + msg);
  }
  return Val::none();
}

// Triton's device_print prefix rule: a prefix followed by values ends in ": " and a
// non-trivial prefix starts with a space.
std::string print_prefix(std::string prefix, bool has_args) {
  if (has_args && (prefix.empty() || prefix.back() != ' '))
    prefix += " ";
  if (has_args && (prefix.size() < 2 || prefix.substr(prefix.size() - 2) != ": "))
    prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  if (prefix.size() > 2 && prefix[0] != ' ')
    prefix = " " + prefix;
  return prefix;
}

Val device_print(Emitter &e, const Args &a) {
  const Val &p = a["prefix"];
  if (p.kind != Val::Kind::Str)
    a.fail("device_print(): the prefix must be a constexpr string, got " + p.repr());
  for (unsigned char c : p.str)
    if (c < 0x20 || c > 0x7e)
      a.fail("device_print(): the prefix must be printable ASCII: " + p.py_repr());
  std::vector<ir::Value *> vals;
  for (const Val &v : a.rest()) {
    if (!v.is_tensor() && !is_number(v))
      a.fail("device_print(): cannot print a value of type " + py_type_name(v) +
             " (only tensors and numbers)");
    vals.push_back(as_tensor(e, v, a.loc()));
  }
  std::vector<ir::NamedAttr> attrs = {{"prefix", print_prefix(p.str, !vals.empty())},
                                      {"hex", static_cast<int64_t>(a.const_bool("hex"))}};
  e.builder().create(OpKind::Print, vals, {}, std::move(attrs), a.loc());
  return Val::none();
}

Val device_assert(Emitter &e, const Args &a) {
  ir::Value *cond = a.tensor("cond");
  ir::Value *mask = a.tensor_or_null("mask");
  const Val &m = a["msg"];
  if (m.kind != Val::Kind::Str)
    a.fail("device_assert(): the message must be a constexpr string, got " + m.repr());
  if (!e.options().debug)
    return Val::none(); // Triton emits asserts only in debug mode
  SourceLoc loc = a.loc();
  cond = truth(e, cond, loc);
  if (mask) {
    // Lanes where mask is false pass: cond | !mask.
    ir::Value *off =
        emit(e, OpKind::Not, {truth(e, mask, loc)}, mask->type.with_elem(DType::I1), loc);
    std::tie(cond, off) = broadcast_pair(e, cond, off, loc);
    cond = emit(e, OpKind::Or, {cond, off}, cond->type, loc);
  }
  e.builder().create(OpKind::Assert, {cond}, {},
                     {{"message", m.str},
                      {"file", e.file_path(loc)},
                      {"line", static_cast<int64_t>(loc.line)},
                      {"func", e.function_name()}},
                     loc);
  return Val::none();
}

Val hint(Emitter &e, const Args &a, const char *attr) {
  ir::Value *x = a.tensor("input");
  std::vector<int64_t> vals = int_list(a, a["values"], "values");
  if (vals.size() != static_cast<size_t>(std::max(1, x->type.rank())))
    a.fail("Shape of input to " + a.fn() + " does not match the length of values (" +
           std::to_string(vals.size()) + " values for a tensor of rank " +
           std::to_string(x->type.rank()) + ")");
  return Val::of(emit(e, OpKind::Hint, {x}, x->type, a.loc(), {{attr, vals}}));
}

Val multiple_of(Emitter &e, const Args &a) { return hint(e, a, "divisibility"); }
Val max_contiguous(Emitter &e, const Args &a) { return hint(e, a, "contiguity"); }
Val max_constancy(Emitter &e, const Args &a) { return hint(e, a, "constancy"); }

Val loop_only(Emitter &, const Args &a) {
  a.fail("tl." + a.fn() + " can only be used as the iterator of a for loop");
}

Val constexpr_(Emitter &, const Args &a) {
  const Val &v = a["value"];
  if (!v.is_constexpr())
    a.fail("constexpr(): the value must be known at compile time, got a tensor");
  return v;
}

Val constexpr_type(Emitter &, const Args &a) {
  const Val &v = a["value"];
  if (!v.is_constexpr())
    a.fail("constexpr_type(): the value must be known at compile time, got a tensor");
  return constexpr_type_of(v);
}

// `while tl.condition(c, disable_licm=True):` is `while c:`. disable_licm asks that no
// invariant code leave the loop: tilec's LICM moves code out of `for` loops only, so a
// while loop keeps it anyway.
Val condition(Emitter &, const Args &a) {
  a.const_bool("disable_licm"); // a constexpr, as in Triton
  return a["arg1"];
}

Val pointer_type(Emitter &, const Args &a) {
  Type t = a.const_dtype("element_ty");
  if (t.is_ptr())
    a.fail("pointer_type(): pointers to pointers are not supported");
  return Val::dtype(Type(t.elem, true));
}

} // namespace

void add_program_builtins(std::vector<Def> &t) {
  t.insert(
      t.end(),
      {
          {"program_id", "axis", program_id, kTl},
          {"num_programs", "axis", num_programs, kTl},
          {"debug_barrier", "", debug_barrier, kTl},
          {"static_print", "*values, sep=' ', end='\n', file=None, flush=False", static_print, kTl},
          {"static_assert", "cond, msg=''", static_assert_, kTl},
          {"device_print", "prefix, *args, hex=False", device_print, kTl},
          {"device_assert", "cond, msg='', mask=None", device_assert, kTl},
          {"multiple_of", "input, values", multiple_of, kTl},
          {"max_contiguous", "input, values", max_contiguous, kTl},
          {"max_constancy", "input, values", max_constancy, kTl},
          {"range", "*args, num_stages=None, loop_unroll_factor=None", loop_only, kTl},
          {"static_range", "*args", loop_only, kTl},
          {"constexpr", "value", constexpr_, kTl},
          {"constexpr_type", "value", constexpr_type, kTl},
          {"condition", "arg1, disable_licm=False", condition, kTl},
          {"pointer_type", "element_ty, address_space=1", pointer_type, kTl},
      });
}

} // namespace tilec::sema::builtins
