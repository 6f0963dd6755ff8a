# Two TMA rings made together (a dot's A and B) share the fence and barrier that publish
# their mbarrier inits (six inits, then one fence.proxy.async and one bar.sync), and after
# the loop one barrier comes before all six invalidations.
# CMD: tilec ptx %s:mm --signature "tensordesc<fp16[128,64]>:16,tensordesc<fp16[64,128]>:16,*fp32:16,i32:16,i32:16,i32:16" --constexpr BM=128 --constexpr BN=128 --constexpr BK=64 --num-stages 3 --arch sm_90a --tma
# CHECK: mbarrier.init.shared::cta.b64
# CHECK-NOT: bar.sync
# CHECK: mbarrier.init.shared::cta.b64
# CHECK-NOT: bar.sync
# CHECK: mbarrier.init.shared::cta.b64
# CHECK-NOT: bar.sync
# CHECK: mbarrier.init.shared::cta.b64
# CHECK-NOT: bar.sync
# CHECK: mbarrier.init.shared::cta.b64
# CHECK-NOT: bar.sync
# CHECK: mbarrier.init.shared::cta.b64
# CHECK-NEXT: fence.proxy.async.shared::cta;
# CHECK-NEXT: bar.sync 0;
# CHECK: mbarrier.inval.shared::cta.b64
# CHECK-NOT: bar.sync
# CHECK: mbarrier.inval.shared::cta.b64
# CHECK-NOT: bar.sync
# CHECK: mbarrier.inval.shared::cta.b64
# CHECK-NOT: bar.sync
# CHECK: mbarrier.inval.shared::cta.b64
# CHECK-NOT: bar.sync
# CHECK: mbarrier.inval.shared::cta.b64
# CHECK-NOT: bar.sync
# CHECK: mbarrier.inval.shared::cta.b64
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
