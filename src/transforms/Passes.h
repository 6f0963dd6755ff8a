// The Tile IR passes by name, for the pipeline and `tilec opt --passes`.
#pragma once

#include <string_view>
#include <vector>

#include "ir/IR.h"

namespace tilec::transforms {

struct PassInfo {
  const char *name;
  void (*run)(ir::Module &);
  const char *description;
};

const std::vector<PassInfo> &all_passes();
const PassInfo *find_pass(std::string_view name); // null when unknown

} // namespace tilec::transforms
