"""tl.math.exp2 on f32 flushes subnormal results to 0 on the GPU path, as Triton's libdevice
does under enable_reflect_ftz (Triton's default); enable_reflect_ftz=False keeps them. The
lowered code runs on the SIMT simulator (TILEC_SIMT=1); the tile interpreter, like Triton's,
computes exp2 exactly either way."""
import numpy as np
import pytest

import tilec as triton
import tilec.language as tl


def exp2_kernel(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.math.exp2(tl.load(X + offs)))


X = np.array([-140.0, -127.5, -126.0, -10.0, 0.0, 3.5, 127.0, -200.0], np.float32)


def run(kernel, **opts):
    y = np.full_like(X, np.nan)
    kernel[(1,)](X, y, N=8, **opts)
    return y


@pytest.mark.parametrize("simt", [False, True])
def test_exp2_subnormals(monkeypatch, simt):
    if simt:
        monkeypatch.setenv("TILEC_SIMT", "1")
    kernel = triton.jit(exp2_kernel)  # its own caches: TILEC_SIMT is read when compiling
    exact = np.exp2(X.astype(np.float64)).astype(np.float32)
    keep = run(kernel, enable_reflect_ftz=False)
    np.testing.assert_allclose(keep, exact, rtol=2e-6, atol=0)
    flushed = run(kernel)
    normal = np.abs(exact) >= np.finfo(np.float32).tiny
    np.testing.assert_allclose(flushed[normal], exact[normal], rtol=2e-6)
    if simt:  # the GPU code: exp2(-140) and exp2(-127.5) are subnormal, flushed to 0
        assert (flushed[~normal] == 0).all() and (exact[~normal] != 0).any()
    else:     # the tile interpreter keeps them
        np.testing.assert_array_equal(flushed, keep)


@pytest.mark.parametrize("ftz", [True, False])
def test_compile_takes_enable_reflect_ftz(ftz):
    ptx = triton.compile(triton.jit(exp2_kernel), "*fp32:16,*fp32:16", {"N": 8},
                         enable_reflect_ftz=ftz).asm["ptx"]
    assert ("ex2.approx.ftz.f32" in ptx) == ftz and "ex2.approx" in ptx
