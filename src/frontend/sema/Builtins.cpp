// The builtin table: registration, Python-style argument binding, and the entry points
// of Builtins.h. The builtins themselves live in Builtins<Family>.cpp.
#include "frontend/sema/Builtins.h"

#include <map>

#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Promotion.h"
#include "frontend/sema/Sema.h"

namespace tilec::sema {

namespace builtins {

namespace {

Val parse_default(const std::string &s) {
  if (s == "None")
    return Val::none();
  if (s == "True" || s == "False")
    return Val::boolean(s == "True");
  if (s == "()")
    return Val::tuple({});
  if (s.size() >= 2 && (s[0] == '\'' || s[0] == '"'))
    return Val::string(s.substr(1, s.size() - 2));
  if (auto d = ir::dtype_from_python_name(s))
    return Val::dtype(ir::Type(*d));
  if (s.find_first_of(".e") != std::string::npos)
    return Val::floating(std::stod(s));
  return Val::integer(std::stoll(s));
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<Param> parse_signature(const char *sig) {
  std::vector<Param> ps;
  bool kw_only = false;
  std::string text = sig;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string tok =
        trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (tok.empty())
      continue;
    if (tok == "*") {
      kw_only = true;
      continue;
    }
    Param p;
    if (tok[0] == '*') {
      p.name = tok.substr(1);
      p.kind = Param::Kind::VarArgs;
      kw_only = true;
    } else {
      size_t eq = tok.find('=');
      p.name = trim(tok.substr(0, eq));
      p.kind = kw_only ? Param::Kind::KwOnly : Param::Kind::Normal;
      if (eq != std::string::npos) {
        p.has_default = true;
        p.def = parse_default(trim(tok.substr(eq + 1)));
      }
    }
    ps.push_back(std::move(p));
  }
  return ps;
}

struct Table {
  std::vector<Def> defs;
  std::vector<std::vector<Param>> params;
  std::map<std::string, size_t, std::less<>> tl, math, method, python, libdevice, cuda, descriptor;

