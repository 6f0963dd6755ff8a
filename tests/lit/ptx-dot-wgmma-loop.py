# A K loop accumulating with tl.dot on sm_90a keeps one wgmma group in flight: the
# operands alternate between two shared buffers, each iteration waits only for the
# previous group (wait_group 1), and the last group is waited for after the loop.
# CMD: tilec ptx %s:k --signature "*fp16:16,*fp16:16,*fp32:16,i32" --arch sm_90a
# CHECK: .extern .shared .align 1024
# CHECK: $L__loop:
# CHECK: wgmma.fence.sync.aligned
# CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# CHECK: wgmma.commit_group.sync.aligned
# CHECK: wgmma.wait_group.sync.aligned 1
# CHECK: $L__endloop:
# CHECK-NEXT: wgmma.wait_group.sync.aligned 0
import tilec as triton
import tilec.language as tl


@triton.jit
def k(a_ptr, b_ptr, c_ptr, K):
    r = tl.arange(0, 64)
    kk = tl.arange(0, 32)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k0 in range(0, K, 32):
        a = tl.load(a_ptr + r[:, None] * K + (k0 + kk)[None, :])
        b = tl.load(b_ptr + (k0 + kk)[:, None] * 64 + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)
