# tl.dot on fp16 down the GPU path: operands staged in shared memory, read with ldmatrix
# (B transposed: it is not K-contiguous), multiplied by mma.sync m16n8k16 into fp32.
# CMD: tilec ptx %s:k --signature "*fp16:16,*fp32:16" --arch sm_80
# CHECK: .target sm_80
# CHECK: ldmatrix.sync.aligned.m8n8.{{x[124](\.trans)?}}.shared.b16
# CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
import tilec as triton
import tilec.language as tl


@triton.jit
def k(a_ptr, c_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs[:, None] * 16 + offs[None, :])
    c = tl.dot(a, a)
    tl.store(c_ptr + offs[:, None] * 16 + offs[None, :], c)
