// transforms/PrefetchLoads: how much a loop body's values move an iteration
// (per_iteration_step), which decides the prefetch offsets.
#include <gtest/gtest.h>

#include "PassTestUtil.h"
#include "transforms/PrefetchLoads.h"

namespace {

using namespace tilec;

// %i steps by 16; %p (a carried pointer tile) by 4 fp32 elements an iteration.
const char *kLoop = R"(tt.func @k(%a: ptr<fp32>, %n: i32) {
  %c0 = constant {value = 0} : i32
  %c16 = constant {value = 16} : i32
  %c3 = constant {value = 3} : i32
  %r = arange {start = 0, end = 16} : tile<16xi32>
  %t = splat %a : ptr<fp32> -> tile<16xptr<fp32>>
  %p0 = addptr %t, %r : tile<16xptr<fp32>>, tile<16xi32> -> tile<16xptr<fp32>>
  %four = constant {value = 4} : tile<16xi32>
  %res = for %c0, %n, %c16, %p0 : i32, i32, i32, tile<16xptr<fp32>> -> tile<16xptr<fp32>> {
  ^bb(%i: i32, %p: tile<16xptr<fp32>>):
    %x = mul %i, %c3 : i32
    %y = sub %x, %i : i32
    %v = mul %i, %n : i32
    %si = splat %i : i32 -> tile<16xi32>
    %q = addptr %p, %si : tile<16xptr<fp32>>, tile<16xi32> -> tile<16xptr<fp32>>
    %ld = load %q : tile<16xptr<fp32>> -> tile<16xfp32>
    %inv = add %r, %four : tile<16xi32>
    %next = addptr %p, %four : tile<16xptr<fp32>>, tile<16xi32> -> tile<16xptr<fp32>>
    yield %next
  }
  return
}
)";

} // namespace

TEST(PrefetchLoads, PerIterationSteps) {
  auto m = ir::parse_module(kLoop);
  ir::verify(*m);
  ir::Op *loop = nullptr;
  for (auto &op : m->functions[0]->entry()->ops())
    if (op->kind() == ir::OpKind::For)
      loop = op.get();
  ASSERT_TRUE(loop);
  ir::Block *body = loop->region(0)->block();
  std::vector<ir::Value *> v; // x, y, v, si, q, ld, inv, next: in body order
  for (auto &op : body->ops())
    if (op->num_results())
      v.push_back(op->result());
  ASSERT_EQ(v.size(), 8u);
  auto step = [&](const ir::Value *x) { return transforms::per_iteration_step(*loop, x); };
  EXPECT_EQ(step(body->arg(0)), 16);    // the induction variable
  EXPECT_EQ(step(body->arg(1)), 16);    // p: 4 fp32 = 16 bytes
  EXPECT_EQ(step(v[0]), 48);            // i * 3
  EXPECT_EQ(step(v[1]), 32);            // i * 3 - i
  EXPECT_EQ(step(v[2]), std::nullopt);  // i * n: n unknown
  EXPECT_EQ(step(v[3]), 16);            // splat of i
  EXPECT_EQ(step(v[4]), 16 + 16 * 4);   // p + i elements: bytes
  EXPECT_EQ(step(v[5]), std::nullopt);  // a loaded value
  EXPECT_EQ(step(v[6]), 0);             // invariant, computed in the body
  EXPECT_EQ(step(loop->operand(1)), 0); // defined outside
}

TEST(PrefetchLoads, OffByEnvironment) {
  // the same kernel as tests/lit/prefetch-loads.tir in spirit: a small load beside a dot
  const char *k = R"(module {num_stages = 3, num_warps = 4}

tt.func @k(%q: ptr<fp16>, %m: ptr<fp32>, %n: i32) {
  %r = arange {start = 0, end = 32} : tile<32xi32>
  %qa = splat %q : ptr<fp16> -> tile<64x64xptr<fp16>>
  %a = load %qa : tile<64x64xptr<fp16>> -> tile<64x64xfp16>
  %qb = splat %q : ptr<fp16> -> tile<64x32xptr<fp16>>
  %b = load %qb : tile<64x32xptr<fp16>> -> tile<64x32xfp16>
  %z = constant {value = 0.0} : tile<64x32xfp32>
  %c0 = constant {value = 0} : i32
  %c1 = constant {value = 1} : i32
  %res = for %c0, %n, %c1, %z : i32, i32, i32, tile<64x32xfp32> -> tile<64x32xfp32> {
  ^bb(%i: i32, %acc: tile<64x32xfp32>):
    %mb = addptr %m, %i : ptr<fp32>, i32 -> ptr<fp32>
    %ms = splat %mb : ptr<fp32> -> tile<32xptr<fp32>>
    %mp = addptr %ms, %r : tile<32xptr<fp32>>, tile<32xi32> -> tile<32xptr<fp32>>
    %mv = load %mp : tile<32xptr<fp32>> -> tile<32xfp32>
    %d = dot %a, %b, %acc {input_precision = "tf32", max_num_imprecise_acc = 0} : tile<64x64xfp16>, tile<64x32xfp16>, tile<64x32xfp32> -> tile<64x32xfp32>
    %e = expand_dims %mv {axis = 0} : tile<32xfp32> -> tile<1x32xfp32>
    %eb = broadcast %e : tile<1x32xfp32> -> tile<64x32xfp32>
    %s = add %d, %eb : tile<64x32xfp32>
    yield %s
  }
  return
}
)";
  EXPECT_NE(tilec::testing::run_passes(k, {transforms::prefetch_loads}).find("{prefetch = 4}"),
            std::string::npos);
  setenv("TILEC_PREFETCH", "0", 1);
  std::string off = tilec::testing::run_passes(k, {transforms::prefetch_loads});
  unsetenv("TILEC_PREFETCH");
  EXPECT_EQ(off.find("prefetch"), std::string::npos);
}
