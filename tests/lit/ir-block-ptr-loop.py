# Block pointers advancing in a loop: the loop carries each block's tile of pointers and
# tl.advance adds one loop-invariant splat to it; as the offsets are known >= 0 (program
# ids, constants, advances by constants) and the shapes are int32, each bounds check is
# one 32-bit compare against `shape - offset`: the tensor-of-pointers matmul's loop.
# CMD: tilec ir %s:mm --signature "*fp16:16,*fp16:16,*fp32:16,i32:16,i32:16,i32:16" --constexpr BM=64 --constexpr BN=64 --constexpr BK=32
# CHECK: = for {{.*}}tile<64x32xptr<fp16>>
# CHECK-NOT: pred = "ge"
# CHECK: {pred = "lt"} : tile<1x32xi32> -> tile<1x32xi1>
# CHECK-NOT: pred = "ge"
# CHECK: dot
# CHECK-NOT: pred = "ge"
# CHECK: addptr {{%[0-9]+}}, {{%[0-9]+}} : tile<64x32xptr<fp16>>, tile<64x32xi64> -> tile<64x32xptr<fp16>>
# CHECK-NOT: pred = "ge"
# CHECK: yield
import tilec as triton
import tilec.language as tl


@triton.jit
def mm(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    a_bp = tl.make_block_ptr(A, (M, K), (K, 1), (pm * BM, 0), (BM, BK), (1, 0))
    b_bp = tl.make_block_ptr(B, (K, N), (N, 1), (0, pn * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a_bp, boundary_check=(0, 1)), tl.load(b_bp, boundary_check=(0, 1)))
        a_bp = tl.advance(a_bp, (0, BK))
        b_bp = tl.advance(b_bp, (BK, 0))
    c_bp = tl.make_block_ptr(C, (M, N), (N, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    tl.store(c_bp, acc, boundary_check=(0, 1))
