// The one registry of TILEC_* environment variables (see Env.def and docs/ENV.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tilec::env {

enum class Var {
#define ENV_VAR(id, name, def, codegen, desc) id,
#include "support/Env.def"
#undef ENV_VAR
};

struct VarInfo {
  const char *name;
  const char *default_value;
  bool codegen; // changes the emitted code: part of the disk-cache key
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
// "NAME=value;" of every codegen variable (defaults when unset), for cache keys.
std::string codegen_settings();

} // namespace tilec::env
