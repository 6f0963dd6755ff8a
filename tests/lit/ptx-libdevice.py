# libdevice composed from Tile IR ops: pow(x, 3) widens to fp64 (cvt.f64.f32), runs fp64
# polynomials (fma.rn.f64) and rounds once back (cvt.rn.f32.f64); fp32 tanh stays in fp32
# (its own fp32 exp, then the IEEE division); fast_expf is ex2.approx like tl.exp; popc is the SWAR bit count (0x55555555 = 1431655765); fmod is
# the stepwise exact reduction, rounded back once more. ptxas accepts it for sm_90a and
# sm_80 (the SIMT language run checks every kernel of test_lang_libdevice.py).
# CMD: tilec ptx %s:gelu_ish --signature "*fp32:16,*fp32:16,i32" --constexpr BLOCK=128 --num-warps 4 --arch sm_90a
# CHECK: cvt.f64.f32 %rd{{[0-9]+}}, %r{{[0-9]+}};
# CHECK: fma.rn.f64
# CHECK: cvt.rn.f32.f64
# CHECK: div.rn.f32
# CHECK: ex2.approx.f32
# CHECK: mov.u32 %r{{[0-9]+}}, 1431655765;
# CHECK: cvt.rn.f32.f64
# CHECK: st.global.b32
import tilec as triton
import tilec.language as tl
from tilec.language.extra import libdevice


@triton.jit
def gelu_ish(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    t = libdevice.tanh(0.7978845608 * (x + 0.044715 * libdevice.pow(x, 3)))
    e = libdevice.erf(x * 0.7071067811865476) + libdevice.fast_expf(-x)
    r = libdevice.rint(x) + libdevice.popc(offs).to(tl.float32) + libdevice.fmod(x, 3.0)
    tl.store(y_ptr + offs, tl.where(libdevice.isnan(x), 0.0, 0.5 * x * (1 + t) + e + r), mask=mask)
