# wgmma descriptors in a K loop of three dots (LowerWgmma's make_descriptors, the default
# TILEC_WGMMA_DESC=auto): B, read from this iteration's ring stage, is one 64-bit add of
# the stage's offset and then one of each K step's start; A, invariant in shared memory,
# stays a 32-bit low word (start field and leading byte offset) to which each K step adds
# its start in 32 bits, widened under the constant high word right before its wgmma (a
# 64-bit add there costs a carry chain a tile when ptxas keeps only the low word in a
# uniform register, as in attention backward's bodies). ptx-wgmma-descriptors-wide.py: one dot.
# CMD: tilec ptx %s:k --signature "*fp16:16,*fp16:16,*fp32:16,i32" --arch sm_90a --num-stages 3
# CHECK: and.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16383;
# CHECK: $L__loop:
# CHECK: add.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %rd{{[0-9]+}};
# CHECK: wgmma.fence.sync.aligned;
# CHECK-NEXT: cvt.u64.u32
# CHECK-NEXT: or.b64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 4611686293305294848;
# CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# CHECK-NEXT: add.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 128;
# CHECK-NEXT: add.u32 %r{{[0-9]+}}, %r{{[0-9]+}}, 2;
# CHECK-NEXT: cvt.u64.u32
# CHECK-NEXT: or.b64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 4611686293305294848;
# CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# CHECK: $L__endloop:
import tilec as triton
import tilec.language as tl


@triton.jit
def k(a_ptr, b_ptr, c_ptr, K):
    r = tl.arange(0, 64)
    a = tl.load(a_ptr + r[:, None] * 64 + r[None, :])
    a2 = tl.load(a_ptr + 4096 + r[:, None] * 64 + r[None, :])
    acc = tl.zeros((64, 64), dtype=tl.float32)
    acc2 = tl.zeros((64, 64), dtype=tl.float32)
    acc3 = tl.zeros((64, 64), dtype=tl.float32)
    for k0 in range(0, K, 64):
        b = tl.load(b_ptr + (k0 + r)[:, None] * 64 + r[None, :])
        acc = tl.dot(a, b, acc)
        acc2 = tl.dot(a2, b, acc2)
        acc3 = tl.dot(a + a2, b, acc3)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc + acc2 + acc3)
