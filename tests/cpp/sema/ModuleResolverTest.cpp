// ModuleResolver: the CLI's Python-free resolution of a kernel's source and globals.
#include <gtest/gtest.h>

#include <filesystem>

#include "frontend/sema/ModuleResolver.h"
#include "ir/Printer.h"

using namespace tilec;
using namespace tilec::sema;

namespace {

std::string seeds_path() {
  return (std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "data" /
          "seed_kernels.py")
      .string();
}

std::string error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const CompileError &e) {
    return (e.loc().valid()
                ? std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": "
                : std::string()) +
           e.message();
  }
  return "<no error>";
}

std::string globals_text(const FunctionSource &fs) {
  std::string out;
  for (const auto &[name, v] : fs.globals) {
    out += name + "=";
    switch (v.kind) {
    case Val::Kind::Module:
      out += "module:" + v.str;
      break;
    case Val::Kind::Function:
      out += "jit:" + v.fn->name;
      break;
    default:
      out += v.repr();
      break;
    }
    out += " ";
  }
  for (const auto &[name, what] : fs.unsupported_globals)
    out += name + "!" + what + " ";
  return out;
}

} // namespace

TEST(ModuleResolver, SeedFileListsItsKernels) {
  SourceManager sm;
  ModuleResolver r(sm, seeds_path());
  std::vector<std::string> expected = {
      "add_kernel",       "triton_gelu_kernel",     "softmax_kernel", "matmul_kernel",
      "layernorm_kernel", "fused_attention_kernel", "simple_kernel",  "debug_kernel",
      "add_kernel_debug", "add_kernel_heuristic"};
  EXPECT_EQ(r.jit_functions(), expected);
}

TEST(ModuleResolver, SeedKernelSourceAndGlobals) {
  SourceManager sm;
  ModuleResolver r(sm, seeds_path());
  auto mm = r.kernel("matmul_kernel");
  EXPECT_EQ(mm->name, "matmul_kernel");
  EXPECT_EQ(mm->file, seeds_path());
  EXPECT_EQ(mm->first_line, 89);
  EXPECT_EQ(mm->source.rfind("@triton.autotune(\n", 0), 0u) << mm->source;
  EXPECT_NE(mm->source.find("\n@triton.jit\ndef matmul_kernel("), std::string::npos);
  EXPECT_EQ(mm->source.substr(mm->source.size() - 37), "    tl.store(c_ptrs, c, mask=c_mask)\n");
  // `tl` and `triton` come from importlib.import_module(IMPL [+ ".language"]), IMPL
  // defaulting to "tilec"; `min` and `range` are Python builtins, left to Sema.
  EXPECT_EQ(globals_text(*mm), "tl=module:tilec.language ");
  EXPECT_FALSE(mm->noinline);

  auto add = r.kernel("add_kernel");
  EXPECT_EQ(add->first_line, 16);
  EXPECT_EQ(add->source.rfind("@triton.jit\ndef add_kernel(", 0), 0u);
  EXPECT_EQ(std::count(add->source.begin(), add->source.end(), '\n'), 10);
  EXPECT_EQ(globals_text(*add), "tl=module:tilec.language ");
  // The same kernel asked twice is built once.
  EXPECT_EQ(r.kernel("add_kernel").get(), add.get());
}

TEST(ModuleResolver, SeedKernelsLowerThroughSema) {
  SourceManager sm;
  ModuleResolver r(sm, seeds_path());
  auto k = r.kernel("add_kernel");
  std::vector<ArgSpec> args(5);
  for (int i = 0; i < 3; ++i) {
    args[static_cast<size_t>(i)].kind = ArgSpec::Kind::Pointer;
    args[static_cast<size_t>(i)].dtype = ir::DType::F32;
  }
  args[3].kind = ArgSpec::Kind::Int;
  args[3].dtype = ir::DType::I32;
  args[4].kind = ArgSpec::Kind::Constexpr;
  args[4].value = Val::integer(1024);
  SemaResult res = lower_kernel(k, args, CompileOptions{}, sm);
  ASSERT_NE(res.module, nullptr);
  EXPECT_NE(ir::print(*res.module).find("load"), std::string::npos);
}

TEST(ModuleResolver, Errors) {
  SourceManager sm;
  ModuleResolver r(sm, seeds_path());
  EXPECT_EQ(error_of([&] { r.kernel("nope"); }),
            "no function 'nope' in '" + seeds_path() +
                "'; its @jit functions are: 'add_kernel', 'triton_gelu_kernel', "
                "'softmax_kernel', 'matmul_kernel', 'layernorm_kernel', "
                "'fused_attention_kernel', 'simple_kernel', 'debug_kernel', "
                "'add_kernel_debug', 'add_kernel_heuristic'");
  EXPECT_EQ(error_of([&] { r.kernel("add"); }),
            "28:1: function 'add' is not a kernel: it is not decorated with @jit (@triton.jit "
            "or @tilec.jit)");
  SourceManager sm2;
  EXPECT_EQ(error_of([&] { resolve_kernel(sm2, "/no/such/file.py", "k"); }),
            "cannot read '/no/such/file.py': No such file or directory");
  EXPECT_EQ(error_of([&] { ModuleResolver(sm2, "empty.py", "x = 1\n").kernel("k"); }),
            "no function 'k' in 'empty.py'; it defines no @jit functions");
}

