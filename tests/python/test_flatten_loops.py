"""tl.range(..., flatten=True): a persistent matmul's tile loop and its K loop become one
loop (transforms/FlattenLoops.h), so the rings run on from one tile into the next; the
accumulator restarts through the first wgmma's scale-d (no copy of it), the epilogue runs
in an `if` on the tile's last K step after the wgmma group is retired, and a K loop of no
iteration runs the nest as written. The SIMT simulator runs the lowered code (wgmma, TMA,
cp.async rings); GPU runs check the same on the device."""

import re

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.tools.tensor_descriptor import TensorDescriptor
from gpu_util import sm90_torch, randn_operands


@triton.jit
def flat_tma(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
             BK: tl.constexpr, PROGRAMS: tl.constexpr, SPLIT: tl.constexpr):
    num_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * num_n
    tile_c = tl.program_id(0) - PROGRAMS  # carried by the tile loop, as tutorial 09's
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS, flatten=True):
        pm = tile // num_n
        pn = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            acc = tl.dot(a_desc.load([pm * BM, k * BK]), b_desc.load([k * BK, pn * BN]), acc)
        tile_c += PROGRAMS
        cm = (tile_c // num_n) * BM
        cn = (tile_c % num_n) * BN
        if SPLIT:
            c0, c1 = acc.reshape(BM, 2, BN // 2).permute(0, 2, 1).split()
            c_desc.store([cm, cn], c0.to(c_desc.dtype))
            c_desc.store([cm, cn + BN // 2], c1.to(c_desc.dtype))
        else:
            c_desc.store([cm, cn], acc.to(c_desc.dtype))


@triton.jit
def flat_ptr(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
             PROGRAMS: tl.constexpr):
    num_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * num_n
    rk = tl.arange(0, BK)
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS, flatten=True):
        rm = (tile // num_n) * BM + tl.arange(0, BM)
        rn = (tile % num_n) * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rm[:, None] * K + (k + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
            y = tl.load(b + (k + rk)[:, None] * N + rn[None, :],
                        mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
        tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


def _operands(M, N, K, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    return a, b, (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)


@pytest.fixture
def simulator(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")


def _check_flattened(k, rings=True):
    assert "flattened = 1" in k.asm["flatten-loops"]
    ptx = k.asm["ptx"]
    # the first K step's wgmma scales the carried accumulator by a predicate: no copy of it
    assert re.search(r"wgmma\.mma_async[^;]*\}, [^;]*%p\d+, 1, 1", ptx)
    if rings:  # operands from rings: the flattened loop keeps a group in flight
        assert ptx.count("mbarrier.init") + ptx.count("cp.async.cg") > 0
        assert "wgmma.wait_group.sync.aligned 1;" in ptx


# (M, N, K, programs): tiles over fewer programs, K not a multiple of BK, one K step, more
# programs than tiles
CASES = [(128, 192, 96, 4), (128, 128, 80, 3), (128, 128, 16, 3), (64, 64, 64, 3)]


@pytest.mark.parametrize("M,N,K,P", CASES)
@pytest.mark.parametrize("split", [False, True])
def test_tma_nest_on_the_simulator(simulator, M, N, K, P, split):
    a, b, ref = _operands(M, N, K, seed=M + N + K)
    c = np.full((M, N), np.nan, np.float16)
    k = flat_tma[(P,)](TensorDescriptor.from_tensor(a, [64, 32]),
                       TensorDescriptor.from_tensor(b, [32, 64]),
                       TensorDescriptor.from_tensor(c, [64, 32 if split else 64]), M, N, K,
                       BM=64, BN=64, BK=32, PROGRAMS=P, SPLIT=split, num_stages=3)
    np.testing.assert_array_equal(c, ref)
    _check_flattened(k)


def test_tile_values_are_recomputed_once_a_tile(simulator):
    """The copies S - 1 = 2 steps ahead recompute the tile's values (pm, pn: a div and a
    rem) when the shifted tile differs from the one before it, carried with its values
    (LoopShift carry_caches), not when it differs from the current tile: the loop holds
    that recompute and the epilogue's, and the current step's caching `if` is gone."""
    M, N, K, P = 128, 192, 96, 4
    a, b, ref = _operands(M, N, K, seed=7)
    c = np.full((M, N), np.nan, np.float16)
    k = flat_tma[(P,)](TensorDescriptor.from_tensor(a, [64, 32]),
                       TensorDescriptor.from_tensor(b, [32, 64]),
                       TensorDescriptor.from_tensor(c, [64, 64]), M, N, K,
                       BM=64, BN=64, BK=32, PROGRAMS=P, SPLIT=False, num_stages=3)
    np.testing.assert_array_equal(c, ref)
    ir = k.asm["pipeline-loops"]
    loop = ir[ir.index("{flattened = 1}"):]
    loop = loop[:loop.index("\n    }\n")]  # up to the flattened loop's end
    assert "cache = 1" not in loop
    assert len(re.findall(r"= div ", loop)) == 2 and len(re.findall(r"= rem ", loop)) == 2
    ahead = re.search(r"= cmp (%\d+), (%\d+) \{pred = \"eq\"\} : i32 -> i1\n\s+%\d+:2 = if", loop)
    assert ahead, "the shifted tile compared with the carried one"
    carried = re.search(r"\^bb\(([^)]*)\)", loop).group(1)
    assert ahead.group(2) in carried


@pytest.mark.parametrize("split", [False, True])
def test_no_k_step_runs_the_nest_as_written(simulator, split):
    """The kernel's K is 0 (its descriptors have columns): the versioned nest runs, each
    tile's epilogue storing zeros. Its epilogue works on the accumulator's initial constant,
    which fold-flattened folds through the reshape, permute and split (as a layout change of
    the accumulator they took a scratch of its size: 128 KB in tutorial 09's kernel, which
    warp specialisation could not fit beside its rings)."""
    M, N = 128, 192
    a, b, _ = _operands(M, N, 32, seed=9)
    c = np.full((M, N), np.nan, np.float16)
    k = flat_tma[(4,)](TensorDescriptor.from_tensor(a, [64, 32]),
                       TensorDescriptor.from_tensor(b, [32, 64]),
                       TensorDescriptor.from_tensor(c, [64, 32 if split else 64]), M, N, 0,
                       BM=64, BN=64, BK=32, PROGRAMS=4, SPLIT=split, num_stages=3)
    np.testing.assert_array_equal(c, np.zeros((M, N), np.float16))
    _check_flattened(k)
    if split:  # the flattened loop's own split stays, the versioned nest's is folded
        assert k.asm["flatten-loops"].count(" split ") == 2
        assert k.asm["fold-flattened"].count(" split ") == 1
        assert not re.search(r"= (reshape|split) [^\n]*smem_offset", k.asm["allocate-shared"])


# the K loop reads through pointers: flattened too (cp.async rings across tiles);
# TILEC_FLATTEN=tma leaves it as written, for an A/B
@pytest.mark.parametrize("M,N,K,P", [(128, 192, 96, 4), (96, 80, 72, 2), (64, 64, 0, 2),
                                     (128, 128, 16, 3)])
@pytest.mark.parametrize("flatten", ["1", "tma"])
def test_pointer_nest(simulator, monkeypatch, M, N, K, P, flatten):
    monkeypatch.setenv("TILEC_FLATTEN", flatten)
    a, b, ref = _operands(M, N, K, seed=7 + K)
    c = np.full((M, N), np.nan, np.float16)
    k = flat_ptr[(P,)](a, b, c, M, N, K, BM=64, BN=64, BK=32, PROGRAMS=P, num_stages=3)
    np.testing.assert_array_equal(c, ref)
    if flatten == "1":
        assert "flattened = 1" in k.asm["flatten-loops"]
    else:
        assert "flattened" not in k.asm["flatten-loops"]


@pytest.mark.parametrize("stages", [3, 4])
def test_pointer_nest_of_tutorial09s_4_stage_config(simulator, stages):
    """Tutorial 09's pointer persistent kernel at 128x256x64, 8 warps: at 4 stages the
    rings (192 KB) and the epilogue's conversion of the accumulator to the store's layout
    (64 KB, live beside them in the flattened loop) passed the H200's shared memory; the
    conversion now goes through it in two halves (chunk_bits = 1), as Triton's does, and
    the kernel fits. 3 stages fit whole."""
    M, N, K = 256, 256, 192
    a, b, ref = _operands(M, N, K, seed=11)
    c = np.full((M, N), np.nan, np.float16)
    k = flat_ptr[(1,)](a, b, c, M, N, K, BM=128, BN=256, BK=64, PROGRAMS=1,
                       num_stages=stages, num_warps=8)
    np.testing.assert_array_equal(c, ref)
    ir = k.asm["allocate-shared"]
    assert int(re.search(r"shared_bytes = (\d+)", ir).group(1)) <= \
        int(re.search(r"max_shared = (\d+)", ir).group(1))
    chunked = re.findall(r"convert_layout [^\n]*chunk_bits = (\d)", ir)
    assert chunked == (["1"] if stages == 4 else [])


def test_a_gpu_kernels_stage_ir_is_recompiled_with_its_tma(simulator, monkeypatch):
    """A GPU kernel's asm[stage] is recompiled on first access (a kernel holds only PTX and
    cubin): with TMA as the kernel was built, so its descriptors keep their maps and the
    nest's loads show TMA (here with a stand-in for the loaded binary)."""
    from tilec import _C
    from tilec._options import CompileOptions
    from tilec.compiler import gpu

    seen, real = {}, _C.compile_simt

    def spy(fs, specs, *args, **kwargs):
        seen["source"] = (fs, specs)
        return real(fs, specs, *args, **kwargs)

    monkeypatch.setattr(_C, "compile_simt", spy)
    a, b, _ = _operands(64, 64, 64, seed=4)
    c = np.zeros((64, 64), np.float16)
    flat_tma[(1,)](TensorDescriptor.from_tensor(a, [64, 32]),
                   TensorDescriptor.from_tensor(b, [32, 64]),
                   TensorDescriptor.from_tensor(c, [64, 64]), 64, 64, 64,
                   BM=64, BN=64, BK=32, PROGRAMS=1, SPLIT=False, num_stages=3)
    monkeypatch.setattr(_C, "compile_simt", real)

    class Loaded:  # what a GPU kernel's native object offers the constructor
        name, ptx, cubin = "flat_tma", "", b""
        metadata = {"num_warps": 4, "shared": 0, "compiler": "tilec", "params": []}

    for tma in ("1", "0"):
        monkeypatch.setenv("TILEC_TMA", tma)  # as when the kernel was built
        k = gpu.GpuCompiledKernel(Loaded(), flat_tma, CompileOptions(num_stages=3), "sm_90a",
                                  source=seen["source"])
        monkeypatch.setenv("TILEC_TMA", "1" if tma == "0" else "0")  # not when read
        ir = k.asm["flatten-loops"]
        assert "flattened = 1" in ir
        assert ("tma = 1" in ir) == (tma == "1")  # the descriptor loads copied by TMA


def test_the_interpreter_runs_the_nest_as_written(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    M, N, K = 128, 128, 80
    a, b, ref = _operands(M, N, K, seed=3)
    c = np.full((M, N), np.nan, np.float16)
    flat_ptr[(3,)](a, b, c, M, N, K, BM=64, BN=64, BK=32, PROGRAMS=3)
    np.testing.assert_array_equal(c, ref)


@pytest.mark.gpu
@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("K", [512, 200])
def test_tma_nest_on_the_gpu(monkeypatch, K, split):
    torch = sm90_torch()
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    M, N = 1024, 768
    a, b, c = randn_operands(torch, M, N, K, 5)
    k = flat_tma[(7,)](TensorDescriptor.from_tensor(a, [128, 64]),
                       TensorDescriptor.from_tensor(b, [64, 128]),
                       TensorDescriptor.from_tensor(c, [128, 64 if split else 128]), M, N, K,
                       BM=128, BN=128, BK=64, PROGRAMS=7, SPLIT=split, num_stages=3)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=0.1, rtol=1e-2)
    assert "cp.async.bulk.tensor" in k.asm["ptx"]
    # the stages' IR, recompiled on first access, with TMA as the kernel was built (it was
    # recompiled without, so with no maps and unflattened, before 2026-11-30's fix)
    _check_flattened(k)
