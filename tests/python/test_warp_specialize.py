"""Warp specialisation (layout/WarpSpecialize.h, TILEC_WARP_SPECIALIZE=1): a
tl.range(..., warp_specialize=True) loop whose wgmma operands come by TMA gets one more warp,
which issues the copies and waits for each stage to be freed by the warps that read it; the
num_warps warps of the layouts compute with no CTA barrier per K step. The SIMT simulator
runs the warps concurrently (a failed mbarrier wait yields), so a stage overwritten before
its readers are done, a wait on the wrong parity or a barrier the producer never reaches
shows as a wrong result, a poisoned read or a deadlock report."""

import re

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.tools.tensor_descriptor import TensorDescriptor
from gpu_util import small_int_operands as _operands, sm90_torch, randn_operands
from ptxas_util import ptxas_report


@triton.jit
def mm(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
       WS: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=WS):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def tma_store_mm(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr):
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=True):
        acc = tl.dot(a_desc.load([tl.program_id(0) * BM, k]),
                     b_desc.load([k, tl.program_id(1) * BN]), acc)
    c_desc.store([tl.program_id(0) * BM, tl.program_id(1) * BN], acc.to(c_desc.dtype))


@triton.jit
def persistent_mm(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr, PROGRAMS: tl.constexpr, FLATTEN: tl.constexpr,
                  SUBTILE: tl.constexpr = False):
    num_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * num_n
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS, flatten=FLATTEN,
                         warp_specialize=True):
        pm = tile // num_n
        pn = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            acc = tl.dot(a_desc.load([pm * BM, k]), b_desc.load([k, pn * BN]), acc)
        if SUBTILE:  # tutorial 09's EPILOGUE_SUBTILE
            c0, c1 = acc.reshape(BM, 2, BN // 2).permute(0, 2, 1).split()
            c_desc.store([pm * BM, pn * BN], c0.to(c_desc.dtype))
            c_desc.store([pm * BM, pn * BN + BN // 2], c1.to(c_desc.dtype))
        else:
            c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))


@triton.jit
def tile_loop_mm(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr, PROGRAMS: tl.constexpr):
    # the marked K loop runs once a tile: its ring restarts every tile
    num_n = tl.cdiv(N, BN)
    for tile in range(tl.program_id(0), tl.cdiv(M, BM) * num_n, PROGRAMS):
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in tl.range(0, K, BK, warp_specialize=True):
            acc = tl.dot(a_desc.load([tile // num_n * BM, k]), b_desc.load([k, tile % num_n * BN]),
                         acc)
        c_desc.store([tile // num_n * BM, tile % num_n * BN], acc.to(c_desc.dtype))


@triton.jit
def pointer_mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, WS: tl.constexpr):
    # the seed matmul's loads: pointer tiles, copied by cp.async into the rings
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=WS):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def pointer_attention(q_ptr, k_ptr, v_ptr, o_ptr, N_CTX, sm_scale, D: tl.constexpr,
                      BM: tl.constexpr, BN: tl.constexpr):
    # the seed attention's form: K and V through pointer tiles (cp.async rings)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for n in tl.range(0, N_CTX, BN, warp_specialize=True):
        k = tl.load(k_ptr + (n + rn)[None, :] * D + rd[:, None])
        qk = tl.dot(q, k) * sm_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])
        alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + (n + rn)[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_ij
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], acc / l_i[:, None])


@triton.jit
def built_maps_mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=True):
        acc = tl.dot(a_desc.load([pid_m * BM, k]), b_desc.load([k, pid_n * BN]), acc)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def indirect_mm(a_desc, b_desc, c_ptr, rows_ptr, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    # the A block's row comes from memory: only the consumers load it, so no producer
    row = tl.load(rows_ptr + tl.program_id(0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=True):
        acc = tl.dot(a_desc.load([row, k]), b_desc.load([k, 0]), acc)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def attention(q_ptr, k_ptr, v_ptr, o_ptr, N_CTX, sm_scale, D: tl.constexpr, BM: tl.constexpr,
              BN: tl.constexpr):
    # tutorial 06's forward in small: K and V by TMA, two dots a step, the softmax between
    q_desc = tl.make_tensor_descriptor(q_ptr, [N_CTX, D], [D, 1], [BM, D])
    k_desc = tl.make_tensor_descriptor(k_ptr, [N_CTX, D], [D, 1], [BN, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, [N_CTX, D], [D, 1], [BN, D])
    start_m = tl.program_id(0) * BM
    q = q_desc.load([start_m, 0])
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for n in tl.range(0, N_CTX, BN, warp_specialize=True):
        qk = tl.dot(q, k_desc.load([n, 0]).T) * sm_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])
        alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v_desc.load([n, 0]))
        m_i = m_ij
    rm = start_m + tl.arange(0, BM)
    rd = tl.arange(0, D)
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], acc / l_i[:, None])


