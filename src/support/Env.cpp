#include "support/Env.h"

#include <cstdlib>

namespace tilec::env {

const std::vector<VarInfo> &all() {
  static const std::vector<VarInfo> vars = {
#define ENV_VAR(id, name, def, codegen, desc) {name, def, codegen, desc},
#include "support/Env.def"
#undef ENV_VAR
  };
  return vars;
}

const VarInfo &info(Var v) { return all().at(static_cast<size_t>(v)); }

std::string get(Var v) {
  const VarInfo &vi = info(v);
  const char *s = std::getenv(vi.name);
  return s ? std::string(s) : std::string(vi.default_value);
}

bool flag_value(std::string_view s) {
  return !(s.empty() || s == "0" || s == "false" || s == "False" || s == "off" || s == "no");
}

bool flag(Var v) { return flag_value(get(v)); }

long get_int(Var v) {
  std::string s = get(v);
  return s.empty() ? 0 : std::strtol(s.c_str(), nullptr, 10);
}

std::string codegen_settings() {
  std::string s;
  for (size_t i = 0; i < all().size(); ++i)
    if (all()[i].codegen)
      s += std::string(all()[i].name) + "=" + get(static_cast<Var>(i)) + ";";
  return s;
}

} // namespace tilec::env
