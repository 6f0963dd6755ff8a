#include "tilec/Cli.h"

#include <algorithm>
#include <cstdio>

#include "aot/Aot.h"
#include "aot/Signature.h"
#include "CliCommands.h"
#include "support/Diagnostics.h"

namespace tilec::cli {

namespace {

const char *kUsage =
    "usage: tilec <command> [options]\n"
    "\n"
    "commands:\n"
    "  ir FILE.py:KERNEL --signature SIG [--constexpr NAME=VALUE ...] [--stage NAME]\n"
    "                    [--num-warps N] [--num-stages N] [--debug] [--locations]\n"
    "      print the kernel's Tile IR after a pipeline stage (default: the last).\n"
    "      SIG lists the non-constexpr parameters in order, e.g. "
    "\"*fp32,*fp16:16,i32,i32:16,fp32,i1\"\n"
    "      (*T: pointer, :16 aligned/divisible by 16, :1 integer equal to 1;\n"
    "      tensordesc<fp16[64, 64]>:16: a descriptor whose shape entries and strides but the\n"
    "      last are multiples of 16, as a Python launch specialises one).\n"
    "  opt FILE.tir [--passes P1,P2,...] [--locations]\n"
    "      parse Tile IR text, verify it, run the passes (verifying after each), print it.\n"
    "  ptx FILE.py:KERNEL --signature SIG [--constexpr NAME=VALUE ...] [--arch sm_90a]\n"
    "                     [--num-warps N] [--num-stages N] [--debug] [--thread-ir]\n"
    "                     [--no-fp-fusion] [--no-reflect-ftz] [--maxnreg N] [--tma]\n"
    "                     [--output FILE]\n"
    "      compile the kernel down the GPU path and print its PTX (no GPU needed);\n"
    "      --thread-ir prints the lowered Thread IR instead; --no-fp-fusion keeps .rn on\n"
    "      the kernel's f32/f64 add/sub/mul (enable_fp_fusion=False); --no-reflect-ftz keeps\n"
    "      subnormal results of f32 exp2 (enable_reflect_ftz=False); --maxnreg N: .maxnreg;\n"
    "      --tma: host tensor descriptors also take a tensor map (a 128-byte .param) and\n"
    "      their blocks feeding wgmma dots in loops are copied by TMA (sm_90+).\n"
    "  compile FILE.py:KERNEL -s SIG [-g GRID] -o OUT [-w N] [-ns N] [--arch sm_90a]\n"
    "                         [-n NAME] [--debug] [--no-cubin]\n"
    "      compile ahead of time to OUT.h + OUT.cpp (cubin embedded, PTX as fallback) with\n"
    "      load_NAME(), unload_NAME(), NAME_grid(stream, gx, gy, gz, args...) and, with -g,\n"
    "      NAME(stream, args...), usable from C or C++ with only libcuda. SIG has one entry\n"
    "      per parameter, a value for each constexpr: \"*fp32:16,*fp32:16,*fp32:16,i32,1024\";\n"
    "      GRID is up to 3 expressions over the integer parameters: \"cdiv(n_elements, 1024)\".\n"
    "      A tensordesc<fp16[64, 64]> entry takes a tilec_tensordesc_2d {base, shape, strides}\n"
    "      (a grid may read its shape: \"cdiv(desc.shape[0], 64)\").\n"
    "      -o - prints OUT.h and OUT.cpp to stdout instead (NAME: -n, else the kernel's).\n"
    "  link OUT1.h OUT2.h ... -o OUT [-n NAME]\n"
    "      one dispatcher NAME[_grid](stream, ...) over specialisations of one kernel, picking\n"
    "      the first whose hints (:16, :1) the arguments satisfy.\n"
    "  env\n"
    "      list every TILEC_* environment variable with its value and meaning.\n"
    "\n"
    "exit codes: 0 success, 1 error in the kernel or IR, 2 bad command line, 3 internal error\n";

} // namespace

bool ParsedArgs::has(const std::string &name) const {
  return std::any_of(options.begin(), options.end(),
                     [&](const auto &o) { return o.first == name; });
}

std::string ParsedArgs::get(const std::string &name, const std::string &def) const {
  for (auto it = options.rbegin(); it != options.rend(); ++it)
    if (it->first == name)
      return it->second;
  return def;
}

ParsedArgs parse_args(const std::vector<std::string> &args,
                      const std::vector<std::string> &with_value,
                      const std::vector<std::string> &flags) {
  ParsedArgs out;
  auto in = [](const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a.size() < 2 || a.compare(0, 2, "--") != 0) {
      out.positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    size_t eq = name.find('=');
    bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (in(flags, name)) {
      if (inline_value)
        throw UsageError("option --" + name + " takes no value");
    } else if (in(with_value, name)) {
      if (!inline_value) {
        if (i + 1 >= args.size())
          throw UsageError("option --" + name + " needs a value");
        value = args[++i];
      }
    } else {
      throw UsageError("unknown option --" + name);
    }
    out.options.emplace_back(name, value);
  }
  return out;
}

int run(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return run(args);
}

int run(const std::vector<std::string> &args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (args[0] == "ir")
      return run_ir(rest);
    if (args[0] == "opt")
      return run_opt(rest);
    if (args[0] == "env")
      return run_env(rest);
    if (args[0] == "ptx")
      return run_ptx(rest);
    if (args[0] == "compile")
      return run_compile(rest);
    if (args[0] == "link")
      return run_link(rest);
    throw UsageError("unknown command '" + args[0] + "'");
  } catch (const UsageError &e) {
    std::fprintf(stderr, "tilec: %s\n(run 'tilec --help' for usage)\n", e.what());
    return 2;
  } catch (const InternalError &e) {
    std::fprintf(stderr, "tilec: %s\n", e.what());
    return 3;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tilec: internal error: %s\n", e.what());
    return 3;
  }
}

} // namespace tilec::cli
