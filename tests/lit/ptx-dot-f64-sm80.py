# sm_80 has only the m8n8k4 fp64 mma: each m16n8k8 tile of the layout is four of them.
# CMD: tilec ptx %s:k --signature "*fp64:16,*fp64:16,*fp64:16" --arch sm_80 --num-warps 4
# CHECK-NOT: fma.rn.f64
# CHECK: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%rd{{[0-9]+}}, %rd{{[0-9]+}}}, {%rd{{[0-9]+}}}, {%rd{{[0-9]+}}}, {%rd
# CHECK-NOT: fma.rn.f64
import tilec as triton
import tilec.language as tl


@triton.jit
def k(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
    tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot(a, b))
