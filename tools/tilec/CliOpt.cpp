// `tilec opt` (IR text through passes) and `tilec env`.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "aot/Signature.h"
#include "CliCommands.h"
#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "pipeline/Pipeline.h"
#include "support/Env.h"
#include "support/Files.h"

namespace tilec::cli {

namespace {

std::vector<std::string> split_commas(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

std::string pass_list() {
  std::string s;
  for (const std::string &name : pipeline::tile_ir_pass_names())
    s += (s.empty() ? "" : ", ") + name;
  return s;
}

// The verifier's complaint about IR the user wrote is an error in the input here.
bool verify_input(const ir::Module &m, const std::string &when) {
  try {
    ir::verify(m);
    return true;
  } catch (const InternalError &e) {
    std::fprintf(stderr, "tilec: invalid IR %s: %s\n", when.c_str(), e.what());
    return false;
  }
}

} // namespace

int run_opt(const std::vector<std::string> &args) {
  ParsedArgs a = parse_args(args, {"passes"}, {"locations"});
  if (a.positional.size() != 1)
    throw UsageError("opt takes one FILE.tir");
  std::vector<pipeline::TileIrPass> passes;
  for (const std::string &name : split_commas(a.get("passes"))) {
    pipeline::TileIrPass p = pipeline::find_tile_ir_pass(name);
    if (!p)
      throw UsageError("unknown pass '" + name + "' (passes: " + pass_list() + ")");
    passes.push_back(p);
  }
  const std::string &path = a.positional[0];
  std::string text, error;
  if (!read_regular_file(path, text, error)) {
    std::fprintf(stderr, "tilec: error: cannot read '%s': %s\n", path.c_str(), error.c_str());
    return 1;
  }
  SourceManager sm;
  int file = sm.add(path, text);
  std::unique_ptr<ir::Module> m;
  try {
    m = ir::parse_module(sm, file);
  } catch (const CompileError &e) {
    std::fputs(render_diagnostic(sm, e.loc(), "error", e.message()).c_str(), stderr);
    return 1;
  }
  if (!verify_input(*m, "in " + path))
    return 1;
  for (pipeline::TileIrPass p : passes) {
    p(*m);
    ir::verify(*m); // a failure now is a bug in the pass: InternalError, exit 3
  }
  ir::PrintOptions po;
  po.locations = a.has("locations");
  po.sources = &sm;
  std::fputs(ir::print(*m, po).c_str(), stdout);
  return 0;
}

int run_env(const std::vector<std::string> &args) {
  if (!args.empty())
    throw UsageError("env takes no arguments");
  for (const env::VarInfo &v : env::all()) {
    const char *now = std::getenv(v.name);
    std::printf("%s (default \"%s\"%s%s%s%s)\n    %s\n", v.name, v.default_value,
                now ? ", now \"" : "", now ? now : "", now ? "\"" : "",
                v.codegen ? "; part of the cache key" : "", v.description);
  }
  return 0;
}

} // namespace tilec::cli
