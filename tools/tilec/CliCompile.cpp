// `tilec compile FILE.py:KERNEL -s SIG -g GRID -w N -o out/NAME`: a kernel compiled ahead
// of time into out/NAME.h + out/NAME.cpp (CliAotEmit.cpp), usable from C or C++ with
// only libcuda.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>

#include "aot/Aot.h"
#include "CliCommands.h"
#include "frontend/sema/Sema.h"

namespace tilec::cli {

namespace {

bool is_c_identifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

} // namespace

// Short options of compile/link, as Triton's compile.py spells them.
std::vector<std::string> expand_short_options(const std::vector<std::string> &args) {
  static const std::map<std::string, std::string> names = {
      {"-s", "--signature"},   {"-g", "--grid"},     {"-w", "--num-warps"},
      {"-ns", "--num-stages"}, {"-o", "--out-name"}, {"-n", "--name"}};
  std::vector<std::string> out;
  for (const std::string &a : args) {
    auto it = names.find(a);
    if (it != names.end())
      out.push_back(it->second);
    else if (a.size() > 1 && a[0] == '-' && a[1] != '-')
      throw UsageError("unknown option " + a);
    else
      out.push_back(a);
  }
  return out;
}

bool write_text_file(const std::string &path, const std::string &text) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return false;
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

// out/add -> (directory "out", C name "add"); --name overrides the C name.
std::pair<std::string, std::string> output_stem(const ParsedArgs &a) {
  if (!a.has("out-name"))
    throw UsageError("missing -o OUT (the output path without extension, e.g. out/add)");
  std::filesystem::path out(a.get("out-name"));
  std::string name = a.has("name") ? a.get("name") : out.filename().string();
  if (!is_c_identifier(name))
    throw UsageError("'" + name +
                     "' is not a C identifier: choose -o out/NAME (or --name) "
                     "with letters, digits and '_'");
  std::string dir = out.parent_path().string();
  return {dir.empty() ? "." : dir, out.filename().string()};
}

int run_compile(const std::vector<std::string> &raw) {
  ParsedArgs a =
      parse_args(expand_short_options(raw),
                 {"signature", "grid", "num-warps", "num-stages", "out-name", "name", "arch"},
                 {"debug", "no-cubin"});
  if (a.positional.size() != 1)
    throw UsageError("compile takes one FILE.py:KERNEL");
  const std::string &target = a.positional[0];
  size_t colon = target.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == target.size())
    throw UsageError("expected FILE.py:KERNEL, got '" + target + "'");
  if (!a.has("signature"))
    throw UsageError("missing -s SIGNATURE (one entry per kernel parameter, e.g. "
                     "\"*fp32:16,*fp32:16,*fp32:16,i32,1024\")");
  AotRequest req;
  req.path = target.substr(0, colon);
  req.kernel = target.substr(colon + 1);
  // -o - prints both files to stdout (for reading, and for the text tests)
  bool to_stdout = a.get("out-name", "") == "-";
  auto [dir, file_stem] = to_stdout
                              ? std::pair<std::string, std::string>{"", a.get("name", req.kernel)}
                              : output_stem(a);
  std::string name = a.has("name") ? a.get("name") : file_stem;
  if (!is_c_identifier(name))
    throw UsageError("'" + name + "' is not a C identifier: choose --name");
  req.signature = a.get("signature");
  req.num_warps = parse_count(a, "num-warps", 4);
  req.num_stages = parse_count(a, "num-stages", 3);
  req.arch = a.get("arch", "sm_90a");
  req.debug = a.has("debug");
  req.build_cubin = !a.has("no-cubin");
  parse_target(req.arch); // a bad --arch is a usage error before any compiling

  SourceManager sm;
  AotSources out;
  try {
    AotKernel k = aot_compile(req, sm);
    if (!k.gpu.tile.static_output.empty())
      std::fputs(k.gpu.tile.static_output.c_str(), stderr);
    std::string sig;
    for (const AotParam &p : k.params)
      sig += (sig.empty() ? "" : ",") + p.entry;
    std::string grid = a.get("grid");
    if (a.has("grid") && grid.find_first_not_of(" \t") == std::string::npos)
      throw UsageError("-g needs grid expressions, got an empty string");
    out = emit_aot(k, name, file_stem + ".h", sig, grid);
    if (k.cubin.empty() && req.build_cubin)
      std::fprintf(stderr,
                   "tilec: warning: ptxas not found (set TILEC_PTXAS): %s.cpp embeds "
                   "only PTX, which the driver compiles at load\n",
                   file_stem.c_str());
  } catch (const CompileError &e) {
    std::fputs(sema::static_output_of(e).c_str(), stderr);
    std::fputs(render_diagnostic(sm, e.loc(), "error", e.message()).c_str(), stderr);
    return 1;
  }
  if (to_stdout) {
    std::printf("// ---- %s.h\n%s// ---- %s.cpp\n%s", file_stem.c_str(), out.header.c_str(),
                file_stem.c_str(), out.source.c_str());
    return 0;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string base = (std::filesystem::path(dir) / file_stem).string();
  for (const auto &[path, text] :
       {std::pair{base + ".h", &out.header}, std::pair{base + ".cpp", &out.source}})
    if (!write_text_file(path, *text)) {
      std::fprintf(stderr, "tilec: cannot write '%s'\n", path.c_str());
      return 1;
    }
  return 0;
}

} // namespace tilec::cli
