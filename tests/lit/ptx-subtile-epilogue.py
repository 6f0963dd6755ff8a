# Tutorial 09's subtiled epilogue: the wgmma accumulator reshaped to (BM, 2, BN/2),
# permuted and split in halves, each stored by TMA. The views keep the registers where
# they are (the halves' layout is the one the accumulator's registers form), so each half
# goes from the accumulator straight into its staging with stmatrix: no shared-memory
# round trip (it was st.shared + ld.shared for the reshape, then st.shared.b16 a value).
# CMD: tilec ptx %s:k --signature "tensordesc<fp16[128,64]>:16,tensordesc<fp16[64,256]>:16,tensordesc<fp16[128,128]>:16,i32:16,i32:16,i32:16" --constexpr BM=128 --constexpr BN=256 --constexpr BK=64 --constexpr PROGRAMS=132 --arch sm_90a --tma --num-stages 3 --num-warps 8
# CHECK: wgmma.mma_async
# CHECK: wgmma.wait_group.sync.aligned 0;
# CHECK-NOT: ld.shared
# CHECK-NOT: st.shared.b16
# CHECK: cvt.rn.f16x2.f32
# CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
# CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
# CHECK-NOT: ld.shared
# CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
# CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
# CHECK: ret;
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
            acc = tl.dot(a_desc.load([pm * BM, kk]), b_desc.load([kk, pn * BN]), acc)
        c0, c1 = tl.split(tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1)))
        c_desc.store([pm * BM, pn * BN], c0.to(tl.float16))
        c_desc.store([pm * BM, pn * BN + BN // 2], c1.to(tl.float16))
