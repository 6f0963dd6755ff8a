"""reshape / permute / split / join of a value in an mma (or other non-blocked) layout keep
it in registers: their results get the layout the operand's registers already form (a
linear layout when no named one matches), as Triton infers them. Tutorial 09's subtiled
epilogue -- the accumulator reshaped to (BM, 2, BN/2), permuted, split in halves, each
stored -- went through shared memory twice before (reshape to a blocked layout, then to
the store's). Run on the SIMT simulator (wgmma, sm_90a) and on a GPU when there is one."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from gpu_util import sm90_torch


@triton.jit
def halves(a_ptr, b_ptr, c_ptr, s_ptr, j_ptr, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    acc = tl.dot(a, b)
    c0, c1 = acc.reshape(BM, 2, BN // 2).permute(0, 2, 1).split()
    h = tl.arange(0, BN // 2)
    tl.store(c_ptr + rm[:, None] * BN + h[None, :], c0)
    tl.store(c_ptr + rm[:, None] * BN + BN // 2 + h[None, :], c1)
    # a reduction of a half (its layout a slice of the linear one)
    tl.store(s_ptr + rm, tl.sum(c1, axis=1))
    # and back: join, permute, reshape give the accumulator again
    whole = tl.join(c0, c1).permute(0, 2, 1).reshape(BM, BN)
    tl.store(j_ptr + rm[:, None] * BN + rn[None, :], whole)


def _run(BM=64, BN=64, BK=32):
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (BM, BK)).astype(np.float16)
    b = rng.integers(-3, 4, (BK, BN)).astype(np.float16)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    c = np.full((BM, BN), np.nan, np.float32)
    s = np.full((BM,), np.nan, np.float32)
    j = np.full((BM, BN), np.nan, np.float32)
    return (a, b, c, s, j), ref


def _check(args, ref, BN=64):
    _, _, c, s, j = args
    np.testing.assert_array_equal(c, ref)
    np.testing.assert_array_equal(s, ref[:, BN // 2:].sum(axis=1))
    np.testing.assert_array_equal(j, ref)


def test_split_halves_of_a_wgmma_accumulator_on_the_simulator(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    args, ref = _run()
    k = halves[(1,)](*args, BM=64, BN=64, BK=32)
    _check(args, ref)
    assert "wgmma.mma_async" in k.asm["ptx"]


def test_the_views_take_no_shared_memory(monkeypatch):
    """After allocate-shared: no view op has a shared-memory slot (a conversion through
    shared memory would have one), and split's halves are in the linear layout their
    registers form."""
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    args, ref = _run()
    k = halves[(1,)](*args, BM=64, BN=64, BK=32)
    _check(args, ref)
    ir = k.asm["allocate-shared"]
    views = [ln for ln in ir.splitlines()
             if any(f"= {op} " in ln for op in ("reshape", "permute", "split", "join"))]
    assert len(views) == 6, ir
    assert not [ln for ln in views if "smem_offset" in ln]
    split = next(ln for ln in views if "= split " in ln)
    assert split.split("->")[1].count("#linear<") == 2


@pytest.mark.gpu
def test_split_halves_of_a_wgmma_accumulator_on_the_gpu():
    torch = sm90_torch("wgmma")
    args, ref = _run(BM=128, BN=256, BK=64)
    dev = [torch.from_numpy(x).cuda() for x in args]
    halves[(1,)](*dev, BM=128, BN=256, BK=64, num_warps=8)
    _check([x.cpu().numpy() for x in dev], ref, BN=256)
