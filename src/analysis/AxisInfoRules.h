// Transfer functions of the axis-info analysis (private to src/analysis).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/AxisInfo.h"

namespace tilec::analysis::rules {

// Divisibility is capped here so products of two stay far from overflow.
inline constexpr int64_t kMaxDivisibility = int64_t{1} << 30;

int64_t pow2_divisor(int64_t v); // largest power of two dividing v (kMaxDivisibility for 0)
int64_t gcd(int64_t a, int64_t b);
std::vector<int64_t> dims_of(const ir::Type &t); // shape, or {1} for scalars

// The largest power of two dividing every element (not only run starts).
int64_t element_divisibility(const AxisInfo &a);

// Facts of an op's result `index`, given its operands' facts.
AxisInfo transfer(const ir::Op &op, const std::vector<const AxisInfo *> &in, size_t index);

} // namespace tilec::analysis::rules
