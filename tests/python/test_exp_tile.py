"""tl.exp on f32 lowers a thread's elements together: one min over their ex2 inputs and a
warp vote pick ex2.approx.ftz (the same MUFU.EX2 as Triton's ex2.approx.f32 when no input
is below -126) or, for a warp with such an input, the exact form. Results must be bit for
bit those of the element-by-element lowering (TILEC_EXP_TILE=0): subnormal results kept,
NaN and infinities alike. PTX text here; the SIMT simulator runs both forms; the GPU test
compares with ex2.approx.f32 written in inline PTX."""
import numpy as np
import pytest

import tilec as triton
import tilec.language as tl

# 87.34 * log2(e) = 126: inputs below -87.34 have subnormal (or zero) results
LOW = -87.5


def exp_kernel(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.exp(tl.load(X + offs)))


def exp_vs_asm_kernel(X, Y, R, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(X + offs)
    tl.store(Y + offs, tl.exp(x))
    ref = tl.inline_asm_elementwise(
        "{ .reg .f32 t; mul.rn.f32 t, $1, 0f3FB8AA3B; ex2.approx.f32 $0, t; }", "=r,r", [x],
        dtype=tl.float32, is_pure=True, pack=1)
    tl.store(R + offs, ref)


def ptx(monkeypatch, mode, n, num_warps=4):
    monkeypatch.setenv("TILEC_EXP_TILE", mode)
    return triton.compile(triton.jit(exp_kernel), "*fp32:16,*fp32:16", {"N": n},
                          num_warps=num_warps).asm["ptx"]


@pytest.mark.parametrize("n,tiled", [(1024, True), (512, True), (256, False)])
def test_ptx(monkeypatch, n, tiled):
    # 128 threads: 1024 -> 8 elements a thread, 512 -> 4 (tiled), 256 -> 2 (not worth it)
    text = ptx(monkeypatch, "1", n)
    assert ("vote.sync.any.pred" in text) == tiled
    assert text.count("ex2.approx.ftz.f32") == (n // 128 if tiled else 0)
    assert text.count("ex2.approx.f32") == n // 128  # the exact form, once per element
    assert ("bra.uni $L__exp_ftz" in text) == tiled
    off = ptx(monkeypatch, "0", n)
    assert "vote.sync" not in off and "ex2.approx.ftz" not in off


def inputs(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-20, 20, n).astype(np.float32)
    x[37] = LOW - 10          # one lane of warp 1: that warp takes the exact form
    x[300:304] = [np.nan, np.inf, -np.inf, -0.0]
    x[700] = 88.7             # near the f32 overflow of exp
    x[900:932] = rng.uniform(-104, -86, 32).astype(np.float32)  # a warp of mixed lanes
    return x


def test_simt_matches_element_by_element(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    x = inputs(1024, 1)
    got = {}
    for m in ("0", "1"):
        monkeypatch.setenv("TILEC_EXP_TILE", m)
        y = np.full_like(x, 7.0)
        triton.jit(exp_kernel)[(1,)](x, y, N=1024)
        got[m] = y
    np.testing.assert_array_equal(got["0"].view(np.uint32), got["1"].view(np.uint32))
    y = got["1"]
    assert 0 < y[37] < np.finfo(np.float32).tiny   # subnormal, not flushed
    assert np.isnan(y[300]) and y[301] == np.inf and y[302] == 0 and y[303] == 1
    normal = x > LOW
    np.testing.assert_allclose(y[normal], np.exp(x[normal].astype(np.float64)), rtol=4e-6)


@pytest.mark.gpu
def test_gpu_bits_equal_ex2_approx(monkeypatch):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_EXP_TILE", "1")
    n, blocks = 1024, 64
    x = np.concatenate([inputs(n, s) for s in range(blocks)])
    x[5 * n:6 * n] = np.random.default_rng(9).uniform(-130, 0, n)  # many slow warps
    xt = torch.from_numpy(x).cuda()
    y, r = torch.full_like(xt, 7.0), torch.full_like(xt, 7.0)
    k = triton.jit(exp_vs_asm_kernel)[(blocks,)](xt, y, r, N=n)
    assert "vote.sync.any.pred" in k.asm["ptx"]
    yb, rb = y.cpu().numpy().view(np.uint32), r.cpu().numpy().view(np.uint32)
    bad = np.nonzero(yb != rb)[0]
    assert bad.size == 0, f"{bad.size} differ, first x={x[bad[0]]!r}"
    sub = (x < LOW) & (x > -103)
    assert (r.cpu().numpy()[sub] > 0).all()  # ex2.approx.f32 keeps subnormal results
