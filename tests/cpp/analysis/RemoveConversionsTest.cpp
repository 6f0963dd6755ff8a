// Conversion removal on whole kernels (layout/RemoveConversions.h): what the seed matmul
// and attention loops keep after layout assignment. Through the front end, so here
// rather than in tests/cpp/layout (see AssignLayoutsTest.cpp).
#include "KernelTestUtil.h"

#include "ir/Verifier.h"
#include "layout/AssignLayouts.h"
#include "layout/RemoveConversions.h"
#include "transforms/PipelineLoads.h"

using namespace tilec;
using namespace tilec::test;
using ir::OpKind;

namespace {

// The GPU path's order: loads one iteration ahead, then layouts.
void gpu_layouts(Kernel &k, int num_stages) {
  k.module->attrs.push_back({"num_stages", int64_t{num_stages}});
  transforms::pipeline_loads(*k.module);
  layout::assign_layouts(*k.module);
  layout::remove_conversions(*k.module); // the pipeline's next stage
  ASSERT_NO_THROW(ir::verify(*k.module)) << ir::print(*k.module);
}

std::vector<ir::Op *> ops_in(ir::Block *b, OpKind kind) {
  std::vector<ir::Op *> r;
  ir::walk(b, [&](ir::Op *op) {
    if (op->kind() == kind)
      r.push_back(op);
  });
  return r;
}

const char *kMatmulSig = "*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,"
                         "i32:1,i32:16,i32:1";

} // namespace

// acc += dot(a, b) becomes dot(a, b, acc): no add beside the mma chain, no second
// accumulator-sized tile alive. The carried pointer tiles stay in the loads' coalesced
// layout (they used to be carried in a default layout and converted through shared
// memory twice per iteration); the loop converts only the two dot operands.
TEST(RemoveConversions, SeedMatmulLoop) {
  for (int warps : {4, 8}) {
    Kernel k = seed_kernel("matmul_kernel", kMatmulSig, {128, 128, 32, 8}, warps);
    gpu_layouts(k, 3);
    ir::Op *loop = find_op(k.fn(), OpKind::For);
    ASSERT_TRUE(loop);
    ir::Block *body = loop->region(0)->block();
    std::vector<ir::Op *> dots = ops_in(body, OpKind::Dot);
    ASSERT_EQ(dots.size(), 1u);
    EXPECT_TRUE(dots[0]->operand(2)->is_block_arg()) << ir::print(*loop);
    for (ir::Op *add : ops_in(body, OpKind::Add))
      EXPECT_TRUE(!add->result()->type.is_tile() ||
                  add->result()->type.layout->kind != ir::LayoutKind::Mma)
          << ir::print(*add);
    std::vector<ir::Op *> converts = ops_in(body, OpKind::ConvertLayout);
    EXPECT_EQ(converts.size(), 2u) << ir::print(*loop);
    for (ir::Op *c : converts)
      EXPECT_EQ(c->result()->type.layout->kind, ir::LayoutKind::DotOperand) << ir::print(*c);
    // the pointer tiles the loads use are the carried values themselves
    for (ir::Op *ld : ops_in(body, OpKind::Load))
      EXPECT_EQ(ld->operand(0)->def ? ld->operand(0)->def->kind() : OpKind::AddPtr, OpKind::AddPtr)
          << ir::print(*ld);
  }
}

// The fused attention loop: the row max / sum over the mma layout and their broadcasts
// back stay in (slices of) #mma; the only conversions stage the dot operands (k, v; p
// relabels in lowering), and the second dot accumulates into acc * alpha.
TEST(RemoveConversions, SeedAttentionLoop) {
  std::string sig = "*fp16:16,*fp16:16,*fp16:16,*fp16:16";
  for (int i = 0; i < 16; ++i)
    sig += i % 4 == 3 ? ",i32:1" : ",i32:16";
  sig += ",i32,i32,i32:16";
  Kernel k = seed_kernel("fused_attention_kernel", sig, {128, 64, 64}, 4);
  gpu_layouts(k, 2);
  ir::Op *loop = find_op(k.fn(), OpKind::For);
  ASSERT_TRUE(loop);
  ir::Block *body = loop->region(0)->block();
  for (ir::Op *c : ops_in(body, OpKind::ConvertLayout)) {
    EXPECT_EQ(c->result()->type.layout->kind, ir::LayoutKind::DotOperand) << ir::print(*loop);
    // sunk to its user (past nothing but the other operand's conversion): v's fragments
    // are not held across the softmax
    auto it = std::next(c->self_iterator());
    while ((*it)->kind() == OpKind::ConvertLayout)
      ++it;
    EXPECT_EQ(it->get(), c->result()->users.at(0)) << ir::print(*loop);
  }
  for (ir::Op *r : ops_in(body, OpKind::Reduce))
    EXPECT_EQ(r->operand(0)->type.layout->kind, ir::LayoutKind::Mma) << ir::print(*r);
  std::vector<ir::Op *> dots = ops_in(body, OpKind::Dot);
  ASSERT_EQ(dots.size(), 2u);
  ASSERT_TRUE(dots[1]->operand(2)->def) << ir::print(*loop);
  EXPECT_EQ(dots[1]->operand(2)->def->kind(), OpKind::Mul) << ir::print(*loop);
}

