// Layout assignment on whole kernels through the front end (here rather than in
// tests/cpp/layout because it needs the pipeline; test_layout links tilec_layout only).
#include "KernelTestUtil.h"

#include "ir/Verifier.h"
#include "layout/AllocateShared.h"
#include "layout/AssignLayouts.h"
#include "layout/RemoveConversions.h"
#include "layout/ConvertPlan.h"
#include "layout/Layouts.h"

using namespace tilec;
using namespace tilec::test;
using ir::OpKind;

namespace {

// Assigns layouts, verifies, and checks that every tile value has one.
void assign(Kernel &k) {
  layout::assign_layouts(*k.module);
  layout::remove_conversions(*k.module); // the pipeline's next stage
  ASSERT_NO_THROW(ir::verify(*k.module)) << ir::print(*k.module);
  ir::walk(k.fn().entry(), [&](ir::Op *op) {
    for (size_t i = 0; i < op->num_results(); ++i)
      EXPECT_TRUE(!op->result(i)->type.is_tile() || op->result(i)->type.has_layout())
          << ir::print(*op);
    for (size_t r = 0; r < op->num_regions(); ++r)
      for (size_t i = 0; i < op->region(r)->block()->num_args(); ++i) {
        const ir::Type &t = op->region(r)->block()->arg(i)->type;
        EXPECT_TRUE(!t.is_tile() || t.has_layout()) << ir::print(*op);
      }
  });
}

int count(ir::Function &f, OpKind kind) {
  int n = 0;
  ir::walk(f.entry(), [&](ir::Op *op) { n += op->kind() == kind; });
  return n;
}

std::string layout_str(const ir::Value *v) {
  return v->type.layout ? v->type.layout->str() : "none";
}

const char *kAdd4 = "#blocked<spt=[4], tpw=[32], wpc=[4], order=[0]>";

} // namespace

TEST(AssignLayouts, VectorAddFp32GetsFourPerThread) {
  Kernel k = seed_kernel("add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32:16", {1024});
  assign(k);
  ir::Op *load = find_op(k.fn(), OpKind::Load);
  ir::Op *store = find_op(k.fn(), OpKind::Store);
  ASSERT_TRUE(load && store);
  EXPECT_EQ(layout_str(load->result()), kAdd4);
  EXPECT_EQ(layout_str(store->operand(1)), kAdd4);
  EXPECT_EQ(layout_str(find_op(k.fn(), OpKind::Arange)->result()), kAdd4);
  EXPECT_EQ(count(k.fn(), OpKind::ConvertLayout), 0) << ir::print(*k.module);
  layout::LinearLayout l = layout::to_linear(load->result()->type);
  EXPECT_EQ(layout::contiguous_per_thread(l, 0), 4);
  EXPECT_EQ(layout::registers_per_thread(l), 8); // 1024 / 128 threads, in two 16-byte pieces
}

TEST(AssignLayouts, VectorAddFp16GetsEightPerThread) {
  Kernel k = seed_kernel("add_kernel", "*fp16:16,*fp16:16,*fp16:16,i32:16", {1024});
  assign(k);
  EXPECT_EQ(layout_str(find_op(k.fn(), OpKind::Load)->result()),
            "#blocked<spt=[8], tpw=[32], wpc=[4], order=[0]>");
  EXPECT_EQ(count(k.fn(), OpKind::ConvertLayout), 0);
}

TEST(AssignLayouts, UnalignedPointersAndNumWarps) {
  Kernel k = seed_kernel("add_kernel", "*fp32,*fp32,*fp32,i32", {1024});
  assign(k);
  EXPECT_EQ(layout_str(find_op(k.fn(), OpKind::Load)->result()),
            "#blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>");
  Kernel k8 = seed_kernel("add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32:16", {1024}, 8);
  assign(k8);
  EXPECT_EQ(layout_str(find_op(k8.fn(), OpKind::Load)->result()),
            "#blocked<spt=[4], tpw=[32], wpc=[8], order=[0]>");
  // a small tile: no more per thread than there are elements per thread
  Kernel s = seed_kernel("add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32:16", {128});
  assign(s);
  EXPECT_EQ(layout_str(find_op(s.fn(), OpKind::Load)->result()),
            "#blocked<spt=[1], tpw=[32], wpc=[4], order=[0]>");
}

TEST(AssignLayouts, SoftmaxRowStaysInOneLayout) {
  Kernel k = seed_kernel("softmax_kernel", "*fp32:16,*fp32:16,i32:16,i32:16,i32", {1024});
  assign(k);
  EXPECT_EQ(count(k.fn(), OpKind::ConvertLayout), 0) << ir::print(*k.module);
  ir::Op *load = find_op(k.fn(), OpKind::Load);
  EXPECT_EQ(layout_str(load->result()), "#blocked<spt=[4], tpw=[32], wpc=[4], order=[0]>");
  ir::Op *reduce = find_op(k.fn(), OpKind::Reduce);
  EXPECT_TRUE(reduce->result()->type.is_scalar());
}

