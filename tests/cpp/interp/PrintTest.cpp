#include "TestUtil.h"

using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {
void print(KB &kb, const std::string &prefix, std::vector<Value *> vals, bool hex = false) {
  kb.make(OpKind::Print, std::move(vals), {}, {{"prefix", prefix}, {"hex", int64_t(hex)}});
}
} // namespace

TEST(Print, ScalarAndTileFormat) {
  KB kb;
  auto *p = kb.arg(ptr(DType::F32), "x");
  auto *pid = kb.pid(0);
  print(kb, "Program ID:", {pid});
  auto *x = kb.load(kb.addptr(p, kb.arange(16)));
  print(kb, " x: ", {x}); // already munged: printed as is
  std::vector<float> d(16);
  for (int i = 0; i < 16; ++i)
    d[i] = float(i) * 0.5f;
  auto r = kb.run({parg(d)}, {buf(d, "x")}, {2, 1, 1});
  std::string want;
  for (int g = 0; g < 2; ++g) {
    want += "pid (" + std::to_string(g) + ", 0, 0) idx () Program ID: " + std::to_string(g) + "\n";
    for (int i = 0; i < 16; ++i) {
      char line[128];
      std::snprintf(line, sizeof line, "pid (%d, 0, 0) idx (%2d) x: %f\n", g, i, double(d[i]));
      want += line;
    }
  }
  EXPECT_EQ(r.output, want);
}

TEST(Print, SeveralOperandsHexIntsAndNoOperands) {
  KB kb;
  auto *a = kb.op(OpKind::Reshape, {kb.arange(4)}, tile(DType::I32, {2, 2}));
  auto *b = kb.bin(OpKind::Sub, kb.cst(tile(DType::I32, {2, 2}), 0), a);
  print(kb, "ab", {a, b});
  print(kb, "hex", {kb.cst(scalar(DType::I32), 255)}, true);
  print(kb, "u", {kb.cst(scalar(DType::U64), -1)});
  print(kb, "h", {kb.cstf(scalar(DType::F16), 1.5)}, true);
  print(kb, "hello", {});
  auto r = kb.run({}, {});
  EXPECT_EQ(r.output, "pid (0, 0, 0) idx (0, 0) ab: (operand 0) 0\n"
                      "pid (0, 0, 0) idx (0, 1) ab: (operand 0) 1\n"
                      "pid (0, 0, 0) idx (1, 0) ab: (operand 0) 2\n"
                      "pid (0, 0, 0) idx (1, 1) ab: (operand 0) 3\n"
                      "pid (0, 0, 0) idx (0, 0) ab: (operand 1) 0\n"
                      "pid (0, 0, 0) idx (0, 1) ab: (operand 1) -1\n"
                      "pid (0, 0, 0) idx (1, 0) ab: (operand 1) -2\n"
                      "pid (0, 0, 0) idx (1, 1) ab: (operand 1) -3\n"
                      "pid (0, 0, 0) idx () hex: 0x000000ff\n"
                      "pid (0, 0, 0) idx () u: 18446744073709551615\n"
                      "pid (0, 0, 0) idx () h: 0x3e00\n"
                      "pid (0, 0, 0) hello\n");
}

TEST(Print, OutputInProgramOrderUnderParallelGrid) {
  KB kb;
  print(kb, "p", {kb.pid(0), kb.pid(1)});
  auto r = kb.run({}, {}, {300, 2, 1}, 4);
  std::string want;
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 300; ++x)
      for (int k = 0; k < 2; ++k)
        want += "pid (" + std::to_string(x) + ", " + std::to_string(y) +
                ", 0) idx () p: (operand " + std::to_string(k) + ") " + std::to_string(k ? y : x) +
                "\n";
  EXPECT_EQ(r.output, want);
}

TEST(Assert, FailureNamesLineProgramAndElement) {
  KB kb;
  auto *p = kb.arg(ptr(DType::I32), "x");
  print(kb, "before", {kb.pid(0)});
  auto *x = kb.load(kb.addptr(p, kb.arange(8)));
  auto *ok = kb.cmp("ge", x, kb.cst(tile(DType::I32, {8}), 0));
  kb.line = 42;
  kb.make(OpKind::Assert, {ok}, {}, {{"message", std::string("x must be >= 0")}});
  std::vector<int32_t> d{0, 1, 2, 3, 4, -5, 6, 7};
  try {
    kb.run({parg(d)}, {buf(d, "x")}, {3, 1, 1}, 2);
    FAIL();
  } catch (const KernelError &e) {
    std::string m = e.what();
    EXPECT_NE(
        m.find(
            "kernel.py:42:5: error: device assertion failed: x must be >= 0 at element index (5,) "
            "of the tile in program (0, 0, 0)"),
        std::string::npos)
        << m;
    EXPECT_EQ(e.output(), "pid (0, 0, 0) idx () before: 0\n");
  }
  d[5] = 5;
  EXPECT_EQ(kb.run({parg(d)}, {buf(d, "x")}, {2, 1, 1}).output.size(),
            2 * std::string("pid (0, 0, 0) idx () before: 0\n").size());
}
