// Layout assignment on kernels using every shape op, scans, multi-value reductions,
// atomics and tile control flow: assignment must give every tile a layout, verify, and
// allocate shared memory without tripping an assertion.
#include "KernelTestUtil.h"

#include "ir/IRParser.h"
#include "ir/Verifier.h"
#include "layout/AllocateShared.h"
#include "layout/AssignLayouts.h"

using namespace tilec;
using namespace tilec::test;

namespace {

struct Case {
  const char *name, *src, *sig;
  std::vector<int64_t> constexprs;
  int num_warps = 4;
};

const Case kCases[] = {
    {"outer",
     R"(@triton.jit
def k(x_ptr, y_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M))
    y = tl.load(y_ptr + tl.arange(0, N))
    s = x[:, None] + y[None, :]
    tl.store(o_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], s)
)",
     "*fp32:16,*fp32:16,*fp32:16",
     {16, 64}},
    {"reduce_axis0",
     R"(@triton.jit
def k(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.sum(x, axis=0)
    r = tl.max(x, axis=1)
    tl.store(o_ptr + tl.arange(0, N), c)
    tl.store(o_ptr + N + tl.arange(0, M), r)
)",
     "*fp32:16,*fp32:16",
     {64, 32},
     8},
    {"argmax_and_scan",
     R"(@triton.jit
def k(x_ptr, o_ptr, i_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    i = tl.argmax(x, axis=0)
    tl.store(i_ptr, i)
    tl.store(o_ptr + tl.arange(0, N), tl.cumsum(x, axis=0))
)",
     "*fp32:16,*fp32:16,*i32:16",
     {1024}},
    {"scan_2d",
     R"(@triton.jit
def k(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr + offs, tl.cumsum(x, axis=0) + tl.cumsum(x, axis=1))
)",
     "*fp32:16,*fp32:16",
     {32, 32}},
    {"trans_permute_reshape",
     R"(@triton.jit
def k(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    t = tl.trans(x)
    p = tl.permute(t, (1, 0))
    r = tl.reshape(p, (M * N,))
    tl.store(o_ptr + tl.arange(0, M * N), r)
    tl.store(o_ptr + tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :], t)
)",
     "*fp32:16,*fp32:16",
     {16, 32}},
    {"join_split_cat",
     R"(@triton.jit
def k(x_ptr, o_ptr, N: tl.constexpr):
    a = tl.load(x_ptr + tl.arange(0, N))
    b = a * 2
    j = tl.join(a, b)
    x, y = tl.split(j)
    c = tl.cat(x, y, can_reorder=True)
    tl.store(o_ptr + tl.arange(0, 2 * N), c)
)",
     "*fp32:16,*fp32:16",
     {128}},
    {"three_d",
     R"(@triton.jit
def k(x_ptr, o_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    offs = (tl.arange(0, A)[:, None, None] * B * C + tl.arange(0, B)[None, :, None] * C
            + tl.arange(0, C)[None, None, :])
    x = tl.load(x_ptr + offs)
    s = tl.sum(x, axis=1)
    tl.store(o_ptr + tl.arange(0, A)[:, None] * C + tl.arange(0, C)[None, :], s)
    offs2 = (tl.arange(0, A)[:, None, None] * B * C + tl.arange(0, C)[None, :, None] * B
             + tl.arange(0, B)[None, None, :])
    tl.store(o_ptr + offs2, tl.permute(x, (0, 2, 1)))
)",
     "*fp16:16,*fp16:16",
     {4, 8, 16}},
    {"atomics",
     R"(@triton.jit
def k(x_ptr, c_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    old = tl.atomic_add(x_ptr + offs, 1.0)
    tl.store(x_ptr + N + offs, old)
    tl.atomic_max(c_ptr, tl.max(old, axis=0))
    prev = tl.atomic_cas(c_ptr + 1, 0, 1)
    tl.store(c_ptr + 2, prev)
)",
     "*fp32:16,*i32:16",
     {256}},
    {"control_flow",
     R"(@triton.jit
def k(x_ptr, o_ptr, n, flag, N: tl.constexpr):
    offs = tl.arange(0, N)
    acc = tl.zeros([N], dtype=tl.float32)
    i = 0
    while i < n:
        acc += tl.load(x_ptr + i * N + offs)
        i += 1
    if flag > 0:
        acc = acc * 2
    else:
        acc = tl.where(offs < 4, acc, 0.0)
    tl.store(o_ptr + offs, acc)
)",
     "*fp32:16,*fp32:16,i32,i32",
     {512}},
    {"small_tile",
     R"(@triton.jit
def k(x_ptr, o_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(o_ptr + tl.arange(0, 4)[:, None] * 2 + tl.arange(0, 2)[None, :], x[:, None] + tl.zeros([4, 2], dtype=tl.float32))
)",
     "*fp32:16,*fp32:16",
     {}},
    {"broadcast_to_and_where",
     R"(@triton.jit
def k(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    b = tl.broadcast_to(x[None, :], (M, N))
    m = tl.arange(0, M)[:, None] > tl.arange(0, N)[None, :]
    tl.store(o_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], tl.where(m, b, -b))
)",
     "*fp32:16,*fp32:16",
     {64, 64},
     2},
    {"join_of_two_layouts",
     R"(@triton.jit
def k(x_ptr, y_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    a = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    b = tl.load(y_ptr + tl.arange(0, M)[:, None] + tl.arange(0, N)[None, :] * M)
    j = tl.join(a, b)
    tl.store(o_ptr + tl.arange(0, M)[:, None, None] * 2 * N + tl.arange(0, N)[None, :, None] * 2
             + tl.arange(0, 2)[None, None, :], j)
    u = tl.load(x_ptr + tl.arange(0, 1024))
    v = tl.load(y_ptr + tl.arange(0, 1024))
    tl.store(o_ptr + tl.arange(0, 2048), tl.cat(u, v, can_reorder=True))
)",
     "*fp32:16,*fp32,*fp32:16",
     {32, 32}},
    {"dot_with_loaded_accumulator",
     R"(@triton.jit
def k(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    c_ptrs = c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    c = tl.load(c_ptrs)
    tl.store(c_ptrs, tl.dot(a, b, c))
)",
     "*fp16:16,*fp16:16,*fp32:16",
     {64, 64, 32}},
    {"scalar_loads",
     R"(@triton.jit
def k(x_ptr, o_ptr, n):
    s = 0.0
    for i in range(n):
        s += tl.load(x_ptr + i)
    tl.store(o_ptr, s)
)",
     "*fp32:16,*fp32:16,i32",
     {}},
};

} // namespace

