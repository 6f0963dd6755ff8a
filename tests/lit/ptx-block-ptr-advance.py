# tl.advance adds delta * stride to every pointer of a block pointer. With the stride an
# i32 argument, that 64-bit increment is a 32-bit value times a constant: one mad.wide.s32
# per pointer (delta * 4 bytes as its immediate), which ptxas keeps on the uniform
# datapath, and no 64-bit multiply in the loop (that one cost a block-pointer matmul 14 %).
# CMD: tilec ptx %s:rowsum --signature "*fp32:16,*fp32:16,i32:16,i32:16,i32:16,i32:16" --constexpr BM=32 --constexpr BK=32 --num-warps 4 --arch sm_90a
# CHECK: .visible .entry rowsum(
# CHECK: $L__loop:
# CHECK-NOT: mul.lo.s64
# CHECK: mad.wide.s32 %rd{{[0-9]+}}, %r{{[0-9]+}}, 128, %rd{{[0-9]+}};
# CHECK-NOT: mul.lo.s64
# CHECK: $L__endloop:
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def rowsum(X, Y, M, K, stride_m, stride_k, BM: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    xb = tl.make_block_ptr(X, (M, K), (stride_m, stride_k), (pm * BM, 0), (BM, BK), (1, 0))
    acc = tl.zeros((BM,), tl.float32)
    for _ in range(0, K, BK):
        acc += tl.sum(tl.load(xb, boundary_check=(0, 1)), axis=1)
        xb = tl.advance(xb, (0, BK))
    tl.store(Y + pm * BM + tl.arange(0, BM), acc)
