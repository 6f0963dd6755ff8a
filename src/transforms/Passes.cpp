#include "transforms/Passes.h"

#include "transforms/CSE.h"
#include "transforms/Canonicalize.h"
#include "transforms/DCE.h"
#include "transforms/LICM.h"
#include "transforms/StrengthReduce.h"

namespace tilec::transforms {

const std::vector<PassInfo> &all_passes() {
  static const std::vector<PassInfo> passes = {
      {"canonicalize", canonicalize, "fold constants, apply identities, simplify control flow"},
      {"cse", cse, "reuse identical pure ops that dominate"},
      {"licm", licm, "hoist loop-invariant pure ops out of for loops"},
      {"dce", dce, "erase unused pure ops and side-effect-free control flow"},
      {"strength-reduce", strength_reduce,
       "carry loop pointer tiles P + f(iv) and advance them, instead of recomputing f(iv)"},
  };
  return passes;
}

const PassInfo *find_pass(std::string_view name) {
  for (const PassInfo &p : all_passes())
    if (name == p.name)
      return &p;
  return nullptr;
}

} // namespace tilec::transforms
