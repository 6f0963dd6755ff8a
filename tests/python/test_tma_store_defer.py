"""Deferred TMA stores (TILEC_TMA_STORE_DEFER, on by default): a descriptor store in a loop,
a persistent kernel's epilogue, waits for its boxes to leave shared memory only before its
next staging and at the kernel's end, so the store drains while the next tile computes; its
staging is its own shared memory (AllocateShared). The SIMT simulator does a TMA store as
late as the hardware may and faults on a staging write before the wait or a CTA ending with
a store pending, so these runs check where the waits are; the GPU runs check the result."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.tools.tensor_descriptor import TensorDescriptor

STORE = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
WAIT = "cp.async.bulk.wait_group.read 0;"


@triton.jit
def persistent_mm(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr, PROGRAMS: tl.constexpr, SPLIT: tl.constexpr = False):
    num_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * num_n
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS):
        pm = tile // num_n
        pn = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = a_desc.load([pm * BM, k])
            b = b_desc.load([k, pn * BN])
            acc = tl.dot(a, b, acc)
        c = acc.to(c_desc.dtype)
        if SPLIT:  # two stores a tile (tutorial 09's EPILOGUE_SUBTILE): two stagings
            c0, c1 = c.reshape(BM, 2, BN // 2).permute(0, 2, 1).split()
            c_desc.store([pm * BM, pn * BN], c0)
            c_desc.store([pm * BM, pn * BN + BN // 2], c1)
        else:
            c_desc.store([pm * BM, pn * BN], c)


@triton.jit
def persistent_mm_built(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr, PROGRAMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    num_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * num_n
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS):
        pm = tile // num_n
        pn = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            acc = tl.dot(a_desc.load([pm * BM, k]), b_desc.load([k, pn * BN]), acc)
        c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))


def _operands(M, N, K, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


@pytest.fixture
def simulator(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")


def _check_waits(ptx, deferred, stores=1, boxes=1):
    """`stores` tma_store ops of `boxes` boxes each; deferred: a wait before each staging and
    one right before the kernel's `ret`, none after a commit; else one after each commit."""
    body = ptx[ptx.index(".entry"):]
    assert body.count(STORE) == stores * boxes
    commits = body.split("cp.async.bulk.commit_group;\n")[1:]
    assert len(commits) == stores
    after = [c.split("\n")[0].strip() for c in commits]
    if deferred:
        assert body.count(WAIT) == stores + 1
        assert not any(WAIT in line for line in after)
        assert body[body.rindex(WAIT):].split("\n")[1].strip() == "ret;"
    else:
        assert body.count(WAIT) == stores
        assert all(line.endswith(WAIT) for line in after)


@pytest.mark.parametrize("defer", ["1", "0"])
@pytest.mark.parametrize("out", [np.float16, np.float32])
def test_persistent_matmul_on_the_simulator(simulator, monkeypatch, defer, out):
    monkeypatch.setenv("TILEC_TMA_STORE_DEFER", defer)
    M, N, K = 128, 192, 96  # 6 tiles over 4 programs: 1 or 2 tiles each
    a, b, ref = _operands(M, N, K)
    c = np.full((M, N), np.nan, out)
    k = persistent_mm[(4,)](TensorDescriptor.from_tensor(a, [64, 32]),
                            TensorDescriptor.from_tensor(b, [32, 64]),
                            TensorDescriptor.from_tensor(c, [64, 64]), M, N, K,
                            BM=64, BN=64, BK=32, PROGRAMS=4, num_stages=2)
    np.testing.assert_array_equal(c, ref.astype(out))
    # 64 fp32 columns are two 128-byte boxes side by side
    _check_waits(k.asm["ptx"], defer == "1", boxes=1 if out == np.float16 else 2)


def test_two_stores_a_tile_on_the_simulator(simulator):
    M, N, K = 128, 128, 64
    a, b, ref = _operands(M, N, K, seed=1)
    c = np.full((M, N), np.nan, np.float16)
    k = persistent_mm[(3,)](TensorDescriptor.from_tensor(a, [64, 32]),
                            TensorDescriptor.from_tensor(b, [32, 64]),
                            TensorDescriptor.from_tensor(c, [64, 32]), M, N, K,
                            BM=64, BN=64, BK=32, PROGRAMS=3, SPLIT=True, num_stages=2)
    np.testing.assert_array_equal(c, ref.astype(np.float16))
    _check_waits(k.asm["ptx"], True, stores=2)


def test_kernel_built_maps_on_the_simulator(simulator):
    M, N, K = 128, 128, 64
    a, b, ref = _operands(M, N, K, seed=2)
    c = np.full((M, N), np.nan, np.float16)
    k = persistent_mm_built[(3,)](a, b, c, M, N, K, BM=64, BN=64, BK=32, PROGRAMS=3,
                                  num_stages=2)
    np.testing.assert_array_equal(c, ref.astype(np.float16))
    _check_waits(k.asm["ptx"], True)


@pytest.mark.gpu
@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("defer", ["1", "0"])
def test_persistent_matmul_on_the_gpu(monkeypatch, defer, split):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("TMA needs an sm_90 GPU")
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_TMA_STORE_DEFER", defer)
    M, N, K = 1024, 768, 512
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn((M, K), device="cuda", generator=g).half()
    b = torch.randn((K, N), device="cuda", generator=g).half()
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    k = persistent_mm[(7,)](TensorDescriptor.from_tensor(a, [128, 64]),
                            TensorDescriptor.from_tensor(b, [64, 128]),
                            TensorDescriptor.from_tensor(c, [128, 64 if split else 128]),
                            M, N, K, BM=128, BN=128, BK=64, PROGRAMS=7, SPLIT=split,
                            num_stages=3)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=0.1, rtol=1e-2)
    # 128 fp16 columns: two 128-byte boxes; split: two stores of one
    _check_waits(k.asm["ptx"], defer == "1", stores=2 if split else 1, boxes=1 if split else 2)
