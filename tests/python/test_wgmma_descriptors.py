"""wgmma descriptors (lower/LowerWgmma.cpp, make_descriptors; TILEC_WGMMA_DESC): an operand
stored once before its loop keeps its descriptor as a 32-bit low word, each tile's start
added in 32 bits and the constant high word put above it, in loop bodies of three wgmma
dots or more ("auto"; "low" always); elsewhere ("wide") each tile's start is one 64-bit add.
Both forms describe the same bytes: the SIMT simulator runs a three-dot loop in each mode
against numpy, and so does the GPU. PTX text: the form each mode gives (tests/lit has the
instruction sequences, ptx-wgmma-descriptors*.py)."""
import re

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl


@triton.jit
def three_dots(A, B, C, K, BN: tl.constexpr, DOTS: tl.constexpr):
    # a and a2 are stored into shared memory once, before the loop (invariant descriptors);
    # b goes through a cp.async ring (a descriptor that moves with the stage)
    r = tl.arange(0, 64)
    n = tl.arange(0, BN)
    a = tl.load(A + r[:, None] * 64 + r[None, :])
    a2 = tl.load(A + 4096 + r[:, None] * 64 + r[None, :])
    acc = tl.zeros((64, BN), dtype=tl.float32)
    acc2 = tl.zeros((64, BN), dtype=tl.float32)
    acc3 = tl.zeros((64, BN), dtype=tl.float32)
    for k0 in range(0, K, 64):
        b = tl.load(B + (k0 + r)[:, None] * BN + n[None, :])
        acc = tl.dot(a, b, acc)
        if DOTS == 3:
            acc2 = tl.dot(a2, b, acc2)
            acc3 = tl.dot(a - a2, b, acc3)
    tl.store(C + r[:, None] * BN + n[None, :], acc + 2 * acc2 + 4 * acc3)


def reference(a, b, dots):
    a1, a2 = (x.astype(np.float64) for x in (a[:64], a[64:]))
    bsum = sum(b[k:k + 64].astype(np.float64) for k in range(0, b.shape[0], 64))
    out = a1 @ bsum
    return out + 2 * (a2 @ bsum) + 4 * ((a1 - a2) @ bsum) if dots == 3 else out


def inputs(k, bn, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (128, 64)).astype(np.float16)
    b = rng.integers(-3, 4, (k, bn)).astype(np.float16)
    return a, b


def ptx(monkeypatch, mode, dots):
    monkeypatch.setenv("TILEC_WGMMA_DESC", mode)
    return triton.compile(three_dots, "*fp16:16,*fp16:16,*fp32:16,i32",
                          dict(BN=64, DOTS=dots), num_warps=4, num_stages=3,
                          target="cuda:90").asm["ptx"]


# a K step's A descriptor: the invariant low word plus the step's start, widened
LOW = re.compile(r"add\.u32 (%r\d+), %r\d+, 2;\s*cvt\.u64\.u32 %rd\d+, \1;\s*or\.b64")


@pytest.mark.parametrize("mode,dots,low", [("auto", 3, True), ("auto", 1, False),
                                           ("low", 1, True), ("wide", 3, False)])
def test_ptx_form(monkeypatch, mode, dots, low):
    text = ptx(monkeypatch, mode, dots)
    loop = text[text.index("$L__loop:"):text.index("$L__endloop:")]
    assert loop.count("wgmma.mma_async") == 4 * dots
    assert bool(LOW.search(loop)) == low
    # the ring's descriptor moves with the stage: a 64-bit add of the stage offset, always
    assert re.search(r"add\.u64 %rd\d+, %rd\d+, %rd\d+;", loop)


@pytest.mark.parametrize("mode", ["low", "wide", "auto"])
@pytest.mark.parametrize("dots", [1, 3])
def test_simt_matches_numpy(monkeypatch, mode, dots):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_WGMMA_DESC", mode)
    a, b = inputs(192, 64, dots)
    c = np.full((64, 64), np.nan, np.float32)
    three_dots[(1,)](a, b, c, 192, BN=64, DOTS=dots, num_stages=3)
    np.testing.assert_array_equal(c, reference(a, b, dots))


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["low", "wide"])
def test_gpu_matches_numpy(monkeypatch, mode):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_WGMMA_DESC", mode)
    a, b = inputs(512, 128, 7)
    c = torch.full((64, 128), float("nan"), device="cuda")
    three_dots[(1,)](torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), c, 512, BN=128,
                     DOTS=3, num_stages=3)
    np.testing.assert_array_equal(c.cpu().numpy(), reference(a, b, 3))
