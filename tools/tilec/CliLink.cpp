// `tilec link out/*.h -o out/add_all`: one dispatcher over several `tilec compile` outputs
// of the same kernel, picking the first specialisation (most hints first) whose hints the
// run-time arguments satisfy.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "CliCommands.h"
#include "aot/Aot.h"
#include "support/Files.h"

namespace tilec::cli {

namespace {

struct Specialisation {
  std::string header; // path as given
  std::string kernel, name, signature, grid, args_line;
  std::vector<AotParam> args; // the run-time parameters
  int hints = 0;
};

Specialisation read_header(const std::string &path) {
  std::string text, error;
  if (!read_regular_file(path, text, error))
    throw UsageError("cannot read '" + path + "': " + error);
  std::istringstream in(text);
  Specialisation s;
  s.header = path;
  bool has_args = false;
  std::string line;
  for (int n = 0; n < 12 && std::getline(in, line); ++n) {
    auto field = [&](const char *key, std::string &into) {
      std::string k = std::string("// tilec-aot-") + key + ":";
      if (line.rfind(k, 0) != 0)
        return false;
      into = line.substr(k.size());
      if (!into.empty() && into[0] == ' ')
        into.erase(0, 1);
      return true;
    };
    field("kernel", s.kernel) || field("name", s.name) || field("signature", s.signature) ||
        field("grid", s.grid) || (has_args = has_args || field("args", s.args_line));
  }
  if (s.kernel.empty() || s.name.empty() || !has_args)
    throw UsageError("'" + path + "' is not a header written by `tilec compile`");
  std::istringstream items(s.args_line);
  std::string item;
  while (items >> item) {
    size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw UsageError("'" + path + "': malformed tilec-aot-args line");
    AotParam p;
    p.name = item.substr(0, eq);
    p.entry = item.substr(eq + 1);
    p.spec = parse_signature_entry(p.entry);
    s.hints += p.spec.kind == sema::ArgSpec::Kind::TensorDesc
                   ? !c_desc_hint(p).empty()
                   : p.spec.divisible_by_16 || p.spec.equal_to_1;
    s.args.push_back(std::move(p));
  }
  return s;
}

// The argument list without hints, which all specialisations must share (a tensor
// descriptor's dtype, block shape and padding are no hints).
std::string plain_args(const Specialisation &s) {
  std::string out;
  for (const AotParam &p : s.args)
    out += p.name + ":" +
           (p.spec.kind == sema::ArgSpec::Kind::TensorDesc ? p.entry.substr(0, p.entry.rfind('>'))
                                                           : c_type_of(p.spec)) +
           " ";
  return out;
}

} // namespace

int run_link(const std::vector<std::string> &raw) {
  ParsedArgs a = parse_args(expand_short_options(raw), {"out-name", "name"}, {});
  if (a.positional.empty())
    throw UsageError("link takes the headers `tilec compile` wrote (out/*.h)");
  auto [dir, file_stem] = output_stem(a);
  std::string name = a.has("name") ? a.get("name") : file_stem;
  std::string out_header = (std::filesystem::path(dir) / (file_stem + ".h")).string();

  std::vector<Specialisation> specs;
  for (const std::string &h : a.positional) {
    if (std::filesystem::weakly_canonical(h) == std::filesystem::weakly_canonical(out_header))
      continue; // a previous link's own output matched by out/*.h
    specs.push_back(read_header(h));
  }
  if (specs.empty())
    throw UsageError("link: no specialisations to link");
  for (const Specialisation &s : specs) {
    if (s.kernel != specs[0].kernel)
      throw UsageError("link: '" + s.header + "' holds kernel '" + s.kernel + "', but '" +
                       specs[0].header + "' holds '" + specs[0].kernel +
                       "': link specialisations of one kernel");
    if (plain_args(s) != plain_args(specs[0]))
      throw UsageError("link: '" + s.header + "' and '" + specs[0].header +
                       "' take different arguments (" + s.args_line + " vs " + specs[0].args_line +
                       "); only the hints (:16, :1) may differ");
    if (s.name == name)
      throw UsageError("link: the dispatcher's name '" + name + "' is the name of '" + s.header +
                       "': choose another -o");
  }
  // Most specialised first, so the general version is the fallback.
  std::stable_sort(
      specs.begin(), specs.end(),
      [](const Specialisation &x, const Specialisation &y) { return x.hints > y.hints; });
  for (size_t i = 0; i < specs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (specs[i].args_line == specs[j].args_line)
        throw UsageError("link: '" + specs[i].header + "' and '" + specs[j].header +
                         "' have the same hints (" + specs[i].args_line +
                         "): the dispatcher could never pick the second");

  std::string params = c_parameter_list(specs[0].args, false);
  std::string grid_params = c_parameter_list(specs[0].args, true);
  std::string call_args;
  for (const AotParam &p : specs[0].args)
    call_args += ", " + p.name;
  // NAME(stream, args...) exists when every specialisation computes its own grid.
  bool computed_grid = std::all_of(specs.begin(), specs.end(),
                                   [](const Specialisation &x) { return !x.grid.empty(); });
  std::string list;
  for (const Specialisation &s : specs)
    list += (list.empty() ? "" : " | ") + s.args_line;

  std::string guard = "TILEC_AOT_LINK_" + name + "_H";
  std::string h;
  h += "/* Generated by `tilec link`: dispatcher over " + std::to_string(specs.size()) +
       " specialisations of kernel " + specs[0].kernel + ". Do not edit. */\n";
  h += "#ifndef " + guard + "\n#define " + guard + "\n\n";
  h += "#include <stdint.h>\n#ifndef __cplusplus\n#include <stdbool.h>\n#endif\n\n";
  h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  h += "#ifndef TILEC_AOT_ERROR_NO_SPECIALISATION\n"
       "#define TILEC_AOT_ERROR_NO_SPECIALISATION (-1) /* the arguments fit no specialisation */\n"
       "#endif\n" +
       c_desc_declarations(specs[0].args) + "\nstruct CUstream_st; /* CUstream */\n\n";
  h += "/* Loads every specialisation into the current CUDA context. 0 or a CUresult. */\n";
  h += "int load_" + name + "(void);\nint unload_" + name + "(void);\n";
  h += "/* Launches over the grid (grid_x, grid_y, grid_z) the first specialisation whose hints\n"
       "   the arguments satisfy, in this order:\n";
  for (const Specialisation &s : specs)
    h += "     " + s.name + ":" + s.args_line + "\n";
  h += "   Returns 0, TILEC_AOT_ERROR_NO_SPECIALISATION when none fits, or a CUresult. */\n";
  h += "int " + name + "_grid(" + grid_params + ");\n";
  if (computed_grid)
    h += "/* The same, each specialisation computing its grid from the arguments. */\n"
         "int " +
         name + "(" + params + ");\n";
  h += "const char *" + name + "_error_string(int code);\n\n";
  h += "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";

  std::string s = "// Generated by `tilec link`. Do not edit.\n#include \"" + file_stem + ".h\"\n";
  for (const Specialisation &sp : specs) {
    std::string rel = std::filesystem::path(sp.header).lexically_proximate(dir).generic_string();
    s += "#include \"" + rel + "\"\n";
  }
  s += "\nextern \"C\" int load_" + name + "(void) {\n";
  for (const Specialisation &sp : specs)
    s += "  if (int r = load_" + sp.name + "())\n    return r;\n";
  s += "  return 0;\n}\n\nextern \"C\" int unload_" + name + "(void) {\n  int first = 0, r;\n";
  for (const Specialisation &sp : specs)
    s += "  r = unload_" + sp.name + "();\n  if (r && !first)\n    first = r;\n";
  s += "  return first;\n}\n\n";
  for (bool grid : {true, false}) {
    if (!grid && !computed_grid)
      continue;
    std::string fn = name + (grid ? "_grid" : "");
    s += "extern \"C\" int " + fn + "(" + (grid ? grid_params : params) + ") {\n";
    for (const Specialisation &sp : specs)
      s += "  if (" + c_hint_condition(sp.args) + ")\n    return " + sp.name +
           (grid ? "_grid(stream, grid_x, grid_y, grid_z" : "(stream") + call_args + ");\n";
    s += "  return TILEC_AOT_ERROR_NO_SPECIALISATION;\n}\n\n";
  }
  s += "extern \"C\" const char *" + name +
       "_error_string(int code) {\n"
       "  if (code == TILEC_AOT_ERROR_NO_SPECIALISATION)\n"
       "    return \"" +
       name + ": the arguments fit none of the specialisations of " + specs[0].kernel + " (" +
       c_string_body(list) +
       ")\";\n"
       "  return " +
       specs[0].name + "_error_string(code);\n}\n";

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string base = (std::filesystem::path(dir) / file_stem).string();
  if (!write_text_file(base + ".h", h) || !write_text_file(base + ".cpp", s)) {
    std::fprintf(stderr, "tilec: cannot write '%s.h' / '%s.cpp'\n", base.c_str(), base.c_str());
    return 1;
  }
  return 0;
}

} // namespace tilec::cli
