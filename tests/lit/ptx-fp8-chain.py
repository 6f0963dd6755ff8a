# An fp8 chained dot on sm_90a (tutorial 06's FP8 p @ v): p = s.to(fp8e5) is the second
# wgmma's A from registers, as Triton does. Each thread's two adjacent columns of s convert
# as one saturating pair; the k32 fragments' 4-byte registers are gathered within each quad
# of lanes (shfl.sync.idx, then prmt by lane); nothing of p goes to shared memory.
# CMD: tilec ptx %s:k --signature "*fp8e5:16,*fp8e5:16,*fp8e5:16,*fp32:16" --arch sm_90a
# (The cast's per-element cvts are left for ptxas to drop: nothing reads them.)
# CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2
# CHECK-NOT: setp.ge.f32
# CHECK: cvt.rn.satfinite.e5m2x2.f32 %rs{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
# CHECK: shfl.sync.idx.b32
# CHECK: prmt.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
# CHECK-NOT: st.shared
# CHECK: wgmma.mma_async.sync.aligned.m64n32k32.f32.e5m2.e5m2 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd
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
