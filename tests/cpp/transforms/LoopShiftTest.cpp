// transforms/LoopShift: values of a loop body recomputed for iteration i + d and for
// iteration s from the loop's inits.
#include <gtest/gtest.h>

#include "PassTestUtil.h"
#include "transforms/LoopShift.h"

namespace {

using namespace tilec;

// p advances by 4 a step (carried); q is computed from the induction variable; r depends
// on a load (not recomputable).
const char *kLoop = R"(tt.func @k(%a: ptr<fp32>, %n: i32) {
  %0 = constant {value = 0} : i32
  %1 = constant {value = 16} : i32
  %2 = constant {value = 4} : i32
  %3:1 = for %0, %n, %1, %a : i32, i32, i32, ptr<fp32> -> ptr<fp32> {
  ^bb(%i: i32, %p: ptr<fp32>):
    %q = addptr %a, %i : ptr<fp32>, i32 -> ptr<fp32>
    %x = load %q : ptr<fp32> -> fp32
    %c = cast %x : fp32 -> i32
    %r = addptr %a, %c : ptr<fp32>, i32 -> ptr<fp32>
    %next = addptr %p, %2 : ptr<fp32>, i32 -> ptr<fp32>
    yield %next
  }
  return
}
)";

struct Fixture {
  std::unique_ptr<ir::Module> m = ir::parse_module(kLoop);
  ir::Block *entry = m->functions[0]->entry();
  ir::Op *loop = nullptr;
  ir::Block *body = nullptr;
  ir::Value *p = nullptr, *q = nullptr, *r = nullptr;
  Fixture() {
    for (auto &op : entry->ops())
      if (op->kind() == ir::OpKind::For)
        loop = op.get();
    body = loop->region(0)->block();
    p = body->arg(1);
    for (auto &op : body->ops()) {
      if (op->kind() == ir::OpKind::AddPtr && !q)
        q = op->result();
      else if (op->kind() == ir::OpKind::AddPtr && !r)
        r = op->result();
    }
  }
};

} // namespace

TEST(LoopShift, AheadAndFromStart) {
  Fixture f;
  transforms::LoopShift sh(*f.loop, true);
  EXPECT_TRUE(sh.recomputable(f.p));
  EXPECT_TRUE(sh.recomputable(f.q));
  EXPECT_FALSE(sh.recomputable(f.r));
  ir::Builder end;
  end.set_insertion_point(f.body->terminator());
  // iteration i + 2 of p: p + 4 (what this iteration yields, reused) + 4
  ir::Value *p2 = sh.ahead(f.p, 2, end);
  ASSERT_TRUE(p2 && p2->def);
  EXPECT_EQ(p2->def->kind(), ir::OpKind::AddPtr);
  EXPECT_EQ(p2->def->operand(0), f.body->terminator()->operand(0));
  EXPECT_EQ(sh.ahead(f.p, 0, end), f.p);
  // iteration i + 3 of q: a + (i + 48)
  ir::Value *q3 = sh.ahead(f.q, 3, end);
  ASSERT_TRUE(q3 && q3->def);
  ir::Value *iv3 = q3->def->operand(1);
  ASSERT_TRUE(iv3->def && iv3->def->kind() == ir::OpKind::Add);
  EXPECT_EQ(iv3->def->operand(0), f.body->arg(0));
  EXPECT_EQ(iv3->def->operand(1)->def->int_attr("value"), 48);
  EXPECT_EQ(sh.ahead(f.r, 1, end), nullptr);
  // from the inits: p in iteration 0 is a; in iteration 2, a + 4 + 4, before the loop
  ir::Builder pre;
  pre.set_insertion_point(f.loop);
  EXPECT_EQ(sh.from_start(f.p, 0, pre), f.loop->operand(3));
  ir::Value *ps = sh.from_start(f.p, 2, pre);
  ASSERT_TRUE(ps && ps->def && ps->def->parent() == f.entry);
  EXPECT_EQ(ps->def->operand(0)->def->operand(0), f.loop->operand(3));
  // memoised: asking again gives the same value
  EXPECT_EQ(sh.from_start(f.p, 2, pre), ps);
  EXPECT_EQ(sh.ahead(f.q, 3, end), q3);
  // the result still verifies (every new op is where its operands are visible)
  ir::verify(*f.m);
}

