# A TMA ring copy: its destination is computed by every thread (no guard, so ptxas keeps it
# uniform), warps other than the first branch past the issue (a uniform branch on warp 0
# and the copy's predicate), and thread 0 alone arrives on the barrier and copies. With the
# operands computed under thread 0's predicate, ptxas issued each UTMALDG in a loop over
# the lanes (ELECT, R2UR, BRA.U.ANY) in every warp.
# CMD: tilec ptx %s:mm --signature "tensordesc<fp16[128,64]>:16,tensordesc<fp16[64,128]>:16,*fp32:16,i32:16,i32:16,i32:16" --constexpr BM=128 --constexpr BN=128 --constexpr BK=64 --num-stages 3 --arch sm_90a --tma
# CHECK: wgmma.mma_async
# CHECK-NOT: {{@%p[0-9]+ (add|mov|shl|mul)}}
# CHECK: setp.eq.u32 {{%p[0-9]+}}, {{%r[0-9]+}}, 0;
# CHECK-NEXT: and.pred
# CHECK-NEXT: {{@!%p[0-9]+}} bra.uni $L__uniform_endif_
# CHECK-NEXT: $L__uniform_if_
# CHECK-NEXT: {{@%p[0-9]+}} mbarrier.arrive.expect_tx.shared::cta.b64
# CHECK-NEXT: {{@%p[0-9]+}} cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# CHECK-NEXT: $L__uniform_endif_
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
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)
