"""TMA through tensor maps the kernel builds (tl.make_tensor_descriptor, TILEC_TMA=1, sm_90):
when a K loop's wgmma ring copies a device descriptor's blocks, the kernel writes the
descriptor's tensor map into its slot of global scratch memory (tensormap.replace in shared
memory, tensormap.cp_fenceproxy to global) and the copies read it there. Launches allocate
the scratch through triton.set_allocator's allocator, or stream-ordered driver memory when
none is set; the SIMT simulator models the instructions and its own scratch.

Results must equal numpy / torch (edges and NaN padding included). A descriptor made inside
the loop keeps the ordinary loads. TMA's rules for the map (a 16-byte aligned base, strides
of whole 16-byte units) are tl.make_tensor_descriptor's contract, as in Triton: where axis
info cannot prove them the kernel checks them when it builds the map, and a map that
breaks them is a device assertion naming the make_tensor_descriptor line. In a kernel with
wgmma dots the check is a plain trap (ptxas serialises every wgmma of a function that makes
a call, __assertfail's included): the PTX header notes it, the launcher's fault report and
the simulator name it."""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from gpu_util import sm90_torch
from ptxas_util import ptxas_report


@triton.jit
def dmm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
        PAD: tl.constexpr = "zero", IN_LOOP: tl.constexpr = False, STORE: tl.constexpr = False):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK], padding_option=PAD)
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN], padding_option=PAD)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        if IN_LOOP:  # a map per iteration (its shape depends on k): no TMA for it
            a_desc = tl.make_tensor_descriptor(a_ptr, [M, k + BK], [K, 1], [BM, BK])
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    if STORE:  # through a descriptor: a TMA store of the block (clipped at the edges)
        c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))
    else:
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask)