TEST(AssignLayouts, TwoDimLoadUsesSlicesForItsOffsets) {
  Kernel k = inline_kernel(R"(@triton.jit
def k(x_ptr, y_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :])
    x = x - tl.max(x, axis=1)[:, None]
    tl.store(y_ptr + rm[:, None] * stride + rn[None, :], x)
)",
                           "*fp16:16,*fp16:16,i32:16", {64, 32});
  assign(k);
  const char *two = "#blocked<spt=[1,8], tpw=[8,4], wpc=[4,1], order=[1,0]>";
  EXPECT_EQ(layout_str(find_op(k.fn(), OpKind::Load)->result()), two);
  EXPECT_EQ(layout_str(find_op(k.fn(), OpKind::Arange, 0)->result()),
            std::string("#slice<dim=1, ") + two + ">");
  EXPECT_EQ(layout_str(find_op(k.fn(), OpKind::Arange, 1)->result()),
            std::string("#slice<dim=0, ") + two + ">");
  EXPECT_EQ(layout_str(find_op(k.fn(), OpKind::Reduce)->result()),
            std::string("#slice<dim=1, ") + two + ">");
  EXPECT_EQ(count(k.fn(), OpKind::ConvertLayout), 0) << ir::print(*k.module);
}

TEST(AssignLayouts, TransposedStoreKeepsAConversion) {
  // read rows contiguously, write columns contiguously: one side must move through smem
  Kernel k = inline_kernel(R"(@triton.jit
def k(x_ptr, y_ptr, B: tl.constexpr):
    r = tl.arange(0, B)
    x = tl.load(x_ptr + r[:, None] * B + r[None, :])
    tl.store(y_ptr + r[:, None] + r[None, :] * B, x)
)",
                           "*fp32:16,*fp32:16", {32});
  assign(k);
  ASSERT_EQ(count(k.fn(), OpKind::ConvertLayout), 1) << ir::print(*k.module);
  ir::Op *c = find_op(k.fn(), OpKind::ConvertLayout);
  EXPECT_EQ(c->operand(0)->def->kind(), OpKind::Load);
  layout::ConversionPlan p = layout::plan_conversion(layout::to_linear(c->operand(0)->type),
                                                     layout::to_linear(c->result()->type));
  EXPECT_EQ(p.kind, layout::ConversionKind::SharedMemory);
  EXPECT_EQ(layout_str(find_op(k.fn(), OpKind::Store)->operand(1)),
            "#blocked<spt=[4,1], tpw=[8,4], wpc=[1,4], order=[0,1]>");
}

TEST(AssignLayouts, LoopCarriedAccumulators) {
  Kernel k = inline_kernel(R"(@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)
)",
                           "*fp32:16,*fp32:16,i32:16", {512});
  assign(k);
  ir::Op *loop = find_op(k.fn(), OpKind::For);
  ASSERT_TRUE(loop);
  EXPECT_EQ(layout_str(loop->result()), kAdd4);
  EXPECT_EQ(layout_str(loop->region(0)->block()->arg(1)), kAdd4);
  EXPECT_EQ(layout_str(loop->operand(3)), kAdd4); // the zeros are made in that layout
  EXPECT_EQ(count(k.fn(), OpKind::ConvertLayout), 0) << ir::print(*k.module);
}

TEST(AssignLayouts, BroadcastOfAColumnIntoARowDoesNotReplicateTheRow) {
  // Inductor's reductions with XBLOCK = 1: an [XBLOCK, 1] index, laid out along dim 0, is
  // broadcast against the [1, R] reduction block; keeping its layout would give every
  // thread the whole row (thousands of registers, spilled).
  Kernel k = inline_kernel(R"(@triton.jit
def k(idx_ptr, x_ptr, out_ptr, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    t = tl.load(idx_ptr + xindex)
    r = tl.arange(0, RBLOCK)[None, :]
    hit = t == r
    v = tl.load(x_ptr + r + RBLOCK * xindex)
    tl.store(out_ptr + r + RBLOCK * xindex, tl.where(hit, -1.0, v))
)",
                           "*i64:16,*fp32:16,*fp32:16", {1, 2048}, 16);
  assign(k);
  ir::walk(k.fn().entry(), [&](ir::Op *op) {
    for (size_t i = 0; i < op->num_results(); ++i) {
      const ir::Type &t = op->result(i)->type;
      if (t.is_tile() && t.shape == ir::Shape{1, 2048}) {
        EXPECT_LE(layout::registers_per_thread(layout::to_linear(t)), 4) << ir::print(*op);
      }
    }
  });
}

