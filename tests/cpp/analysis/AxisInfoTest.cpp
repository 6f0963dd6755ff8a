#include "KernelTestUtil.h"

#include "analysis/AxisInfo.h"
#include "ir/IRParser.h"

using namespace tilec;
using namespace tilec::test;
using analysis::AxisInfo;
using analysis::AxisInfoAnalysis;
using ir::OpKind;

namespace {

std::vector<int64_t> v(std::initializer_list<int64_t> x) { return x; }

// The first op of `kind` whose result is a tile of `rank`.
ir::Op *find_tile_op(ir::Function &f, OpKind kind, int rank, int nth = 0) {
  ir::Op *found = nullptr;
  ir::walk(f.entry(), [&](ir::Op *op) {
    if (!found && op->kind() == kind && op->num_results() && op->result(0)->type.rank() == rank &&
        nth-- == 0)
      found = op;
  });
  return found;
}

} // namespace

TEST(AxisInfo, SeedVectorAdd) {
  Kernel k = seed_kernel("add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32:16", {1024});
  AxisInfoAnalysis ax(k.fn(), k.module.get());
  ir::Op *offsets = find_tile_op(k.fn(), OpKind::Add, 1);
  ASSERT_TRUE(offsets) << ir::print(*k.module);
  EXPECT_EQ(ax.get(offsets->result()).contiguity, v({1024}));
  EXPECT_EQ(ax.get(offsets->result()).divisibility, v({1024}));
  EXPECT_EQ(ax.get(offsets->result()).constancy, v({1}));
  ir::Op *xp = find_op(k.fn(), OpKind::AddPtr);
  ASSERT_TRUE(xp);
  EXPECT_EQ(ax.get(xp->result()).contiguity, v({1024}));
  EXPECT_EQ(ax.get(xp->result()).divisibility, v({16}));
  EXPECT_EQ(ax.ptr_vector_elems(xp->result(), 0), 4);
  // offsets < n_elements with n_elements % 16 == 0: the mask is constant in runs of 16
  ir::Op *mask = find_op(k.fn(), OpKind::Cmp);
  EXPECT_EQ(ax.get(mask->result()).constancy, v({16}));
  // the kernel arguments
  EXPECT_EQ(ax.get(k.fn().entry()->arg(0)).divisibility, v({16}));
  EXPECT_EQ(ax.get(k.fn().entry()->arg(3)).divisibility, v({16}));
  ir::Op *pid = find_op(k.fn(), OpKind::ProgramId);
  EXPECT_EQ(ax.get(pid->result()).divisibility, v({1}));
}

TEST(AxisInfo, UnalignedArgumentsGiveLess) {
  Kernel k = seed_kernel("add_kernel", "*fp32,*fp32,*fp32,i32", {1024});
  AxisInfoAnalysis ax(k.fn(), k.module.get());
  ir::Op *xp = find_op(k.fn(), OpKind::AddPtr);
  EXPECT_EQ(ax.get(xp->result()).contiguity, v({1024}));
  EXPECT_EQ(ax.get(xp->result()).divisibility, v({1}));
  EXPECT_EQ(ax.ptr_vector_elems(xp->result(), 0), 1);
  EXPECT_EQ(ax.get(find_op(k.fn(), OpKind::Cmp)->result()).constancy, v({1}));
}

TEST(AxisInfo, Fp16VectorWidth) {
  Kernel k = seed_kernel("add_kernel", "*fp16:16,*fp16:16,*fp16:16,i32:16", {1024});
  AxisInfoAnalysis ax(k.fn(), k.module.get());
  ir::Op *xp = find_op(k.fn(), OpKind::AddPtr);
  EXPECT_EQ(ax.ptr_vector_elems(xp->result(), 0), 8);
}

TEST(AxisInfo, SoftmaxRowPointers) {
  Kernel k = seed_kernel("softmax_kernel", "*fp32:16,*fp32:16,i32:16,i32:16,i32", {1024});
  AxisInfoAnalysis ax(k.fn(), k.module.get());
  // row_start_ptr + col_offsets: the scalar row pointer is 16-byte aligned (stride % 16)
  ir::Op *p = find_tile_op(k.fn(), OpKind::AddPtr, 1);
  ASSERT_TRUE(p) << ir::print(*k.module);
  EXPECT_EQ(ax.get(p->result()).contiguity, v({1024}));
  EXPECT_EQ(ax.get(p->result()).divisibility, v({16}));
  // n_cols unaligned: the mask is known only element by element
  EXPECT_EQ(ax.get(find_op(k.fn(), OpKind::Cmp)->result()).constancy, v({1}));
}

