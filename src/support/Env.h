// The one registry of TILEC_* environment variables (see Env.def and docs/ENV.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tilec::env {

enum class Var {
#define ENV_VAR(id, name, def, desc) id,
#include "support/Env.def"
#undef ENV_VAR
};

struct VarInfo {
  const char *name;
  const char *default_value;
  const char *description;
};

const VarInfo &info(Var v);
const std::vector<VarInfo> &all();
// The variable's value, or its default when unset.
std::string get(Var v);
// True when the value is a non-empty string other than "0", "false", "off", "no".
bool flag(Var v);
// The flag rule on a value: on unless empty, "0", "false", "False", "off" or "no".
bool flag_value(std::string_view s);
long get_int(Var v);

} // namespace tilec::env
