// Tile IR as text. The syntax is generic (every op prints the same way) so that
// IRParser.h can read any op back:
//
//   module {num_warps = 4}                                  (only when there are attrs)
//   tt.func @add_kernel(%x_ptr: ptr<fp32>, %n: i32) {
//     %0 = program_id {axis = 0} : i32
//     %1 = arange {end = 1024, start = 0} : tile<1024xi32>
//     %2 = splat %0 : i32 -> tile<1024xi32>
//     %3 = add %2, %1 : tile<1024xi32>
//     %4:2 = split %x : tile<4x2xfp32> -> tile<4xfp32>, tile<4xfp32>
//     %5 = for %lb, %ub, %st, %z : i32, i32, i32, fp32 -> fp32 {
//     ^bb(%6: i32, %7: fp32):
//       yield %7
//     }
//     store %p, %v, %m
//     return
//   }
//
// An op: [results =] name [operands] [{attrs}] [: types] [regions] [loc(...)].
// Types: `: T` when every operand and result has type T; otherwise
// `: operand-types -> result-types`, the operand types written once when all equal.
// Ops without results print no types. Results are `%N` (`%N:k` for k results, used as
// `%N#i`), numbered in print order; kernel arguments use Function::arg_names.
// Attributes are sorted by name; floats always carry a '.', an exponent, inf or nan
// and round-trip exactly.
#pragma once

#include <string>

#include "ir/IR.h"

namespace tilec {
class SourceManager;
}

namespace tilec::ir {

struct PrintOptions {
  bool locations = false;                 // append loc("file":line:col) to ops
  const SourceManager *sources = nullptr; // maps SourceLoc::file to a path (else a number)
  bool elide_regions = false;             // print `{...}` instead of region bodies
  // Printing a lone op: the function it belongs to names the kernel arguments
  // (otherwise they print as %argN).
  const Function *context = nullptr;
};

std::string print(const Module &m, const PrintOptions &opts = {});
std::string print(const Function &f, const PrintOptions &opts = {});
// One op (with its regions), numbered as it is within its function.
std::string print(const Op &op, const PrintOptions &opts = {});

// Attribute values as the printer writes them (also used in diagnostics).
std::string format_attr_value(const AttrValue &v);
std::string format_double(double d);

} // namespace tilec::ir
