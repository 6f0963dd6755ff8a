# libdevice under each import spelling, resolved by the CLI without Python: tanh imported by
# name, erf through `import ... as`, exp through `from ... import libdevice`, sinpi through
# tl.extra.cuda.libdevice. fp32 tanh and exp are fp32 formulas (tanh's 1 - 2 / (e^2x + 1)
# divides with rounding "rn"); erf is the fp32 erf op; fp32 sinpi widens to fp64 and
# rounds once.
# CMD: tilec ir %s:k --signature "*fp32,*fp32"
# CHECK-NOT: tile<16xfp64>
# CHECK: div %{{[0-9]+}}, %{{[0-9]+}} {rounding = "rn"} : tile<16xfp32>
# CHECK-NOT: tile<16xfp64>
# CHECK: erf %{{[0-9]+}} : tile<16xfp32>
# CHECK-NOT: tile<16xfp64>
# CHECK: cast %{{[0-9]+}} : tile<16xfp32> -> tile<16xfp64>
# CHECK: sin %{{[0-9]+}} : tile<16xfp64>
# CHECK: cast %{{[0-9]+}} : tile<16xfp64> -> tile<16xfp32>
# CHECK: store
import triton
import triton.language as tl
from triton.language.extra.cuda.libdevice import tanh as th
import triton.language.extra.cuda.libdevice as ld
from triton.language.extra import libdevice


@triton.jit
def k(X, Y):
    x = tl.load(X + tl.arange(0, 16))
    y = th(x) + ld.erf(x) + libdevice.exp(x) + tl.extra.cuda.libdevice.sinpi(x)
    tl.store(Y + tl.arange(0, 16), y)