TEST(ModuleResolver, BindingsOfEveryKind) {
  std::string src = "import tilec\n"
                    "import tilec as triton\n"
                    "import triton.language as tl\n"
                    "from tilec import language as lang\n"
                    "from triton.language import math as tlm\n"
                    "import numpy as np\n"
                    "from helpers import util\n"
                    "N = 4\n"
                    "NEG = -3\n"
                    "EPS = 1e-5\n"
                    "FLAG = True\n"
                    "NAME = 'fp32'\n"
                    "C = tl.constexpr(8)\n"
                    "D: tl.constexpr = lang.constexpr(-2.5)\n"
                    "HOST = np.zeros(3)\n"
                    "REBOUND = 1\n"
                    "REBOUND = util()\n"
                    "A, B = 1, 2\n"
                    "E, *F = 1, 2\n"
                    "ALIAS = tl\n"
                    "def plain():\n"
                    "    return 1\n"
                    "@triton.jit\n"
                    "def helper(x):\n"
                    "    return x * N\n"
                    "@tilec.jit(noinline=True)\n"
                    "def other(x):\n"
                    "    return helper(x) + other(x)\n"
                    "@triton.autotune(configs=[triton.Config({'B': 1})], key=[])\n"
                    "@triton.jit\n"
                    "def k(x_ptr, BLOCK: tl.constexpr):\n"
                    "    v = tl.load(x_ptr) + N + NEG + EPS + C + D + A + B + E + ALIAS.sum(v)\n"
                    "    if FLAG and NAME == 'fp32':\n"
                    "        v = helper(v) + other(v) + tlm.exp(v) + lang.exp(v)\n"
                    "    plain(np, HOST, REBOUND, util, triton, tilec, MISSING, range)\n";
  SourceManager sm;
  ModuleResolver r(sm, "mod.py", src);
  EXPECT_EQ(r.jit_functions(), (std::vector<std::string>{"helper", "other", "k"}));
  auto k = r.kernel("k");
  EXPECT_EQ(k->first_line, 29);
  EXPECT_EQ(globals_text(*k),
            "A=1 ALIAS=module:tilec.language B=2 C=8 D=-2.5 EPS=1e-05 FLAG=True N=4 NAME=fp32 "
            "NEG=-3 helper=jit:helper lang=module:tilec.language other=jit:other "
            "tilec=module:tilec tl=module:tilec.language tlm=module:tilec.language.math "
            "triton=module:tilec "
            "E!value computed by host code (the tilec CLI does not run Python) "
            "HOST!value computed by host code (the tilec CLI does not run Python) "
            "REBOUND!value computed by host code (the tilec CLI does not run Python) "
            "np!module 'numpy' "
            "plain!function (not a @jit function) "
            "util!name imported from module 'helpers' ");
  auto other = r.kernel("other");
  EXPECT_TRUE(other->noinline);
  EXPECT_EQ(globals_text(*other), "helper=jit:helper other!recursive @jit function 'other' ");
  EXPECT_EQ(globals_text(*r.kernel("helper")), "N=4 ");
  // The callee's FunctionSource in k's globals is the same object.
  EXPECT_EQ(k->globals.at("helper").fn.get(), r.kernel("helper").get());
}

TEST(ModuleResolver, MutualRecursionAndLastBindingWins) {
  std::string src = "import tilec\n"
                    "import tilec.language as tl\n"
                    "X = 1\n"
                    "@tilec.jit\n"
                    "def a(x):\n"
                    "    return b(x) + X\n"
                    "@tilec.jit\n"
                    "def b(x):\n"
                    "    return a(x)\n"
                    "X = 2\n"
                    "@tilec.jit\n"
                    "def a(x):\n"
                    "    return x\n";
  SourceManager sm;
  ModuleResolver r(sm, "m.py", src);
  auto a = r.kernel("a");
  EXPECT_EQ(a->first_line, 11);
  EXPECT_EQ(a->source, "@tilec.jit\ndef a(x):\n    return x\n");
  auto b = r.kernel("b");
  ASSERT_EQ(b->globals.count("a"), 1u);
  EXPECT_EQ(b->globals.at("a").fn.get(), a.get());
}

TEST(ModuleResolver, IndentedAndCommentedDefsAndImportFromJit) {
  std::string src = "from tilec import jit\n"
                    "from tilec import language as tl\n"
                    "\n"
                    "@jit\n"
                    "def k(x):  # trailing\n"
                    "    # inside\n"
                    "    tl.store(x, 1)\n"
                    "\n"
                    "    # after the body, before the next def\n"
                    "def host():\n"
                    "    pass\n";
  SourceManager sm;
  ModuleResolver r(sm, "m.py", src);
  auto k = r.kernel("k");
  EXPECT_EQ(k->source, "@jit\ndef k(x):  # trailing\n    # inside\n    tl.store(x, 1)\n");
  EXPECT_EQ(k->first_line, 4);
  EXPECT_EQ(globals_text(*k), "tl=module:tilec.language ");
}
