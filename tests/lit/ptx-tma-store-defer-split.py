# Two deferred TMA stores a tile (tutorial 09's split epilogue), each with staging of its
# own: before staging, thread 0 waits only for its own store's previous boxes, leaving the
# other store's group in flight (`read 1`), not for the half it has just issued; at the
# kernel's end it waits for all.
# CMD: tilec ptx %s:k --signature "tensordesc<fp16[64,32]>:16,tensordesc<fp16[32,64]>:16,tensordesc<fp16[64,32]>:16,i32:16,i32:16,i32:16" --constexpr BM=64 --constexpr BN=64 --constexpr BK=32 --constexpr PROGRAMS=132 --arch sm_90a --tma --num-stages 3
# CHECK: cp.async.bulk.wait_group.read 1;
# CHECK-NEXT: bar.sync 0;
# CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
# CHECK-NEXT: cp.async.bulk.commit_group;
# CHECK-NOT: cp.async.bulk.wait_group.read 0;
# CHECK: cp.async.bulk.wait_group.read 1;
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
        c0, c1 = acc.to(tl.float16).reshape(BM, 2, BN // 2).permute(0, 2, 1).split()
        c_desc.store([pm * BM, pn * BN], c0)
        c_desc.store([pm * BM, pn * BN + BN // 2], c1)
