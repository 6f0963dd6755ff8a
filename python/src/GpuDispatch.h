// The launch fast path's types (GpuDispatch.cpp, GpuDispatchKey.cpp): the per-@jit-function
// Dispatcher, its entries by specialisation key, and one launch's bound arguments. Private
// to python/src.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "Gpu.h"

namespace tilec::python::gpu::dispatch {

inline constexpr const char *kOptionNames[] = {"num_warps",
                                               "num_stages",
                                               "num_ctas",
                                               "maxnreg",
                                               "debug",
                                               "enable_fp_fusion",
                                               "launch_cooperative_grid",
                                               "launch_pdl",
                                               "stream",
                                               "enable_reflect_ftz"};
inline constexpr int kNumOptions = 10;
inline constexpr int kStreamOption = 8;
inline constexpr int kDebugOption = 4;
inline constexpr int kFpFusionOption = 5;
inline constexpr int kCooperativeOption = 6;
inline constexpr int kPdlOption = 7;
inline constexpr int kNumCtasOption = 2;

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

inline constexpr int kMaxDescRank = 5;

// A host TensorDescriptor argument: its base and the parts the kernel takes as .params
// (named like Sema names them: d.base, d.shape.<i>, d.stride.<i> but the last stride).
struct DescParts {
  int param = -1;
  ArgInfo base;
  int rank = 0;
  int64_t shape[kMaxDescRank] = {}, strides[kMaxDescRank] = {};
  runtime::TmaTensor tma; // the same, for a kernel that takes its tensor map (d.tmap)
};

int elem_bytes(uint8_t dtype);

// tilec.tools.tensor_descriptor.TensorDescriptor (borrowed from the module, which lives on).
PyTypeObject *descriptor_type();

// A sequence of Python ints (at most kMaxDescRank) into `out`; false when it is not one.
bool int_list(PyObject *seq, int64_t *out, int &n);

inline uint64_t mix(uint64_t h, uint64_t w) {
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
  bool tma = false; // the kernel takes a tensor map (takes_tensor_map)
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
             nb::object normalize_grid);

  Dispatcher(const Dispatcher &) = delete;
  Dispatcher &operator=(const Dispatcher &) = delete;

  // The fast path. Returns the launch's result, or nullptr-handle on a miss (nothing ran).
  nb::object launch(PyObject *grid, const CallArgs &args);

  // Registers `kernel_obj` (a tilec GpuCompiledKernel: `._native` is the GpuKernel) for the
  // specialisation of these arguments. False when the fast path cannot key them.
  bool add(const CallArgs &args, nb::object kernel_obj);

  // What a miss falls back to: jitfn.run(*args, grid=grid, **kwargs).
  nb::object fallback(PyObject *grid, const CallArgs &args);

  // The globals the kernels read: (dict, name, value) triples. A launch whose dict no
  // longer holds that very object under the name misses, so the Python path compares the
  // values (and raises when one changed, as Triton does).
  void watch(std::vector<std::tuple<nb::object, nb::object, nb::object>> globals) {
    watched_ = std::move(globals);
  }
  bool globals_unchanged() const {
    for (const auto &[dict, name, value] : watched_)
      if (PyDict_GetItem(dict.ptr(), name.ptr()) != value.ptr()) // borrowed, no error set
        return false;
    return true;
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
    for (const auto &w : watched_) {
      Py_VISIT(std::get<0>(w).ptr());
      Py_VISIT(std::get<2>(w).ptr());
    }
    Py_VISIT(spare_);
    return 0;
  }

  void clear() {
    last_ = nullptr;
    entries_.clear();
    watched_.clear();
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
  Status prepare(const CallArgs &args, Bound &b);

  // The key words and parts of TensorDescriptor `v` (parameter i), by runtime/ArgRules.h (as
  // tilec/_args.py:desc_key); false when the Python path must handle it (it reports errors).
  bool descriptor(PyObject *v, size_t i, Bound &b, std::vector<uint64_t> &key) const;

  // The .param names of the descriptor parts, after the parameters' own names.
  std::vector<std::string> part_names(const Bound &b) const;

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

  bool const_words(PyObject *v, std::vector<uint64_t> &key) const;

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
  const Entry *find(Bound &b);

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

  runtime::LaunchGrid eval_grid(PyObject *grid, Bound &b);

  void run(const Entry &e, PyObject *grid, Bound &b);
  // the launch of packed .params (`ptrs`), on the bound stream and launch attributes
  void launch_now(const Entry &e, PyObject *grid, Bound &b, runtime::LaunchGrid g, void **ptrs);

  std::vector<Param> params_;
  std::vector<std::string> names_;
  nb::object option_names_[kNumOptions];
  nb::object jitfn_ref_;
  nb::object constexpr_type_;
  nb::object normalize_grid_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::vector<std::tuple<nb::object, nb::object, nb::object>> watched_;
  Entry *last_ = nullptr;
  std::vector<uint64_t> scratch_key_;
  std::vector<int> cc_cache_;
  uint64_t fast_launches_ = 0, fallbacks_ = 0;
};

} // namespace tilec::python::gpu::dispatch
