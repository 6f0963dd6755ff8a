"""A language builtin as a constexpr argument (`kernel[grid](x, func=tl.exp)`,
`tl.extra.cuda.globaltimer` in Triton's test_globaltimer): the kernel calls it as if it
had named it; each builtin is its own specialisation. On the CPU interpreter, the SIMT
simulator and the stand-in GPU device (keys)."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl

from test_gpu_fastpath import fake_gpu, tensors  # noqa: F401  (the fixture, by name)


@triton.jit
def k_apply(X, Y, FN: tl.constexpr, B: tl.constexpr):
    x = tl.load(X + tl.arange(0, B))
    tl.store(Y + tl.arange(0, B), FN(x))


@triton.jit
def k_timer(Out, func: tl.constexpr):
    start = func()
    for i in range(100):
        tl.store(Out + 2, tl.load(Out + 2) + 1)
    end = func()
    tl.store(Out, start)
    tl.store(Out + 1, end)


@pytest.fixture(params=["interpreter", "simt"])
def backend(request, monkeypatch):
    if request.param == "simt":
        monkeypatch.setenv("TILEC_SIMT", "1")
        monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")


def test_each_builtin_is_its_own_specialisation(backend):
    x = np.linspace(0.1, 2, 32).astype(np.float32)
    y = np.zeros_like(x)
    k_apply[(1,)](x, y, tl.exp, B=32)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)
    k_apply[(1,)](x, y, tl.sqrt, B=32)
    np.testing.assert_allclose(y, np.sqrt(x), rtol=1e-6)
    k_apply[(1,)](x, y, tl.math.log, B=32)
    np.testing.assert_allclose(y, np.log(x), rtol=1e-6, atol=1e-7)


def test_globaltimer_as_an_argument(backend):
    out = np.zeros(3, np.int64)
    k_timer[(1,)](out, tl.extra.cuda.globaltimer)
    assert out[2] == 100 and out[1] >= out[0] > 0


def test_the_gpu_launch_keys_the_builtin(fake_gpu):  # noqa: F811
    launches, compiles = fake_gpu
    x, y, _ = tensors()
    for fn in (tl.exp, tl.exp, tl.sqrt):
        k_apply[(1,)](x, y, fn, B=32)
    assert len(launches) == 3
    assert len(compiles) == 2  # exp once, then sqrt
