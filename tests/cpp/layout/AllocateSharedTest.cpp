#include <gtest/gtest.h>

#include "ir/IRParser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "layout/AllocateShared.h"
#include "layout/RemoveConversions.h"

using namespace tilec;

namespace {

const char *kB1 = "#blocked<spt=[4], tpw=[32], wpc=[4], order=[0]>";
const char *kB2 = "#blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>";

std::string tile(const std::string &shape_elem, const std::string &l) {
  return "tile<" + shape_elem + ", " + l + ">";
}

int64_t attr_of(const ir::Module &m, const char *name) {
  for (const auto &a : m.attrs)
    if (a.name == name)
      return std::get<int64_t>(a.value);
  return -1;
}

std::vector<ir::Op *> ops_of(ir::Module &m, ir::OpKind k) {
  std::vector<ir::Op *> r;
  ir::walk(m.functions[0]->entry(), [&](ir::Op *op) {
    if (op->kind() == k)
      r.push_back(op);
  });
  return r;
}

} // namespace

TEST(AllocateShared, ReductionsAcrossWarpsShareOneBuffer) {
  std::string t = tile("512xfp32", kB1);
  std::string text = "tt.func @k(%p: ptr<fp32>) {\n"
                     "  %0 = constant {value = 1.0} : " +
                     t + "\n" + "  %1 = reduce %0 {axis = 0} : " + t +
                     " -> fp32 {\n"
                     "  ^bb(%2: fp32, %3: fp32):\n"
                     "    %4 = add %2, %3 : fp32\n"
                     "    yield %4\n"
                     "  }\n"
                     "  %5 = reduce %0 {axis = 0} : " +
                     t +
                     " -> fp32 {\n"
                     "  ^bb(%6: fp32, %7: fp32):\n"
                     "    %8 = max %6, %7 {propagate_nan = 0} : fp32\n"
                     "    yield %8\n"
                     "  }\n"
                     "  store %p, %5\n"
                     "  return\n}\n";
  auto m = ir::parse_module(text);
  ir::verify(*m);
  auto reds = ops_of(*m, ir::OpKind::Reduce);
  ASSERT_EQ(reds.size(), 2u);
  EXPECT_EQ(layout::scratch_bytes(*reds[0]), 16); // one partial per warp: 4 x fp32
  layout::allocate_shared(*m);
  EXPECT_EQ(reds[0]->int_attr("smem_offset", -1), 0);
  EXPECT_EQ(reds[1]->int_attr("smem_offset", -1), 0);
  EXPECT_EQ(reds[1]->int_attr("smem_size", -1), 16);
  EXPECT_EQ(attr_of(*m, "shared_bytes"), 16);
  // printed and parsed back with the attributes
  auto again = ir::parse_module(ir::print(*m));
  EXPECT_EQ(ir::print(*again), ir::print(*m));
}

TEST(AllocateShared, ConversionsBySize) {
  std::string a = tile("512xi32", kB1), b = tile("512xi32", kB2);
  std::string text = "tt.func @k() {\n"
                     "  %0 = arange {end = 512, start = 0} : " +
                     a + "\n" + "  %1 = convert_layout %0 : " + a + " -> " + b + "\n" +
                     "  print %1 {hex = 0, prefix = \"\"}\n"
                     "  return\n}\n";
  auto m = ir::parse_module(text);
  ir::verify(*m);
  ir::Op *c = ops_of(*m, ir::OpKind::ConvertLayout)[0];
  EXPECT_EQ(layout::scratch_bytes(*c), 512 * 4);
  layout::allocate_shared(*m);
  EXPECT_EQ(attr_of(*m, "shared_bytes"), 2048);
  // a reduction inside one warp's lanes needs none
  std::string w = "#blocked<spt=[1], tpw=[32], wpc=[1], order=[0]>";
  std::string t = tile("32xfp32", w);
  auto m2 = ir::parse_module("tt.func @k() {\n  %0 = constant {value = 1.0} : " + t +
                             "\n  %1 = reduce %0 {axis = 0} : " + t +
                             " -> fp32 {\n  ^bb(%2: fp32, %3: fp32):\n    %4 = add %2, %3 : fp32\n"
                             "    yield %4\n  }\n  return\n}\n");
  EXPECT_EQ(layout::scratch_bytes(*ops_of(*m2, ir::OpKind::Reduce)[0]), 0);
  layout::allocate_shared(*m2);
  EXPECT_EQ(attr_of(*m2, "shared_bytes"), 0);
}

