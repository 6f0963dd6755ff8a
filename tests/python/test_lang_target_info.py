"""Triton 3.6 names a kernel reads that are not builtins of their own: tl.target_info's
constexpr queries (through tl., triton.language., the module and the functions imported),
`while tl.condition(c, disable_licm=...)`, and tl.TRITON_MAX_TENSOR_NUMEL."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.language import target_info
from tilec.language.target_info import cuda_capability_geq, is_cuda
from gpu_util import HAVE_GPU, torch


@triton.jit
def queries(X):
    tl.store(X + 0, tl.where(tl.target_info.is_cuda(), 1, 0))
    tl.store(X + 1, tl.where(triton.language.target_info.cuda_capability_geq(8, 0), 1, 0))
    tl.store(X + 2, tl.where(target_info.is_hip(), 1, 0))
    tl.store(X + 3, tl.where(cuda_capability_geq(9), 1, 0))
    tl.store(X + 4, tl.where(is_cuda(), 1, 0))
    if tl.target_info.is_hip_cdna3() or tl.target_info.is_hip_cdna4():
        tl.store(X + 5, 1)
    else:
        tl.store(X + 5, 2)


def test_target_info_on_the_cpu():
    x = np.full(6, -1, np.int32)
    queries[(1,)](x)
    assert target_info.current_target().backend == "cpu"
    np.testing.assert_array_equal(x, [0, 0, 0, 0, 0, 2])  # no GPU: every query is False
    assert not is_cuda() and not cuda_capability_geq(7)  # callable on the host too


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a GPU and torch")
def test_target_info_on_the_gpu():
    x = torch.full((6,), -1, dtype=torch.int32, device="cuda")
    queries[(1,)](x)
    major, minor = torch.cuda.get_device_capability()
    want = [1, int(major >= 8), 0, int(major >= 9), 1, 2]
    assert x.cpu().tolist() == want
    t = target_info.current_target()
    assert t.backend == "cuda" and t.arch == 10 * major + minor


def test_an_unknown_query_is_a_compile_error():
    @triton.jit
    def k(X):
        if tl.target_info.is_tpu():
            tl.store(X, 1)
    with pytest.raises(triton.CompilationError,
                       match="module 'tilec.language.target_info' has no attribute 'is_tpu'"):
        k[(1,)](np.zeros(1, np.int32))


@triton.jit
def count_up(X, N):
    i = 0
    while tl.condition(i < N, disable_licm=True):
        tl.store(X + i, i * (tl.TRITON_MAX_TENSOR_NUMEL // 1024))
        i += 1


@pytest.mark.parametrize("simt", [False, True])
def test_while_condition_and_max_numel(monkeypatch, simt):
    if simt:
        monkeypatch.setenv("TILEC_SIMT", "1")
    k = triton.jit(count_up.fn)  # its own caches: TILEC_SIMT is read when compiling
    x = np.full(5, -1, np.int32)
    k[(1,)](x, 4)
    assert tl.TRITON_MAX_TENSOR_NUMEL == 1 << 20
    np.testing.assert_array_equal(x, [0, 1024, 2048, 3072, -1])
