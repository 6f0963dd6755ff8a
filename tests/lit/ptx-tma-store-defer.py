# A TMA store in a loop (a persistent kernel's epilogue) is deferred: thread 0 waits for
# the previous tile's boxes to leave shared memory before the staging is written again
# (then a barrier), commits without waiting, so the store drains while the next tile's
# K loop runs, and waits once more at the kernel's end.
# CMD: tilec ptx %s:k --signature "tensordesc<fp16[64,32]>:16,tensordesc<fp16[32,64]>:16,tensordesc<fp16[64,64]>:16,i32:16,i32:16,i32:16" --constexpr BM=64 --constexpr BN=64 --constexpr BK=32 --constexpr PROGRAMS=132 --arch sm_90a --tma --num-stages 3
# CHECK: cp.async.bulk.tensor.2d.shared::cluster.global
# CHECK: cp.async.bulk.wait_group.read 0;
# CHECK-NEXT: bar.sync 0;
# CHECK: fence.proxy.async.shared::cta;
# CHECK-NEXT: bar.sync 0;
# CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
# CHECK-NEXT: cp.async.bulk.commit_group;
# CHECK-NOT: cp.async.bulk.wait_group.read
# CHECK: bra.uni
# CHECK: cp.async.bulk.wait_group.read 0;
# CHECK-NEXT: ret;
import tilec
import tilec.language as tl


@tilec.jit
def k(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
      PROGRAMS: tl.constexpr):
    num_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * num_n
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS):
        pm = tile // num_n
        pn = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(0, K, BK):
            a = a_desc.load([pm * BM, kk])
            b = b_desc.load([kk, pn * BN])
            acc = tl.dot(a, b, acc)
        c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))
