# A chained dot on sm_90a (attention's p @ v): the second wgmma reads A from registers.
# Every A fragment (cvt.rn.f16x2.f32, the fp16 p) is packed before the wgmma.fence that
# opens its K steps: a register written after the fence makes ptxas insert a
# warpgroup.arrive before each wgmma that reads it.
# CMD: tilec ptx %s:k --signature "*fp16:16,*fp16:16,*fp16:16,*fp32:16" --arch sm_90a
# CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# CHECK: cvt.rn.f16x2.f32
# CHECK: wgmma.fence.sync.aligned
# CHECK-NOT: cvt.rn.f16x2.f32
# CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}}, {%r
# CHECK-NOT: cvt.rn.f16x2.f32
# CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}}, {%r
# CHECK: wgmma.commit_group.sync.aligned
import tilec as triton
import tilec.language as tl


@triton.jit
def k(q_ptr, k_ptr, v_ptr, o_ptr):
    r = tl.arange(0, 64)
    q = tl.load(q_ptr + r[:, None] * 64 + r[None, :])
    kt = tl.load(k_ptr + r[:, None] + r[None, :] * 64)
    v = tl.load(v_ptr + r[:, None] * 64 + r[None, :])
    s = tl.dot(q, kt)
    p = tl.exp(s).to(tl.float16)
    o = tl.dot(p, v)
    tl.store(o_ptr + r[:, None] * 64 + r[None, :], o)
