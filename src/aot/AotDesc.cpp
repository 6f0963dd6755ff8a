// Tensor descriptor parameters of ahead-of-time kernels (Aot.h): how a descriptor's
// .params are named, the checks a launch makes (in C++ for the public API, as C text for
// `tilec compile`'s launchers: the same rules, side by side here), and the C struct.
#include <algorithm>

#include "aot/Aot.h"
#include "ir/Type.h"

namespace tilec::aot {

namespace {

using Kind = sema::ArgSpec::Kind;

// Elements per 16 bytes: every stride but the last must be a multiple of it.
int64_t stride_unit(ir::DType d) { return std::max<int64_t>(1, 16 / ir::byte_size(d)); }

std::string dims_str(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string hex(uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v % 16]);
    v /= 16;
  } while (v);
  return "0x" + s;
}

std::vector<const AotParam *> descriptors(const std::vector<AotParam> &params) {
  std::vector<const AotParam *> out;
  for (const AotParam &p : params)
    if (p.spec.kind == Kind::TensorDesc)
      out.push_back(&p);
  return out;
}

} // namespace

ParamSource param_source(const std::string &param_name) {
  ParamSource s;
  size_t dot = param_name.find('.');
  s.param = param_name.substr(0, dot);
  if (dot == std::string::npos)
    return s;
  std::string rest = param_name.substr(dot + 1);
  auto indexed = [&](const std::string &prefix, ParamSource::Part part) {
    if (rest.rfind(prefix, 0) != 0 || rest.size() == prefix.size() ||
        rest.find_first_not_of("0123456789", prefix.size()) != std::string::npos)
      return false;
    s.part = part;
    s.dim = std::stoi(rest.substr(prefix.size()));
    return true;
  };
  if (rest == "base")
    s.part = ParamSource::Part::Base;
  else if (!indexed("shape.", ParamSource::Part::Shape) &&
           !indexed("stride.", ParamSource::Part::Stride))
    throw InternalError("kernel parameter '" + param_name + "' is no tensor descriptor part");
  return s;
}

std::string tensor_desc_problem(const sema::ArgSpec &spec, uint64_t base,
                                const std::vector<int64_t> &shape,
                                const std::vector<int64_t> &strides) {
  TILEC_ASSERT(spec.kind == Kind::TensorDesc, "tensor_desc_problem of a non-descriptor");
  size_t rank = spec.desc_block_shape.size();
  if (shape.size() != rank || strides.size() != rank)
    return "the descriptor has " + std::to_string(shape.size()) + " shape entries and " +
           std::to_string(strides.size()) + " strides, but the block shape " +
           dims_str(spec.desc_block_shape) + " has rank " + std::to_string(rank);
  if (base % 16)
    return "the base " + hex(base) + " is not 16-byte aligned";
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 1 || shape[i] > INT32_MAX)
      return "shape[" + std::to_string(i) + "] = " + std::to_string(shape[i]) +
             " must be in [1, 2**31) (the kernel takes int32 shapes)";
    if (i < spec.desc_shape_div16.size() && spec.desc_shape_div16[i] && shape[i] % 16)
      return "shape[" + std::to_string(i) + "] = " + std::to_string(shape[i]) +
             " is not divisible by 16, as the kernel was specialised";
  }
  if (strides[rank - 1] != 1)
    return "the last dimension must be contiguous (stride 1), got stride " +
           std::to_string(strides[rank - 1]);
  int64_t unit = stride_unit(spec.dtype);
  for (size_t i = 0; i + 1 < rank; ++i) {
    if (strides[i] % unit)
      return "strides must be whole multiples of 16 bytes: stride " + std::to_string(i) + " is " +
             std::to_string(strides[i]) + " elements of " +
             std::to_string(ir::byte_size(spec.dtype)) + " bytes";
    if (i < spec.desc_stride_div16.size() && spec.desc_stride_div16[i] && strides[i] % 16)
      return "stride " + std::to_string(i) + " = " + std::to_string(strides[i]) +
             " is not divisible by 16, as the kernel was specialised";
  }
  return "";
}

std::string c_desc_type(size_t rank) { return "tilec_tensordesc_" + std::to_string(rank) + "d"; }

