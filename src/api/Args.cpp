// The public API's launch arguments: TensorDesc values, and typed arguments checked against
// the signature and packed into the kernel's .params. Kept apart from Launch.cpp (the
// driver) so that checks and packing are tested without a GPU.
#include "api/ApiImpl.h"

namespace tilec {

TensorDesc::TensorDesc(uint64_t base, const std::vector<int64_t> &shape,
                       const std::vector<int64_t> &strides)
    : base(base), rank(static_cast<int>(shape.size())) {
  if (shape.size() != strides.size() || shape.empty() || shape.size() > size_t(kMaxRank))
    throw InvalidArgument("TensorDesc: shape and strides need the same rank, 1 to " +
                          std::to_string(kMaxRank) + ", got " + std::to_string(shape.size()) +
                          " shape entries and " + std::to_string(strides.size()) + " strides");
  for (int i = 0; i < rank; ++i) {
    this->shape[i] = shape[size_t(i)];
    this->strides[i] = strides[size_t(i)];
  }
}

TensorDesc TensorDesc::row_major(uint64_t base, const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return TensorDesc(base, shape, strides);
}

namespace {

const char *kind_name(Arg::Kind k) {
  switch (k) {
  case Arg::Kind::Pointer:
    return "a pointer";
  case Arg::Kind::Int:
    return "an integer";
  case Arg::Kind::Float:
    return "a float";
  case Arg::Kind::Bool:
    return "a bool";
  case Arg::Kind::TensorDesc:
    return "a tensor descriptor";
  }
  return "?";
}

// Checks `a` against run-time parameter `p` of `kernel`; InvalidArgument naming it.
void check_arg(const std::string &kernel, const aot::AotParam &p, const Arg &a) {
  using K = sema::ArgSpec::Kind;
  auto fail = [&](const std::string &why) {
    throw InvalidArgument("argument '" + p.name + "' of kernel '" + kernel + "' (" + p.entry +
                          "): " + why);
  };
  bool ok = false;
  const char *how = "";
  switch (p.spec.kind) {
  case K::Pointer:
    ok = a.kind() == Arg::Kind::Pointer;
    how = " (pass device addresses as tilec::Arg::ptr(address))";
    break;
  case K::Int:
  case K::Bool:
    ok = a.kind() == Arg::Kind::Int || a.kind() == Arg::Kind::Bool;
    break;
  case K::Float:
    ok = a.kind() != Arg::Kind::Pointer && a.kind() != Arg::Kind::TensorDesc;
    break;
  case K::TensorDesc:
    ok = a.kind() == Arg::Kind::TensorDesc;
    how = " (pass a tilec::TensorDesc)";
    break;
  default:
    break;
  }
  if (!ok)
    fail(std::string("got ") + kind_name(a.kind()) + how);
  if (p.spec.kind == K::TensorDesc) {
    const TensorDesc &d = a.desc();
    if (d.rank < 1 || d.rank > TensorDesc::kMaxRank) // the fields are public
      fail("the descriptor's rank " + std::to_string(d.rank) + " is not 1 to " +
           std::to_string(TensorDesc::kMaxRank));
    std::string why =
        aot::tensor_desc_problem(p.spec, d.base, std::vector<int64_t>(d.shape, d.shape + d.rank),
                                 std::vector<int64_t>(d.strides, d.strides + d.rank));
    if (!why.empty())
      fail(why);
    return;
  }
  if (p.spec.divisible_by_16 && a.int_value() % 16 != 0)
    fail(p.spec.kind == K::Pointer ? "the address is not 16-byte aligned"
                                   : std::to_string(a.int_value()) + " is not divisible by 16");
  if (p.spec.equal_to_1 && a.int_value() != 1)
    fail("the kernel was specialised for the value 1, got " + std::to_string(a.int_value()));
}

// The integer .param slot `s` takes from argument `a` (checked already): the value or a part.
int64_t int_of(const Arg &a, const CompiledKernel::Impl::Slot &s) {
  using Part = aot::ParamSource::Part;
  switch (s.part) {
  case Part::Whole:
    return a.int_value();
  case Part::Base:
    return static_cast<int64_t>(a.desc().base);
  case Part::Shape:
    return a.desc().shape[s.dim];
  case Part::Stride:
    return a.desc().strides[s.dim];
  }
  return 0;
}

} // namespace

namespace api {

runtime::PackedParams pack_arguments(const CompiledKernel::Impl &ck, const std::vector<Arg> &args) {
  const std::string &name = ck.binary.meta.name;
  if (args.size() != ck.arg_names.size()) {
    std::string names;
    for (const std::string &n : ck.arg_names)
      names += (names.empty() ? "" : ", ") + n;
    throw InvalidArgument("kernel '" + name + "' takes " + std::to_string(ck.arg_names.size()) +
                          " arguments (" + names + "), got " + std::to_string(args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i)
    check_arg(name, ck.signature[ck.arg_params[i]], args[i]);
  const std::vector<runtime::KernelParam> &params = ck.binary.meta.params;
  runtime::PackedParams packed(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    runtime::ParamKind kind = params[i].kind;
    const CompiledKernel::Impl::Slot &slot = ck.slots[i];
    const Arg &a = args[slot.arg];
    int64_t v = int_of(a, slot);
    if (runtime::param_kind_is_int(kind) && kind != runtime::ParamKind::Ptr) {
      int bits = runtime::param_kind_bits(kind);
      bool is_signed = runtime::param_kind_is_signed(kind);
      bool fits = bits >= 64 ||
                  (is_signed ? v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1))
                             : v >= 0 && v < (int64_t(1) << bits));
      if (!fits)
        throw InvalidArgument("argument '" + params[i].name + "' of kernel '" + name +
                              "' = " + std::to_string(v) + " does not fit in " +
                              runtime::param_kind_name(kind));
    }
    double f = a.kind() == Arg::Kind::Float ? a.float_value() : double(v);
    packed.slots[i] = runtime::pack_param(kind, v, f);
  }
  return packed;
}

} // namespace api

} // namespace tilec
