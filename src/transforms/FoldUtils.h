// Constant folding with each dtype's exact semantics, shared by the canonicalizer.
// Integers wrap (two's complement) at the dtype's width and are kept canonical: signed
// dtypes sign-extended into int64, unsigned ones (and i1) zero-extended. Floats are
// doubles holding a value exactly representable in the dtype; every result is rounded
// to the dtype (round to nearest even, as the hardware does). A fold that would need
// behaviour the dtype leaves undefined or that we cannot reproduce exactly (division
// by zero, over-wide shifts, fp8, out-of-range float->int) returns nullopt.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/IR.h"

namespace tilec::transforms {

struct Scalar {
  bool is_float = false;
  int64_t i = 0; // canonical integer value
  double f = 0;  // float value

  bool operator==(const Scalar &o) const;
};

// The constant a value holds (a scalar constant, or a tile constant = splat), or nullopt.
std::optional<Scalar> constant_value(const ir::Value *v);
// The attribute value a constant op of dtype `d` should carry for `s`.
ir::AttrValue to_attr(const Scalar &s);

// Wraps an integer to `d`'s width, canonical form.
int64_t wrap_int(int64_t v, ir::DType d);
// Rounds to the nearest value of float dtype `d`; nullopt for dtypes we do not fold.
std::optional<double> round_to(double v, ir::DType d);

// Whether `v` is a constant integer 0 or float +0.0 (any dtype, fp8 included), or a splat
// of one: the value that lets a masked load's `other` or a dot's zero accumulator go.
bool is_plus_zero_constant(const ir::Value *v);

bool is_zero(const Scalar &s);                  // integer 0 or float +0.0 / -0.0
bool is_one(const Scalar &s);                   // integer 1 or float 1.0
bool is_all_ones(const Scalar &s, ir::DType d); // integer with every bit set (-1 / max)

// Folds elementwise op `op` (its attributes matter: pred, propagate_nan, rounding)
// given constant operand values; `d` is the operands' dtype, `rd` the result's.
std::optional<Scalar> fold_elementwise(const ir::Op &op, const std::vector<Scalar> &args,
                                       ir::DType d, ir::DType rd);

} // namespace tilec::transforms