TEST(RemoveConversions, RematerialisesCheapProducers) {
  std::string a = tile("512xi32", kB1), b = tile("512xi32", kB2);
  std::string text = "tt.func @k(%n: i32) {\n"
                     "  %0 = arange {end = 512, start = 0} : " +
                     a + "\n" + "  %1 = splat %n : i32 -> " + a + "\n" +
                     "  %2 = add %0, %1 : " + a + "\n" + "  %3 = convert_layout %2 : " + a +
                     " -> " + b + "\n" + "  %4 = convert_layout %3 : " + b + " -> " + b + "\n" +
                     "  print %4 {hex = 0, prefix = \"\"}\n"
                     "  return\n}\n";
  auto m = ir::parse_module(text);
  ir::verify(*m);
  layout::remove_conversions(*m);
  ir::verify(*m);
  std::string out = ir::print(*m);
  EXPECT_EQ(ops_of(*m, ir::OpKind::ConvertLayout).size(), 0u) << out;
  ASSERT_EQ(ops_of(*m, ir::OpKind::Arange).size(), 1u) << out; // the original is dead
  EXPECT_EQ(ops_of(*m, ir::OpKind::Arange)[0]->result()->type.layout->str(), kB2);
  EXPECT_EQ(ops_of(*m, ir::OpKind::Add)[0]->result()->type.layout->str(), kB2);
}

TEST(RemoveConversions, KeepsConversionsOfLoads) {
  std::string a = tile("512xptr<fp32>", kB1), v = tile("512xfp32", kB1), w = tile("512xfp32", kB2);
  std::string text = "tt.func @k(%p: ptr<fp32>) {\n"
                     "  %0 = splat %p : ptr<fp32> -> " +
                     a + "\n" + "  %1 = load %0 : " + a + " -> " + v + "\n" +
                     "  %2 = convert_layout %1 : " + v + " -> " + w + "\n" +
                     "  print %2 {hex = 0, prefix = \"\"}\n"
                     "  return\n}\n";
  auto m = ir::parse_module(text);
  layout::remove_conversions(*m);
  EXPECT_EQ(ops_of(*m, ir::OpKind::ConvertLayout).size(), 1u);
}

TEST(AllocateShared, GatherStagesTheSourceHistogramTheBins) {
  // gather: the whole source (512 fp16 = 1024 bytes), whatever the index' length;
  // histogram: 4 bytes a bin
  std::string src = tile("512xfp16", kB1), idx = tile("128xi32", kB2);
  std::string res = tile("128xfp16", kB2), bins = tile("256xi32", kB2);
  std::string text = "tt.func @k(%p: ptr<fp16>) {\n"
                     "  %0 = constant {value = 1.0} : " +
                     src + "\n" + "  %1 = constant {value = 3} : " + idx + "\n" +
                     "  %2 = gather %0, %1 {axis = 0} : " + src + ", " + idx + " -> " + res + "\n" +
                     "  %3 = histogram %1 : " + idx + " -> " + bins + "\n" + "  return\n}\n";
  auto m = ir::parse_module(text);
  ir::verify(*m);
  EXPECT_EQ(layout::scratch_bytes(*ops_of(*m, ir::OpKind::Gather)[0]), 1024);
  EXPECT_EQ(layout::scratch_bytes(*ops_of(*m, ir::OpKind::Histogram)[0]), 1024);
  layout::allocate_shared(*m);
  EXPECT_EQ(attr_of(*m, "shared_bytes"), 1024); // one after the other: the space is reused
}