  Table() {
    add_program_builtins(defs);
    add_shape_builtins(defs);
    add_memory_builtins(defs);
    add_math_builtins(defs);
    add_linalg_builtins(defs);
    add_reduce_builtins(defs);
    add_map_elementwise_builtins(defs);
    add_python_builtins(defs);
    add_random_builtins(defs);
    add_block_ptr_builtins(defs);
    add_asm_builtins(defs);
    add_sort_builtins(defs);
    add_libdevice_builtins(defs);
    add_gather_builtins(defs);
    add_cuda_builtins(defs);
    add_tensor_desc_builtins(defs);
    add_scaled_dot_builtins(defs);
    for (size_t i = 0; i < defs.size(); ++i) {
      params.push_back(parse_signature(defs[i].signature));
      const Def &d = defs[i];
      auto reg = [&](std::map<std::string, size_t, std::less<>> &m) {
        TILEC_ASSERT(!m.count(d.name), std::string("builtin registered twice: ") + d.name);
        m[d.name] = i;
      };
      if (d.where & kTl)
        reg(tl);
      if (d.where & kMath)
        reg(math);
      if (d.where & kMethod)
        reg(method);
      if (d.where & kPython)
        reg(python);
      if (d.where & kLibdevice)
        reg(libdevice);
      if (d.where & kCuda)
        reg(cuda);
      if (d.where & kDescriptor)
        reg(descriptor);
    }
  }
};

const Table &table() {
  static const Table t;
  return t;
}

const size_t *find(const std::map<std::string, size_t, std::less<>> &m, std::string_view n) {
  auto it = m.find(n);
  return it == m.end() ? nullptr : &it->second;
}

Val invoke(Emitter &e, size_t index, CallArgs &&call) {
  const Table &t = table();
  Args a = bind(e, t.defs[index], t.params[index], std::move(call));
  return t.defs[index].impl(e, a);
}

} // namespace

Args bind(Emitter &e, const Def &d, const std::vector<Param> &params, CallArgs &&call) {
  Args a(e, d.name, call.loc);
  size_t n = params.size();
  a.names_.resize(n);
  a.vals_.resize(n);
  a.passed_.assign(n, false);
  std::string fn = std::string(d.name) + "()";
  size_t positional = 0;
  bool varargs = false;
  for (size_t i = 0; i < n; ++i) {
    a.names_[i] = params[i].name;
    if (params[i].kind == Param::Kind::Normal)
      ++positional;
    varargs = varargs || params[i].kind == Param::Kind::VarArgs;
  }
  for (size_t i = 0; i < call.args.size(); ++i) {
    if (i < positional) {
      a.vals_[i] = std::move(call.args[i]);
      a.passed_[i] = true;
    } else if (varargs) {
      a.rest_.push_back(std::move(call.args[i]));
    } else {
      throw CompileError(call.loc, fn + " takes " + std::to_string(positional) +
                                       " positional argument" + (positional == 1 ? "" : "s") +
                                       " but " + std::to_string(call.args.size()) +
                                       (call.args.size() == 1 ? " was" : " were") + " given");
    }
  }
  for (auto &[name, v] : call.kwargs) {
    size_t i = 0;
    while (i < n && (params[i].name != name || params[i].kind == Param::Kind::VarArgs))
      ++i;
    if (i == n)
      throw CompileError(call.loc, fn + " got an unexpected keyword argument '" + name + "'");
    if (a.passed_[i])
      throw CompileError(call.loc, fn + " got multiple values for argument '" + name + "'");
    a.vals_[i] = std::move(v);
    a.passed_[i] = true;
  }
  for (size_t i = 0; i < n; ++i) {
    if (a.passed_[i] || params[i].kind == Param::Kind::VarArgs)
      continue;
    if (!params[i].has_default)
      throw CompileError(call.loc, fn + " missing required argument '" + params[i].name + "'");
    a.vals_[i] = params[i].def;
  }
  return a;
}

const Val &Args::get(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name)
      return vals_[i];
  throw_internal(__FILE__, __LINE__, "builtin " + fn_ + " has no parameter " + std::string(name));
}

const Val &Args::operator[](std::string_view name) const { return get(name); }

bool Args::passed(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name)
      return passed_[i];
  return false;
}

void Args::fail(const std::string &msg) const { throw CompileError(loc_, msg); }

std::string describe(const Val &v) {
  return v.is_tensor() ? "a tensor of type " + tensor_str(v.tensor->type)
                       : "a value of type " + py_type_name(v);
}

ir::Value *Args::tensor(std::string_view name) const {
  const Val &v = get(name);
  if (v.is_tensor())
    return v.tensor;
  if (is_number(v))
    return as_tensor(*e_, v, loc_);
  fail(fn_ + "(): `" + std::string(name) + "` must be a tensor or a number, got " + describe(v));
}

ir::Value *Args::tensor_or_null(std::string_view name) const {
  return get(name).kind == Val::Kind::None ? nullptr : tensor(name);
}

int64_t Args::const_int(std::string_view name) const {
  const Val &v = get(name);
  if (v.kind == Val::Kind::Int)
    return v.i;
  if (v.kind == Val::Kind::Bool)
    return v.b;
  fail(fn_ + "(): `" + std::string(name) + "` must be a constexpr int, got " + describe(v));
}

std::optional<int64_t> Args::const_int_or_none(std::string_view name) const {
  if (get(name).kind == Val::Kind::None)
    return std::nullopt;
  return const_int(name);
}

bool Args::const_bool(std::string_view name) const {
  const Val &v = get(name);
  if (!v.is_constexpr())
    fail(fn_ + "(): `" + std::string(name) + "` must be a constexpr, got " + describe(v));
  switch (v.kind) {
  case Val::Kind::None:
    return false;
  case Val::Kind::Bool:
    return v.b;
  case Val::Kind::Int:
    return v.i != 0;
  case Val::Kind::Float:
    return v.f != 0;
  case Val::Kind::Str:
    return !v.str.empty();
  case Val::Kind::Tuple:
    return !v.elems.empty();
  default:
    return true;
  }
}

