// What a name or expression denotes during Sema: a compile-time Python value
// (constexpr), a tensor (an IR value: scalar or tile), or a language object
// (a @jit function, a module, a builtin, a bound method). Tuples may mix both.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace tilec::sema {

struct FunctionSource;

// What a block pointer (tl.make_block_ptr) fixes at compile time. Its run-time parts ride
// in the Val's elems: the base pointer, then `rank` each of shape (i32 or i64), strides
// (i64) and offsets (i32) scalars, then the tile of its element pointers.
struct BlockPtrInfo {
  std::vector<int64_t> block_shape, order;
  // Per dim, what is known of the run-time parts, for leaner bounds checks: the offset
  // is >= 0 (so the lower bound holds), the shape is an int32 (so the checks stay in 32
  // bits). Not part of the type: joins keep what holds on every path (merged()).
  std::vector<bool> offset_nonneg, shape_i32;
  bool operator==(const BlockPtrInfo &) const = default;
  bool same_type(const BlockPtrInfo &o) const {
    return block_shape == o.block_shape && order == o.order && shape_i32 == o.shape_i32;
  }
  BlockPtrInfo merged(const BlockPtrInfo &o) const {
    BlockPtrInfo m = *this;
    for (size_t i = 0; i < m.offset_nonneg.size(); ++i)
      m.offset_nonneg[i] = m.offset_nonneg[i] && o.offset_nonneg[i];
    return m;
  }
  size_t rank() const { return block_shape.size(); }
  // Positions of the run-time parts in the block pointer's elems.
  static constexpr size_t base_at() { return 0; }
  size_t shape_at(size_t d) const { return 1 + d; }
  size_t stride_at(size_t d) const { return 1 + rank() + d; }
  size_t offset_at(size_t d) const { return 1 + 2 * rank() + d; }
  size_t tile_at() const { return 1 + 3 * rank(); }
};

// What a tensor descriptor (tl.make_tensor_descriptor, or a host TensorDescriptor
// argument) fixes at compile time: the block shape and the padding of reads outside the
// tensor. The element type is the base pointer's. Its run-time parts ride in the Val's
// elems: the base pointer, `rank` shape scalars (i32), then the strides (i64) of every dim
// but the last, which is contiguous (stride 1, as Triton requires).
//
// A descriptor of a kernel compiled with CompileOptions::tma has one more part, last: the
// address of its tensor map (a host descriptor's 128-byte .param, runtime/TensorMap.h; a
// 2-D tl.make_tensor_descriptor's make_tmap op), which loads carry so that
// "pipeline-loops" can copy their blocks through TMA.
struct TensorDescInfo {
  std::vector<int64_t> block_shape;
  bool nan_padding = false;
  bool tmap = false; // a tensor-map part follows the strides
  bool operator==(const TensorDescInfo &) const = default;
  size_t rank() const { return block_shape.size(); }
  static constexpr size_t base_at() { return 0; }
  size_t shape_at(size_t d) const { return 1 + d; }
  size_t stride_at(size_t d) const { return 1 + rank() + d; } // d < rank() - 1
  size_t tmap_at() const { return 2 * rank(); }               // when `tmap`
  size_t num_parts() const { return 2 * rank() + (tmap ? 1 : 0); }
};

// A typing.NamedTuple / collections.namedtuple class: its name and fields, and the
// defaults of its last fields (a call may leave those out).
struct NamedTupleInfo {
  std::string name;
  std::vector<std::string> fields;
  std::vector<struct Val> defaults; // for the last defaults.size() fields
};

// A function of the host run at compile time (Triton's @constexpr_function): called with
// constexpr arguments, it returns a constexpr. `call` throws std::runtime_error with the
// host's message when the function fails or returns what a kernel cannot use.
struct HostFunction {
  std::string name;
  std::function<struct Val(const std::vector<struct Val> &,
                           const std::vector<std::pair<std::string, struct Val>> &)>
      call;
};

struct Val {
  enum class Kind {
    None,
    Bool,
    Int,
    Float,
    Str,          // constexpr Python scalars
    DType,        // tl.float16 or a pointer type (Out.dtype); see `type`
    Tensor,       // an IR value (scalar or tile)
    Tuple,        // elems
    Function,     // a @jit function (fn)
    Module,       // str = "tilec.language", "tilec.language.math", "tilec", ...
    Builtin,      // str = builtin name ("load", "math.exp" -> "exp", "range", "min")
    Method,       // elems[0] = self, str = method name ("to", "sum", ...)
    Slice,        // elems = {lower, upper, step} (None when absent)
    BlockPtr,     // elems = base, shape, strides, offsets; `block` the rest
    TensorDesc,   // elems = base, shape, strides; `desc` the rest
    TupleClass,   // a NamedTuple class (`named`): calling it makes a Tuple
    HostFunction, // `host`; str = its source text (the cache key hashes it)
  };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  // Int in [2**63, 2**64) (Triton types such ints uint64): `i` holds the bits, read them
  // as uint64_t. False for every other int, whose value `i` is.
  bool u64 = false;
  double f = 0;
  std::string str;
  ir::Type type;                              // DType: the element type (ptr set for pointer types)
  ir::Value *tensor = nullptr;                // Tensor
  std::vector<Val> elems;                     // Tuple, Method, Slice
  std::shared_ptr<const FunctionSource> fn;   // Function
  std::shared_ptr<const BlockPtrInfo> block;  // BlockPtr
  std::shared_ptr<const TensorDescInfo> desc; // TensorDesc
  // Tuple: the NamedTuple class it is an instance of (fields read as attributes); null
  // for a plain tuple. TupleClass: the class.
  std::shared_ptr<const NamedTupleInfo> named;
  std::shared_ptr<const HostFunction> host; // HostFunction

