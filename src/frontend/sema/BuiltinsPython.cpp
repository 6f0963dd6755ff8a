// Python's builtins inside kernels: min/max (folded on constexprs, tl.minimum/maximum on
// tensors, as Triton maps them), abs, float, int, bool, len, isinstance, hasattr, getattr,
// print (-> device_print).
#include <cctype>
#include <cmath>
#include <limits>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/ConstFold.h"

namespace tilec::sema::builtins {

namespace {

std::vector<Val> items(const Args &a) {
  if (a.rest().size() == 1 && a.rest()[0].kind == Val::Kind::Tuple)
    return a.rest()[0].elems;
  return a.rest();
}

Val min_max(Emitter &e, const Args &a, bool is_min) {
  std::vector<Val> xs = items(a);
  if (xs.empty())
    a.fail(a.fn() + "() arg is an empty sequence");
  bool all_const = true;
  for (const Val &x : xs)
    all_const = all_const && !x.is_tensor();
  if (all_const) {
    Val best = xs[0];
    for (size_t i = 1; i < xs.size(); ++i) {
      int c = py_order(xs[i], best, is_min ? "<" : ">", a.loc());
      if (is_min ? c < 0 : c > 0)
        best = xs[i];
    }
    return best;
  }
  Val acc = xs[0];
  for (size_t i = 1; i < xs.size(); ++i)
    acc = call(e, is_min ? "minimum" : "maximum", {acc, xs[i]}, a.loc());
  if (!acc.is_tensor())
    acc = Val::of(as_tensor(e, acc, a.loc()));
  return acc;
}

Val py_min(Emitter &e, const Args &a) { return min_max(e, a, true); }
Val py_max(Emitter &e, const Args &a) { return min_max(e, a, false); }

Val py_abs(Emitter &e, const Args &a) {
  const Val &x = a["x"];
  if (x.is_tensor())
    return call(e, "abs", {x}, a.loc());
  if (x.kind == Val::Kind::Float)
    return Val::floating(std::fabs(x.f));
  if (x.kind == Val::Kind::Int || x.kind == Val::Kind::Bool) {
    int64_t v = x.kind == Val::Kind::Int ? x.i : x.b;
    if (v == std::numeric_limits<int64_t>::min())
      a.fail("integer overflow in constant expression: abs() does not fit in 64 bits");
    return Val::integer(v < 0 ? -v : v);
  }
  a.fail("bad operand type for abs(): '" + py_type_name(x) + "'");
}

void no_tensor(const Args &a, const Val &x, const char *hint) {
  if (x.is_tensor())
    a.fail(a.fn() + "() of a tensor is not supported (" + hint + ")");
}

std::string lower_trimmed(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  std::string t = b == std::string::npos ? "" : s.substr(b, e - b + 1);
  for (char &c : t)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return t;
}

Val py_float(Emitter &, const Args &a) {
  const Val &x = a["x"];
  no_tensor(a, x, "use x.to(tl.float32)");
  switch (x.kind) {
  case Val::Kind::Float:
    return x;
  case Val::Kind::Int:
    return Val::floating(static_cast<double>(x.i));
  case Val::Kind::Bool:
    return Val::floating(x.b ? 1.0 : 0.0);
  case Val::Kind::Str: {
    std::string t = lower_trimmed(x.str);
    std::string body = t.empty() || (t[0] != '+' && t[0] != '-') ? t : t.substr(1);
    double sign = !t.empty() && t[0] == '-' ? -1.0 : 1.0;
    if (body == "inf" || body == "infinity")
      return Val::floating(sign * std::numeric_limits<double>::infinity());
    if (body == "nan")
      return Val::floating(std::numeric_limits<double>::quiet_NaN());
    char *end = nullptr;
    double v = t.empty() ? 0 : std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || body.find_first_of("xp") != std::string::npos)
      a.fail("could not convert string to float: " + x.py_repr());
    return Val::floating(v);
  }
  default:
    a.fail("float() argument must be a string or a real number, not '" + py_type_name(x) + "'");
  }
}

Val py_int(Emitter &, const Args &a) {
  const Val &x = a["x"];
  no_tensor(a, x, "use x.to(tl.int32)");
  switch (x.kind) {
  case Val::Kind::Int:
    return x;
  case Val::Kind::Bool:
    return Val::integer(x.b);
  case Val::Kind::Float:
    if (std::isnan(x.f))
      a.fail("cannot convert float NaN to integer");
    if (std::isinf(x.f))
      a.fail("cannot convert float infinity to integer");
    if (std::fabs(x.f) >= 9223372036854775808.0)
      a.fail("integer overflow: int(" + x.repr() + ") does not fit in 64 bits");
    return Val::integer(static_cast<int64_t>(std::trunc(x.f)));
  case Val::Kind::Str: {
    std::string t = lower_trimmed(x.str);
    size_t i = !t.empty() && (t[0] == '+' || t[0] == '-') ? 1 : 0;
    bool ok = i < t.size();
    int64_t v = 0;
    for (size_t j = i; j < t.size() && ok; ++j) {
      ok = std::isdigit(static_cast<unsigned char>(t[j])) &&
           !__builtin_mul_overflow(v, int64_t(10), &v) &&
           !__builtin_add_overflow(v, int64_t(t[j] - '0'), &v);
    }
    if (!ok)
      a.fail("invalid literal for int() with base 10: " + x.py_repr());
    return Val::integer(t[0] == '-' ? -v : v);
  }
  default:
    a.fail("int() argument must be a string or a real number, not '" + py_type_name(x) + "'");
  }
}

Val py_bool(Emitter &, const Args &a) {
  no_tensor(a, a["x"], "compare it instead, e.g. x != 0");
  return Val::boolean(truthy(a["x"]));
}

Val py_len(Emitter &, const Args &a) {
  const Val &x = a["obj"];
  if (x.kind == Val::Kind::Tuple)
    return Val::integer(static_cast<int64_t>(x.elems.size()));
  if (x.kind == Val::Kind::Str)
    return Val::integer(static_cast<int64_t>(x.str.size()));
  a.fail("object of type '" + py_type_name(x) + "' has no len()");
}

// isinstance(obj, int | float | bool | str | tuple | tl.tensor | tl.tensor_descriptor |
// tl.constexpr_type or a tuple of those): Sema knows every value's kind.
bool is_instance_of(const Args &a, const Val &obj, const Val &cls) {
  if (cls.kind == Val::Kind::Tuple) {
    for (const Val &c : cls.elems)
      if (is_instance_of(a, obj, c))
        return true;
    return false;
  }
  std::string name = cls.kind == Val::Kind::Builtin ? cls.str : "";
  if (name.rfind("builtins.", 0) == 0)
    name = name.substr(9);
  if (name == "int")
    return obj.kind == Val::Kind::Int || obj.kind == Val::Kind::Bool;
  if (name == "bool")
    return obj.kind == Val::Kind::Bool;
  if (name == "float")
    return obj.kind == Val::Kind::Float;
  if (name == "str")
    return obj.kind == Val::Kind::Str;
  if (name == "tuple")
    return obj.kind == Val::Kind::Tuple && !is_constexpr_type(obj);
  if (name == "tensor")
    return obj.kind == Val::Kind::Tensor;
  if (name == "tensor_descriptor" || name == "tensor_descriptor_base")
    return obj.kind == Val::Kind::TensorDesc;
  // the dtype classes, as host code tests `x.dtype`
  if (name == "dtype")
    return obj.kind == Val::Kind::DType;
  if (name == "pointer_type")
    return obj.kind == Val::Kind::DType && obj.type.is_ptr() && !obj.type.is_tile();
  if (name == "block_type")
    return obj.kind == Val::Kind::DType && obj.type.is_tile();
  if (name == "constexpr")
    return obj.is_constexpr() && !is_constexpr_type(obj);
  if (name == "constexpr_type")
    return is_constexpr_type(obj);
  a.fail("isinstance() arg 2 must be int, float, bool, str, tuple, tl.tensor, "
         "tl.tensor_descriptor, tl.constexpr, tl.constexpr_type, tl.dtype, tl.pointer_type, "
         "tl.block_type or a tuple of those");
}

Val py_isinstance(Emitter &, const Args &a) {
  return Val::boolean(is_instance_of(a, a["obj"], a["class_or_tuple"]));
}

// print(...) is device_print: a leading string is the prefix.
Val py_print(Emitter &e, const Args &a) {
  std::vector<Val> args = a.rest();
  Val prefix = Val::string("");
  if (!args.empty() && args[0].kind == Val::Kind::Str) {
    prefix = args[0];
    args.erase(args.begin());
  }
  args.insert(args.begin(), prefix);
  return call(e, "device_print", std::move(args), a.loc(), {{"hex", a["hex"]}});
}

// tuple(x) / tl.tuple(x): a tuple (or list, which Sema also holds as a tuple) as a plain
// tuple.
Val py_tuple(Emitter &, const Args &a) {
  const Val &x = a["iterable"];
  if (x.kind != Val::Kind::Tuple)
    a.fail("tuple() takes a tuple or a list, not " + py_type_name(x));
  return Val::tuple(x.elems);
}

// hasattr / getattr with a constant name: whatever `obj.name` would give in the kernel.
Val py_hasattr(Emitter &e, const Args &a) {
  std::string name = a.const_str("name");
  try {
    e.attribute(a["obj"], name, a.loc());
    return Val::boolean(true);
  } catch (const CompileError &) {
    return Val::boolean(false);
  }
}

Val py_getattr(Emitter &e, const Args &a) {
  std::string name = a.const_str("name");
  if (!a.passed("default"))
    return e.attribute(a["obj"], name, a.loc());
  try {
    return e.attribute(a["obj"], name, a.loc());
  } catch (const CompileError &) {
    return a["default"];
  }
}

// breakpoint() / pdb.set_trace(): a stop of the kernel debugger (pdb on the interpreter).
Val py_breakpoint(Emitter &e, const Args &a) {
  e.breakpoint(a.loc());
  return Val::none();
}

Val py_range(Emitter &, const Args &a) {
  a.fail("range() can only be used as the iterator of a for loop");
}

} // namespace

void add_python_builtins(std::vector<Def> &t) {
  t.insert(t.end(), {
                        {"min", "*args", py_min, kPython},
                        {"max", "*args", py_max, kPython},
                        {"abs", "x", py_abs, kPython},
                        {"float", "x=0.0", py_float, kPython},
                        {"int", "x=0", py_int, kPython},
                        {"bool", "x=False", py_bool, kPython},
                        {"len", "obj", py_len, kPython},
                        {"isinstance", "obj, class_or_tuple", py_isinstance, kPython},
                        {"hasattr", "obj, name", py_hasattr, kPython},
                        {"tuple", "iterable=()", py_tuple, kPython | kTl},
                        {"getattr", "obj, name, default=None", py_getattr, kPython},
                        {"print", "*args, hex=False", py_print, kPython},
                        {"range", "*args", py_range, kPython},
                        {"breakpoint", "", py_breakpoint, kPython},
                    });
}

} // namespace tilec::sema::builtins
