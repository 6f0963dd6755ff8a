// The launch fast path's specialisation key (GpuDispatch.h): binding a launch's arguments to
// the parameters, classifying them, and the key words. The int and tensor-descriptor rules
// are runtime/ArgRules.h, which the Python path (tilec/_args.py) calls too.
#include "GpuDispatch.h"

#include <cstring>

#include "runtime/ArgRules.h"
#include "support/Env.h"

namespace tilec::python::gpu::dispatch {

namespace {

enum class Scalar { Keyed, Other, Unkeyable };

// None, a bool or an int (exactly) as key words with these tags (launch options and
// constexpr values share the encoding); Other for anything else, Unkeyable for an int
// beyond 64 bits (the Python path keys it).
Scalar scalar_words(PyObject *v, Word none_tag, Word bool_tag, Word int_tag,
                    std::vector<uint64_t> &key) {
  if (v == Py_None) {
    key.push_back(none_tag);
  } else if (PyBool_Check(v)) {
    key.push_back(bool_tag);
    key.push_back(v == Py_True);
  } else if (PyLong_CheckExact(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow)
      return Scalar::Unkeyable;
    key.push_back(int_tag);
    key.push_back(uint64_t(x));
  } else {
    return Scalar::Other;
  }
  return Scalar::Keyed;
}

} // namespace

// Binds args/kwargs to parameters (as JITFunction._bind would) and computes the key into
// scratch_key_. Raises for mixed host/GPU arrays and arrays on different devices.
Status Dispatcher::prepare(const CallArgs &args, Bound &b) {
  size_t n = params_.size();
  size_t nargs = args.npos;
  if (nargs > n)
    return Status::Unsupported;
  for (size_t i = 0; i < n; ++i)
    b.values[i] = i < nargs && !params_[i].keyword_only ? args.pos[i] : nullptr;
  for (size_t i = 0; i < nargs; ++i)
    if (params_[i].keyword_only)
      return Status::Unsupported; // Python's binding reports it
  bool bound = args.each_kw([&](PyObject *k, PyObject *v) {
    int idx = find_param(k);
    if (idx >= 0) {
      if (b.values[idx])
        return false;
      b.values[idx] = v;
      return true;
    }
    int opt = find_option(k);
    if (opt < 0)
      return false;
    b.options[opt] = v;
    return true;
  });
  if (!bound)
    return Status::Unsupported;
  std::vector<uint64_t> &key = scratch_key_;
  key.clear();
  // the options: one word saying which were given, then the words of those given
  uint64_t given = 0;
  for (int j = 0; j < kNumOptions; ++j)
    if (b.options[j] && j != kStreamOption)
      given |= uint64_t(1) << j;
  key.push_back(given);
  for (int j = 0; given >> j; ++j)
    if ((given >> j & 1) &&
        scalar_words(b.options[j], kOptNone, kOptBool, kOptInt, key) != Scalar::Keyed)
      return Status::Unsupported;
  // without a debug option, TILEC_DEBUG / TRITON_DEBUG (read at each launch, as the Python path
  // does) decides whether asserts are compiled in: part of the key
  if (!b.options[kDebugOption] || b.options[kDebugOption] == Py_None)
    key.push_back(debug_env() ? 1 : 0);
  // so does TRITON_DEFAULT_FP_FUSION (knobs.language.default_fp_fusion) for enable_fp_fusion
  if (!b.options[kFpFusionOption] || b.options[kFpFusionOption] == Py_None)
    key.push_back(fp_fusion_env() ? 1 : 0);
  int device = -1;
  int first_gpu = -1, first_host = -1;
  for (size_t i = 0; i < n; ++i) {
    const Param &p = params_[i];
    if (!b.values[i]) {
      if (!p.has_default)
        return Status::Unsupported;
      b.values[i] = p.default_value.ptr();
    }
    if (p.is_constexpr) {
      if (!const_words(b.values[i], key))
        return Status::Unsupported;
      continue;
    }
    ArgInfo &a = b.infos[i];
    classify(b.values[i], p.name_str.c_str(), a);
    switch (a.cls) {
    case ArgClass::None:
      key.push_back(kNoneArg);
      break;
    case ArgClass::Bool:
      key.push_back(kBoolArg);
      break;
    case ArgClass::Int: {
      runtime::IntSpec is = runtime::int_spec(a.i, a.int_class == kU64, p.specialize);
      key.push_back(kIntArg | uint64_t(is.kind) << 8 | uint64_t(is.div16) << 16 |
                    uint64_t(is.one) << 17);
      break;
    }
    case ArgClass::Float:
      key.push_back(kFloatArg);
      break;
    case ArgClass::DeviceArray:
      key.push_back(kPtrArg | uint64_t(a.dtype) << 8 | uint64_t(a.aligned) << 16);
      if (first_gpu < 0)
        first_gpu = static_cast<int>(i);
      if (a.device >= 0) {
        if (device >= 0 && a.device != device)
          throw nb::value_error(
              ("argument '" + p.name_str + "' is on cuda:" + std::to_string(a.device) +
               " but an earlier argument is "
               "on cuda:" +
               std::to_string(device) + ": all tensors of a launch must be on one device")
                  .c_str());
        device = a.device;
      }
      break;
    case ArgClass::HostArray:
      if (first_host < 0)
        first_host = static_cast<int>(i);
      break;
    case ArgClass::TensorMap: // classify() never makes one (launches' .tmap parts do)
      return Status::Unsupported;
    case ArgClass::Other: {
      // a TensorDescriptor over GPU memory with fields the Python path accepts; anything
      // else goes there (it specialises, or reports the error)
      if (Py_TYPE(b.values[i]) != descriptor_type() || !descriptor(b.values[i], i, b, key))
        return Status::Unsupported;
      const ArgInfo &base = b.descs.back().base;
      if (first_gpu < 0)
        first_gpu = static_cast<int>(i);
      if (base.device >= 0) {
        if (device >= 0 && base.device != device)
          return Status::Unsupported; // the Python path names the two devices
        device = base.device;
      }
      break;
    }
    }
  }
  if (first_gpu < 0)
    return Status::NoGpu;
  if (first_host >= 0)
    throw nb::value_error(
        ("argument '" + params_[first_host].name_str + "' is " + b.infos[first_host].host_kind +
         ", but argument '" + params_[first_gpu].name_str +
         "' is on the GPU: a kernel runs either on the GPU (every array on one CUDA device) "
         "or on the CPU interpreter (every array in host memory); move '" +
         params_[first_host].name_str + "' with .cuda()")
            .c_str());
  if (device < 0)
    device = current_device_index();
  b.device = device;
  key.push_back(kDeviceCc);
  key.push_back(uint64_t(device_cc(device)));
  return Status::Ready;
}

// The key words and parts of TensorDescriptor `v` (parameter i), by runtime/ArgRules.h (as
// tilec/_args.py:desc_key); false when the Python path must handle it (it reports errors).
bool Dispatcher::descriptor(PyObject *v, size_t i, Bound &b, std::vector<uint64_t> &key) const {
  DescParts d;
  d.param = static_cast<int>(i);
  nb::object base = nb::steal(PyObject_GetAttrString(v, "base"));
  nb::object shape = nb::steal(PyObject_GetAttrString(v, "shape"));
  nb::object strides = nb::steal(PyObject_GetAttrString(v, "strides"));
  nb::object block = nb::steal(PyObject_GetAttrString(v, "block_shape"));
  nb::object padding = nb::steal(PyObject_GetAttrString(v, "padding"));
  if (!base.is_valid() || !shape.is_valid() || !strides.is_valid() || !block.is_valid() ||
      !padding.is_valid()) {
    PyErr_Clear();
    return false;
  }
  classify(base.ptr(), params_[i].name_str.c_str(), d.base);
  if (d.base.cls != ArgClass::DeviceArray)
    return false;
  runtime::DescriptorFields f;
  f.dtype = dtype_name(d.base.dtype);
  f.elem_bytes = elem_bytes(d.base.dtype);
  f.aligned = d.base.aligned;
  int ns = 0, nt = 0, nb_ = 0;
  if (!int_list(shape.ptr(), f.shape, ns) || !int_list(strides.ptr(), f.strides, nt) ||
      !int_list(block.ptr(), f.block, nb_) || ns != nt || ns != nb_ ||
      !PyUnicode_Check(padding.ptr()))
    return false;
  f.rank = ns;
  Py_ssize_t plen = 0;
  const char *pad = PyUnicode_AsUTF8AndSize(padding.ptr(), &plen);
  if (!pad) {
    PyErr_Clear();
    return false;
  }
  f.padding = std::string_view(pad, static_cast<size_t>(plen));
  // any broken rule: the Python path reports it (runtime/ArgRules.h, the same rules)
  if (runtime::descriptor_error(f, "", ""))
    return false;
  d.rank = f.rank;
  std::copy(f.shape, f.shape + f.rank, d.shape);
  std::copy(f.strides, f.strides + f.rank, d.strides);
  d.tma.base = static_cast<uint64_t>(d.base.i);
  d.tma.dtype = f.dtype;
  d.tma.elem_bytes = f.elem_bytes;
  d.tma.rank = f.rank;
  std::copy(f.shape, f.shape + f.rank, d.tma.shape);
  std::copy(f.strides, f.strides + f.rank, d.tma.strides);
  bool nan = f.padding == "nan";
  // what the compiled kernel depends on, as _args.desc_key's key: dtype, block shape,
  // padding, which shapes and strides (but the last) are multiples of 16
  uint64_t div = runtime::descriptor_divisibility(f);
  key.push_back(kDescArg | uint64_t(d.base.dtype) << 8 | uint64_t(d.rank) << 16 |
                uint64_t(nan) << 20);
  key.push_back(div);
  for (int k = 0; k < d.rank; ++k)
    key.push_back(uint64_t(f.block[k]));
  b.descs.push_back(std::move(d));
  return true;
}

// The .param names of the descriptor parts, after the parameters' own names.
std::vector<std::string> Dispatcher::part_names(const Bound &b) const {
  std::vector<std::string> out;
  for (const DescParts &d : b.descs) {
    const std::string &n = params_[d.param].name_str;
    out.push_back(n + ".base");
    for (int k = 0; k < d.rank; ++k)
      out.push_back(n + ".shape." + std::to_string(k));
    for (int k = 0; k + 1 < d.rank; ++k)
      out.push_back(n + ".stride." + std::to_string(k));
    out.push_back(n + ".tmap"); // taken by kernels compiled with TMA copies
  }
  return out;
}

bool Dispatcher::const_words(PyObject *v, std::vector<uint64_t> &key) const {
  v = unwrap(v);
  Scalar sc = scalar_words(v, kConstNone, kConstBool, kConstInt, key);
  if (sc != Scalar::Other)
    return sc == Scalar::Keyed;
  if (PyFloat_CheckExact(v)) {
    double d = PyFloat_AS_DOUBLE(v);
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    key.push_back(kConstFloat);
    key.push_back(bits);
  } else {
    Py_hash_t h = PyObject_Hash(v);
    if (h == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    key.push_back(kConstObj);
    key.push_back(uint64_t(h));
    key.push_back(reinterpret_cast<uint64_t>(Py_TYPE(v)));
  }
  return true;
}

} // namespace tilec::python::gpu::dispatch

namespace tilec::python::gpu {

bool descriptor_tma_tensor(PyObject *v, const char *name, runtime::TmaTensor &out) {
  nb::object base = nb::steal(PyObject_GetAttrString(v, "base"));
  nb::object shape = nb::steal(PyObject_GetAttrString(v, "shape"));
  nb::object strides = nb::steal(PyObject_GetAttrString(v, "strides"));
  if (!base.is_valid() || !shape.is_valid() || !strides.is_valid()) {
    PyErr_Clear();
    return false;
  }
  ArgInfo b;
  classify(base.ptr(), name, b);
  int ns = 0, nt = 0;
  if (b.cls != ArgClass::DeviceArray || !dispatch::int_list(shape.ptr(), out.shape, ns) ||
      !dispatch::int_list(strides.ptr(), out.strides, nt) || ns != nt || ns < 1)
    return false;
  out.base = static_cast<uint64_t>(b.i);
  out.dtype = dtype_name(b.dtype);
  out.elem_bytes = dispatch::elem_bytes(b.dtype);
  out.rank = ns;
  return true;
}

void classify_launch_values(const nb::list &values, const std::vector<std::string> &names,
                            std::vector<ArgInfo> &infos, std::vector<runtime::TmaTensor> &tmas) {
  for (size_t i = 0; i < infos.size(); ++i) {
    PyObject *v = values[i].ptr();
    if (Py_TYPE(v) == dispatch::descriptor_type() &&
        descriptor_tma_tensor(v, names[i].c_str(), tmas[i])) {
      infos[i].cls = ArgClass::TensorMap;
      infos[i].tma = &tmas[i];
      continue;
    }
    classify(v, names[i].c_str(), infos[i]);
  }
}

} // namespace tilec::python::gpu
