// The language's builtins (tl.*, tl.math.*, Python's min/max/abs/float/int/print/...)
// and tensor methods: one table, with Triton's parameter names and defaults.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/sema/Emitter.h"

namespace tilec::sema {

struct CallArgs {
  std::vector<Val> args;
  std::vector<std::pair<std::string, Val>> kwargs;
  SourceLoc loc;
};

// Names of tl / tl.math attributes that are builtins ("load", "exp", "float16" is a
// dtype, not a builtin). `qualified` may be "math.exp"; it maps to the same builtin.
bool is_builtin(std::string_view name);
// Binds arguments to the builtin's parameters (unknown keyword, missing or surplus
// argument: CompileError naming the builtin) and builds its IR.
Val call_builtin(Emitter &e, std::string_view name, CallArgs args);
// Python builtins usable in kernels: min, max, abs, float, int, bool, len, print,
// isinstance, range handled by Sema (range is a loop form, not a call).
bool is_python_builtin(std::string_view name);
Val call_python_builtin(Emitter &e, std::string_view name, CallArgs args);
// Methods of tensors: x.to(), x.sum(), x.reshape(), ... (self is passed first).
bool is_tensor_method(std::string_view name);
Val call_tensor_method(Emitter &e, std::string_view name, const Val &self, CallArgs args);

// Tensor descriptors (BuiltinsTensorDesc.cpp): their attributes (block_shape, dtype,
// shape, strides, block_type, and the methods load, store, atomic_*, gather, scatter),
// method calls (self is passed first), and a kernel parameter given a host
// TensorDescriptor (its parts become arguments of `fn`, named `name`.base,
// `name`.shape.D, `name`.stride.D, with `tma` also `name`.tmap; `divisibility` gets one
// entry per argument).
bool is_descriptor_method(std::string_view name);
Val call_descriptor_method(Emitter &e, std::string_view name, const Val &self, CallArgs args);
Val descriptor_attribute(Emitter &e, const Val &desc, const std::string &attr, SourceLoc loc);
Val descriptor_parameter(ir::Function &fn, const std::string &name, const ArgSpec &spec,
                         std::vector<int64_t> &divisibility, SourceLoc loc, bool tma);

// tl.<name> attributes that are values, not functions: dtypes (tl.float16, tl.int32,
// tl.pointer_type?), and constants. Returns false when `name` is not one.
bool language_attribute(std::string_view name, Val &out);

} // namespace tilec::sema