class AssignShapes : public ::testing::TestWithParam<Case> {};

TEST_P(AssignShapes, AssignsVerifiesAllocates) {
  const Case &c = GetParam();
  Kernel k = inline_kernel(c.src, c.sig, c.constexprs, c.num_warps);
  ASSERT_NO_THROW(layout::assign_layouts(*k.module)) << ir::print(*k.module);
  ASSERT_NO_THROW(ir::verify(*k.module)) << ir::print(*k.module);
  ir::walk(k.fn().entry(), [&](ir::Op *op) {
    for (size_t i = 0; i < op->num_results(); ++i) {
      const ir::Type &t = op->result(i)->type;
      EXPECT_TRUE(!t.is_tile() || t.has_layout()) << ir::print(*op);
      if (t.layout && t.layout->kind == ir::LayoutKind::Blocked) {
        EXPECT_EQ(t.layout->num_warps(), c.num_warps) << ir::print(*op);
      }
    }
  });
  ASSERT_NO_THROW(layout::allocate_shared(*k.module)) << ir::print(*k.module);
  // the IR with layouts and allocations prints and parses back
  std::string text = ir::print(*k.module);
  EXPECT_EQ(ir::print(*ir::parse_module(text)), text);
}

INSTANTIATE_TEST_SUITE_P(Kernels, AssignShapes, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &i) {
                           return std::string(i.param.name);
                         });
