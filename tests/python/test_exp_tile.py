"""tl.exp on f32 lowers a thread's elements together: one min over their ex2 inputs and a
warp vote pick ex2.approx.ftz (the same MUFU.EX2 as Triton's ex2.approx.f32 when no input
is below -126) or, for a warp with such an input, the exact form. Results must be bit for
bit those of the element-by-element lowering (TILEC_EXP_TILE=0): subnormal results kept,
NaN and infinities alike. PTX text here; the SIMT simulator runs both forms; the GPU test
compares with ex2.approx.f32 written in inline PTX.

When the inputs are `a - b` of their block (a softmax's x - max), the vote is taken from
a and b before the subtraction, and the exp-vote-tail stage gives the exact path its own
copy of what follows (lower/ExpVoteTail.h): the same results again."""
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


def softmax_exp_kernel(X, Y, S, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(X + offs)
    p = tl.exp(x - tl.max(x, axis=1)[:, None])
    tl.store(Y + offs, p)
    tl.store(S + tl.arange(0, R), tl.sum(p, axis=1))


def scaled_exp_kernel(X, Y, K, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(X + offs) * tl.load(K)
    tl.store(Y + offs, tl.exp(x - tl.max(x, axis=1)[:, None]))


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


def test_ptx_early_vote(monkeypatch):
    """x - max(x): the vote before any ex2, the exact path after the kernel's end with its
    own stores; 32 elements a thread (32 x 128 over 128 threads)."""
    monkeypatch.setenv("TILEC_EXP_TILE", "1")
    text = triton.compile(triton.jit(softmax_exp_kernel), "*fp32:16,*fp32:16,*fp32:16",
                          {"R": 32, "C": 128}).asm["ptx"]
    assert "$L__exp_vote_exact:" in text and "$L__exp_ftz" not in text
    assert text.index("vote.sync.any.pred") < text.index("ex2.approx")
    assert text.count("ex2.approx.ftz.f32") == 32 and text.count("ex2.approx.f32") == 32
    body, exact = text.split("$L__exp_vote_exact:")
    assert "ret;" in body  # the copy comes after the kernel's end
    assert exact.count("st.global") > 0 and "bra.uni $L__exp_vote_done" in exact


def test_ptx_early_vote_off(monkeypatch):
    """TILEC_EXP_EARLY_VOTE=0: the vote after the subtraction, no copy (to compare)."""
    monkeypatch.setenv("TILEC_EXP_TILE", "1")
    monkeypatch.setenv("TILEC_EXP_EARLY_VOTE", "0")
    text = triton.compile(triton.jit(softmax_exp_kernel), "*fp32:16,*fp32:16,*fp32:16",
                          {"R": 32, "C": 128}).asm["ptx"]
    assert "$L__exp_vote_exact" not in text and "bra.uni $L__exp_ftz" in text
    assert text.index("ex2.approx") > text.index("vote.sync.any.pred")


@pytest.mark.parametrize("fusion", [True, False])
def test_ptx_product_before_the_sub(monkeypatch, fusion):
    """x * k - max: with enable_fp_fusion ptxas may contract the product into the sub (an
    fma, not fl(a - b)): the vote stays after the subtraction; without, it moves up."""
    monkeypatch.setenv("TILEC_EXP_TILE", "1")
    text = triton.compile(triton.jit(scaled_exp_kernel), "*fp32:16,*fp32:16,*fp32",
                          {"R": 32, "C": 128}, enable_fp_fusion=fusion).asm["ptx"]
    assert ("$L__exp_vote_exact:" in text) == (not fusion)
    assert ("$L__exp_ftz" in text) == fusion


def softmax_inputs(rows, cols, seed):
    """Rows of moderate spread, rows with a few scores far below their max (subnormal
    results: their warp takes the exact path), rows with NaN and infinities."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-20, 20, (rows, cols)).astype(np.float32)
    x[3, 5] = x[3].max() - 95.0
    x[9, :16] = rng.uniform(-104, -86, 16).astype(np.float32) + x[9].max()
    x[17, 7], x[18, 3], x[19, 11] = np.nan, np.inf, -np.inf
    x[25] = -np.inf
    return x


def test_simt_early_vote_matches_element_by_element(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    x = softmax_inputs(32, 128, 2)
    got = {}
    for m in ("0", "1"):
        monkeypatch.setenv("TILEC_EXP_TILE", m)
        y, s = np.full_like(x, 7.0), np.full(32, 7.0, np.float32)
        k = triton.jit(softmax_exp_kernel)[(1,)](x, y, s, R=32, C=128)
        assert ("$L__exp_vote_exact:" in k.asm["ptx"]) == (m == "1")  # the early vote ran
        got[m] = (y, s)
    for a, b in zip(got["0"], got["1"]):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))
    y = got["1"][0]
    assert 0 < y[3, 5] < np.finfo(np.float32).tiny  # subnormal, not flushed
    np.testing.assert_allclose(y[0], np.exp(x[0] - x[0].max()), rtol=4e-6)


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


@pytest.fixture
def gpu_torch(monkeypatch):
    """torch with a GPU (else skip), every launch compiled afresh with the tiled tl.exp."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_EXP_TILE", "1")
    return torch


@pytest.mark.gpu
def test_gpu_bits_equal_ex2_approx(gpu_torch):
    torch = gpu_torch
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


def softmax_vs_asm_kernel(X, Y, R_, R: tl.constexpr, C: tl.constexpr):
    offs = tl.program_id(0) * R * C + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(X + offs)
    d = x - tl.max(x, axis=1)[:, None]
    tl.store(Y + offs, tl.exp(d))
    ref = tl.inline_asm_elementwise(
        "{ .reg .f32 t; mul.rn.f32 t, $1, 0f3FB8AA3B; ex2.approx.f32 $0, t; }", "=r,r", [d],
        dtype=tl.float32, is_pure=True, pack=1)
    tl.store(R_ + offs, ref)


@pytest.mark.gpu
def test_gpu_early_vote_bits_equal_ex2_approx(gpu_torch):
    torch = gpu_torch
    blocks = 64
    x = np.concatenate([softmax_inputs(32, 128, s) for s in range(blocks)])
    x[5 * 32:6 * 32] -= np.random.default_rng(9).uniform(0, 110, (32, 128)).astype(np.float32)
    xt = torch.from_numpy(x).cuda()
    y, r = torch.full_like(xt, 7.0), torch.full_like(xt, 7.0)
    k = triton.jit(softmax_vs_asm_kernel)[(blocks,)](xt, y, r, R=32, C=128)
    assert "$L__exp_vote_exact:" in k.asm["ptx"]
    yb, rb = y.cpu().numpy().view(np.uint32), r.cpu().numpy().view(np.uint32)
    bad = np.argwhere(yb != rb)
    assert bad.size == 0, f"{len(bad)} differ, first at {tuple(bad[0])}"


def test_simt_seed_attention_exact_path_in_the_loop(monkeypatch):
    """The seed attention (128 x 64 blocks, 64 exps a thread: the early vote, whose exact
    copy runs inside the K loop up to p v's wgmma) with keys whose scores sit 80-120 below
    their row's max (subnormal and zero results: those warps take the exact copy), on the
    SIMT simulator: the same bits as the vote after the subtraction."""
    import seed_kernels as sk
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    rng = np.random.default_rng(11)
    shape = (1, 1, 192, 64)
    q = (np.abs(rng.standard_normal(shape)) * 0.5).astype(np.float16)
    k, v = (rng.standard_normal(shape).astype(np.float16) * 0.5 for _ in range(2))
    k[0, 0, 70:75] = -7.5  # q . k = -7.5 * sum(q): about -96 +- 20
    k[0, 0, 150] = -40.0
    out = {}
    for early in ("0", "1"):
        monkeypatch.setenv("TILEC_EXP_EARLY_VOTE", early)
        o = np.full(shape, np.nan, dtype=np.float16)
        st = [x // 2 for x in q.strides]
        kern = sk.fused_attention_kernel[(2, 1)](q, k, v, o, *st, *st, *st, *st, 1, 1, 192,
                                                 BLOCK_M=128, BLOCK_N=64, BLOCK_K=64,
                                                 num_warps=4, num_stages=2)
        assert ("$L__exp_vote_exact:" in kern.asm["ptx"]) == (early == "1")
        out[early] = o
    np.testing.assert_array_equal(out["0"].view(np.uint16), out["1"].view(np.uint16))
    assert not np.isnan(out["1"]).any()


def carried_diff_kernel(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    d = tl.zeros([N], dtype=tl.float32)
    acc = tl.zeros([N], dtype=tl.float32)
    for i in range(3):
        x = tl.load(X + i * N + offs)
        d = x - tl.max(x, axis=0)
        acc += tl.exp(d)
    tl.store(Y + offs, acc + d)


def test_simt_early_vote_of_a_carried_difference(monkeypatch):
    """The subtraction's result is also the loop's carried value (its yield reads it after
    the exponential): both paths define it; the same bits as the late vote."""
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    n = 2048  # 16 a thread
    rng = np.random.default_rng(5)
    x = rng.uniform(-20, 20, 3 * n).astype(np.float32)
    x[n + 100:n + 140] = -110.0  # the second iteration's warp 0 takes the exact path
    out = {}
    for early in ("0", "1"):
        monkeypatch.setenv("TILEC_EXP_EARLY_VOTE", early)
        y = np.full(n, 7.0, np.float32)
        k = triton.jit(carried_diff_kernel)[(1,)](x, y, N=n)
        assert ("$L__exp_vote_exact:" in k.asm["ptx"]) == (early == "1")
        out[early] = y
    np.testing.assert_array_equal(out["0"].view(np.uint32), out["1"].view(np.uint32))
    ref = sum(np.exp((x[i * n:(i + 1) * n] - x[i * n:(i + 1) * n].max()).astype(np.float64))
              for i in range(3)) + (x[2 * n:] - x[2 * n:].max())
    np.testing.assert_allclose(out["1"], ref, rtol=1e-5, atol=1e-30)


def block_softmax_kernel(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    p = tl.exp(x - tl.max(x, axis=0))
    tl.store(Y + offs, p / tl.sum(p, axis=0))


def test_simt_exact_copy_stops_at_the_barrier(monkeypatch):
    """A sum across warps after the exponential goes through shared memory and bar.sync: the
    exact copy ends before that barrier, so warps that took different paths meet at one
    barrier instruction. Warp 3's inputs take the exact path, the others do not."""
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    n = 2048  # 16 a thread, 4 warps
    rng = np.random.default_rng(8)
    x = rng.uniform(-5, 5, n).astype(np.float32)
    k = triton.compile(triton.jit(block_softmax_kernel), "*fp32:16,*fp32:16", {"N": n})
    text = k.asm["ptx"]
    exact = text.split("$L__exp_vote_exact:")[1]
    assert "bar.sync" not in exact and "bar.sync" in text  # the copy stops before it
    inputs = []
    for seed in range(2):
        xs = x.copy()
        xs[rng.integers(0, n, 4)] = -100.0 - 10 * seed  # some warps' inputs < -126
        inputs.append(xs)
    out = {}
    for early in ("0", "1"):
        monkeypatch.setenv("TILEC_EXP_EARLY_VOTE", early)
        for seed, xs in enumerate(inputs):
            y = np.full(n, 7.0, np.float32)
            triton.jit(block_softmax_kernel)[(1,)](xs, y, N=n)
            out[early, seed] = y
    for seed in range(2):
        np.testing.assert_array_equal(out["0", seed].view(np.uint32),
                                      out["1", seed].view(np.uint32))
