# prefetch-loads (transforms/PrefetchLoads.h): in a K loop of a dot, the small load of a
# row of 32 fp32 (fewer elements than the CTA's 128 threads, so pipeline-loads leaves it
# where it is used, as attention backward's m) gets, after each of its accesses, a
# prefetch of the next iteration's bytes into L1: its pointers step by 32 elements = 128
# bytes an iteration (curr += 32), under the predicate that a next iteration exists. The
# unmasked tile load of q goes into the cp.async ring; the masked row load is left alone.
# CMD: tilec ptx %s:k --signature "*fp16:16,*fp32:16,*fp32:16,*fp32:16,i32" --arch sm_90a --num-stages 3
# CHECK: $L__loop:
# CHECK: ld.global.v2.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
# CHECK-NEXT: @%p{{[0-9]+}} prefetch.global.L1 [%rd{{[0-9]+}}+128];
# CHECK-NEXT: ld.global.v2.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
# CHECK-NEXT: @%p{{[0-9]+}} prefetch.global.L1 [%rd{{[0-9]+}}+128];
# CHECK: @%p{{[0-9]+}} ld.global.v2.b32
# CHECK-NOT: prefetch
# CHECK: $L__endloop:
import tilec as triton
import tilec.language as tl


@triton.jit
def k(q_ptr, m_ptr, w_ptr, out_ptr, n):
    r64 = tl.arange(0, 64)
    r32 = tl.arange(0, 32)
    kt = tl.load(q_ptr + r64[:, None] * 64 + r64[None, :])
    acc = tl.zeros([64, 32], dtype=tl.float32)
    curr = 0
    for i in range(0, n, 1):
        qT = tl.load(q_ptr + 4096 + (curr + r32)[None, :] * 64 + r64[:, None])
        m = tl.load(m_ptr + curr + r32)
        w = tl.load(w_ptr + curr + r32, mask=curr + r32 < n * 32, other=0.0)
        s = tl.dot(kt, qT)
        acc += tl.exp2(s - m[None, :]) * w[None, :]
        curr += 32
    tl.store(out_ptr + r64[:, None] * 32 + r32[None, :], acc)
