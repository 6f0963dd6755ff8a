# A block pointer becomes a tile of element pointers with 64-bit index arithmetic; with
# the unit stride specialised and the shape divisible by 16, its boundary-checked load and
# store still move 16 bytes a thread (the mask is constant over each 4 columns).
# CMD: tilec ptx %s:copy2d --signature "*fp32:16,*fp32:16,i32:16,i32:16,i32:16,i32:1" --constexpr BM=64 --constexpr BN=64 --num-warps 4 --arch sm_90a
# CHECK: .visible .entry copy2d(
# CHECK: @%p{{[0-9]+}} ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
# CHECK-NOT: ld.global.b32
# CHECK: @%p{{[0-9]+}} st.global.v4.b32
# CHECK: ret;
import tilec as triton
import tilec.language as tl


@triton.jit
def copy2d(X, Y, M, N, stride_m, stride_n, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    xb = tl.make_block_ptr(X, (M, N), (stride_m, stride_n), (pm * BM, pn * BN), (BM, BN),
                           (1, 0))
    yb = tl.make_block_ptr(Y, (M, N), (stride_m, stride_n), (pm * BM, pn * BN), (BM, BN),
                           (1, 0))
    tl.store(yb, tl.load(xb, boundary_check=(0, 1)) * 2, boundary_check=(0, 1))
