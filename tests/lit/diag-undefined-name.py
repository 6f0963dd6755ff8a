# A user error is rendered as file:line:col, the source line and a caret; exit code 1.
# CMD: tilec ir %s:k --signature "*fp32" --constexpr BLOCK=64
# CHECK-ERROR: diag-undefined-name.py:15:{{[0-9]+}}: error: {{.*}}undefined_thing
# CHECK-ERROR: tl.store(out + offs, undefined_thing)
# CHECK-ERROR: ^
import tilec as triton
import tilec.language as tl


@triton.jit
def k(out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    # a comment line, so the error is not on the def's line
    x = offs * 2
    tl.store(out + offs, undefined_thing)
