// Dead-code elimination: erases pure ops whose results are unused, recursively, and
// `if` / `for` / `while` ops whose results are unused and whose regions have no side
// effects (no store, atomic, print, assert or barrier inside), and a `for` loop's carried
// values that nothing reads but their own next value.
#pragma once

#include "ir/IR.h"

namespace tilec::transforms {

void dce(ir::Module &m);
// Whether `op` (its regions included) does anything but compute values.
bool has_side_effects(const ir::Op &op);
// The same within one block (its nested regions included) only.
void dce_block(ir::Block &b);

} // namespace tilec::transforms
