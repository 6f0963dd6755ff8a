# tl.dot on sm_90a: a 64-row tile and 4 warps (one warpgroup) take wgmma. A and B are
# stored to shared memory in the descriptors' swizzled layouts with 16-byte stores, made
# visible to the async proxy, then one wgmma per K step of 16, committed and waited for.
# CMD: tilec ptx %s:k --signature "*fp16:16,*fp16:16,*fp32:16" --arch sm_90a
# CHECK: .target sm_90a
# CHECK: st.shared.v4.b32
# CHECK: fence.proxy.async.shared::cta
# CHECK: bar.sync 0
# CHECK: wgmma.fence.sync.aligned
# CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# CHECK: wgmma.commit_group.sync.aligned
# CHECK: wgmma.wait_group.sync.aligned 0
# CHECK-NOT: mma.sync
import tilec as triton
import tilec.language as tl


@triton.jit
def k(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 64)
    kk = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + kk[None, :])
    b = tl.load(b_ptr + kk[:, None] * 64 + r[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], c)