std::string c_desc_declarations(const std::vector<AotParam> &params) {
  std::vector<size_t> ranks;
  for (const AotParam *p : descriptors(params))
    if (std::find(ranks.begin(), ranks.end(), p->spec.desc_block_shape.size()) == ranks.end())
      ranks.push_back(p->spec.desc_block_shape.size());
  if (ranks.empty())
    return "";
  std::sort(ranks.begin(), ranks.end());
  std::string h =
      "#ifndef TILEC_AOT_ERROR_DESC_BASE\n"
      "/* Returned when a tensor descriptor argument breaks what Triton's TensorDescriptor\n"
      "   requires: a base not 16-byte aligned; a shape entry below 1; a last stride other\n"
      "   than 1, or another stride that is not a whole multiple of 16 bytes. */\n"
      "#define TILEC_AOT_ERROR_DESC_BASE (-2)\n"
      "#define TILEC_AOT_ERROR_DESC_SHAPE (-3)\n"
      "#define TILEC_AOT_ERROR_DESC_STRIDES (-4)\n"
      "#endif\n";
  for (size_t rank : ranks) {
    std::string t = c_desc_type(rank), r = std::to_string(rank);
    std::string guard = "TILEC_AOT_TENSORDESC_" + r + "D";
    h += "\n#ifndef " + guard + "\n#define " + guard + "\n";
    h += "/* A tensor descriptor of rank " + r +
         " (Triton's host TensorDescriptor): a tensor in device memory.\n"
         "   Its element type, block shape and padding are the kernel's (its signature). */\n";
    h += "typedef struct " + t + " {\n";
    h += "  unsigned long long base; /* CUdeviceptr of the first element, 16-byte aligned */\n";
    h += "  int32_t shape[" + r + "];        /* elements per dimension, each >= 1 */\n";
    h += "  int64_t strides[" + r +
         "];      /* in elements: the last 1, the others multiples of 16 bytes */\n";
    h += "} " + t + ";\n#endif\n";
  }
  return h;
}

std::string c_desc_checks(const std::vector<AotParam> &params) {
  std::string s;
  for (const AotParam *p : descriptors(params)) {
    const std::string &d = p->name;
    size_t rank = p->spec.desc_block_shape.size();
    int64_t unit = stride_unit(p->spec.dtype);
    std::string shape, strides = d + ".strides[" + std::to_string(rank - 1) + "] != 1";
    for (size_t i = 0; i < rank; ++i) {
      std::string at = "[" + std::to_string(i) + "]";
      shape += (i ? " || " : "") + d + ".shape" + at + " < 1";
      if (i + 1 < rank && unit > 1)
        strides += " || " + d + ".strides" + at + " % " + std::to_string(unit) + " != 0";
    }
    s += "  if (" + d + ".base % 16 != 0)\n    return TILEC_AOT_ERROR_DESC_BASE;\n";
    s += "  if (" + shape + ")\n    return TILEC_AOT_ERROR_DESC_SHAPE;\n";
    s += "  if (" + strides + ")\n    return TILEC_AOT_ERROR_DESC_STRIDES;\n";
  }
  return s;
}

std::string c_desc_hint(const AotParam &p) {
  std::string c;
  auto add = [&](const std::string &e) { c += (c.empty() ? "" : " && ") + e + " % 16 == 0"; };
  for (size_t i = 0; i < p.spec.desc_shape_div16.size(); ++i)
    if (p.spec.desc_shape_div16[i])
      add(p.name + ".shape[" + std::to_string(i) + "]");
  for (size_t i = 0; i < p.spec.desc_stride_div16.size(); ++i)
    if (p.spec.desc_stride_div16[i])
      add(p.name + ".strides[" + std::to_string(i) + "]");
  return c;
}

std::string c_desc_error_cases(const std::vector<AotParam> &params, const std::string &kernel) {
  std::vector<const AotParam *> ds = descriptors(params);
  if (ds.empty())
    return "";
  std::string names;
  for (size_t i = 0; i < ds.size(); ++i)
    names += (i == 0 ? "" : i + 1 == ds.size() ? " or " : ", ") + ds[i]->name;
  std::string who = kernel + ": tensor descriptor " + names + ": ";
  auto msg = [&](const char *code, const std::string &what) {
    return "  if (code == " + std::string(code) + ")\n    return \"" + who + what + "\";\n";
  };
  return msg("TILEC_AOT_ERROR_DESC_BASE", "the base is not 16-byte aligned") +
         msg("TILEC_AOT_ERROR_DESC_SHAPE", "a shape entry is below 1") +
         msg("TILEC_AOT_ERROR_DESC_STRIDES",
             "the last stride is not 1, or another stride is not a whole multiple of 16 bytes");
}

std::string c_param_value(const ParamSource &src) {
  switch (src.part) {
  case ParamSource::Part::Whole:
    return src.param;
  case ParamSource::Part::Base:
    return src.param + ".base";
  case ParamSource::Part::Shape:
    return src.param + ".shape[" + std::to_string(src.dim) + "]";
  case ParamSource::Part::Stride:
    return src.param + ".strides[" + std::to_string(src.dim) + "]";
  }
  return src.param;
}

} // namespace tilec::aot