TEST(AssignLayouts, AGatherTakesTheWidthOfTheLoadsItIsComputedWith) {
  // Inductor's rotary embedding: a contiguous load (4 elements per thread) times the cos of
  // a gathered table entry. As in Triton's Coalesce, the gather takes the contiguous
  // load's 4 elements per thread rather than 1, so no conversion goes through shared
  // memory; the store keeps its own width.
  Kernel k = inline_kernel(R"(@triton.jit
def k(x_ptr, table_ptr, out_ptr, XBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    x = tl.load(x_ptr + xindex)
    c = tl.load(table_ptr + (xindex // 512) % 512 + 512 * (xindex % 32))
    tl.store(out_ptr + xindex, x * tl.cos(c))
)",
                           "*fp32:16,*fp32:16,*fp32:16", {1024}, 4);
  assign(k);
  EXPECT_EQ(count(k.fn(), OpKind::ConvertLayout), 0) << ir::print(*k.module);
  ir::walk(k.fn().entry(), [&](ir::Op *op) {
    if (op->kind() == OpKind::Load) {
      EXPECT_EQ(layout_str(op->result(0)), "#blocked<spt=[4], tpw=[32], wpc=[4], order=[0]>")
          << ir::print(*op);
    }
  });
}

TEST(AssignLayouts, EverySeedKernel) {
  struct Case {
    const char *name, *sig;
    std::vector<int64_t> constexprs;
  };
  std::vector<Case> cases = {
      {"add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32:16", {1024}},
      {"triton_gelu_kernel", "*fp32:16,*fp32:16,i32:16", {1024}},
      {"softmax_kernel", "*fp32:16,*fp32:16,i32:16,i32:16,i32", {2048}},
      {"matmul_kernel",
       "*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1",
       {128, 64, 32, 8}},
      {"layernorm_kernel",
       "*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,i32:16,fp32",
       {1024}},
      {"fused_attention_kernel",
       "*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,"
       "i32:16,i32:16,i32:16,i32:1,i32:16,i32:16,i32:16,i32:1,i32,i32,i32:16",
       {128, 64, 64}},
      {"simple_kernel", "*fp32:16", {256}},
      {"debug_kernel", "*fp32:16", {256}},
      {"add_kernel_heuristic", "*fp32:16,*fp32:16,*fp32:16,i32", {512}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    Kernel k = seed_kernel(c.name, c.sig, c.constexprs);
    assign(k);
  }
}

TEST(AssignLayouts, LayerNormLoadsShareOneLayout) {
  Kernel k = seed_kernel("layernorm_kernel",
                         "*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,i32:16,fp32",
                         {1024});
  assign(k);
  // fp16 rows: 8 per thread (16 bytes)
  EXPECT_EQ(layout_str(find_op(k.fn(), OpKind::Load)->result()),
            "#blocked<spt=[8], tpw=[32], wpc=[4], order=[0]>");
  EXPECT_EQ(count(k.fn(), OpKind::ConvertLayout), 0) << ir::print(*k.module);
}

TEST(AllocateShared, SeedKernels) {
  auto shared = [](ir::Module &m) {
    layout::allocate_shared(m);
    for (const auto &a : m.attrs)
      if (a.name == "shared_bytes")
        return std::get<int64_t>(a.value);
    return int64_t{-1};
  };
  Kernel add = seed_kernel("add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32:16", {1024});
  assign(add);
  EXPECT_EQ(shared(*add.module), 0);
  // softmax over 1024 columns, 4 warps: max and sum each combine 4 warp partials
  Kernel sm = seed_kernel("softmax_kernel", "*fp32:16,*fp32:16,i32:16,i32:16,i32", {1024});
  assign(sm);
  EXPECT_EQ(shared(*sm.module), 16);
  ir::Op *r = find_op(sm.fn(), OpKind::Reduce, 1);
  EXPECT_EQ(r->int_attr("smem_offset", -1), 0);
  // the transposing copy: one 32x32 fp32 tile through shared memory
  Kernel t = inline_kernel(R"(@triton.jit
def k(x_ptr, y_ptr, B: tl.constexpr):
    r = tl.arange(0, B)
    x = tl.load(x_ptr + r[:, None] * B + r[None, :])
    tl.store(y_ptr + r[:, None] + r[None, :] * B, x)
)",
                           "*fp32:16,*fp32:16", {32});
  assign(t);
  EXPECT_EQ(shared(*t.module), 32 * 32 * 4);
  ASSERT_NO_THROW(ir::verify(*t.module));
}