TEST(LoopShift, ThreeOrMoreStepsAheadAPointerAddsTheProductOnce) {
  Fixture f;
  transforms::LoopShift sh(*f.loop, true);
  ir::Builder end;
  end.set_insertion_point(f.body->terminator());
  // iteration i + 4 of p: p + 16 in one addptr (an i64 constant made before the loop), not
  // a chain of four
  ir::Value *p4 = sh.ahead(f.p, 4, end);
  ASSERT_TRUE(p4 && p4->def);
  EXPECT_EQ(p4->def->kind(), ir::OpKind::AddPtr);
  EXPECT_EQ(p4->def->operand(0), f.p);
  ir::Op *k = p4->def->operand(1)->def;
  ASSERT_TRUE(k && k->kind() == ir::OpKind::Constant);
  EXPECT_EQ(k->int_attr("value"), 16);
  EXPECT_EQ(k->result()->type.elem, ir::DType::I64);
  EXPECT_EQ(k->parent(), f.entry);
  ir::verify(*f.m);
}

namespace {

// q advances by a runtime stride %s a step (a splat of it: a pointer tile)
const char *kStrided = R"(tt.func @k(%a: ptr<fp32>, %n: i32, %s: i32) {
  %0 = constant {value = 0} : i32
  %1 = constant {value = 1} : i32
  %r = arange {start = 0, end = 16} : tile<16xi32>
  %t = splat %a : ptr<fp32> -> tile<16xptr<fp32>>
  %p0 = addptr %t, %r : tile<16xptr<fp32>>, tile<16xi32> -> tile<16xptr<fp32>>
  %st = splat %s : i32 -> tile<16xi32>
  %3:1 = for %0, %n, %1, %p0 : i32, i32, i32, tile<16xptr<fp32>> -> tile<16xptr<fp32>> {
  ^bb(%i: i32, %p: tile<16xptr<fp32>>):
    %next = addptr %p, %st : tile<16xptr<fp32>>, tile<16xi32> -> tile<16xptr<fp32>>
    yield %next
  }
  return
}
)";

} // namespace

TEST(LoopShift, AStridedPointerTileAheadIsOneAddOfTheWidenedProduct) {
  std::unique_ptr<ir::Module> m = ir::parse_module(kStrided);
  ir::Block *entry = m->functions[0]->entry();
  ir::Op *loop = nullptr;
  for (auto &op : entry->ops())
    if (op->kind() == ir::OpKind::For)
      loop = op.get();
  ASSERT_TRUE(loop);
  ir::Block *body = loop->region(0)->block();
  transforms::LoopShift sh(*loop, true);
  ir::Builder end;
  end.set_insertion_point(body->terminator());
  // 4 ahead: p + splat(i64(s) * 4), the product before the loop (a chain of 4 would wrap
  // nothing either: addptr's offsets extend to 64 bits)
  ir::Value *p4 = sh.ahead(body->arg(1), 4, end);
  ASSERT_TRUE(p4 && p4->def && p4->def->kind() == ir::OpKind::AddPtr);
  EXPECT_EQ(p4->def->operand(0), body->arg(1));
  ir::Op *sp = p4->def->operand(1)->def;
  ASSERT_TRUE(sp && sp->kind() == ir::OpKind::Splat && sp->parent() == entry);
  EXPECT_EQ(sp->result()->type.elem, ir::DType::I64);
  ir::Op *mul = sp->operand(0)->def;
  ASSERT_TRUE(mul && mul->kind() == ir::OpKind::Mul);
  ASSERT_TRUE(mul->operand(0)->def && mul->operand(0)->def->kind() == ir::OpKind::Cast);
  EXPECT_EQ(mul->operand(0)->def->operand(0), entry->arg(2));
  EXPECT_EQ(mul->operand(1)->def->int_attr("value"), 4);
  // 2 ahead: still the chain (ptxas adds its two offsets at once)
  ir::Value *p2 = sh.ahead(body->arg(1), 2, end);
  ASSERT_TRUE(p2 && p2->def);
  EXPECT_EQ(p2->def->operand(0), body->terminator()->operand(0));
  ir::verify(*m);
}

