// Text of Thread IR: one instruction in PTX syntax, and a whole function (the dump).
//
// Instructions print exactly as PTX (codegen/PtxPrinter.h reuses format_instr), with
// registers named by width class and number: %p<n> (pred), %rs<n> (16-bit), %r<n>
// (32-bit), %rd<n> (64-bit). vprintf/assertfail print as one pseudo line here; the PTX
// printer expands them into the call sequence.
#pragma once

#include <string>
#include <vector>

#include "simt/ThreadIR.h"

namespace tilec::simt {

// Per-function register names ("%r12"): registers are numbered within their width class.
class RegNames {
public:
  explicit RegNames(const Function &fn);
  const std::string &name(Reg r) const { return names_.at(r.id); }
  // Declared counts per class, for `.reg .b32 %r<N>;` (N = highest number + 1).
  int count_pred() const { return counts_[0]; }
  int count_b16() const { return counts_[1]; }
  int count_b32() const { return counts_[2]; }
  int count_b64() const { return counts_[3]; }

private:
  std::vector<std::string> names_;
  int counts_[4] = {0, 0, 0, 0};
};

// The name PTX gives the dynamic shared memory array.
inline constexpr const char *kSharedSymbol = "global_smem";
// The name of global string i ("$str0" is not a valid PTX name for ptxas < 8; use this).
std::string string_symbol(const Function &fn, uint32_t i);

std::string format_operand(const Function &fn, const RegNames &rn, const Operand &o, Ty ty);
// "@%p1 ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd2+16];" without indentation.
std::string format_instr(const Function &fn, const RegNames &rn, const Instr &in);
// The whole function: header line, params, strings, blocks with labels.
std::string dump(const Function &fn);

} // namespace tilec::simt