TEST(AxisInfo, MatmulLoopCarriedPointers) {
  // strides of the contiguous dims specialised to 1, the others divisible by 16
  Kernel k = seed_kernel("matmul_kernel",
                         "*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:1,"
                         "i32:16,i32:1,i32:16,i32:1",
                         {64, 64, 32, 8});
  AxisInfoAnalysis ax(k.fn(), k.module.get());
  ir::Op *loop = find_op(k.fn(), OpKind::For);
  ASSERT_TRUE(loop) << ir::print(*k.module);
  ir::Block *body = loop->region(0)->block();
  EXPECT_EQ(ax.get(body->arg(0)).divisibility, v({32})); // k: lb 0, step BLOCK_SIZE_K
  // iter args: accumulator (fp32, unknown), a_ptrs [64x32], b_ptrs [32x64]
  const ir::Value *a_ptrs = nullptr, *b_ptrs = nullptr;
  size_t a_index = 0;
  for (size_t i = 1; i < body->num_args(); ++i)
    if (body->arg(i)->type.is_ptr()) {
      if (!a_ptrs)
        a_index = i - 1;
      (a_ptrs ? b_ptrs : a_ptrs) = body->arg(i);
    }
  ASSERT_TRUE(a_ptrs && b_ptrs);
  EXPECT_EQ(ax.get(a_ptrs).contiguity, v({1, 32}));
  // along dim 1 runs start 16-byte aligned; along dim 0 every element counts: 2 bytes
  EXPECT_EQ(ax.get(a_ptrs).divisibility, v({2, 16}));
  EXPECT_EQ(ax.get(b_ptrs).contiguity, v({1, 64}));
  EXPECT_EQ(ax.order_by_contiguity(a_ptrs), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(ax.ptr_vector_elems(a_ptrs, 1), 8);
  EXPECT_EQ(ax.get(loop->result(a_index)).contiguity, ax.get(a_ptrs).contiguity);
}

TEST(AxisInfo, HintsOverride) {
  Kernel k = inline_kernel(R"(@triton.jit
def k(x_ptr, n, start):
    offs = tl.multiple_of(start, 64) + tl.arange(0, 128)
    offs = tl.max_contiguous(tl.multiple_of(offs, 64), 128)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)
)",
                           "*fp32:16,i32:16,i32", {});
  AxisInfoAnalysis ax(k.fn(), k.module.get());
  ir::Op *h = find_op(k.fn(), OpKind::Hint, 0);
  ASSERT_TRUE(h);
  EXPECT_EQ(ax.get(h->result()).divisibility, v({64}));
  ir::Op *p = find_op(k.fn(), OpKind::AddPtr);
  EXPECT_EQ(ax.get(p->result()).contiguity, v({128}));
  EXPECT_EQ(ax.get(p->result()).divisibility, v({16}));
}

TEST(AxisInfo, DivRemShiftsAndBroadcasts) {
  Kernel k = inline_kernel(R"(@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    q = i // 4
    r = i % 8
    s = i >> 1
    t = i << 2
    m = i & 15
    two = i[:, None] * 32 + i[None, :]
    tl.store(x_ptr + q, 1.0)
    tl.store(x_ptr + r, 1.0)
    tl.store(x_ptr + s, 1.0)
    tl.store(x_ptr + t, 1.0)
    tl.store(x_ptr + m, 1.0)
    tl.store(x_ptr + two, 1.0)
)",
                           "*fp32:16", {64});
  AxisInfoAnalysis ax(k.fn(), k.module.get());
  std::vector<const AxisInfo *> offs;
  ir::walk(k.fn().entry(), [&](ir::Op *op) {
    if (op->kind() == OpKind::AddPtr)
      offs.push_back(&ax.get(op->operand(1)));
  });
  ASSERT_EQ(offs.size(), 6u);
  EXPECT_EQ(offs[0]->constancy, v({4})); // i // 4
  EXPECT_EQ(offs[0]->contiguity, v({1}));
  EXPECT_EQ(offs[1]->contiguity, v({8}));   // i % 8
  EXPECT_EQ(offs[2]->constancy, v({2}));    // i >> 1
  EXPECT_EQ(offs[3]->divisibility, v({4})); // i << 2
  EXPECT_EQ(offs[3]->contiguity, v({1}));
  EXPECT_EQ(offs[4]->contiguity, v({16})); // i & 15
  const AxisInfo &two = *offs[5];
  EXPECT_EQ(two.contiguity, v({1, 64}));
  EXPECT_EQ(two.divisibility, v({1, 32})); // i*32 + j: element-wise along dim 0
}

