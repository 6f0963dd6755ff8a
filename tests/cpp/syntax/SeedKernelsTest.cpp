// The user's kernels (tests/data/seed_kernels.py, a copy of shared/seeds/kernels.py):
// each parses strictly on its own, and the whole file parses leniently.
#include "SyntaxTestUtil.h"

using namespace tilec;
using namespace tilec::test;

namespace {

const char *const kKernels[] = {
    "add_kernel",       "triton_gelu_kernel",     "softmax_kernel", "matmul_kernel",
    "layernorm_kernel", "fused_attention_kernel", "simple_kernel",  "debug_kernel",
    "add_kernel_debug", "add_kernel_heuristic"};

std::vector<std::string> split_lines(const std::string &text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      if (start < text.size())
        lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// The def's text with its decorators (as inspect.getsource gives it) and its first line.
std::pair<std::string, int> kernel_source(const std::string &file_text, const std::string &name) {
  auto lines = split_lines(file_text);
  size_t def = 0;
  while (def < lines.size() && lines[def].rfind("def " + name + "(", 0) != 0)
    ++def;
  EXPECT_LT(def, lines.size()) << name;
  size_t first = def;
  while (first > 0 && !lines[first - 1].empty() && lines[first - 1][0] != '#')
    --first;
  size_t end = def + 1;
  while (end < lines.size() && (lines[end].empty() || lines[end][0] == ' '))
    ++end;
  std::string src;
  for (size_t i = first; i < end; ++i)
    src += lines[i] + "\n";
  return {src, static_cast<int>(first) + 1};
}

std::string seeds() { return read_file(data_dir() / "seed_kernels.py"); }

const ast::FunctionDefStmt *find_def(const ast::Module &m, const std::string &name) {
  for (const auto &s : m.body)
    if (s->kind == ast::StmtKind::FunctionDef &&
        static_cast<const ast::FunctionDefStmt &>(*s).name == name)
      return static_cast<const ast::FunctionDefStmt *>(s.get());
  return nullptr;
}

std::string join(const std::vector<std::string> &v) {
  std::string out;
  for (const auto &s : v)
    out += (out.empty() ? "" : " ") + s;
  return out;
}

} // namespace

TEST(SeedKernels, FileIsThere) { EXPECT_GT(seeds().size(), 5000u); }

TEST(SeedKernels, EachKernelParsesStrictly) {
  std::string text = seeds();
  for (const char *name : kKernels) {
    auto [src, first_line] = kernel_source(text, name);
    SourceManager sm;
    int f = sm.add("kernels.py", src, first_line);
    ast::Module m;
    try {
      m = frontend::parse(sm, f);
    } catch (const CompileError &e) {
      ADD_FAILURE() << name << ": " << render_diagnostic(sm, e.loc(), "error", e.message());
      continue;
    }
    ASSERT_EQ(m.body.size(), 1u) << name;
    ASSERT_EQ(m.body[0]->kind, ast::StmtKind::FunctionDef) << name;
    const auto &fn = static_cast<const ast::FunctionDefStmt &>(*m.body[0]);
    EXPECT_EQ(fn.name, name);
    EXPECT_FALSE(fn.decorators.empty()) << name;
    EXPECT_FALSE(fn.body.empty()) << name;
    // Absolute lines: the def line in the file.
    auto lines = split_lines(text);
    EXPECT_EQ(lines[static_cast<size_t>(fn.loc.line - 1)].rfind("def " + fn.name, 0), 0u);
  }
}

TEST(SeedKernels, AddKernelTree) {
  auto [src, first_line] = kernel_source(seeds(), "add_kernel");
  EXPECT_EQ(first_line, 16);
  EXPECT_EQ(dump_src(src),
            "@(. triton jit)\n"
            "def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: (. tl constexpr)):\n"
            "  pid = (call (. tl program_id) axis=0)\n"
            "  block_start = (* pid BLOCK_SIZE)\n"
            "  offsets = (+ block_start (call (. tl arange) 0 BLOCK_SIZE))\n"
            "  mask = (cmp offsets < n_elements)\n"
            "  x = (call (. tl load) (+ x_ptr offsets) mask=mask)\n"
            "  y = (call (. tl load) (+ y_ptr offsets) mask=mask)\n"
            "  output = (+ x y)\n"
            "  expr (call (. tl store) (+ output_ptr offsets) output mask=mask)\n");
}

TEST(SeedKernels, MatmulDetails) {
  auto [src, first_line] = kernel_source(seeds(), "matmul_kernel");
  std::string d = dump_src(src);
  EXPECT_EQ(d.rfind("@(call (. triton autotune))\n@(. triton jit)\ndef matmul_kernel(", 0), 0u)
      << d;
  EXPECT_NE(d.find("  a_ptrs = (+ a_ptr (+ (* (sub offs_am (tuple (slice _ _ _) None)) "
                   "stride_am) (* (sub offs_k (tuple None (slice _ _ _))) stride_ak)))\n"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("  for k in (call range 0 K BLOCK_SIZE_K):\n"), std::string::npos) << d;
  EXPECT_NE(d.find("    accumulator += (call (. tl dot) a b)\n"), std::string::npos) << d;
  EXPECT_NE(d.find("  group_size_m = (call min (- num_pid_m first_pid_m) GROUP_SIZE_M)\n"),
            std::string::npos)
      << d;
}

TEST(SeedKernels, SoftmaxAndDebugDetails) {
  std::string d = dump_src(kernel_source(seeds(), "softmax_kernel").first);
  EXPECT_NE(d.find("other=(neg (call float 'inf'))"), std::string::npos) << d;
  std::string a = dump_src(kernel_source(seeds(), "fused_attention_kernel").first);
  EXPECT_NE(a.find("(call (. acc to) (. (. Out dtype) element_ty))"), std::string::npos) << a;
  EXPECT_NE(a.find("(sub (+ start_n offs_n) (tuple (slice _ _ _) None))"), std::string::npos);
  std::string p = dump_src(kernel_source(seeds(), "add_kernel_debug").first);
  EXPECT_NE(p.find("expr (call (. tl static_print) (f 'BLOCK_SIZE:' {BLOCK_SIZE}))"),
            std::string::npos)
      << p;
  std::string g = dump_src(kernel_source(seeds(), "debug_kernel").first);
  EXPECT_NE(g.find("  if (cmp pid == 0):\n    expr (call (. tl device_print) 'Program ID:' pid)\n"),
            std::string::npos)
      << g;
}

TEST(SeedKernels, ReferencedNames) {
  auto [src, first_line] = kernel_source(seeds(), "add_kernel");
  Parsed p = parse(src, first_line);
  const auto &fn = static_cast<const ast::FunctionDefStmt &>(*p.module.body[0]);
  EXPECT_EQ(join(frontend::referenced_names(fn)),
            "tl pid BLOCK_SIZE block_start offsets n_elements x_ptr mask y_ptr x y output_ptr "
            "output");
  auto [msrc, mline] = kernel_source(seeds(), "matmul_kernel");
  Parsed m = parse(msrc, mline);
  auto names =
      frontend::referenced_names(static_cast<const ast::FunctionDefStmt &>(*m.module.body[0]));
  // Globals and builtins the matmul reads are all there; decorators are not read.
  for (const char *n : {"tl", "min", "range", "K", "BLOCK_SIZE_K", "accumulator"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_EQ(std::find(names.begin(), names.end(), "triton"), names.end());
}

TEST(ReferencedNames, TargetsDefaultsAnnotationsAndNesting) {
  Parsed p = parse("def f(a, b: T = D, *args: A, k=K, **kw) -> R:\n"
                   "    x = y\n"
                   "    x += z\n"
                   "    p.q = r\n"
                   "    s[t] = u\n"
                   "    (v, *w), m = n\n"
                   "    for i in it:\n"
                   "        j = i\n"
                   "    g = f'{fmt!r}'\n"
                   "    h: tl.constexpr = 3\n"
                   "    def inner(c=dflt):\n"
                   "        return c + outer\n"
                   "    return lambda q: hidden\n");
  const auto &fn = static_cast<const ast::FunctionDefStmt &>(*p.module.body[0]);
  EXPECT_EQ(join(frontend::referenced_names(fn)),
            "T D A K R y x z r p u s t n it i fmt tl dflt c outer");
}

TEST(ReferencedNames, FirstUseOrderWithoutDuplicates) {
  Parsed p = parse("def f():\n  return b + a + b * a if c else d[a]\n");
  const auto &fn = static_cast<const ast::FunctionDefStmt &>(*p.module.body[0]);
  EXPECT_EQ(join(frontend::referenced_names(fn)), "c b a d");
}

TEST(SeedKernels, LenientModuleParse) {
  SourceManager sm;
  int f = sm.add("kernels.py", seeds());
  ast::Module m = frontend::parse_module_lenient(sm, f);
  std::string summary;
  for (const auto &s : m.body) {
    switch (s->kind) {
    case ast::StmtKind::Import:
      summary += "import ";
      break;
    case ast::StmtKind::Assign:
      summary += "assign ";
      break;
    case ast::StmtKind::FunctionDef:
      summary += static_cast<const ast::FunctionDefStmt &>(*s).name + " ";
      break;
    default:
      summary += "? ";
    }
  }
  EXPECT_EQ(summary, "import import assign assign assign add_kernel add triton_gelu_kernel gelu "
                     "softmax_kernel softmax matmul_kernel matmul layernorm_kernel layernorm "
                     "fused_attention_kernel attention simple_kernel debug_kernel add_kernel_debug "
                     "heuristic_add_block_size add_kernel_heuristic ");
  const ast::FunctionDefStmt *mm = find_def(m, "matmul_kernel");
  ASSERT_NE(mm, nullptr);
  ASSERT_EQ(mm->decorators.size(), 2u);
  EXPECT_EQ(ast::dump(*mm->decorators[0]), "(call (. triton autotune))");
  EXPECT_EQ(ast::dump(*mm->decorators[1]), "(. triton jit)");
  EXPECT_EQ(mm->decorators[0]->loc.line, 89);
  EXPECT_EQ(mm->loc.line, 103);
}

TEST(LenientParse, SkipsWhatItCannotParse) {
  std::string src = "import tilec\n"
                    "import tilec.language as tl\n"
                    "BLOCK = 128\n"
                    "CFG = {'a': 1}\n"
                    "print 'python 2'\n"
                    "squares = [i * i for i in range(4)]\n"
                    "class Helper:\n"
                    "    def method(self):\n"
                    "        return {1: 2}\n"
                    "def host(x):\n"
                    "    return {k: v for k, v in x}\n"
                    "@tilec.autotune(configs=[{'B': 1}], key=[])\n"
                    "@tilec.jit\n"
                    "def kernel(x, B: tl.constexpr):\n"
                    "    tl.store(x, B)\n"
                    "weird = a $ b\n"
                    "if __name__ == '__main__':\n"
                    "    main()\n"
                    "else:\n"
                    "    pass\n"
                    "try:\n"
                    "    import torch\n"
                    "except ImportError:\n"
                    "    torch = None\n"
                    "for i in range(3):\n"
                    "    pass\n"
                    "@tilec.jit\n"
                    "def last(y):\n"
                    "    pass\n"
                    "host(1)\n";
  SourceManager sm;
  int f = sm.add("mod.py", src);
  ast::Module m = frontend::parse_module_lenient(sm, f);
  EXPECT_EQ(ast::dump(m), "import tilec\n"
                          "import tilec.language as tl\n"
                          "BLOCK = 128\n"
                          "squares = (listcomp (* i i) for i in (call range 4))\n"
                          "@(call (. tilec autotune))\n"
                          "@(. tilec jit)\n"
                          "def kernel(x, B: (. tl constexpr)):\n"
                          "  expr (call (. tl store) x B)\n"
                          "@(. tilec jit)\n"
                          "def last(y):\n"
                          "  pass\n");
  EXPECT_EQ(find_def(m, "last")->loc.line, 28);
}

TEST(LenientParse, UnterminatedStringAndBadIndentation) {
  std::string src = "def a():\n"
                    "    x = 1\n"
                    "  y = 2\n"
                    "def b():\n"
                    "    s = 'oops\n"
                    "def c():\n"
                    "    pass\n";
  SourceManager sm;
  int f = sm.add("mod.py", src);
  ast::Module m = frontend::parse_module_lenient(sm, f);
  // a's block closes at the bad dedent, so a keeps `x = 1`; the stray line is skipped.
  ASSERT_NE(find_def(m, "a"), nullptr);
  EXPECT_EQ(find_def(m, "a")->body.size(), 1u);
  EXPECT_EQ(find_def(m, "b"), nullptr);
  ASSERT_NE(find_def(m, "c"), nullptr);
}

TEST(LenientParse, StatementExtents) {
  std::string src = "import os\n"
                    "\n"
                    "@deco(1,\n"
                    "      2)\n"
                    "def f(x):\n"
                    "    y = '''a\n"
                    "b'''\n"
                    "    # trailing comment\n"
                    "\n"
                    "X = 1; Y = 2\n";
  SourceManager sm;
  int f = sm.add("mod.py", src, 10);
  std::vector<frontend::StmtExtent> ext;
  ast::Module m = frontend::parse_module_lenient(sm, f, ext);
  ASSERT_EQ(m.body.size(), 4u);
  ASSERT_EQ(ext.size(), 4u);
  EXPECT_EQ(ext[0].begin.line, 10);
  EXPECT_EQ(ext[0].end.line, 10);
  EXPECT_EQ(ext[0].end.col, 10);
  EXPECT_EQ(ext[1].begin.line, 12); // the decorator's '@'
  EXPECT_EQ(ext[1].begin.col, 1);
  EXPECT_EQ(ext[1].end.line, 16); // the end of the triple-quoted string
  EXPECT_EQ(ext[1].end.col, 5);
  EXPECT_EQ(ext[2].begin.line, 19);
  EXPECT_EQ(ext[3].begin.line, 19);
}