// A dot whose accumulator is not zero, or whose result has other users, keeps its add.
TEST(RemoveConversions, DotAddFoldsOnlyAZeroAccumulatorUsedOnce) {
  Kernel k = inline_kernel(R"(@triton.jit
def k(a_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    idx = offs[:, None] * BLOCK + offs[None, :]
    a = tl.load(a_ptr + idx)
    b = tl.load(b_ptr + idx)
    c = tl.load(c_ptr + idx)
    d = tl.dot(a, b)
    tl.store(d_ptr + idx, c + d + d)
    tl.store(c_ptr + idx, tl.dot(a, b, c.to(tl.float32) * 2) + c)
)",
                           "*fp16:16,*fp16:16,*fp32:16,*fp32:16", {32}, 4);
  gpu_layouts(k, 1);
  int adds = 0;
  ir::walk(k.fn().entry(), [&](ir::Op *op) {
    adds += op->kind() == OpKind::Add && op->result()->type.elem == ir::DType::F32;
  });
  EXPECT_EQ(adds, 3) << ir::print(*k.module);
}

// A load of fewer elements than the CTA has threads is loaded in the layout its user
// wants (a slice of the mma layout for m[None, :]) instead of converted (as Triton's
// isExpensiveLoadOrStore allows), both where it is used and when the loop carries it (a
// prefetch the kernel wrote: the carried value takes the slice layout, its load too).
TEST(RemoveConversions, SmallLoadsAreLoadedInTheLayoutTheirUserWants) {
  Kernel k = inline_kernel(R"(@triton.jit
def k(a_ptr, b_ptr, m_ptr, c_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    idx = offs[:, None] * BLOCK + offs[None, :]
    a = tl.load(a_ptr + idx)
    acc = tl.zeros((BLOCK, BLOCK), tl.float32)
    nxt = tl.load(m_ptr + offs)
    for i in range(0, N, BLOCK):
        b = tl.load(b_ptr + i * BLOCK + idx)
        m = tl.load(m_ptr + i + offs)
        acc = tl.dot(a, b, acc) - m[None, :] - nxt[None, :]
        nxt = tl.load(m_ptr + i + BLOCK + offs)
    tl.store(c_ptr + idx, acc)
)",
                           "*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32", {32}, 4);
  gpu_layouts(k, 2);
  ir::Op *loop = find_op(k.fn(), OpKind::For);
  ASSERT_TRUE(loop);
  ir::Block *body = loop->region(0)->block();
  int small = 0;
  for (ir::Op *ld : ops_in(body, OpKind::Load)) {
    const ir::Type &t = ld->result()->type;
    if (t.rank() != 1)
      continue;
    ++small;
    ASSERT_EQ(t.layout->kind, ir::LayoutKind::Slice) << ir::print(*loop);
    EXPECT_EQ(t.layout->parent->kind, ir::LayoutKind::Mma) << ir::print(*loop);
  }
  EXPECT_EQ(small, 2) << ir::print(*loop); // m, and next iteration's nxt
  for (ir::Op *c : ops_in(body, OpKind::ConvertLayout))
    EXPECT_NE(c->result()->type.rank(), 1) << ir::print(*loop);
  int carried_slices = 0;
  for (size_t i = 1; i < body->num_args(); ++i)
    carried_slices += body->arg(i)->type.is_tile() && body->arg(i)->type.rank() == 1 &&
                      body->arg(i)->type.layout->kind == ir::LayoutKind::Slice;
  EXPECT_EQ(carried_slices, 1) << ir::print(*loop);
}