TEST(AxisInfo, RemByARunTimeDivisor) {
  // tutorial 03's offsets: (pid * BLOCK + arange) % M stay contiguous in runs of M's
  // divisibility (16 from the signature), not of a constant divisor's; M unknown: none
  Kernel k = inline_kernel(R"(@triton.jit
def k(x_ptr, M, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = (pid * BLOCK + tl.arange(0, BLOCK)) % M
    tl.store(x_ptr + offs, 1.0)
    tl.store(x_ptr + (pid * BLOCK + tl.arange(0, BLOCK)) % N, 1.0)
)",
                           "*fp32:16,i32:16,i32", {64});
  AxisInfoAnalysis ax(k.fn(), k.module.get());
  std::vector<const AxisInfo *> offs;
  ir::walk(k.fn().entry(), [&](ir::Op *op) {
    if (op->kind() == OpKind::AddPtr)
      offs.push_back(&ax.get(op->operand(1)));
  });
  ASSERT_EQ(offs.size(), 2u);
  EXPECT_EQ(offs[0]->contiguity, v({16}));
  EXPECT_EQ(offs[0]->divisibility, v({16}));
  EXPECT_EQ(offs[1]->contiguity, v({1}));
}

TEST(AxisInfo, IfAndWhileMeet) {
  const char *text = R"(tt.func @k(%c: i1, %p: ptr<fp32>) {
  %0 = constant {value = 64} : i32
  %1 = constant {value = 96} : i32
  %2 = if %c : i1 -> i32 {
    yield %0
  } {
    yield %1
  }
  %3 = constant {value = 8} : i32
  %4 = while %3 : i32 -> i32 {
  ^bb(%5: i32):
    %6 = cmp %5, %0 {pred = "lt"} : i32 -> i1
    condition %6, %5
  } {
  ^bb(%7: i32):
    %8 = add %7, %3 : i32
    yield %8
  }
  return
}
)";
  std::unique_ptr<ir::Module> m = ir::parse_module(text);
  ir::Function &f = *m->functions[0];
  AxisInfoAnalysis ax(f, m.get());
  ir::Op *iff = find_op(f, OpKind::If);
  EXPECT_EQ(ax.get(iff->result()).divisibility, v({32}));
  EXPECT_FALSE(ax.get(iff->result()).constant);
  ir::Op *w = find_op(f, OpKind::While);
  EXPECT_EQ(ax.get(w->result()).divisibility, v({8}));
  EXPECT_EQ(ax.get(w->region(0)->block()->arg(0)).divisibility, v({8}));
}

TEST(AxisInfo, LoopCarriedValueLosesFacts) {
  // x starts at 0 (divisible by anything) and grows by 3: nothing survives
  Kernel k = inline_kernel(R"(@triton.jit
def k(x_ptr, n):
    x = 0
    for i in range(0, n):
        x += 3
    tl.store(x_ptr + x + tl.arange(0, 16), 1.0)
)",
                           "*fp32:16,i32", {});
  AxisInfoAnalysis ax(k.fn(), k.module.get());
  ir::Op *loop = find_op(k.fn(), OpKind::For);
  ASSERT_TRUE(loop);
  EXPECT_EQ(ax.get(loop->result(0)).divisibility, v({1}));
  EXPECT_EQ(ax.get(loop->region(0)->block()->arg(0)).divisibility, v({1}));
}

TEST(AxisInfo, MeetAndStr) {
  AxisInfo a = AxisInfo::of_constant(48, {4});
  EXPECT_EQ(a.str(), "div=[16], contig=[1], const=[4], value=48");
  AxisInfo b = AxisInfo::unknown(1);
  b.contiguity = {4};
  b.divisibility = {64};
  AxisInfo m = AxisInfo::meet(a, b);
  EXPECT_EQ(m.divisibility, v({16}));
  EXPECT_EQ(m.contiguity, v({1}));
  EXPECT_EQ(m.constancy, v({1}));
  EXPECT_FALSE(m.constant);
}

TEST(AxisInfo, DumpListsOps) {
  Kernel k = seed_kernel("add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32:16", {1024});
  std::string d = analysis::dump_axis_info(*k.module);
  EXPECT_NE(d.find("arange {end = 1024, start = 0} : tile<1024xi32>  // div=[1073741824], "
                   "contig=[1024], const=[1]"),
            std::string::npos)
      << d;
}
