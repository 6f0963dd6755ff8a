# static_print output goes to stderr, the IR to stdout; both on success.
# CMD: tilec ir %s:k --signature "*fp32" --constexpr BLOCK=64 --constexpr MODE=fast
# EXIT: 0
# CHECK: tt.func @k(%out: ptr<fp32>)
# CHECK-ERROR: BLOCK = 64 MODE = fast
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out, BLOCK: tl.constexpr, MODE: tl.constexpr):
    tl.static_print("BLOCK =", BLOCK, "MODE =", MODE)
    if MODE == "fast":
        tl.store(out + tl.arange(0, BLOCK), 1.0)
    else:
        tl.store(out + tl.arange(0, BLOCK), 2.0)
