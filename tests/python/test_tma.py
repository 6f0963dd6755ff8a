"""TMA copies (TILEC_TMA=1, sm_90+): a host TensorDescriptor's blocks that a K loop feeds to
wgmma are copied into the ring by cp.async.bulk.tensor through the descriptor's tensor map
(a 128-byte .param the launch encodes), waited for on one mbarrier a stage.

On the SIMT simulator (TILEC_SIMT=1) the kernel runs on the simulator's own map format; on a
GPU the launch encodes the driver's CUtensorMap. Both must agree with numpy / torch, edges
(zero fill outside the tensor) included, and the PTX must show the TMA copies."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.tools.tensor_descriptor import TensorDescriptor
from gpu_util import sm90_torch, randn_operands


@triton.jit
def desc_matmul(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr, BT: tl.constexpr = False):
    # BT: b_desc is B^T [N, K] (K-contiguous), read through a permute: a K-major wgmma
    # operand
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        if BT:
            b = b_desc.load([pid_n * BN, k]).T
        else:
            b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask)


def _launch(a_d, b, c, M, N, K, BM, BN, BK, stages, bt):
    """C = A @ B with B given as B (bt False) or as B^T (b is then B^T, contiguous)."""
    b_d = TensorDescriptor.from_tensor(b, [BN, BK] if bt else [BK, BN])
    return desc_matmul[_grid(M, N, BM, BN)](a_d, b_d, c, M, N, K, BM=BM, BN=BN, BK=BK, BT=bt,
                                            num_stages=stages)


def _grid(M, N, BM, BN):
    return ((M + BM - 1) // BM, (N + BN - 1) // BN)


CASES = [  # M, N, K, BM, BN, BK, num_stages: edges in every dim, 2 and 3 stages
    (64, 64, 128, 64, 64, 64, 3),
    (80, 72, 104, 64, 64, 32, 2),
]


@pytest.mark.parametrize("M, N, K, BM, BN, BK, stages", CASES)
@pytest.mark.parametrize("bt", [False, True])
def test_tma_matmul_on_the_simulator(monkeypatch, M, N, K, BM, BN, BK, stages, bt):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_TMA", "1")
    rng = np.random.default_rng(M + N + K)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float32)
    a_d = TensorDescriptor.from_tensor(a, [BM, BK])
    k = _launch(a_d, np.ascontiguousarray(b.T) if bt else b, c, M, N, K, BM, BN, BK, stages, bt)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    ptx = k.asm["ptx"]
    assert ptx.count("cp.async.bulk.tensor.2d") >= 2
    assert "mbarrier.try_wait.parity" in ptx and "cp.async.cg" not in ptx
    assert ".align 64 .b8" in ptx


def test_tma_off_keeps_cp_async(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_TMA", "0")
    a = np.ones((64, 64), np.float16)
    b = np.ones((64, 64), np.float16)
    c = np.zeros((64, 64), np.float32)
    # BK 16: a specialisation no other test compiled (the in-memory cache is not keyed by
    # TILEC_TMA)
    k = desc_matmul[(1, 1)](TensorDescriptor.from_tensor(a, [64, 16]),
                            TensorDescriptor.from_tensor(b, [16, 64]), c, 64, 64, 64,
                            BM=64, BN=64, BK=16)
    np.testing.assert_array_equal(c, np.full((64, 64), 64, np.float32))
    ptx = k.asm["ptx"]
    assert "cp.async.bulk.tensor" not in ptx and ".align 64 .b8" not in ptx
    assert "cp.async.cg" in ptx


@pytest.mark.gpu
@pytest.mark.parametrize("M, N, K, BM, BN, BK, stages",
                         CASES + [(1000, 1000, 1000, 128, 128, 64, 3)])
@pytest.mark.parametrize("bt", [False, True])
def test_tma_matmul_on_the_gpu(monkeypatch, M, N, K, BM, BN, BK, stages, bt):
    torch = sm90_torch()
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    a, b, c = randn_operands(torch, M, N, K, M + K, torch.float32)
    a_d = TensorDescriptor.from_tensor(a, [BM, BK])
    k = _launch(a_d, b.T.contiguous() if bt else b, c, M, N, K, BM, BN, BK, stages, bt)
    torch.testing.assert_close(c, a.float() @ b.float(), atol=1e-2, rtol=1e-3)
    assert "cp.async.bulk.tensor" in k.asm["ptx"]
