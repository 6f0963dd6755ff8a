# wgmma descriptors in a K loop of one dot (LowerWgmma's make_descriptors, the default
# TILEC_WGMMA_DESC=auto): both are 64-bit, each K step's start one 64-bit add (ptxas: a
# UIADD3.64 when the descriptor sits in a uniform register pair, as in bodies of one or
# two dots); ptx-wgmma-descriptors.py: three dots.
# CMD: tilec ptx %s:k --signature "*fp16:16,*fp16:16,*fp32:16,i32" --arch sm_90a --num-stages 3
# CHECK: $L__loop:
# CHECK: wgmma.fence.sync.aligned;
# CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# CHECK-NEXT: add.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 128;
# CHECK-NEXT: add.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 2;
# CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# CHECK: $L__endloop:
import tilec as triton
import tilec.language as tl


@triton.jit
def k(a_ptr, b_ptr, c_ptr, K):
    r = tl.arange(0, 64)
    a = tl.load(a_ptr + r[:, None] * 64 + r[None, :])
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k0 in range(0, K, 64):
        b = tl.load(b_ptr + (k0 + r)[:, None] * 64 + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)
