# An fp8 matmul with a software-pipelined K loop (--num-stages 3) compiles (it once crashed
# the compiler with SIGSEGV; no valid kernel may), on the tensor cores: wgmma e4m3, k32.
# CMD: tilec ptx %s:mm --signature "*fp8e4nv,*fp8e4nv,*fp32,i32,i32,i32" --constexpr BM=64 --constexpr BN=64 --constexpr BK=32 --num-stages 3 --arch sm_90a
# CHECK: .target sm_90a
# CHECK: .visible .entry mm(
# CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
# CHECK: st.global
import tilec
import tilec.language as tl


@tilec.jit
def mm(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(B + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * N + rn[None, :], acc)
