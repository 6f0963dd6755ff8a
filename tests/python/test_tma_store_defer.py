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
from gpu_util import small_int_operands as _operands, sm90_torch, randn_operands

STORE = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
WAIT = "cp.async.bulk.wait_group.read 0;"


@triton.jit
def persistent_mm(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr, PROGRAMS: tl.constexpr, SPLIT: tl.constexpr = False,
                  CLIP: tl.constexpr = False):
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
        if CLIP:  # into int8 / fp8's exact range
            acc = tl.clamp(acc, -100.0, 100.0)
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


@pytest.fixture
def simulator(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")


def _check_waits(ptx, deferred, stores=1, boxes=1):
    """`stores` tma_store ops of `boxes` boxes each; deferred: a wait before each staging,
    which leaves the other stores' groups in flight (each has its own staging), and one for
    all right before the kernel's `ret`, none after a commit; else one after each commit."""
    body = ptx[ptx.index(".entry"):]
    assert body.count(STORE) == stores * boxes
    commits = body.split("cp.async.bulk.commit_group;\n")[1:]
    assert len(commits) == stores
    after = [c.split("\n")[0].strip() for c in commits]
    if deferred:
        keep = f"cp.async.bulk.wait_group.read {stores - 1};"
        assert body.count(keep) == stores + (stores == 1)
        assert body.count("cp.async.bulk.wait_group.read") == stores + 1
        assert not any("wait_group.read" in line for line in after)
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
    # 4 tiles over 2 programs: a tile's halves stage while the previous tile's are in flight
    k = persistent_mm[(2,)](TensorDescriptor.from_tensor(a, [64, 32]),
                            TensorDescriptor.from_tensor(b, [32, 64]),
                            TensorDescriptor.from_tensor(c, [64, 32]), M, N, K,
                            BM=64, BN=64, BK=32, PROGRAMS=2, SPLIT=True, num_stages=2)
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
    torch = sm90_torch()
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_TMA_STORE_DEFER", defer)
    M, N, K = 1024, 768, 512
    a, b, c = randn_operands(torch, M, N, K, 3)
    k = persistent_mm[(7,)](TensorDescriptor.from_tensor(a, [128, 64]),
                            TensorDescriptor.from_tensor(b, [64, 128]),
                            TensorDescriptor.from_tensor(c, [128, 64 if split else 128]),
                            M, N, K, BM=128, BN=128, BK=64, PROGRAMS=7, SPLIT=split,
                            num_stages=3)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=0.1, rtol=1e-2)
    # 128 fp16 columns: two 128-byte boxes; split: two stores of one
    _check_waits(k.asm["ptx"], defer == "1", stores=2 if split else 1, boxes=1 if split else 2)


def _fp8_bits(x):
    """float32 -> e4m3fn bytes (round to nearest even, saturating), for exact small ints."""
    out = np.zeros(x.shape, np.uint8)
    for idx, v in np.ndenumerate(x):
        s = 0x80 if v < 0 else 0
        a = min(abs(float(v)), 448.0)
        if a == 0:
            out[idx] = s
            continue
        e = int(np.floor(np.log2(a)))
        m = round(a / 2.0 ** e * 8) - 8  # exact for the small integers used here
        if m == 8:
            e, m = e + 1, 0
        out[idx] = s | ((e + 7) << 3) | m
    return out


@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("out", ["int8", "fp8"])
def test_byte_outputs_staged_two_bytes_a_store(simulator, split, out):
    """A tile of bytes (an mma accumulator as int8 or fp8) is staged for the TMA store two
    neighbouring bytes a st.shared.b16; fp8 made from f32 in the same block is encoded a
    pair per cvt (as Triton's fp8 epilogue), not one cvt and one byte store an element."""
    M, N, K = 64, 128, 32
    a, b, ref = _operands(M, N, K, seed=3)
    ref = np.clip(ref, -100, 100)  # exact in int8 and (small integers) in e4m3
    if out == "int8":
        c = np.full((M, N), 77, np.int8)
        view = c
    else:
        c = np.full((M, N), 0x7f, np.uint8)
        view = triton.reinterpret(c, tl.float8e4nv)
        ref = ref.astype(np.float32)
    a_c = np.clip(a.astype(np.float32) @ b.astype(np.float32), -100, 100)
    assert (a_c == ref).all()
    k = persistent_mm[(2,)](TensorDescriptor.from_tensor(a, [64, 32]),
                            TensorDescriptor.from_tensor(b, [32, 64]),
                            TensorDescriptor.from_tensor(view, [64, 32 if split else 64]),
                            M, N, K, BM=64, BN=64, BK=32, PROGRAMS=2, SPLIT=split,
                            CLIP=True, num_stages=2)
    if out == "int8":
        np.testing.assert_array_equal(c, ref.astype(np.int8))
    else:
        np.testing.assert_array_equal(c, _fp8_bits(ref))
    ptx = k.asm["ptx"]
    body = ptx[ptx.index(".entry"):]
    assert "st.shared.b8" not in body and "st.shared.u8" not in body
    assert body.count("st.shared.b16") >= 16  # 64 x 64 bytes, 128 threads: 16 pairs each
    if out == "fp8":  # one cvt a pair
        assert body.count("cvt.rn.satfinite.e4m3x2.f32") == body.count("st.shared.b16")


@pytest.mark.gpu
@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("out", ["int8", "fp8"])
def test_byte_outputs_on_the_gpu(monkeypatch, split, out):
    torch = sm90_torch()
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    M, N, K = 512, 384, 256
    g = torch.Generator(device="cuda").manual_seed(5)
    a = torch.randn((M, K), device="cuda", generator=g).half()
    b = torch.randn((K, N), device="cuda", generator=g).half()
    dt = torch.int8 if out == "int8" else torch.float8_e4m3fn
    c = torch.zeros((M, N), device="cuda", dtype=dt)
    k = persistent_mm[(5,)](TensorDescriptor.from_tensor(a, [128, 64]),
                            TensorDescriptor.from_tensor(b, [64, 128]),
                            TensorDescriptor.from_tensor(c, [128, 64 if split else 128]),
                            M, N, K, BM=128, BN=128, BK=64, PROGRAMS=5, SPLIT=split,
                            CLIP=True, num_stages=3)
    acc = (a.float() @ b.float()).clamp(-100, 100)
    if out == "int8":  # truncation toward zero, as the kernel's cast: exact but for ties
        assert (c.float() - acc.trunc()).abs().max().item() <= 1
    else:  # the accumulation order differs: compare within one e4m3 step
        torch.testing.assert_close(c.float(), acc.to(dt).float(), atol=0.5, rtol=0.13)
    assert "st.shared.b16" in k.asm["ptx"] and "st.shared.b8" not in k.asm["ptx"]
