# With --tma, a host tensor descriptor also takes its tensor map (a 128-byte .param) and
# the blocks a K loop feeds to wgmma are copied by TMA into the ring: one elected thread
# expects the stage's bytes on its mbarrier and issues cp.async.bulk.tensor (A: one box
# [128, 64] with the 128-byte swizzle; B, N-contiguous: two panels [64, 64]); every thread
# waits on the barrier's phase; the per-thread copy addresses (cp.async) are gone.
# CMD: tilec ptx %s:mm --signature "tensordesc<fp16[128,64]>:16,tensordesc<fp16[64,128]>:16,*fp32:16,i32:16,i32:16,i32:16" --constexpr BM=128 --constexpr BN=128 --constexpr BK=64 --num-stages 3 --arch sm_90a --tma
# CHECK: .visible .entry mm(
# CHECK: .param .align 64 .b8 mm_param_4[128]
# CHECK: .param .align 64 .b8 mm_param_9[128]
# CHECK: cvta.param.u64
# CHECK: mbarrier.init.shared::cta.b64
# CHECK: mbarrier.arrive.expect_tx.shared::cta.b64
# CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# CHECK: mbarrier.try_wait.parity
# CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
# CHECK-NOT: cp.async.cg
# CHECK: mbarrier.inval
import tilec
import tilec.language as tl


@tilec.jit
def mm(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
