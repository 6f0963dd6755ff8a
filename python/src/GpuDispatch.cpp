// The launch fast path: `kernel[grid](*args, **kwargs)` for a @jit function that already
// has a GPU kernel for the arguments' specialisation runs here, in C++, from binding the
// arguments to cuLaunchKernel. Anything unusual (a new specialisation, an argument type
// the fast path does not know, CPU arrays, a binding error) falls back to the Python
// path, which compiles, registers the kernel here (add) and reports errors.
//
// The specialisation key is a list of 64-bit words computed from the arguments with the
// rules of the Python path (tilec/_args.py): ints by range (i32/i64/u64), divisibility by
// 16 and equality to 1, floats, bools, None, pointers by dtype and 16-byte alignment,
// constexprs by value, the launch options, and the device's compute capability.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include "Gpu.h"
#include "support/Env.h"

namespace tilec::python::gpu {

namespace {

constexpr const char *kOptionNames[] = {"num_warps",
                                        "num_stages",
                                        "num_ctas",
                                        "maxnreg",
                                        "debug",
                                        "enable_fp_fusion",
                                        "launch_cooperative_grid",
                                        "launch_pdl",
                                        "stream"};
constexpr int kNumOptions = 9;
constexpr int kStreamOption = 8;
constexpr int kDebugOption = 4;
constexpr int kCooperativeOption = 6;
constexpr int kPdlOption = 7;

// Stack storage for per-launch arrays; the heap only for kernels with many parameters. Only
// the `n` elements used are constructed (an ArgInfo holds an nb::object: constructing and
// destroying all N cost more than the rest of the binding).
template <typename T, size_t N> class Scratch {
public:
  explicit Scratch(size_t n) : n_(n) {
    if (n <= N) {
      data_ = std::uninitialized_value_construct_n(reinterpret_cast<T *>(inline_), n) - n;
    } else {
      heap_ = std::make_unique<T[]>(n);
      data_ = heap_.get();
    }
  }
  ~Scratch() {
    if (!heap_)
      std::destroy_n(data_, n_);
  }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  T &operator[](size_t i) { return data_[i]; }
  T *data() { return data_; }

private:
  alignas(T) unsigned char inline_[N * sizeof(T)];
  std::unique_ptr<T[]> heap_;
  size_t n_;
  T *data_;
};

enum Word : uint64_t {
  kNoneArg = 1,
  kBoolArg,
  kIntArg,
  kFloatArg,
  kPtrArg,
  kConstNone,
  kConstBool,
  kConstInt,
  kConstFloat,
  kConstObj,
  kOptInt,
  kOptBool,
  kOptNone,
  kDeviceCc,
  kDescArg,
};

constexpr int kMaxDescRank = 5;

// A host TensorDescriptor argument: its base and the parts the kernel takes as .params
// (named like Sema names them: d.base, d.shape.<i>, d.stride.<i> but the last stride).
struct DescParts {
  int param = -1;
  ArgInfo base;
  int rank = 0;
  int64_t shape[kMaxDescRank] = {}, strides[kMaxDescRank] = {};
};

int elem_bytes(uint8_t dtype) {
  std::string_view n = dtype_name(dtype);
  if (n == "i1" || n == "i8" || n == "u8" || n.substr(0, 3) == "fp8")
    return 1;
  if (n == "i16" || n == "u16" || n == "fp16" || n == "bf16")
    return 2;
  return n == "i64" || n == "u64" || n == "fp64" ? 8 : 4;
}

// tilec.tools.tensor_descriptor.TensorDescriptor (borrowed from the module, which lives on).
PyTypeObject *descriptor_type() {
  static PyTypeObject *t = [] {
    nb::object cls = nb::module_::import_("tilec.tools.tensor_descriptor").attr("TensorDescriptor");
    return reinterpret_cast<PyTypeObject *>(cls.release().ptr());
  }();
  return t;
}

// A sequence of Python ints (at most kMaxDescRank) into `out`; false when it is not one.
bool int_list(PyObject *seq, int64_t *out, int &n) {
  nb::object fast = nb::steal(PySequence_Fast(seq, "not a sequence"));
  if (!fast.is_valid()) {
    PyErr_Clear();
    return false;
  }
  Py_ssize_t len = PySequence_Fast_GET_SIZE(fast.ptr());
  if (len < 1 || len > kMaxDescRank)
    return false;
  PyObject **items = PySequence_Fast_ITEMS(fast.ptr());
  for (Py_ssize_t i = 0; i < len; ++i) {
    if (!PyLong_Check(items[i]))
      return false;
    int overflow = 0;
    out[i] = PyLong_AsLongLongAndOverflow(items[i], &overflow);
    if (overflow || (out[i] == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
  }
  n = static_cast<int>(len);
  return true;
}

uint64_t mix(uint64_t h, uint64_t w) {
  h ^= w + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

struct Param {
  nb::object name; // interned str
  std::string name_str;
  bool is_constexpr = false;
  bool specialize = true;
  bool has_default = false;
  bool keyword_only = false; // after `*` in the signature: never bound by position
  nb::object default_value;
};

struct Entry {
  uint64_t hash = 0;
  std::vector<uint64_t> key;
  std::shared_ptr<runtime::GpuKernel> kernel;
  std::vector<int> positions; // .param i <- parameter positions[i]
  // with descriptor arguments: every name the .params take theirs from (the parameters,
  // then each descriptor's parts); empty otherwise
  std::vector<std::string> desc_names;
  std::vector<std::pair<int, nb::object>> const_objs; // constexprs compared with ==
  nb::object result;                                  // what a launch returns
};

enum class Status { Ready, NoGpu, Unknown, Unsupported };

// One launch's arguments, bound and classified.
struct Bound {
  explicit Bound(size_t n) : values(n), infos(n) {}
  Scratch<PyObject *, 16> values; // borrowed
  Scratch<ArgInfo, 16> infos;
  std::vector<DescParts> descs; // TensorDescriptor arguments, in parameter order
  PyObject *options[kNumOptions] = {};
  int device = -1;
};

class Dispatcher {
public:
  Dispatcher(nb::list names, std::vector<bool> constexprs, std::vector<bool> specialize,
             nb::list defaults, nb::object jitfn_ref, nb::object constexpr_type,
             nb::object normalize_grid)
      : jitfn_ref_(std::move(jitfn_ref)), constexpr_type_(std::move(constexpr_type)),
        normalize_grid_(std::move(normalize_grid)) {
    size_t n = nb::len(names);
    if (constexprs.size() != n || specialize.size() != n || nb::len(defaults) != n)
      throw nb::value_error("Dispatcher: parameter lists differ in length");
    for (size_t i = 0; i < n; ++i) {
      Param p;
      p.name_str = nb::cast<std::string>(names[i]);
      p.name = nb::steal(PyUnicode_InternFromString(p.name_str.c_str()));
      p.is_constexpr = constexprs[i];
      p.specialize = specialize[i];
      nb::tuple d = nb::cast<nb::tuple>(defaults[i]); // (has_default, value[, keyword_only])
      p.has_default = nb::cast<bool>(d[0]);
      p.default_value = nb::borrow(d[1]);
      p.keyword_only = nb::len(d) > 2 && nb::cast<bool>(d[2]);
      params_.push_back(std::move(p));
      names_.push_back(params_.back().name_str);
    }
    for (int j = 0; j < kNumOptions; ++j)
      option_names_[j] = nb::steal(PyUnicode_InternFromString(kOptionNames[j]));
  }

  Dispatcher(const Dispatcher &) = delete;
  Dispatcher &operator=(const Dispatcher &) = delete;

  // The fast path. Returns the launch's result, or nullptr-handle on a miss (nothing ran).
  nb::object launch(PyObject *grid, const CallArgs &args) {
    if (entries_.empty())
      return nb::object(); // nothing compiled yet: the Python path checks the driver first
    Bound b(params_.size());
    Status st = prepare(args, b);
    if (st != Status::Ready)
      return nb::object();
    const Entry *e = find(b);
    if (!e)
      return nb::object();
    run(*e, grid, b);
    ++fast_launches_;
    return e->result;
  }

  // Registers `kernel_obj` (a tilec GpuCompiledKernel: `._native` is the GpuKernel) for the
  // specialisation of these arguments. False when the fast path cannot key them.
  bool add(const CallArgs &args, nb::object kernel_obj) {
    Bound b(params_.size());
    if (prepare(args, b) != Status::Ready)
      return false;
    auto kernel = nb::cast<std::shared_ptr<runtime::GpuKernel>>(kernel_obj.attr("_native"));
    Entry e;
    e.hash = key_hash();
    e.key = scratch_key_;
    e.kernel = kernel;
    if (!b.descs.empty()) {
      e.desc_names = names_;
      for (std::string &n : part_names(b))
        e.desc_names.push_back(std::move(n));
    }
    e.positions = param_positions(kernel->meta(), b.descs.empty() ? names_ : e.desc_names);
    for (size_t i = 0; i < params_.size(); ++i)
      if (params_[i].is_constexpr && const_is_obj(b.values[i]))
        e.const_objs.emplace_back(static_cast<int>(i), nb::borrow(unwrap(b.values[i])));
    e.result = std::move(kernel_obj);
    for (auto &old : entries_)
      if (old->hash == e.hash && same_key(*old) && same_consts(*old, b)) {
        *old = std::move(e);
        last_ = old.get();
        return true;
      }
    entries_.push_back(std::make_unique<Entry>(std::move(e)));
    last_ = entries_.back().get();
    return true;
  }

  // What a miss falls back to: jitfn.run(*args, grid=grid, **kwargs).
  nb::object fallback(PyObject *grid, const CallArgs &args) {
    nb::object fn = nb::steal(PyObject_CallNoArgs(jitfn_ref_.ptr()));
    if (!fn.is_valid())
      throw nb::python_error();
    if (fn.is_none())
      throw nb::value_error("the @jit function of this launcher no longer exists");
    nb::object pos = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(args.npos)));
    if (!pos.is_valid())
      throw nb::python_error();
    for (size_t i = 0; i < args.npos; ++i)
      PyTuple_SET_ITEM(pos.ptr(), i, Py_NewRef(args.pos[i]));
    nb::dict kw;
    args.each_kw([&](PyObject *k, PyObject *v) { return PyDict_SetItem(kw.ptr(), k, v) == 0; });
    if (PyErr_Occurred())
      throw nb::python_error();
    kw["grid"] = nb::handle(grid);
    ++fallbacks_;
    nb::object run = fn.attr("run");
    nb::object r = nb::steal(PyObject_Call(run.ptr(), pos.ptr(), kw.ptr()));
    if (!r.is_valid())
      throw nb::python_error();
    return r;
  }

  size_t num_entries() const { return entries_.size(); }
  uint64_t fast_launches() const { return fast_launches_; }
  uint64_t fallbacks() const { return fallbacks_; }

  // The objects this dispatcher holds, for Python's cyclic GC (a compiled kernel refers to
  // its @jit function, which holds this dispatcher).
  int traverse(visitproc visit, void *arg) const {
    for (const auto &p : params_)
      Py_VISIT(p.default_value.ptr());
    Py_VISIT(jitfn_ref_.ptr());
    Py_VISIT(constexpr_type_.ptr());
    Py_VISIT(normalize_grid_.ptr());
    for (const auto &e : entries_) {
      Py_VISIT(e->result.ptr());
      for (const auto &c : e->const_objs)
        Py_VISIT(c.second.ptr());
    }
    Py_VISIT(spare_);
    return 0;
  }

  void clear() {
    last_ = nullptr;
    entries_.clear();
    Py_CLEAR(spare_);
    for (auto &p : params_)
      p.default_value = nb::object();
    normalize_grid_ = nb::object();
  }

  ~Dispatcher() { Py_CLEAR(spare_); }

  // The last `kernel[grid]` object (a BoundLaunch), reused while nobody else holds it
  // (saves an allocation per launch). Owned.
  PyObject *spare_ = nullptr;

private:
  PyObject *unwrap(PyObject *v) const {
    if (constexpr_type_.is_valid() && Py_TYPE(v) == (PyTypeObject *)constexpr_type_.ptr()) {
      PyObject *inner = PyObject_GetAttrString(v, "value");
      if (inner) {
        Py_DECREF(inner); // the constexpr object keeps its value alive
        return inner;
      }
      PyErr_Clear();
    }
    return v;
  }

  static bool const_is_obj(PyObject *v) {
    return !(v == Py_None || PyBool_Check(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v));
  }

  bool same_consts(const Entry &e, Bound &b) const {
    for (const auto &c : e.const_objs) {
      PyObject *v = unwrap(b.values[c.first]);
      if (Py_TYPE(v) != Py_TYPE(c.second.ptr()))
        return false;
      int eq = PyObject_RichCompareBool(v, c.second.ptr(), Py_EQ);
      if (eq < 0) {
        PyErr_Clear();
        return false;
      }
      if (!eq)
        return false;
    }
    return true;
  }

  // Binds args/kwargs to parameters (as JITFunction._bind would) and computes the key into
  // scratch_key_. Raises for mixed host/GPU arrays and arrays on different devices.
  Status prepare(const CallArgs &args, Bound &b) {
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
    for (int j = 0; given >> j; ++j) {
      PyObject *o = b.options[j];
      if (!(given >> j & 1))
        continue;
      if (o == Py_None) {
        key.push_back(kOptNone);
      } else if (PyBool_Check(o)) {
        key.push_back(kOptBool);
        key.push_back(o == Py_True);
      } else if (PyLong_CheckExact(o)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow)
          return Status::Unsupported;
        key.push_back(kOptInt);
        key.push_back(uint64_t(v));
      } else {
        return Status::Unsupported;
      }
    }
    // without a debug option, TILEC_DEBUG / TRITON_DEBUG (read at each launch, as the Python path
    // does) decides whether asserts are compiled in: part of the key
    if (!b.options[kDebugOption] || b.options[kDebugOption] == Py_None)
      key.push_back(debug_env() ? 1 : 0);
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
        bool d16 = false, one = false;
        if (p.specialize) {
          d16 = a.int_class == kU64 ? (uint64_t(a.i) % 16 == 0) : (a.i % 16 == 0);
          one = a.int_class != kU64 && a.i == 1;
        }
        key.push_back(kIntArg | uint64_t(a.int_class) << 8 | uint64_t(d16) << 16 |
                      uint64_t(one) << 17);
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

  // The key words and parts of TensorDescriptor `v` (parameter i), with the checks of
  // tilec/_args.py:desc_key; false when the Python path must handle it.
  bool descriptor(PyObject *v, size_t i, Bound &b, std::vector<uint64_t> &key) const {
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
    if (d.base.cls != ArgClass::DeviceArray || !d.base.aligned ||
        std::string_view(dtype_name(d.base.dtype)) == "i1")
      return false;
    int64_t blk[kMaxDescRank];
    int ns = 0, nt = 0, nb_ = 0;
    if (!int_list(shape.ptr(), d.shape, ns) || !int_list(strides.ptr(), d.strides, nt) ||
        !int_list(block.ptr(), blk, nb_) || ns != nt || ns != nb_)
      return false;
    d.rank = ns;
    int64_t elems = 1;
    for (int k = 0; k < d.rank; ++k) {
      if (blk[k] < 1 || (blk[k] & (blk[k] - 1)) || d.shape[k] < 1 || d.shape[k] >= (1ll << 31))
        return false;
      elems *= blk[k];
    }
    int bytes = elem_bytes(d.base.dtype);
    for (int k = 0; k + 1 < d.rank; ++k)
      if ((d.strides[k] * bytes) % 16)
        return false;
    if (elems > (1 << 20) || d.strides[d.rank - 1] != 1)
      return false;
    bool nan;
    if (PyUnicode_Check(padding.ptr()) &&
        PyUnicode_CompareWithASCIIString(padding.ptr(), "zero") == 0)
      nan = false;
    else if (PyUnicode_Check(padding.ptr()) &&
             PyUnicode_CompareWithASCIIString(padding.ptr(), "nan") == 0)
      nan = true;
    else
      return false;
    std::string_view dt = dtype_name(d.base.dtype);
    if (nan && dt.substr(0, 2) != "fp" && dt.substr(0, 2) != "bf")
      return false;
    // what the compiled kernel depends on, as _args.desc_key's key: dtype, block shape,
    // padding, which shapes and strides (but the last) are multiples of 16
    uint64_t div = 0;
    for (int k = 0; k < d.rank; ++k)
      div |= uint64_t(d.shape[k] % 16 == 0) << k |
             uint64_t(k + 1 < d.rank && d.strides[k] % 16 == 0) << (8 + k);
    key.push_back(kDescArg | uint64_t(d.base.dtype) << 8 | uint64_t(d.rank) << 16 |
                  uint64_t(nan) << 20);
    key.push_back(div);
    for (int k = 0; k < d.rank; ++k)
      key.push_back(uint64_t(blk[k]));
    b.descs.push_back(std::move(d));
    return true;
  }

  // The .param names of the descriptor parts, after the parameters' own names.
  std::vector<std::string> part_names(const Bound &b) const {
    std::vector<std::string> out;
    for (const DescParts &d : b.descs) {
      const std::string &n = params_[d.param].name_str;
      out.push_back(n + ".base");
      for (int k = 0; k < d.rank; ++k)
        out.push_back(n + ".shape." + std::to_string(k));
      for (int k = 0; k + 1 < d.rank; ++k)
        out.push_back(n + ".stride." + std::to_string(k));
    }
    return out;
  }

  uint64_t key_hash() const {
    uint64_t h = 0;
    for (uint64_t w : scratch_key_)
      h = mix(h, w);
    return h;
  }

  bool same_key(const Entry &e) const {
    return e.key.size() == scratch_key_.size() &&
           std::memcmp(e.key.data(), scratch_key_.data(), scratch_key_.size() * 8) == 0;
  }

  bool const_words(PyObject *v, std::vector<uint64_t> &key) const {
    v = unwrap(v);
    if (v == Py_None) {
      key.push_back(kConstNone);
    } else if (PyBool_Check(v)) {
      key.push_back(kConstBool);
      key.push_back(v == Py_True);
    } else if (PyLong_CheckExact(v)) {
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
      if (overflow)
        return false;
      key.push_back(kConstInt);
      key.push_back(uint64_t(x));
    } else if (PyFloat_CheckExact(v)) {
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

  int find_param(PyObject *k) const {
    for (size_t i = 0; i < params_.size(); ++i)
      if (params_[i].name.ptr() == k)
        return static_cast<int>(i);
    for (size_t i = 0; i < params_.size(); ++i)
      if (PyUnicode_Compare(params_[i].name.ptr(), k) == 0)
        return static_cast<int>(i);
    PyErr_Clear();
    return -1;
  }

  int find_option(PyObject *k) const {
    for (int j = 0; j < kNumOptions; ++j)
      if (option_names_[j].ptr() == k)
        return j;
    for (int j = 0; j < kNumOptions; ++j)
      if (PyUnicode_Compare(option_names_[j].ptr(), k) == 0)
        return j;
    PyErr_Clear();
    return -1;
  }

  static int current_device_index() {
    if (test_device())
      return 0;
    int d = runtime::current_device();
    return d < 0 ? 0 : d;
  }

  int device_cc(int device) {
    if (device >= 0 && static_cast<size_t>(device) < cc_cache_.size() && cc_cache_[device])
      return cc_cache_[device];
    TestDevice *t = test_device();
    int cc = t ? t->cc : runtime::device_props(device).target.cc();
    if (cc_cache_.size() <= static_cast<size_t>(device))
      cc_cache_.resize(device + 1, 0);
    cc_cache_[device] = cc;
    return cc;
  }

  // The last entry launched is compared first, word by word; the key is hashed only when it
  // differs.
  const Entry *find(Bound &b) {
    if (last_ && same_key(*last_) && same_consts(*last_, b))
      return last_;
    uint64_t h = key_hash();
    for (const auto &e : entries_)
      if (e->hash == h && same_key(*e) && same_consts(*e, b)) {
        last_ = e.get();
        return last_;
      }
    return nullptr;
  }

  // Grid dims from a tuple/list/int (ints only; anything else goes through Python's
  // normalize_grid, which also reports errors).
  static bool fast_grid(PyObject *g, runtime::LaunchGrid &out) {
    uint32_t dims[3] = {1, 1, 1};
    auto dim = [](PyObject *o, uint32_t &d) {
      if (!PyLong_CheckExact(o))
        return false;
      long long v = PyLong_AsLongLong(o);
      if (v < 0 || v >= (1ll << 31)) {
        PyErr_Clear();
        return false;
      }
      d = static_cast<uint32_t>(v);
      return true;
    };
    if (PyTuple_CheckExact(g) || PyList_CheckExact(g)) {
      Py_ssize_t n = PySequence_Fast_GET_SIZE(g);
      if (n < 1 || n > 3)
        return false;
      PyObject **items = PySequence_Fast_ITEMS(g);
      for (Py_ssize_t i = 0; i < n; ++i)
        if (!dim(items[i], dims[i]))
          return false;
    } else if (!dim(g, dims[0])) {
      return false;
    }
    out = {dims[0], dims[1], dims[2]};
    return true;
  }

  nb::object meta_dict(Bound &b) const {
    nb::dict meta;
    for (size_t i = 0; i < params_.size(); ++i)
      PyDict_SetItem(meta.ptr(), params_[i].name.ptr(), b.values[i]);
    return meta;
  }

  runtime::LaunchGrid eval_grid(PyObject *grid, Bound &b) {
    runtime::LaunchGrid g;
    nb::object meta;
    nb::object value = nb::borrow(grid);
    if (PyCallable_Check(grid)) {
      meta = meta_dict(b);
      value = nb::steal(PyObject_CallOneArg(grid, meta.ptr()));
      if (!value.is_valid())
        throw nb::python_error();
    }
    if (fast_grid(value.ptr(), g))
      return g;
    if (!meta.is_valid())
      meta = meta_dict(b);
    nb::tuple t = nb::cast<nb::tuple>(normalize_grid_(value, meta));
    return {nb::cast<uint32_t>(t[0]), nb::cast<uint32_t>(t[1]), nb::cast<uint32_t>(t[2])};
  }

  void run(const Entry &e, PyObject *grid, Bound &b) {
    runtime::LaunchGrid g = eval_grid(grid, b);
    size_t n = e.positions.size();
    Scratch<uint64_t, 32> slots(n);
    Scratch<void *, 32> ptrs(n);
    for (size_t i = 0; i < n; ++i)
      ptrs[i] = &slots[i];
    if (e.desc_names.empty()) {
      pack_params(e.kernel->meta(), e.positions, b.infos.data(), names_, slots.data());
    } else { // the parameters, then each descriptor's base, shapes and strides
      size_t np = params_.size();
      std::vector<ArgInfo> infos(np);
      for (size_t i = 0; i < np; ++i)
        if (b.infos[i].cls != ArgClass::Other)
          infos[i] = b.infos[i];
      for (const DescParts &d : b.descs) {
        infos.push_back(d.base);
        auto int_part = [&](int64_t v, uint8_t cls) {
          ArgInfo a;
          a.cls = ArgClass::Int;
          a.int_class = cls;
          a.i = v;
          infos.push_back(a);
        };
        for (int k = 0; k < d.rank; ++k)
          int_part(d.shape[k], kI32);
        for (int k = 0; k + 1 < d.rank; ++k)
          int_part(d.strides[k], kI64);
      }
      pack_params(e.kernel->meta(), e.positions, infos.data(), e.desc_names, slots.data());
    }
    runtime::CUstream stream = resolve_stream(b.options[kStreamOption], b.device);
    unsigned attrs = b.options[kCooperativeOption] || b.options[kPdlOption]
                         ? launch_attrs(b.options[kCooperativeOption], b.options[kPdlOption])
                         : 0;
    launch_kernel(*e.kernel, b.device, g, stream, ptrs.data(), attrs);
  }

  std::vector<Param> params_;
  std::vector<std::string> names_;
  nb::object option_names_[kNumOptions];
  nb::object jitfn_ref_;
  nb::object constexpr_type_;
  nb::object normalize_grid_;
  std::vector<std::unique_ptr<Entry>> entries_;
  Entry *last_ = nullptr;
  std::vector<uint64_t> scratch_key_;
  std::vector<int> cc_cache_;
  uint64_t fast_launches_ = 0, fallbacks_ = 0;
};

int dispatcher_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self))
    return 0;
  return nb::inst_ptr<Dispatcher>(self)->traverse(visit, arg);
}

int dispatcher_clear(PyObject *self) {
  nb::inst_ptr<Dispatcher>(self)->clear();
  return 0;
}

nb::object bind_grid(nb::handle self, nb::handle grid) {
  PyObject *r = bind_grid_raw(self.ptr(), grid.ptr());
  if (!r)
    throw nb::python_error();
  return nb::steal(r);
}

} // namespace

nb::object dispatch_call(PyObject *dispatcher, PyObject *grid, const CallArgs &a) {
  Dispatcher *d = nb::inst_ptr<Dispatcher>(dispatcher);
  nb::object r = d->launch(grid, a);
  return r.is_valid() ? r : d->fallback(grid, a);
}

PyObject *&dispatcher_spare(PyObject *dispatcher) {
  return nb::inst_ptr<Dispatcher>(dispatcher)->spare_;
}

bool is_dispatcher(PyObject *o) {
  static PyObject *type = nb::type<Dispatcher>().ptr(); // registered before any call
  return reinterpret_cast<PyObject *>(Py_TYPE(o)) == type;
}

namespace {

PyType_Slot dispatcher_slots[] = {{Py_tp_traverse, reinterpret_cast<void *>(dispatcher_traverse)},
                                  {Py_tp_clear, reinterpret_cast<void *>(dispatcher_clear)},
                                  {0, nullptr}};

} // namespace

void bind_gpu_dispatch(nb::module_ &m) {
  nb::class_<Dispatcher>(m, "GpuDispatcher",
                         "The C++ launch fast path of one @jit function: its GPU kernels by "
                         "specialisation key.",
                         nb::type_slots(dispatcher_slots))
      .def(nb::init<nb::list, std::vector<bool>, std::vector<bool>, nb::list, nb::object,
                    nb::object, nb::object>(),
           nb::arg("names"), nb::arg("constexprs"), nb::arg("specialize"), nb::arg("defaults"),
           nb::arg("jitfn_ref"), nb::arg("constexpr_type"), nb::arg("normalize_grid"))
      .def(
          "launch",
          [](Dispatcher &d, nb::handle grid, nb::tuple args, nb::dict kwargs) -> nb::object {
            nb::object r = d.launch(grid.ptr(), CallArgs::of(args.ptr(), kwargs.ptr()));
            return r.is_valid() ? r : nb::none();
          },
          nb::arg("grid"), nb::arg("args"), nb::arg("kwargs"),
          "Launches when a kernel for this specialisation is registered: returns its result, "
          "or None (nothing launched).")
      .def(
          "add",
          [](Dispatcher &d, nb::tuple args, nb::dict kwargs, nb::object kernel) {
            return d.add(CallArgs::of(args.ptr(), kwargs.ptr()), std::move(kernel));
          },
          nb::arg("args"), nb::arg("kwargs"), nb::arg("kernel"),
          "Registers `kernel` for the specialisation of these arguments; False when the fast "
          "path cannot key them (the Python path then launches every time).")
      .def("bind", &bind_grid, nb::arg("grid"),
           "kernel[grid]: a callable that launches over `grid`.")
      .def_prop_ro("num_kernels", &Dispatcher::num_entries)
      .def_prop_ro("fast_launches", &Dispatcher::fast_launches,
                   "Launches the fast path made (tests and benchmarks).")
      .def_prop_ro("fallbacks", &Dispatcher::fallbacks,
                   "Calls of a bound launch that went to the Python path.");

  m.def("debug_env", &debug_env,
        "TILEC_DEBUG or TRITON_DEBUG, from os.environ: launches without a debug= option "
        "compile kernels with device_assert on.");
  bind_gpu_launch_objects(m);
}

} // namespace tilec::python::gpu
