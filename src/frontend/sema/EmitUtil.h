// IR-building helpers shared by the operators and the builtins: op creation, literal
// constants, Triton's casts, and numpy broadcasting. Private to src/frontend/sema.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/sema/Emitter.h"

namespace tilec::sema {

// Creates `k` with one result at the builder's insertion point.
ir::Value *emit(Emitter &e, ir::OpKind k, const std::vector<ir::Value *> &operands,
                const ir::Type &result, SourceLoc loc, std::vector<ir::NamedAttr> attrs = {});

// True for a constexpr Python number (bool, int or float).
bool is_number(const Val &v);
// The literal dtype of a Python number (to_tensor's rule).
ir::DType literal_type(const Val &v);
// A Python int or bool exactly (ints of 2**63 and above too: Val::u64).
__int128 int_value(const Val &v);
// Whether the Python int or bool `v` is within the value range of integer dtype `d`.
bool int_fits(const Val &v, ir::DType d);
// The Python type name of a value, for messages: "int", "tuple", "tensor", ...
std::string py_type_name(const Val &v);

// A constant of type `t` (scalar or tile: a tile constant is the value splatted).
ir::Value *make_int(Emitter &e, const ir::Type &t, int64_t v, SourceLoc loc);
ir::Value *make_float(Emitter &e, const ir::Type &t, double v, SourceLoc loc);
// A Python number as a constant of `t`'s dtype, like Triton's scalar_constant: an int
// outside the dtype's range, or a float for an integer dtype, is a CompileError.
ir::Value *constant_of(Emitter &e, const Val &v, const ir::Type &t, SourceLoc loc);
// to_tensor: a Python number gets its literal type; tensors pass through.
ir::Value *as_tensor(Emitter &e, const Val &v, SourceLoc loc);

// Triton's cast of the elements of `v` to `elem` (a scalar or pointer type; the shape of
// `v` is kept). `rounding` ("rtne"/"rtz") only for float truncations.
ir::Value *cast_elem(Emitter &e, ir::Value *v, const ir::Type &elem, SourceLoc loc,
                     const std::string &rounding = "");
ir::Value *cast_dtype(Emitter &e, ir::Value *v, ir::DType d, SourceLoc loc);
// Reinterprets the bits of each element (same width required).
ir::Value *bitcast_elem(Emitter &e, ir::Value *v, const ir::Type &elem, SourceLoc loc);
// v != 0 as i1 of v's shape (i1 passes through).
ir::Value *truth(Emitter &e, ir::Value *v, SourceLoc loc);
ir::Value *compare(Emitter &e, const char *pred, ir::Value *a, ir::Value *b, SourceLoc loc);

// Shape ops. `splat_to` of a scalar to an empty shape returns it unchanged.
ir::Value *splat_to(Emitter &e, ir::Value *scalar, const ir::Shape &shape, SourceLoc loc);
ir::Value *expand_dims(Emitter &e, ir::Value *v, int axis, SourceLoc loc);
// Row-major reshape; scalars and single-element tiles convert to and from each other.
ir::Value *reshape(Emitter &e, ir::Value *v, const ir::Shape &shape, SourceLoc loc);
// The element of a single-element tile as a scalar (scalars pass through).
ir::Value *unsplat(Emitter &e, ir::Value *v, SourceLoc loc);

// numpy broadcasting of two shapes; CompileError "incompatible shapes for broadcasting".
ir::Shape broadcast_shape(const ir::Shape &a, const ir::Shape &b, SourceLoc loc);
// Broadcasts `v` to exactly `shape` (leading dims added, size-1 dims expanded).
ir::Value *broadcast_to(Emitter &e, ir::Value *v, const ir::Shape &shape, SourceLoc loc);
std::pair<ir::Value *, ir::Value *> broadcast_pair(Emitter &e, ir::Value *a, ir::Value *b,
                                                   SourceLoc loc);

// Triton's binary_op_type_checking_impl (defined in Operators.cpp): Python numbers get
// their literal dtype; with `arithmetic` both sides are converted to the computation dtype
// (the scalar rule, range checks of the numbers); pointers only where allowed; then the
// two are broadcast to one shape.
std::pair<ir::Value *, ir::Value *> binary_operands(Emitter &e, const Val &a, const Val &b,
                                                    bool allow_a_ptr, bool allow_b_ptr,
                                                    bool arithmetic, bool div_or_mod,
                                                    SourceLoc loc);

// RAII: restores a builder's insertion point (the emitter's: InsertionGuard g(e.builder())).
class InsertionGuard {
public:
  explicit InsertionGuard(ir::Builder &b) : b_(b), saved_(b) {}
  ~InsertionGuard() { b_ = saved_; }
  InsertionGuard(const InsertionGuard &) = delete;
  InsertionGuard &operator=(const InsertionGuard &) = delete;

private:
  ir::Builder &b_;
  ir::Builder saved_;
};

// Builds a reduce or scan op over `inputs` along `axis`. `combine` receives the region's
// block arguments (acc1..accN, x1..xN, scalars) with the builder inside the region and
// returns the N values to yield. Returns the op (its results are the reductions).
using CombineFn = std::function<std::vector<ir::Value *>(const std::vector<ir::Value *> &)>;
ir::Op *make_reduce(Emitter &e, const std::vector<ir::Value *> &inputs, int axis,
                    const CombineFn &combine, SourceLoc loc);
ir::Op *make_scan(Emitter &e, const std::vector<ir::Value *> &inputs, int axis, bool reverse,
                  const CombineFn &combine, SourceLoc loc);

} // namespace tilec::sema