TEST(LoopShift, WithoutReuseTheCurrentIterationIsRecomputed) {
  Fixture f;
  transforms::LoopShift sh(*f.loop, false);
  ir::Builder top;
  top.set_insertion_point(f.body->ops().front().get());
  // at the top of the body, next iteration's p is p + 4 recomputed there
  ir::Value *p1 = sh.ahead(f.p, 1, top);
  ASSERT_TRUE(p1 && p1->def);
  EXPECT_NE(p1, f.body->terminator()->operand(0));
  EXPECT_EQ(p1->def->operand(0), f.p);
  ir::verify(*f.m);
}

namespace {

// A flattened loop's once-a-tile prologue: t = i / 4 (the tile), its value v = t * 16
// computed in a caching `if` when the step starts a tile (r == 0), else carried.
const char *kCached = R"(tt.func @k(%a: ptr<i32>, %n: i32) {
  %0 = constant {value = 0} : i32
  %1 = constant {value = 1} : i32
  %2 = constant {value = 4} : i32
  %3 = constant {value = 16} : i32
  %4:1 = for %0, %n, %1, %0 : i32, i32, i32, i32 -> i32 {
  ^bb(%i: i32, %v: i32):
    %t = div %i, %2 : i32
    %r = rem %i, %2 : i32
    %z = cmp %r, %0 {pred = "eq"} : i32 -> i1
    %c = if %z {cache = 1} : i1 -> i32 {
      %m = mul %t, %3 : i32
      yield %m
    } {
      yield %v
    }
    %q = addptr %a, %c : ptr<i32>, i32 -> ptr<i32>
    store %q, %i
    yield %c
  }
  return
}
)";

} // namespace

// carry_caches: two steps ahead, the `if` compares t(i + 2) with a carried t (that of
// step i + 1; before the loop, step 1's) and yields the carried value when equal; both go
// on to the next step at close(), after the caller's own carried values.
TEST(LoopShift, CarriedCacheComparesWithTheStepBefore) {
  auto m = ir::parse_module(kCached);
  ir::Op *loop = nullptr;
  for (auto &op : m->functions[0]->entry()->ops())
    if (op->kind() == ir::OpKind::For)
      loop = op.get();
  ir::Block *body = loop->region(0)->block();
  ir::Value *c = nullptr;
  for (auto &op : body->ops())
    if (op->kind() == ir::OpKind::If)
      c = op->result();
  size_t args = body->num_args(), inits = loop->num_operands();
  transforms::LoopShift prologue(*loop, true);
  transforms::LoopShift sh(*loop, false, {}, /*carry_caches=*/true);
  sh.starts_from(prologue);
  ir::Value *own = body->add_arg(ir::Type(ir::DType::I32)); // the caller's carried value
  loop->add_operand(loop->operand(0));
  loop->add_result(ir::Type(ir::DType::I32));
  ir::Builder end;
  end.set_insertion_point(body->terminator());
  ir::Value *c2 = sh.ahead(c, 2, end);
  ASSERT_TRUE(c2 && c2->def && c2->def->kind() == ir::OpKind::If);
  EXPECT_FALSE(c2->def->int_attr("cache", 0)); // its own cache, not the current step's
  // carried: t and c of the step before, after the caller's value
  ASSERT_EQ(body->num_args(), args + 3);
  ir::Value *prev_t = body->arg(args + 1), *prev_c = body->arg(args + 2);
  const ir::Op *same = c2->def->operand(0)->def;
  ASSERT_TRUE(same && same->kind() == ir::OpKind::Cmp);
  EXPECT_EQ(same->operand(1), prev_t);
  const ir::Op *then_yield = c2->def->region(0)->block()->terminator();
  EXPECT_EQ(then_yield->operand(0), prev_c);
  // the initial ones come from before the loop (step 1: t = 1 / 4, c through the chain)
  EXPECT_EQ(loop->num_operands(), inits + 3);
  for (size_t k = inits + 1; k < inits + 3; ++k) {
    const ir::Value *init = loop->operand(k);
    ASSERT_TRUE(init->def);
    EXPECT_EQ(init->def->parent(), m->functions[0]->entry());
  }
  body->terminator()->add_operand(own); // the caller's yield first
  sh.close();
  const ir::Op *y = body->terminator();
  ASSERT_EQ(y->num_operands(), args + 2); // the original yield, own, t(i + 2), c(i + 2)
  EXPECT_EQ(y->operand(args - 1), own);
  EXPECT_EQ(y->operand(args), same->operand(0));
  EXPECT_EQ(y->operand(args + 1), c2);
  ir::verify(*m);
}
