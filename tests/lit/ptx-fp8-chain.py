# An fp8 chained dot on sm_90a (tutorial 06's FP8 p @ v): p = s.to(fp8e5) is staged through
# shared memory for the second wgmma. Each thread's two adjacent columns of s convert as one
# saturating pair, straight into the b16 it stores (no byte stores, no overflow fixup).
# CMD: tilec ptx %s:k --signature "*fp8e5:16,*fp8e5:16,*fp8e5:16,*fp32:16" --arch sm_90a
# (The cast's per-element cvts are left for ptxas to drop: nothing reads them.)
# CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2
# CHECK-NOT: setp.ge.f32
# CHECK: st.shared.b16 [%r{{[0-9]+}}], %rs{{[0-9]+}};
# CHECK-NEXT: cvt.rn.satfinite.e5m2x2.f32 %rs{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
# CHECK-NEXT: st.shared.b16 [%r{{[0-9]+}}+512], %rs
# CHECK-NOT: st.shared.b8
# CHECK: wgmma.mma_async.sync.aligned.m64n32k32.f32.e5m2.e5m2
import tilec as triton
import tilec.language as tl


@triton.jit
def k(q_ptr, k_ptr, vt_ptr, o_ptr):
    rm = tl.arange(0, 64)
    rd = tl.arange(0, 32)
    q = tl.load(q_ptr + rm[:, None] * 32 + rd[None, :])
    kk = tl.load(k_ptr + rm[:, None] * 32 + rd[None, :])
    vt = tl.load(vt_ptr + rd[:, None] * 64 + rm[None, :])
    p = tl.dot(q, kk.T).to(tl.float8e5)
    o = tl.dot(p, vt.T)
    tl.store(o_ptr + rm[:, None] * 32 + rd[None, :], o)
