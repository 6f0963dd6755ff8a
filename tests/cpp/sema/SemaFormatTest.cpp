// f-strings: constexpr fields with Python's str/repr and format specs, as static_print
// shows them.
#include "SemaTestUtil.h"

namespace tilec::sema::test {
namespace {

// static_print(f"...") in a kernel with I=42, F=3.14159, S="abc", T=True, N=-7.
std::string printed(const std::string &fstring) {
  std::string src = "def k(X, I: tl.constexpr, F: tl.constexpr, S: tl.constexpr, "
                    "T: tl.constexpr, N: tl.constexpr):\n    tl.static_print(" +
                    fstring + ")\n";
  Lowered l = lower("k", src,
                    {ptr(), cint(42), cexpr(Val::floating(3.14159)), cexpr(Val::string("abc")),
                     cexpr(Val::boolean(true)), cint(-7)});
  std::string out = l.result.static_output;
  if (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

TEST(SemaFString, Conversions) {
  EXPECT_EQ(printed("f\"I={I} F={F} S={S} T={T} N={N}\""), "I=42 F=3.14159 S=abc T=True N=-7");
  EXPECT_EQ(printed("f\"{S!r} {S!s} {I!r}\""), "'abc' abc 42");
  EXPECT_EQ(printed("f\"{I=} {S=} {I + 1=}\""), "I=42 S='abc' I + 1=43");
  EXPECT_EQ(printed("f\"{{literal}} {(I, S)}\""), "{literal} (42, 'abc')");
  EXPECT_EQ(printed("f\"{tl.float16} {None}\""), "fp16 None");
}

TEST(SemaFString, IntegerSpecs) {
  EXPECT_EQ(printed("f\"{I:d}|{I:5d}|{I:<5}|{I:^6}|{I:05}|{N:+}|{I:+d}|{I: d}\""),
            "42|   42|42   |  42  |00042|-7|+42| 42");
  EXPECT_EQ(printed("f\"{I:x}|{I:X}|{I:#x}|{I:o}|{I:b}|{I:#b}|{255:08x}\""),
            "2a|2A|0x2a|52|101010|0b101010|000000ff");
  EXPECT_EQ(printed("f\"{1234567:,}|{1234567:_}|{N:=6}|{I:*>6}|{I:.2f}\""),
            "1,234,567|1_234_567|-    7|****42|42.00");
  EXPECT_EQ(printed("f\"{T:d}|{T:>5}\""), "1|    1");
}

TEST(SemaFString, FloatSpecs) {
  EXPECT_EQ(printed("f\"{F:.2f}|{F:f}|{F:10.3f}|{F:<10.1f}|{F:e}|{F:.2E}\""),
            "3.14|3.141590|     3.142|3.1       |3.141590e+00|3.14E+00");
  EXPECT_EQ(printed("f\"{F:g}|{0.00001:g}|{1e20:g}|{F:.3}|{F:%}|{0.5:.0%}\""),
            "3.14159|1e-05|1e+20|3.14|314.159000%|50%");
  EXPECT_EQ(printed("f\"{0.1}|{1e-05}|{1e16}|{1e15}|{2.0}|{-0.0}|{1.5e300}\""),
            "0.1|1e-05|1e+16|1000000000000000.0|2.0|-0.0|1.5e+300");
  EXPECT_EQ(printed("f\"{float('inf')}|{-float('inf'):>6}|{1234.5:,.1f}|{F:+.1f}\""),
            "inf|  -inf|1,234.5|+3.1");
}

TEST(SemaFString, StringSpecs) {
  EXPECT_EQ(printed("f\"[{S:>5}][{S:<5}][{S:^7}][{S:.2}][{S:_^9}]\""),
            "[  abc][abc  ][  abc  ][ab][___abc___]");
  EXPECT_EQ(printed("f\"{S!r:>7}\""), "  'abc'");
}

TEST(SemaFString, SpecErrors) {
  Diag d = lower_error("k", "def k(X, S: tl.constexpr):\n    tl.static_print(f\"{S:d}\")\n",
                       {ptr(), cexpr(Val::string("abc"))});
  EXPECT_EQ(d.message, "Unknown format code 'd' for object of type 'str'");
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.col, 24);
  d = lower_error("k", "def k(X, F: tl.constexpr):\n    tl.static_print(f\"{F:x}\")\n",
                  {ptr(), cexpr(Val::floating(1.5))});
  EXPECT_EQ(d.message, "Unknown format code 'x' for object of type 'float'");
  d = lower_error("k", "def k(X, I: tl.constexpr):\n    tl.static_print(f\"{I:.2d}\")\n",
                  {ptr(), cint(3)});
  EXPECT_EQ(d.message, "Precision not allowed in integer format specifier");
  d = lower_error("k", "def k(X, I: tl.constexpr):\n    tl.static_print(f\"{I:5q}\")\n",
                  {ptr(), cint(3)});
  EXPECT_EQ(d.message, "Unknown format code 'q' for object of type 'int'");
}

TEST(SemaFString, TensorInFStringIsAnErrorEvenInStaticPrint) {
  // Triton evaluates f-strings at compile time only; static_print(x) shows a tensor.
  Diag d = lower_error("k",
                       "def k(X, B: tl.constexpr):\n    x = tl.load(X + tl.arange(0, B))\n"
                       "    tl.static_print(f\"x is {x}, B={B}\")\n",
                       {ptr(), cint(32)});
  EXPECT_EQ(d.message.rfind("an f-string can only format compile-time values, but 'x' is a "
                            "tensor of type fp32[constexpr[32]]",
                            0),
            0u)
      << d.message;
  EXPECT_EQ(d.line, 3);
  EXPECT_EQ(d.col, 29);
  Lowered l = lower("k",
                    "def k(X, B: tl.constexpr):\n    x = tl.load(X + tl.arange(0, B))\n"
                    "    tl.static_print(f\"B={B}\", x)\n",
                    {ptr(), cint(32)});
  EXPECT_EQ(l.result.static_output.rfind("B=32 ", 0), 0u) << l.result.static_output;
  EXPECT_NE(l.result.static_output.find("fp32"), std::string::npos) << l.result.static_output;
}

TEST(SemaFString, StringConstexprCompare) {
  Lowered l = lower("k",
                    "def k(X, MODE: tl.constexpr):\n    name = f\"{MODE}_x\"\n"
                    "    if name == \"fast_x\":\n        tl.store(X, 1.0)\n",
                    {ptr(), cexpr(Val::string("fast"))});
  EXPECT_EQ(count(l.ir, "store "), 1u);
}

} // namespace
} // namespace tilec::sema::test