@pytest.fixture
def simulator(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_WARP_SPECIALIZE", "1")


def _threads(ptx):
    return int(re.search(r"\.reqntid (\d+)", ptx).group(1))


def _check_split(ptx, num_warps, producer_warps=1):
    """A producer warp (or warpgroup) after the layouts' warps; the consumers' loop has no
    CTA barrier (bar.sync 0) and frees stages; their barriers after the split are named."""
    assert _threads(ptx) == 32 * (num_warps + producer_warps)
    body = ptx[ptx.index(".entry"):]
    split = body.index("setp.ge.u32")
    producer, consumer = body[split:].split("$L__consumer:")
    copies = ("cp.async.bulk.tensor.2d.shared", "cp.async.cg.shared.global")  # TMA, cp.async
    assert any(c in producer for c in copies) and "mbarrier.try_wait.parity" in producer
    assert "wgmma" not in producer and "bar.sync" not in producer
    assert not any(c in consumer for c in copies)
    assert "mbarrier.arrive.shared::cta.b64" in consumer  # tma_free
    assert "bar.sync 0;" not in consumer
    assert f"bar.sync 1, {32 * num_warps};" in consumer


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("num_warps", [4, 8])
def test_matmul_on_the_simulator(simulator, stages, num_warps):
    M, N, K = 128, 128, 320  # 5 K steps (more than the stages: the ring wraps)
    a, b, ref = _operands(M, N, K)
    c = np.full((M, N), np.nan, np.float32)
    k = mm[(M // 64, N // 64)](TensorDescriptor.from_tensor(a, [64, 32]),
                               TensorDescriptor.from_tensor(b, [32, 64]), c, M, N, K,
                               BM=64, BN=64, BK=32, WS=True, num_stages=stages,
                               num_warps=num_warps)
    np.testing.assert_array_equal(c, ref)
    _check_split(k.asm["ptx"], num_warps)


def test_short_loops_on_the_simulator(simulator):
    """K steps fewer than the stages, and none at all: the prologue's copies out of range."""
    for K in (32, 0):
        M, N = 64, 64
        a, b, ref = _operands(M, N, max(K, 32))
        a, ref = a[:, :K], a[:, :K].astype(np.float32) @ b[:K].astype(np.float32)
        a = np.ascontiguousarray(a) if K else np.zeros((M, 32), np.float16)
        c = np.full((M, N), np.nan, np.float32)
        mm[(1, 1)](TensorDescriptor.from_tensor(a, [64, 32]),
                   TensorDescriptor.from_tensor(b[:max(K, 32)], [32, 64]), c, M, N, K,
                   BM=64, BN=64, BK=32, WS=True, num_stages=3)
        np.testing.assert_array_equal(c, ref if K else np.zeros((M, N), np.float32))


@pytest.mark.parametrize("flatten", [True, False])
def test_persistent_matmul_on_the_simulator(simulator, flatten):
    """The producer runs on through the tiles (flattened: one ring across them) while the
    consumers store each tile by TMA (their barriers: named ones). A warp_specialize tile
    loop is flattened even with flatten=False (tutorial 09's form on Hopper)."""
    M, N, K = 128, 192, 96  # 6 tiles over 4 programs: 1 or 2 tiles each
    a, b, ref = _operands(M, N, K)
    c = np.full((M, N), np.nan, np.float16)
    k = persistent_mm[(4,)](TensorDescriptor.from_tensor(a, [64, 32]),
                            TensorDescriptor.from_tensor(b, [32, 64]),
                            TensorDescriptor.from_tensor(c, [64, 64]), M, N, K,
                            BM=64, BN=64, BK=32, PROGRAMS=4, FLATTEN=flatten, num_stages=2)
    np.testing.assert_array_equal(c, ref.astype(np.float16))
    _check_split(k.asm["ptx"], 4)
    assert "{flattened = 1" in k.asm["warp-specialize"]
    c[:] = np.nan
    k = tile_loop_mm[(4,)](TensorDescriptor.from_tensor(a, [64, 32]),
                           TensorDescriptor.from_tensor(b, [32, 64]),
                           TensorDescriptor.from_tensor(c, [64, 64]), M, N, K,
                           BM=64, BN=64, BK=32, PROGRAMS=4, num_stages=2)
    np.testing.assert_array_equal(c, ref.astype(np.float16))
    assert _threads(k.asm["ptx"]) == 128  # a K loop in a tile loop: left as it was


@pytest.mark.parametrize("stages", [3, 4])
@pytest.mark.parametrize("ws", ["0", "1"])
def test_tutorial09_subtiled_tile_fits(simulator, monkeypatch, stages, ws):
    """Tutorial 09's tma_persistent configs (128x256x64, 3 or 4 stages, 8 warps, subtiled
    epilogue) fit the H200's shared memory, as under Triton. Split, the rings live through
    the whole kernel beside the epilogue's staging (it once asked for 280,640 bytes at 3
    stages, the no-K-step branch's epilogue taking a 128 KB scratch of the zero
    accumulator); at 4 stages, with or without the split, it passed the limit by 16 bytes
    while each 1024-aligned buffer carried its own alignment slack."""
    monkeypatch.setenv("TILEC_WARP_SPECIALIZE", ws)
    M, N, K = 128, 256, 128
    a, b, ref = _operands(M, N, K)
    c = np.full((M, N), np.nan, np.float16)
    k = persistent_mm[(1,)](TensorDescriptor.from_tensor(a, [128, 64]),
                            TensorDescriptor.from_tensor(b, [64, 256]),
                            TensorDescriptor.from_tensor(c, [128, 128]), M, N, K,
                            BM=128, BN=256, BK=64, PROGRAMS=1, FLATTEN=True, SUBTILE=True,
                            num_stages=stages, num_warps=8)
    np.testing.assert_array_equal(c, ref.astype(np.float16))
    if ws == "1":
        _check_split(k.asm["ptx"], 8)
    ir = k.asm["allocate-shared"]
    used = int(re.search(r"shared_bytes = (\d+)", ir).group(1))
    assert used <= int(re.search(r"max_shared = (\d+)", ir).group(1))
    # the rings and at most two stagings of 128 x 128 fp16, barriers and alignment
    assert used <= stages * (128 + 256) * 64 * 2 + 2 * 128 * 128 * 2 + 2048


@pytest.mark.parametrize("stages", [3, 4])
def test_a_split_past_the_shared_memory_is_compiled_unsplit(simulator, stages):
    """Split, the rings live through the whole kernel, beside the TMA store's staging: at 4
    stages of 128x256x64 (192 KB) the 64 KB staging passes the H200's shared memory, which
    the kernel as written fits (its staging reuses the rings' bytes), so that is what runs;
    3 stages fit split."""
    M, N, K = 128, 256, 256
    a, b, ref = _operands(M, N, K)
    c = np.full((M, N), np.nan, np.float16)
    k = tma_store_mm[(1, 1)](TensorDescriptor.from_tensor(a, [128, 64]),
                             TensorDescriptor.from_tensor(b, [64, 256]),
                             TensorDescriptor.from_tensor(c, [128, 256]), K, BM=128, BN=256,
                             BK=64, num_stages=stages, num_warps=8)
    np.testing.assert_array_equal(c, ref.astype(np.float16))
    if stages == 3:
        _check_split(k.asm["ptx"], 8)
    else:
        assert _threads(k.asm["ptx"]) == 256 and "producer_warps" not in k.asm["allocate-shared"]
    ir = k.asm["allocate-shared"]
    assert int(re.search(r"shared_bytes = (\d+)", ir).group(1)) <= \
        int(re.search(r"max_shared = (\d+)", ir).group(1))


def test_kernel_built_maps_on_the_simulator(simulator):
    """Maps made in the kernel are made by every warp before the split."""
    M, N, K = 64, 64, 128
    a, b, ref = _operands(M, N, K)
    c = np.full((M, N), np.nan, np.float32)
    k = built_maps_mm[(1, 1)](a, b, c, M, N, K, BM=64, BN=64, BK=32, num_stages=3)
    np.testing.assert_array_equal(c, ref)
    ptx = k.asm["ptx"]
    _check_split(ptx, 4)
    assert ptx.index("tensormap.cp_fenceproxy") < ptx.index("setp.ge.u32")


def _attention_split(monkeypatch, kernel, producer_warps, seed):
    """`kernel` (q, k, v, out, N_CTX, sm_scale, D, BM, BN) split and not: close to the
    reference, and the same bits both ways."""
    N_CTX, D, BM, BN = 256, 64, 64, 32
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((N_CTX, D)).astype(np.float16) for _ in range(3))
    outs = {}
    for env in ("1", "0"):
        monkeypatch.setenv("TILEC_WARP_SPECIALIZE", env)
        o = np.full((N_CTX, D), np.nan, np.float32)
        kern = kernel[(N_CTX // BM,)](q, k, v, o, N_CTX, 0.125, D=D, BM=BM, BN=BN, num_stages=3)
        outs[env] = o
        if env == "1":
            _check_split(kern.asm["ptx"], 4, producer_warps)
        else:
            assert _threads(kern.asm["ptx"]) == 128
    s = (q.astype(np.float32) @ k.astype(np.float32).T) * 0.125
    p = np.exp(s - s.max(1, keepdims=True))
    ref = (p / p.sum(1, keepdims=True)) @ v.astype(np.float32)
    np.testing.assert_allclose(outs["1"], ref, atol=2e-2, rtol=2e-2)
    np.testing.assert_array_equal(outs["1"], outs["0"])


def test_attention_on_the_simulator(simulator, monkeypatch):
    """Two TMA rings (K, V) freed after the first dot's wait."""
    _attention_split(monkeypatch, attention, 1, seed=1)


@pytest.mark.parametrize("num_warps", [4, 8])
def test_pointer_matmul_on_the_simulator(simulator, num_warps):
    """cp.async rings of a marked loop with one consumer warpgroup: each copying thread
    arrives on the stage's barrier (cp.async.mbarrier.arrive.noinc) instead of committing a
    group, the readers wait on it; as many producer warps as consumers copy, as the
    consumers' layouts place the elements (their thread indices alias the consumers')."""
    M, N, K = 128, 128, 160
    a, b, ref = _operands(M, N, K)
    c = np.full((M, N), np.nan, np.float32)
    k = pointer_mm[(M // 64, N // 64)](a, b, c, M, N, K, BM=64, BN=64, BK=32, WS=True,
                                       num_stages=3, num_warps=num_warps)
    np.testing.assert_array_equal(c, ref)
    ptx = k.asm["ptx"]
    for short in (32, 0):  # fewer K steps than the prologue's: no copy of none in flight
        a2, b2 = np.ascontiguousarray(a[:, :max(short, 1)]), np.ascontiguousarray(b[:short + 1])
        c2 = np.full((M, N), np.nan, np.float32)
        pointer_mm[(M // 64, N // 64)](a2, b2, c2, M, N, short, BM=64, BN=64, BK=32, WS=True,
                                       num_stages=3, num_warps=num_warps)
        np.testing.assert_array_equal(
            c2, a[:, :short].astype(np.float32) @ b[:short].astype(np.float32))
    if num_warps == 8:  # 8 + 8 warps: 128 registers a thread, too few (docs/ARCHITECTURE.md)
        assert _threads(ptx) == 256 and "cp.async.commit_group" in ptx
        return
    _check_split(ptx, num_warps, producer_warps=num_warps)
    producer = ptx[ptx.index("setp.ge.u32"):ptx.index("$L__consumer:")]
    assert "cp.async.cg.shared.global" in producer
    assert "cp.async.mbarrier.arrive.noinc.shared::cta.b64" in producer
    assert "cp.async.commit_group" not in producer
    assert "Used" in ptxas_report(ptx)  # ptxas takes it (sm_90a)


def test_pointer_attention_on_the_simulator(simulator, monkeypatch):
    """The seed attention's form (pointer loads): 4 producer warps copy K and V."""
    _attention_split(monkeypatch, pointer_attention, 4, seed=2)

def test_copies_that_need_a_loaded_value_stay_unsplit(simulator):
    M, N, K = 128, 64, 64
    a, b, _ = _operands(M, N, K)
    rows = np.array([64, 0], np.int32)
    c = np.full((M, N), np.nan, np.float32)
    k = indirect_mm[(2,)](TensorDescriptor.from_tensor(a, [64, 32]),
                          TensorDescriptor.from_tensor(b, [32, 64]), c, rows, N, K,
                          BM=64, BN=64, BK=32, num_stages=2)
    ref = np.concatenate([a[64:], a[:64]]).astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_array_equal(c, ref)
    assert _threads(k.asm["ptx"]) == 128


def test_off_by_default_and_unmarked_loops(simulator, monkeypatch):
    M, N, K = 64, 64, 64
    a, b, ref = _operands(M, N, K)
    for env, ws in (("0", True), ("1", False)):
        monkeypatch.setenv("TILEC_WARP_SPECIALIZE", env)
        c = np.full((M, N), np.nan, np.float32)
        k = mm[(1, 1)](TensorDescriptor.from_tensor(a, [64, 32]),
                       TensorDescriptor.from_tensor(b, [32, 64]), c, M, N, K,
                       BM=64, BN=64, BK=32, WS=ws, num_stages=2)
        np.testing.assert_array_equal(c, ref)
        assert _threads(k.asm["ptx"]) == 128


def test_every_loop_that_qualifies(simulator, monkeypatch):
    """TILEC_WARP_SPECIALIZE=all: unmarked loops too (an A/B knob for unmarked kernels)."""
    monkeypatch.setenv("TILEC_WARP_SPECIALIZE", "all")
    M, N, K = 64, 64, 128
    a, b, ref = _operands(M, N, K)
    c = np.full((M, N), np.nan, np.float32)
    k = mm[(1, 1)](TensorDescriptor.from_tensor(a, [64, 32]),
                   TensorDescriptor.from_tensor(b, [32, 64]), c, M, N, K, BM=64, BN=64, BK=32,
                   WS=False, num_stages=3)
    np.testing.assert_array_equal(c, ref)
    _check_split(k.asm["ptx"], 4)


@pytest.mark.parametrize("persistent", [False, True])
def test_register_split_on_the_simulator(simulator, monkeypatch, persistent):
    """TILEC_WARP_SPECIALIZE_REGS=1 with two consumer warpgroups: a producer warpgroup gives
    registers to them (setmaxnreg.dec 40 / .inc 232: 128 x 40 + 256 x 232 = 384 x 168, the
    register file), and its other warps return; ptxas knows the count at entry
    (.minnctapersm 1). With one consumer warpgroup there is nothing to gain: one warp."""
    monkeypatch.setenv("TILEC_WARP_SPECIALIZE_REGS", "1")
    M, N, K = 128, 256, 96
    a, b, ref = _operands(M, N, K)
    for num_warps in (8, 4):
        if persistent:
            c = np.full((M, N), np.nan, np.float16)
            k = persistent_mm[(2,)](TensorDescriptor.from_tensor(a, [64, 32]),
                                    TensorDescriptor.from_tensor(b, [32, 128]),
                                    TensorDescriptor.from_tensor(c, [64, 128]), M, N, K,
                                    BM=64, BN=128, BK=32, PROGRAMS=2, FLATTEN=True,
                                    num_stages=3, num_warps=num_warps)
            np.testing.assert_array_equal(c, ref.astype(np.float16))
        else:
            c = np.full((M, N), np.nan, np.float32)
            k = mm[(M // 128, N // 128)](TensorDescriptor.from_tensor(a, [128, 32]),
                                         TensorDescriptor.from_tensor(b, [32, 128]), c, M, N,
                                         K, BM=128, BN=128, BK=32, WS=True, num_stages=3,
                                         num_warps=num_warps)
            np.testing.assert_array_equal(c, ref)
        ptx = k.asm["ptx"]
        if num_warps == 8:
            _check_split(ptx, 8, producer_warps=4)
            assert ".minnctapersm 1" in ptx
            assert ptx.count("setmaxnreg.dec.sync.aligned.u32 40;") == 1
            assert ptx.count("setmaxnreg.inc.sync.aligned.u32 232;") == 1
        else:
            _check_split(ptx, 4)
            assert "setmaxnreg" not in ptx and ".minnctapersm" not in ptx


def test_register_split_assembles(simulator, monkeypatch):
    """ptxas honours the split (no C7508 'setmaxnreg ignored') and gives each thread at
    entry the registers the budget counts on (168 for 8 + 4 warps: 384 x 168 = 128 x 40 +
    256 x 232), so the consumers' .inc never waits."""
    monkeypatch.setenv("TILEC_WARP_SPECIALIZE_REGS", "1")
    M, N, K = 128, 256, 64
    a, b, _ = _operands(M, N, K)
    c = np.zeros((M, N), np.float32)
    k = mm[(1, 1)](TensorDescriptor.from_tensor(a, [128, 32]),
                   TensorDescriptor.from_tensor(b, [32, 256]), c, M, N, K, BM=128, BN=256,
                   BK=32, WS=True, num_stages=3, num_warps=8)
    log = ptxas_report(k.asm["ptx"])
    assert "C7508" not in log and "setmaxnreg" not in log, log
    assert int(re.search(r"Used (\d+) registers", log).group(1)) == 168, log


def test_stage_ir(simulator):
    M, N, K = 64, 64, 64
    a, b, _ = _operands(M, N, K)
    c = np.zeros((M, N), np.float32)
    k = mm[(1, 1)](TensorDescriptor.from_tensor(a, [64, 32]),
                   TensorDescriptor.from_tensor(b, [32, 64]), c, M, N, K, BM=64, BN=64, BK=32,
                   WS=True, num_stages=3)
    ir = k.asm["warp-specialize"]
    assert "producer_warps = 1" in ir
    assert ir.count("local_alloc {free = 4, tma = 1}") == 2
    start = ir.index("warp_specialize {producer_warps = 1} {")
    producer, consumer = ir[start:].split("\n  } {\n", 1)  # the regions, at the top level
    # the prologue's 2 x 2 copies, and 2 in the loop, each after its wait for a free stage
    assert producer.count("tma_copy") == 6 and producer.count("{free = 1}") == 2
    assert "local_load" not in producer and " dot " not in producer
    assert "tma_copy" not in consumer and consumer.count("tma_free") == 2


@pytest.fixture
def gpu_split(monkeypatch):
    """torch on an sm_90 GPU, kernels compiled afresh with TMA and the split."""
    torch = sm90_torch()
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_WARP_SPECIALIZE", "1")
    return torch


@pytest.mark.gpu
@pytest.mark.parametrize("num_warps", [4, 8])
def test_matmul_on_the_gpu(gpu_split, num_warps):
    torch = gpu_split
    M, N, K = 1024, 768, 1024
    a, b, c = randn_operands(torch, M, N, K, 5, torch.float32)
    k = mm[(M // 128, N // 128)](TensorDescriptor.from_tensor(a, [128, 64]),
                                 TensorDescriptor.from_tensor(b, [64, 128]), c, M, N, K,
                                 BM=128, BN=128, BK=64, WS=True, num_stages=3,
                                 num_warps=num_warps)
    torch.testing.assert_close(c, a.float() @ b.float(), atol=0.05, rtol=1e-3)
    _check_split(k.asm["ptx"], num_warps)


@pytest.mark.gpu
@pytest.mark.parametrize("regs", ["0", "1"])
def test_persistent_matmul_on_the_gpu(gpu_split, monkeypatch, regs):
    """regs: the producer warpgroup's registers go to the consumers (setmaxnreg), which
    must not leave an .inc waiting (the run would hang)."""
    torch = gpu_split
    monkeypatch.setenv("TILEC_WARP_SPECIALIZE_REGS", regs)
    M, N, K = 1024, 768, 512
    a, b, c = randn_operands(torch, M, N, K, 3)
    k = persistent_mm[(7,)](TensorDescriptor.from_tensor(a, [128, 64]),
                            TensorDescriptor.from_tensor(b, [64, 128]),
                            TensorDescriptor.from_tensor(c, [128, 128]), M, N, K,
                            BM=128, BN=128, BK=64, PROGRAMS=7, FLATTEN=True, num_stages=3,
                            num_warps=8)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=0.1, rtol=1e-2)
    _check_split(k.asm["ptx"], 8, producer_warps=4 if regs == "1" else 1)
