# With --tma, a descriptor's block store is a TMA store: every thread writes its elements
# where the boxes place them in shared memory (128-byte swizzle: [64, 64] fp16 rows of 128
# bytes, one box), a proxy fence and a barrier, then one thread stores the box and waits
# until it has read shared memory. The host descriptor's map is a .param the launch encodes.
# CMD: tilec ptx %s:k --signature "tensordesc<fp16[64,64]>:16,tensordesc<fp16[64,64]>:16" --constexpr BM=64 --constexpr BN=64 --arch sm_90a --tma
# CHECK: .param .align 64 .b8 k_param_{{[0-9]+}}[128]
# CHECK-NOT: cp.async.bulk.tensor.2d.shared
# CHECK: st.shared.v4.b32
# CHECK: fence.proxy.async.shared::cta;
# CHECK-NEXT: bar.sync 0;
# CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}];
# CHECK-NEXT: cp.async.bulk.commit_group;
# CHECK-NEXT: cp.async.bulk.wait_group.read 0;
# CHECK-NOT: st.global
import tilec
import tilec.language as tl


@tilec.jit
def k(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    dst.store([m, n], src.load([m, n]) * 2)
