// Bindings of the launch arguments' specialisation rules (runtime/ArgRules.h) for the Python
// launch paths (tilec/_args.py): the same rules the C++ fast path keys launches with.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <climits>

#include "Bindings.h"
#include "ir/Type.h"
#include "runtime/ArgRules.h"

namespace tilec::python {

namespace {

// An int as (kernel type, divisible by 16, equal to 1); None when it fits no 64-bit type.
nb::object int_spec(nb::handle v, bool specialize) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (x == -1 && PyErr_Occurred())
    throw nb::python_error();
  bool u64 = false;
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return nb::none();
    }
    x = static_cast<long long>(u);
    u64 = true;
  } else if (overflow < 0) {
    return nb::none();
  }
  runtime::IntSpec s = runtime::int_spec(x, u64, specialize);
  return nb::make_tuple(runtime::int_kind_name(s.kind), s.div16, s.one);
}

// Python ints into `out`; a value beyond int64 saturates (every rule rejects it anyway).
void ints(const std::vector<nb::int_> &vals, int64_t *out) {
  for (size_t i = 0; i < vals.size(); ++i) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(vals[i].ptr(), &overflow);
    out[i] = overflow > 0 ? LLONG_MAX : overflow < 0 ? LLONG_MIN : x;
  }
}

// (nan padding, shapes divisible by 16, strides but the last divisible by 16) of a valid
// descriptor; raises TypeError / ValueError naming the first rule it breaks.
nb::tuple descriptor_key(const std::string &where, const std::string &dtype, bool aligned,
                         const std::vector<nb::int_> &shape, const std::vector<nb::int_> &strides,
                         const std::vector<nb::int_> &block, nb::handle padding) {
  size_t n = shape.size();
  if (n < 1 || n > size_t(runtime::kMaxDescriptorRank) || strides.size() != n || block.size() != n)
    throw nb::value_error("descriptor_key: one rank from 1 to 5 (checked by the caller)");
  runtime::DescriptorFields f;
  f.dtype = dtype;
  auto d = ir::dtype_from_ir_name(dtype);
  if (!d)
    throw nb::value_error(("descriptor_key: not a Tile IR dtype: '" + dtype + "'").c_str());
  f.elem_bytes = ir::byte_size(*d);
  f.aligned = aligned;
  f.rank = static_cast<int>(n);
  ints(shape, f.shape);
  ints(strides, f.strides);
  ints(block, f.block);
  std::string pad = nb::isinstance<nb::str>(padding) ? nb::cast<std::string>(padding) : "";
  f.padding = pad;
  std::string repr = nb::cast<std::string>(nb::repr(padding));
  runtime::RuleError e = runtime::descriptor_error(f, where, repr);
  if (e.kind == runtime::RuleError::Type)
    throw nb::type_error(e.message.c_str());
  if (e)
    throw nb::value_error(e.message.c_str());
  uint32_t div = runtime::descriptor_divisibility(f);
  nb::list sd, td;
  for (size_t k = 0; k < n; ++k) {
    sd.append(nb::bool_(div >> k & 1));
    if (k + 1 < n)
      td.append(nb::bool_(div >> (8 + k) & 1));
  }
  return nb::make_tuple(pad == "nan", nb::tuple(sd), nb::tuple(td));
}

void check_block_shape(const std::string &what, const std::vector<nb::int_> &block) {
  if (block.size() > size_t(runtime::kMaxDescriptorRank))
    throw nb::value_error((what + ": more than 5 dimensions").c_str());
  int64_t b[runtime::kMaxDescriptorRank];
  ints(block, b);
  runtime::RuleError e = runtime::block_shape_error(b, static_cast<int>(block.size()), what);
  if (e)
    throw nb::value_error(e.message.c_str());
}

} // namespace

void bind_arg_rules(nb::module_ &m) {
  m.def("int_spec", &int_spec, nb::arg("value"), nb::arg("specialize"),
        "An int argument's (kernel type 'i32' | 'i64' | 'u64', divisible by 16, equal to 1; "
        "both False unless specialize), or None when it fits in no 64-bit type.");
  m.def("descriptor_key", &descriptor_key, nb::arg("where"), nb::arg("dtype"), nb::arg("aligned"),
        nb::arg("shape"), nb::arg("strides"), nb::arg("block_shape"), nb::arg("padding"),
        "(nan padding, shape entries divisible by 16, strides but the last divisible by 16) "
        "of a TensorDescriptor argument; TypeError / ValueError naming the rule it breaks.");
  m.def("check_block_shape", &check_block_shape, nb::arg("what"), nb::arg("block_shape"),
        "ValueError (its message starting with `what`) unless every entry is a power of 2 and "
        "there are at most 2**20 elements.");
}

} // namespace tilec::python