  static Val none() { return Val(); }
  static Val boolean(bool v) {
    Val x;
    x.kind = Kind::Bool;
    x.b = v;
    return x;
  }
  static Val integer(int64_t v) {
    Val x;
    x.kind = Kind::Int;
    x.i = v;
    return x;
  }
  static Val uint64(uint64_t v) {
    Val x = integer(static_cast<int64_t>(v));
    x.u64 = v > static_cast<uint64_t>(INT64_MAX);
    return x;
  }
  static Val floating(double v) {
    Val x;
    x.kind = Kind::Float;
    x.f = v;
    return x;
  }
  static Val string(std::string v) {
    Val x;
    x.kind = Kind::Str;
    x.str = std::move(v);
    return x;
  }
  static Val dtype(ir::Type t) {
    Val x;
    x.kind = Kind::DType;
    x.type = std::move(t);
    return x;
  }
  static Val of(ir::Value *v) {
    Val x;
    x.kind = Kind::Tensor;
    x.tensor = v;
    return x;
  }
  static Val tuple(std::vector<Val> e) {
    Val x;
    x.kind = Kind::Tuple;
    x.elems = std::move(e);
    return x;
  }
  // A tuple of ints (a shape, as tensor.shape and desc.block_shape give it).
  static Val int_tuple(const std::vector<int64_t> &v) {
    std::vector<Val> e;
    for (int64_t i : v)
      e.push_back(integer(i));
    return tuple(std::move(e));
  }
  static Val module(std::string name) {
    Val x;
    x.kind = Kind::Module;
    x.str = std::move(name);
    return x;
  }
  static Val builtin(std::string name) {
    Val x;
    x.kind = Kind::Builtin;
    x.str = std::move(name);
    return x;
  }
  static Val host_function(std::shared_ptr<const HostFunction> h, std::string source) {
    Val x;
    x.kind = Kind::HostFunction;
    x.host = std::move(h);
    x.str = std::move(source);
    return x;
  }
  static Val method(std::string name, Val self) {
    Val x;
    x.kind = Kind::Method;
    x.str = std::move(name);
    x.elems.push_back(std::move(self));
    return x;
  }

  static Val block_ptr(std::vector<Val> parts, BlockPtrInfo info) {
    Val x;
    x.kind = Kind::BlockPtr;
    x.elems = std::move(parts);
    x.block = std::make_shared<const BlockPtrInfo>(std::move(info));
    return x;
  }

  static Val tensor_desc(std::vector<Val> parts, TensorDescInfo info) {
    Val x;
    x.kind = Kind::TensorDesc;
    x.elems = std::move(parts);
    x.desc = std::make_shared<const TensorDescInfo>(std::move(info));
    return x;
  }

  bool is_tensor() const { return kind == Kind::Tensor; }
  // Tuples, block pointers and tensor descriptors: values made of parts that joins and
  // loops carry one by one.
  bool is_aggregate() const {
    return kind == Kind::Tuple || kind == Kind::BlockPtr || kind == Kind::TensorDesc;
  }
  // Whether two aggregates can be joined part by part: the same kind and number of parts,
  // and the same compile-time facts of a block pointer or descriptor.
  bool same_structure(const Val &o) const {
    return kind == o.kind && elems.size() == o.elems.size() &&
           (named ? o.named && named->name == o.named->name : !o.named) &&
           (!block || block->same_type(*o.block)) && (!desc || *desc == *o.desc);
  }
  // A compile-time value usable where a constexpr is needed (tuples of constexprs too).
  bool is_constexpr() const;
  // The Python spelling of a constexpr, as static_print and f-strings show it (str()).
  std::string repr() const;
  // Python's repr(): as repr() but strings are quoted ('abc'), as f"{x!r}" shows them.
  std::string py_repr() const;
};

// tl.constexpr_type(v), the type of a constexpr `v` (Triton's `x.type` of a constexpr): a
// NamedTuple-like value of class "constexpr_type" with the one field `value`, equal to
// another exactly when the values are.
Val constexpr_type_of(const Val &v);
bool is_constexpr_type(const Val &v);

// A descriptor's type as Triton's signatures spell it, "tensordesc<fp16[64, 64]>" (tilec
// adds ", nan" for NaN padding), for messages and static_print.
std::string tensor_desc_str(const Val &desc);

} // namespace tilec::sema