std::string Args::const_str(std::string_view name) const {
  const Val &v = get(name);
  if (v.kind == Val::Kind::Str)
    return v.str;
  fail(fn_ + "(): `" + std::string(name) + "` must be a constexpr string, got " + describe(v));
}

std::optional<std::string> Args::const_str_or_none(std::string_view name) const {
  if (get(name).kind == Val::Kind::None)
    return std::nullopt;
  return const_str(name);
}

ir::Type Args::const_dtype(std::string_view name) const {
  const Val &v = get(name);
  if (v.kind == Val::Kind::DType)
    return v.type.element();
  fail(fn_ + "(): `" + std::string(name) + "` must be a dtype (e.g. tl.float32), got " +
       describe(v));
}

std::optional<ir::Type> Args::const_dtype_or_none(std::string_view name) const {
  if (get(name).kind == Val::Kind::None)
    return std::nullopt;
  return const_dtype(name);
}

std::vector<int64_t> int_list(const Args &a, const Val &v, const char *what) {
  std::vector<Val> items = v.kind == Val::Kind::Tuple ? v.elems : std::vector<Val>{v};
  std::vector<int64_t> r;
  for (size_t i = 0; i < items.size(); ++i) {
    const Val &x = items[i];
    if (x.kind != Val::Kind::Int && x.kind != Val::Kind::Bool)
      a.fail(a.fn() + "(): " + what + " element " + std::to_string(i) +
             " must be a constexpr int, got " + describe(x));
    r.push_back(x.kind == Val::Kind::Int ? x.i : x.b);
  }
  return r;
}

std::vector<int64_t> shape_from_rest(const Args &a, const char *what) {
  const std::vector<Val> &r = a.rest();
  if (r.size() == 1 && r[0].kind == Val::Kind::Tuple)
    return int_list(a, r[0], what);
  return int_list(a, Val::tuple(r), what);
}

void check_block_shape(const Args &a, const std::vector<int64_t> &shape) {
  int64_t numel = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!ir::is_power_of_two(shape[i]))
      a.fail("Shape element " + std::to_string(i) + " must be a power of 2"); // Triton's words
    numel *= shape[i];
    if (numel > ir::kMaxTensorNumel)
      a.fail(a.fn() + "(): numel (" + std::to_string(numel) +
             ") exceeds triton maximum tensor numel (" + std::to_string(ir::kMaxTensorNumel) + ")");
  }
}