@triton.jit
def desc_copy(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    # host descriptors, no loop: the load is an ordinary one, the store a TMA store
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    dst.store([m, n], src.load([m, n]) * 2)


@triton.jit
def built_copy(X, Y, M, N, S, BM: tl.constexpr, BN: tl.constexpr):
    # kernel-built maps, no loop: the load is an ordinary one, the store a TMA store
    xd = tl.make_tensor_descriptor(X, [M, N], [S, 1], [BM, BN])
    yd = tl.make_tensor_descriptor(Y, [M, N], [S, 1], [BM, BN])
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    yd.store([m, n], xd.load([m, n]) * 2)


def _grid(M, N, BM, BN):
    return ((M + BM - 1) // BM, (N + BN - 1) // BN)


def _operands(M, N, K, dtype=np.float16):
    rng = np.random.default_rng(M * 7 + N + K)
    a = rng.integers(-3, 4, (M, K)).astype(dtype)
    b = rng.integers(-3, 4, (K, N)).astype(dtype)
    return a, b, np.full((M, N), np.nan, np.float32)


def _maps(ptx):
    return ptx.count("tensormap.replace.tile.global_address")


@pytest.fixture
def simulator(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_TMA", "1")


CASES = [  # M, N, K (multiples of 16: both maps provable), blocks, stages; edges in M, N, K
    (64, 64, 128, 64, 64, 64, 3),
    (80, 96, 112, 64, 64, 32, 2),
]


@pytest.mark.parametrize("M, N, K, BM, BN, BK, stages", CASES)
def test_kernel_maps_on_the_simulator(simulator, M, N, K, BM, BN, BK, stages):
    a, b, c = _operands(M, N, K)
    k = dmm[_grid(M, N, BM, BN)](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, num_stages=stages)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    ptx = k.asm["ptx"]
    assert _maps(ptx) == 2
    assert ptx.count("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release"
                     ".gpu.sync.aligned") == 2
    assert ptx.count("fence.proxy.tensormap::generic.acquire.gpu") == 2
    assert "cp.async.bulk.tensor.2d" in ptx and "cp.async.cg" not in ptx


STORE = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"


@pytest.mark.parametrize("M, N, K, BM, BN, BK, stages", CASES)
@pytest.mark.parametrize("out", [np.float16, np.float32])
def test_tma_stores_on_the_simulator(simulator, M, N, K, BM, BN, BK, stages, out):
    a, b, _ = _operands(M, N, K)
    c = np.full((M, N), np.nan, out)
    k = dmm[_grid(M, N, BM, BN)](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, STORE=True,
                                 num_stages=stages)
    np.testing.assert_array_equal(c, (a.astype(np.float32) @ b.astype(np.float32)).astype(out))
    ptx = k.asm["ptx"]
    assert _maps(ptx) == 3
    # the boxes of 128-byte rows side by side: fp16 [BM, 64] one a block, fp32 [BM, 32] two
    assert ptx.count(STORE) == (1 if out == np.float16 else 2)
    assert "cp.async.bulk.wait_group.read 0;" in ptx
    assert ("stmatrix.sync.aligned" in ptx) == (out == np.float16)


@pytest.mark.parametrize("cols", [80, 74])
def test_host_descriptor_tma_store(simulator, cols):
    # the tensor is the first `cols` columns of a 100 x 80 array. A TMA store writes whole
    # 16-byte units (the simulator as an H200), so 74 fp32 (296 bytes) would write columns
    # 74 and 75 too: only an inner extent known to be whole units (here: divisible by 16)
    # takes TMA stores
    from tilec.tools.tensor_descriptor import TensorDescriptor

    x = np.arange(100 * 80, dtype=np.float32).reshape(100, 80)
    y = np.full_like(x, np.nan)
    k = desc_copy[(2, 2)](TensorDescriptor(x, [100, cols], [80, 1], [64, 64]),
                          TensorDescriptor(y, [100, cols], [80, 1], [64, 64]), BM=64, BN=64)
    np.testing.assert_array_equal(y[:, :cols], 2 * x[:, :cols])
    assert np.isnan(y[:, cols:]).all()
    ptx = k.asm["ptx"]
    assert ptx.count(STORE) == (2 if cols == 80 else 0)
    assert "cp.async.bulk.tensor.2d.shared" not in ptx
    assert "tensormap.replace" not in ptx  # the launch encodes a host descriptor's map


@pytest.mark.parametrize("cols", [64, 58])
def test_kernel_map_store_leaves_the_padding_alone(simulator, cols):
    # a kernel-built map of the first `cols` fp32 columns of rows of 96: 58 (232 bytes) is
    # not whole 16-byte units, so no TMA store (it would write columns 58 and 59)
    x = np.arange(80 * 96, dtype=np.float32).reshape(80, 96)
    y = np.full_like(x, np.nan)
    k = built_copy[(2, 2)](x, y, 80, cols, 96, BM=64, BN=64)
    np.testing.assert_array_equal(y[:, :cols], 2 * x[:, :cols])
    assert np.isnan(y[:, cols:]).all()
    assert _maps(k.asm["ptx"]) == (1 if cols == 64 else 0)
    assert (STORE in k.asm["ptx"]) == (cols == 64)


def test_nan_padding_keeps_the_ordinary_loads(simulator):
    # K = 80 with BK 32: the last block's columns 80..95 read NaN, so every sum is NaN, as
    # on the interpreter. Rings take zero-padded loads only: no map
    M, N, K = 64, 64, 80
    a, b, c = _operands(M, N, K)
    k = dmm[(1, 1)](a, b, c, M, N, K, BM=64, BN=64, BK=32, PAD="nan", num_stages=2)
    assert np.isnan(c).all()
    assert _maps(k.asm["ptx"]) == 0


def test_unprovable_strides_are_checked_when_the_map_is_built(simulator):
    # N = 72: B's stride is not known to be 16-byte units (72 is not a multiple of 16), but
    # 144 bytes are: both maps are built, after a check that passes
    M, N, K = 64, 72, 64
    a, b, c = _operands(M, N, K)
    k = dmm[_grid(M, N, 64, 64)](a, b, c, M, N, K, BM=64, BN=64, BK=32, num_stages=2)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    ptx = k.asm["ptx"]
    # the check: B's map only (A's stride K = 64 is specialised as a multiple of 16); a trap,
    # not an __assertfail call, in this kernel of wgmma dots
    assert _maps(ptx) == 2 and ptx.count("\n// tilec trap: ") == 1
    assert "__assertfail" not in ptx and len(re.findall(r"@%p\d+ trap;", ptx)) == 1
    c = np.full((M, N), np.nan, np.float32)  # the store's extent N is not provable: no TMA store
    k = dmm[_grid(M, N, 64, 64)](a, b, c, M, N, K, BM=64, BN=64, BK=32, STORE=True,
                                 num_stages=2)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    assert _maps(k.asm["ptx"]) == 2 and STORE not in k.asm["ptx"]


def test_a_map_breaking_the_contract_is_a_device_assertion(simulator):
    # K = 100 fp16: A's rows are 200 bytes apart, not whole 16-byte units, which TMA needs
    # (Triton's documented contract for tl.make_tensor_descriptor)
    M, N, K = 64, 64, 100
    a, b, c = _operands(M, N, K)
    with pytest.raises(Exception, match="16-byte aligned and the strides multiples of 16 "
                                        "bytes") as e:
        dmm[_grid(M, N, 64, 64)](a, b, c, M, N, K, BM=64, BN=64, BK=32, num_stages=2)
    assert "make_tensor_descriptor(a_ptr" in str(e.value)


def test_checks_keep_the_wgmma_pipeline(simulator):
    # ptxas serialises every wgmma of a function that makes a call (C7510): the checks of
    # unprovable maps must not be calls where the kernel has wgmma dots (tutorial 08's TMA
    # kernel ran 1.2 x slower), and stay __assertfail (a message from the GPU) elsewhere
    M, N, K = 64, 72, 64  # B's stride N: unprovable, checked
    a, b, c = _operands(M, N, K)
    dot = dmm[_grid(M, N, 64, 64)](a, b, c, M, N, K, BM=64, BN=64, BK=32,
                                   num_stages=2).asm["ptx"]
    x = np.arange(64 * 72, dtype=np.float32).reshape(64, 72)
    y = np.zeros_like(x)
    copy = built_copy[(1, 1)](x, y, 64, 64, 72, BM=64, BN=64).asm["ptx"]
    np.testing.assert_array_equal(y[:, :64], 2 * x[:, :64])
    assert "wgmma.mma_async" in dot and "trap;" in dot and "__assertfail" not in dot
    assert "wgmma" not in copy and "trap;" not in copy and "__assertfail, (" in copy
    report = ptxas_report(dot)
    assert "C7510" not in report and "serialized" not in report, report


def test_a_map_made_in_the_loop_is_not_used(simulator):
    M, N, K = 64, 64, 128
    a, b, c = _operands(M, N, K)
    k = dmm[(1, 1)](a, b, c, M, N, K, BM=64, BN=64, BK=32, IN_LOOP=True, num_stages=2)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    assert _maps(k.asm["ptx"]) == 1  # b's only


def test_tma_off_builds_no_map(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_TMA", "0")
    M, N, K = 64, 64, 48  # K 48: a specialisation no other test compiled
    a, b, c = _operands(M, N, K)
    k = dmm[(1, 1)](a, b, c, M, N, K, BM=64, BN=64, BK=16, num_stages=2)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    assert "tensormap" not in k.asm["ptx"]


@pytest.mark.gpu
@pytest.mark.parametrize("M, N, K, BM, BN, BK, stages",
                         CASES + [(1000, 1008, 1024, 128, 128, 64, 3)])
@pytest.mark.parametrize("allocator", [True, False])
@pytest.mark.parametrize("store", [False, True])
def test_kernel_maps_on_the_gpu(monkeypatch, M, N, K, BM, BN, BK, stages, allocator, store):
    torch = sm90_torch()
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    calls = []

    def alloc(size, align, stream):
        calls.append((size, align, stream))
        return torch.empty(size, dtype=torch.int8, device="cuda")

    triton.set_allocator(alloc if allocator else None)
    try:
        g = torch.Generator(device="cuda").manual_seed(M + K)
        a = torch.randn((M, K), device="cuda", generator=g).half()
        b = torch.randn((K, N), device="cuda", generator=g).half()
        c = torch.full((M, N), float("nan"), device="cuda")
        grid = _grid(M, N, BM, BN)
        k = dmm[grid](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, STORE=store, num_stages=stages)
        torch.testing.assert_close(c, a.float() @ b.float(), atol=1e-2, rtol=1e-3)
        # again through the launcher's fast path (the cached kernel)
        c2 = torch.full_like(c, float("nan"))
        dmm[grid](a, b, c2, M, N, K, BM=BM, BN=BN, BK=BK, STORE=store, num_stages=stages)
        torch.testing.assert_close(c2, c, atol=0, rtol=0)
    finally:
        triton.set_allocator(None)
    maps = 3 if store else 2
    assert _maps(k.asm["ptx"]) == maps and (STORE in k.asm["ptx"]) == store
    if allocator:  # Triton's request: 128 bytes a map, per program, 128-byte aligned
        stream = torch.cuda.current_stream().cuda_stream
        assert calls == [(maps * 128 * grid[0] * grid[1], 128, stream)] * 2
    else:
        assert calls == []


_BROKEN_CONTRACT = """
import torch, tilec as triton, tilec.language as tl

@triton.jit
def dmm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
    tl.store(c_ptr + tl.arange(0, BM)[:, None] * N + tl.arange(0, BN)[None, :], acc)

M, N, K = 64, 64, 100  # A's rows 200 bytes apart: not whole 16-byte units
a = torch.zeros((M, K), device="cuda", dtype=torch.float16)
b = torch.zeros((K, N), device="cuda", dtype=torch.float16)
c = torch.zeros((M, N), device="cuda")
dmm[(1,)](a, b, c, M, N, K, BM=64, BN=64, BK=32, num_stages=2)
try:
    triton.synchronize()
except Exception as e:
    print("RAISED", type(e).__name__, e)
"""


@pytest.mark.gpu
def test_a_broken_contract_traps_naming_the_line_on_the_gpu(monkeypatch):
    # in its own process: the trap poisons the CUDA context
    sm90_torch()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "broken.py")
        with open(path, "w") as f:
            f.write(_BROKEN_CONTRACT)
        env = dict(os.environ, TILEC_TMA="1", TILEC_CACHE_DIR=d)
        r = subprocess.run([sys.executable, path], capture_output=True, text=True, env=env,
                           timeout=300)
    out = r.stdout + r.stderr
    assert "RAISED CudaError" in out, out
    assert "broken.py:6: tl.make_tensor_descriptor: the base must be 16-byte aligned and " \
           "the strides multiples of 16 bytes" in out, out


@pytest.mark.gpu
@pytest.mark.parametrize("cols", [528, 522])
def test_host_descriptor_tma_store_on_the_gpu(monkeypatch, cols):
    # the first `cols` columns of 1000 x 528: an H200's TMA store writes 522 fp32 (2088
    # bytes) up to column 523, so only 528 takes one
    torch = sm90_torch()
    from tilec.tools.tensor_descriptor import TensorDescriptor

    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    x = torch.randn((1000, 528), device="cuda")
    y = torch.full_like(x, float("nan"))
    k = desc_copy[(16, 9)](TensorDescriptor(x[:, :cols], [1000, cols], [528, 1], [64, 64]),
                           TensorDescriptor(y[:, :cols], [1000, cols], [528, 1], [64, 64]),
                           BM=64, BN=64)
    torch.testing.assert_close(y[:, :cols], 2 * x[:, :cols], atol=0, rtol=0)
    assert y[:, cols:].isnan().all()
    assert (STORE in k.asm["ptx"]) == (cols == 528)


@pytest.mark.gpu
@pytest.mark.parametrize("cols", [64, 58])
def test_kernel_map_store_leaves_the_padding_alone_on_the_gpu(monkeypatch, cols):
    torch = sm90_torch()
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    x = torch.randn((80, 96), device="cuda")
    y = torch.full_like(x, float("nan"))
    k = built_copy[(2, 2)](x, y, 80, cols, 96, BM=64, BN=64)
    torch.testing.assert_close(y[:, :cols], 2 * x[:, :cols], atol=0, rtol=0)
    assert y[:, cols:].isnan().all()
    assert (STORE in k.asm["ptx"]) == (cols == 64)


@triton.jit
def grouped_tma_mm(group_a, group_b, group_c, sizes, BM: tl.constexpr, BN: tl.constexpr,
                   BK: tl.constexpr):
    """Tutorial 08's TMA kernel, one tile a program and group: bases and strides read from
    memory, so nothing proves them aligned; the kernel checks them as it builds the maps."""
    g = tl.program_id(0)
    M = tl.load(sizes + g * 3)
    N = tl.load(sizes + g * 3 + 1)
    K = tl.load(sizes + g * 3 + 2)
    a_desc = tl.make_tensor_descriptor(tl.load(group_a + g).to(tl.pointer_type(tl.float16)),
                                       [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(tl.load(group_b + g).to(tl.pointer_type(tl.float16)),
                                       [N, K], [K, 1], [BN, BK])
    c_ptr = tl.load(group_c + g).to(tl.pointer_type(tl.float16))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([0, k * BK]), b_desc.load([0, k * BK]).T, acc)
    tl.store(c_ptr + tl.arange(0, BM)[:, None] * N + tl.arange(0, BN)[None, :], acc.to(tl.float16))


@pytest.mark.gpu
def test_grouped_maps_from_memory_on_the_gpu(monkeypatch):
    torch = sm90_torch()
    monkeypatch.setenv("TILEC_TMA", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    from gpu_util import grouped_operands
    shapes = [(64, 64, 128), (64, 64, 256)]
    a, b, c, ptrs, sizes = grouped_operands(torch, shapes, seed=11, b_transposed=True)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda"))
    try:
        k = grouped_tma_mm[(len(shapes),)](*ptrs, sizes, BM=64, BN=64, BK=64, num_stages=2)
    finally:
        triton.set_allocator(None)
    for x, y, z in zip(a, b, c):
        torch.testing.assert_close(z.float(), x.float() @ y.float().T, atol=0.1, rtol=1e-2)
    ptx = k.asm["ptx"]
    assert _maps(ptx) == 2 and "cp.async.bulk.tensor" in ptx
    assert ptx.count("\n// tilec trap: ") == 2 and "__assertfail" not in ptx  # wgmma: traps
