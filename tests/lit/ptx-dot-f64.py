# An fp64 dot on sm_90 runs on the tensor cores (Triton's choice on sm_80 and sm_90):
# mma.sync m16n8k8 with f64 fragments straight from f64 registers, no FMA chain (sm_80:
# four m8n8k4 a tile, checked with the simulator in tests/cpp/lower/LowerDotTest.cpp).
# CMD: tilec ptx %s:k --signature "*fp64:16,*fp64:16,*fp64:16" --arch sm_90a --num-warps 4
# CHECK-NOT: fma.rn.f64
# CHECK: mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%rd{{[0-9]+}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}}, {%rd
# CHECK-NOT: fma.rn.f64
import tilec as triton
import tilec.language as tl


@triton.jit
def k(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
    tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot(a, b))