int wrap_axis(const Args &a, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank)
    a.fail(a.fn() + "(): invalid axis " + std::to_string(axis) + ". Expected " +
           std::to_string(-rank) + " <= axis < " + std::to_string(rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Val call(Emitter &e, std::string_view name, std::vector<Val> args, SourceLoc loc,
         std::vector<std::pair<std::string, Val>> kwargs) {
  const size_t *i = find(table().tl, name);
  if (!i)
    i = find(table().method, name);
  TILEC_ASSERT(i, "no builtin " + std::string(name));
  return invoke(e, *i, CallArgs{std::move(args), std::move(kwargs), loc});
}

} // namespace builtins

using namespace builtins;

constexpr std::string_view kLibdevicePrefix = "libdevice.";
constexpr std::string_view kCudaPrefix = "cuda.";

bool is_builtin(std::string_view name) {
  if (name.substr(0, kCudaPrefix.size()) == kCudaPrefix)
    return find(table().cuda, name.substr(kCudaPrefix.size())) != nullptr;
  if (name.substr(0, kLibdevicePrefix.size()) == kLibdevicePrefix)
    return find(table().libdevice, name.substr(kLibdevicePrefix.size())) != nullptr;
  if (name.substr(0, 5) == "math.")
    return find(table().math, name.substr(5)) != nullptr;
  return find(table().tl, name) != nullptr;
}

Val call_builtin(Emitter &e, std::string_view name, CallArgs args) {
  if (name.substr(0, kCudaPrefix.size()) == kCudaPrefix) {
    const size_t *i = find(table().cuda, name.substr(kCudaPrefix.size()));
    if (!i)
      throw CompileError(args.loc, "module 'triton.language.extra.cuda' has no attribute '" +
                                       std::string(name.substr(kCudaPrefix.size())) + "'");
    return invoke(e, *i, std::move(args));
  }
  if (name.substr(0, kLibdevicePrefix.size()) == kLibdevicePrefix) {
    const size_t *i = find(table().libdevice, name.substr(kLibdevicePrefix.size()));
    if (!i)
      throw CompileError(args.loc, std::string(name) + " is not a libdevice function");
    return invoke(e, *i, std::move(args));
  }
  const size_t *i =
      name.substr(0, 5) == "math." ? find(table().math, name.substr(5)) : find(table().tl, name);
  if (!i) // tl.math / libdevice functions that tl itself does not expose
    i = find(table().math, name);
  if (!i)
    throw CompileError(args.loc, "tl." + std::string(name) + " is not a builtin");
  return invoke(e, *i, std::move(args));
}

bool is_python_builtin(std::string_view name) {
  if (name.substr(0, 9) == "builtins.")
    name = name.substr(9);
  return find(table().python, name) != nullptr;
}

Val call_python_builtin(Emitter &e, std::string_view name, CallArgs args) {
  if (name.substr(0, 9) == "builtins.")
    name = name.substr(9);
  const size_t *i = find(table().python, name);
  if (!i)
    throw CompileError(args.loc, "'" + std::string(name) + "' is not a supported builtin");
  return invoke(e, *i, std::move(args));
}

bool is_tensor_method(std::string_view name) { return find(table().method, name) != nullptr; }

Val call_tensor_method(Emitter &e, std::string_view name, const Val &self, CallArgs args) {
  const size_t *i = find(table().method, name);
  if (!i)
    throw CompileError(args.loc, "'tensor' object has no attribute '" + std::string(name) + "'");
  args.args.insert(args.args.begin(), self);
  return invoke(e, *i, std::move(args));
}

bool is_descriptor_method(std::string_view name) {
  return find(table().descriptor, name) != nullptr;
}

Val call_descriptor_method(Emitter &e, std::string_view name, const Val &self, CallArgs args) {
  const size_t *i = find(table().descriptor, name);
  if (!i)
    throw CompileError(args.loc,
                       "'tensor_descriptor' object has no attribute '" + std::string(name) + "'");
  args.args.insert(args.args.begin(), self);
  return invoke(e, *i, std::move(args));
}

bool language_attribute(std::string_view name, Val &out) {
  if (auto d = ir::dtype_from_python_name(name)) {
    out = Val::dtype(ir::Type(*d));
    return true;
  }
  if (name == "math") {
    out = Val::module("tilec.language.math");
    return true;
  }
  if (name == "TRITON_MAX_TENSOR_NUMEL") {
    out = Val::integer(ir::kMaxTensorNumel);
    return true;
  }
  if (name == "pi32_t") { // Triton's name for a pointer to int32
    out = Val::dtype(ir::Type::pointer_to(ir::DType::I32));
    return true;
  }
  // tl.PropagateNan.NONE / .ALL, with Triton's values.
  if (name == "PropagateNan") {
    out = Val::module("tilec.language.PropagateNan");
    return true;
  }
  if (name == "PropagateNan.NONE" || name == "PropagateNan.ALL") {
    out = Val::integer(name == "PropagateNan.ALL" ? 0xFFFF : 0);
    return true;
  }
  return false;
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  for (const auto &[n, i] : table().tl)
    names.push_back(n);
  for (const auto &[n, i] : table().math)
    names.push_back("math." + n);
  for (const auto &[n, i] : table().libdevice)
    names.push_back(std::string(kLibdevicePrefix) + n);
  for (const auto &[n, i] : table().cuda)
    names.push_back(std::string(kCudaPrefix) + n);
  return names;
}

} // namespace tilec::sema
