# A bad signature entry is a usage error: exit code 2 and a clear message.
# CMD: tilec ir %s:k --signature "*fp32,int32x" --constexpr BLOCK=64
# EXIT: 2
# CHECK-ERROR: tilec: bad --signature entry 'int32x': unknown dtype 'int32x'
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out, n, BLOCK: tl.constexpr):
    tl.store(out + tl.arange(0, BLOCK), 1.0, mask=tl.arange(0, BLOCK) < n)
