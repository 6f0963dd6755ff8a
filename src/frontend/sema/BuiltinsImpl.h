// The builtin table's machinery (private to src/frontend/sema): a builtin is a name, a
// Python-style signature ("pointer, mask=None, *args, hex=False") and an implementation
// that receives the bound arguments. Each Builtins<Family>.cpp registers its family.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/sema/Builtins.h"
#include "frontend/sema/EmitUtil.h"

namespace tilec::sema::builtins {

class Args;
using Impl = Val (*)(Emitter &e, const Args &a);

// Where a builtin is visible.
enum Where : unsigned {
  kTl = 1,          // tl.<name>
  kMath = 2,        // tl.math.<name>
  kMethod = 4,      // x.<name>(...) on tensors (self is the first parameter)
  kPython = 8,      // Python's builtins (min, max, abs, ...)
  kLibdevice = 16,  // triton.language.extra[.cuda].libdevice.<name> (its own namespace)
  kCuda = 32,       // triton.language.extra.cuda.<name>
  kDescriptor = 64, // desc.<name>(...) on tensor descriptors (self is the first parameter)
};

struct Def {
  const char *name;
  const char *signature;
  Impl impl;
  unsigned where;
};

struct Param {
  std::string name;
  enum class Kind { Normal, VarArgs, KwOnly } kind = Kind::Normal;
  bool has_default = false;
  Val def;
};

// The arguments of one call bound to a builtin's parameters.
class Args {
public:
  Args(Emitter &e, std::string fn, SourceLoc loc) : e_(&e), fn_(std::move(fn)), loc_(loc) {}
  const std::string &fn() const { return fn_; }
  SourceLoc loc() const { return loc_; }

  // The value bound to parameter `name` (its default when not passed).
  const Val &operator[](std::string_view name) const;
  // Whether the caller passed `name` (rather than its default applying).
  bool passed(std::string_view name) const;
  // The extra positional arguments (*args).
  const std::vector<Val> &rest() const { return rest_; }

  // Checked accessors: a CompileError names the builtin and the parameter.
  ir::Value *tensor(std::string_view name) const;         // to_tensor
  ir::Value *tensor_or_null(std::string_view name) const; // None -> nullptr
  int64_t const_int(std::string_view name) const;
  std::optional<int64_t> const_int_or_none(std::string_view name) const;
  bool const_bool(std::string_view name) const; // truthiness of a constexpr
  std::string const_str(std::string_view name) const;
  std::optional<std::string> const_str_or_none(std::string_view name) const;
  ir::Type const_dtype(std::string_view name) const;
  std::optional<ir::Type> const_dtype_or_none(std::string_view name) const;
  [[noreturn]] void fail(const std::string &msg) const;

private:
  friend Args bind(Emitter &, const Def &, const std::vector<Param> &, CallArgs &&);
  const Val &get(std::string_view name) const;
  Emitter *e_;
  std::string fn_;
  SourceLoc loc_;
  std::vector<std::string> names_;
  std::vector<Val> vals_;
  std::vector<bool> passed_;
  std::vector<Val> rest_;
};

// Binds a call's arguments like Python (unknown keyword, missing or surplus arguments:
// CompileError naming the builtin and the parameter).
Args bind(Emitter &e, const Def &d, const std::vector<Param> &params, CallArgs &&call);

// "a tensor of type fp32[16]" / "a value of type str", for messages.
std::string describe(const Val &v);

// A load or store through a block pointer: its element pointers (a tile of its block
// shape) and, for the dims in `boundary_check`, which are inside its shape (nullptr when
// no dim is checked). BuiltinsBlockPtr.cpp.
struct BlockAccess {
  ir::Value *ptrs;
  ir::Value *mask;
};
bool is_block_ptr(const Val &v);
BlockAccess block_access(Emitter &e, const Args &a, const Val &bp, const Val &boundary_check);
// A block pointer from parts already in their types: the base, `rank` shapes (i32 or i64),
// strides (i64) and offsets (i32); `info` gives the block shape and order.
Val block_ptr_of(Emitter &e, std::vector<Val> parts, BlockPtrInfo info, SourceLoc loc);

// A list of ints: a constexpr int or a tuple of them (`what` names them for errors).
std::vector<int64_t> int_list(const Args &a, const Val &v, const char *what);
// Python's *shape convention: f(x, 2, 3) or f(x, (2, 3)).
std::vector<int64_t> shape_from_rest(const Args &a, const char *what);
// Triton's validate_block_shape: powers of two, at most 2^20 elements.
void check_block_shape(const Args &a, const std::vector<int64_t> &shape);
// Normalises a possibly negative axis for a tensor of rank `rank`.
int wrap_axis(const Args &a, int64_t axis, int rank);

// Families (each defined in its Builtins<Family>.cpp).
void add_program_builtins(std::vector<Def> &t); // BuiltinsDebug.cpp
void add_shape_builtins(std::vector<Def> &t);   // BuiltinsShape.cpp
void add_memory_builtins(std::vector<Def> &t);  // BuiltinsMemory.cpp
void add_math_builtins(std::vector<Def> &t);    // BuiltinsMath.cpp
void add_linalg_builtins(std::vector<Def> &t);  // BuiltinsLinalg.cpp
void add_reduce_builtins(std::vector<Def> &t);  // BuiltinsReduce.cpp
void add_map_elementwise_builtins(std::vector<Def> &t); // BuiltinsMapElementwise.cpp
void add_python_builtins(std::vector<Def> &t);  // BuiltinsPython.cpp
void add_random_builtins(std::vector<Def> &t);  // BuiltinsRandom.cpp
void add_block_ptr_builtins(std::vector<Def> &t); // BuiltinsBlockPtr.cpp
void add_asm_builtins(std::vector<Def> &t);       // BuiltinsAsm.cpp
void add_sort_builtins(std::vector<Def> &t);      // BuiltinsSort.cpp
void add_libdevice_builtins(std::vector<Def> &t); // BuiltinsLibdevice.cpp
void add_gather_builtins(std::vector<Def> &t);    // BuiltinsGather.cpp
void add_cuda_builtins(std::vector<Def> &t);        // BuiltinsCuda.cpp
void add_tensor_desc_builtins(std::vector<Def> &t); // BuiltinsTensorDesc.cpp
void add_scaled_dot_builtins(std::vector<Def> &t);  // BuiltinsScaledDot.cpp

// Calls another builtin of the table by name (composite builtins: softmax, sigmoid, ...).
Val call(Emitter &e, std::string_view name, std::vector<Val> args, SourceLoc loc,
         std::vector<std::pair<std::string, Val>> kwargs = {});

} // namespace tilec::sema::builtins
