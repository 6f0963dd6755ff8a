# --stage frontend shows Sema's IR before any pass: the constant arithmetic and the
# duplicate program_id are still there (kernel-stage-final.py shows them gone).
# CMD: tilec ir %s:k --signature "*fp32" --constexpr BLOCK=64 --stage frontend
# CHECK: tt.func @k(%out: ptr<fp32>) {
# CHECK: program_id {axis = 0}
# CHECK: program_id {axis = 0}
# CHECK: mul
# CHECK: store
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out, BLOCK: tl.constexpr):
    a = tl.program_id(0) * 1
    b = tl.program_id(0) + 0
    offs = tl.arange(0, BLOCK)
    x = tl.zeros((BLOCK,), dtype=tl.float32) + 2.0
    tl.store(out + a + b + offs, x * 1.0)
