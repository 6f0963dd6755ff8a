// The shared-memory ring ops (Ops.def): text round trip and the verifier's rules.
#include <gtest/gtest.h>

#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/RingOps.h"
#include "ir/Verifier.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

// A 3-stage ring of [16, 16] fp16, row-major within a stage.
const std::string kBuf =
    "tile<3x16x16xfp16, #linear<rank=3, offset=[[0,0,1],[0,0,2],[0,0,4],[0,0,8],[0,1,0],"
    "[0,2,0],[0,4,0],[0,8,0],[1,0,0],[2,0,0]]>>";

std::string kernel(const std::string &buf, const std::string &body) {
  return "module {num_warps = 4}\n\ntt.func @k(%p: ptr<fp16>, %s: i32, %m: tile<16x16xi1>) {\n"
         "  %0 = local_alloc : " +
         buf +
         "\n"
         "  %1 = splat %p : ptr<fp16> -> tile<16x16xptr<fp16>>\n" +
         body + "  return\n}\n";
}

std::string verify_error(const std::string &text) {
  auto mod = parse_module(text);
  try {
    verify(*mod);
  } catch (const InternalError &e) {
    return e.what();
  }
  return "ok";
}

void expect_error(const std::string &text, const std::string &fragment) {
  std::string msg = verify_error(text);
  EXPECT_NE(msg.find(fragment), std::string::npos) << text << "\nmessage: " << msg;
}

const char *kOps = "  async_copy %0, %s, %1, %m\n"
                   "  async_copy %0, %s, %1\n"
                   "  async_commit\n"
                   "  async_wait {pending = 1}\n"
                   "  %2 = local_load %0, %s : BUF, i32 -> tile<16x16xfp16>\n";

std::string ops(const std::string &buf) {
  std::string s = kOps;
  s.replace(s.find("BUF"), 3, buf);
  return s;
}

} // namespace

TEST(RingOps, RoundTripAndVerify) {
  std::string text = kernel(kBuf, ops(kBuf));
  auto m = parse_module(text);
  verify(*m);
  std::string printed = print(*m);
  EXPECT_EQ(printed, text);
  EXPECT_EQ(print(*parse_module(printed)), printed);
  const Type &t = m->functions[0]->entry()->ops().front()->result()->type;
  EXPECT_TRUE(is_ring_buffer_type(t));
  EXPECT_FALSE(t.layout->is_distributed());
  EXPECT_FALSE(is_pure(OpKind::LocalLoad));
  EXPECT_FALSE(is_pure(OpKind::AsyncCopy));
}

TEST(RingOps, BufferTypeHelper) {
  std::vector<std::vector<int32_t>> bases;
  for (int b = 0; b < 4; ++b)
    bases.push_back({0, 1 << b});
  for (int b = 0; b < 4; ++b)
    bases.push_back({1 << b, 0});
  Type t = ring_buffer_type(DType::F16, 3, 16, 16, bases);
  EXPECT_EQ(t.str(), kBuf);
  Type t4 = ring_buffer_type(DType::F16, 4, 16, 16, bases);
  EXPECT_EQ(verify_error(kernel(t4.str(), "")), "ok");
  Type t2 = ring_buffer_type(DType::F16, 2, 16, 16, bases);
  EXPECT_EQ(verify_error(kernel(t2.str(), "")), "ok");
}

TEST(RingOps, VerifierRejects) {
  // a distributed layout is no ring buffer
  expect_error(kernel("tile<2x16x16xfp16, #linear<rank=3, register=[[0,0,1]]>>", ""),
               "result must be tile<S x d0 x d1");
  // stage bits missing
  expect_error(kernel("tile<2x2x2xfp16, #linear<rank=3, offset=[[0,0,1],[0,1,0]]>>", ""),
               "needs 3 offset bases");
  // two bases reach the same element
  expect_error(kernel("tile<2x2x2xfp16, #linear<rank=3, offset=[[0,0,1],[0,0,1],[1,0,0]]>>", ""),
               "reach every element");
  // a stage bit that is not one
  expect_error(kernel("tile<2x2x2xfp16, #linear<rank=3, offset=[[0,0,1],[0,1,0],[1,1,0]]>>", ""),
               "must select the stage");
  // a non-power-of-two operand tile
  expect_error(kernel("tile<2x3x2xfp16, #linear<rank=3, offset=[[0,0,1],[0,1,0],[1,0,0]]>>", ""),
               "powers of two");
  // the pointer tile's shape / element type
  expect_error(kernel(kBuf, "  %2 = splat %p : ptr<fp16> -> tile<16x8xptr<fp16>>\n"
                            "  async_copy %0, %s, %2\n"),
               "the pointer tile must be tile<16x16xptr<fp16>>");
  // the stage is a scalar i32
  expect_error(kernel(kBuf, "  %2 = constant {value = 0} : i64\n  async_copy %0, %2, %1\n"),
               "the stage must be a scalar i32");
  // async_copy into something that is not a ring
  expect_error(kernel(kBuf, "  %2 = splat %p : ptr<fp16> -> tile<2x16x16xptr<fp16>>\n"
                            "  %3 = load %2 : tile<2x16x16xptr<fp16>> -> tile<2x16x16xfp16>\n"
                            "  %4 = local_load %3, %s : tile<2x16x16xfp16>, i32 -> "
                            "tile<16x16xfp16>\n"),
               "must be a ring buffer");
  // local_load's result shape
  expect_error(kernel(kBuf, "  %2 = local_load %0, %s : " + kBuf + ", i32 -> tile<16x8xfp16>\n"),
               "result must be a [16, 16] tile of fp16");
  // async_wait without `pending`
  expect_error(kernel(kBuf, "  async_wait\n"), "`pending`");
}
