"""Software pipelining of dot loops (the GPU path only): the loads of iteration i+1 are
issued before iteration i's dot (transforms/PipelineLoads.h), or the operand loads go into
a shared-memory ring filled num_stages - 1 iterations ahead by cp.async
(layout/PipelineLoops.h, for the dot consumers whose lowering supports it; TILEC_RING=0
turns it off). The layouts-stage IR shows it; the SIMT simulator (TILEC_SIMT=1) runs the
pipelined loops and must agree with numpy for every num_stages; on a GPU the seed matmul
agrees with torch, ring on and off."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
import seed_kernels as sk


@triton.jit
def loop_dot(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = A + rm[:, None] * K + rk[None, :]
    b_ptrs = B + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _loads_before_loop(ttgir: str) -> bool:
    """Iteration 0's operands are fetched before the loop: into registers or a ring."""
    head = ttgir[: ttgir.index(" = for ")]
    return " = load " in head or "async_copy " in head


@pytest.mark.parametrize("num_stages,pipelined", [(1, False), (2, True), (3, True)])
def test_layouts_ir_shows_the_loads_one_iteration_ahead(num_stages, pipelined):
    k = triton.compile(sk.matmul_kernel.fn,
                       "*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32,i32,i32,i32,i32,i32",
                       constexprs={"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32,
                                   "GROUP_SIZE_M": 8},
                       num_warps=4, num_stages=num_stages)
    assert _loads_before_loop(k.asm["ttgir"]) == pipelined


@pytest.mark.parametrize("num_stages", [1, 2, 3, 4])
@pytest.mark.parametrize("K", [0, 16, 40, 96])
def test_pipelined_loop_on_the_simulator(monkeypatch, num_stages, K):
    monkeypatch.setenv("TILEC_SIMT", "1")
    rng = np.random.default_rng(K + num_stages)
    M, N = 30, 20
    a = rng.integers(-4, 5, (M, K)).astype(np.float16)
    b = rng.integers(-4, 5, (K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float32)
    loop_dot[(1,)](a, b, c, M, N, K, BM=32, BN=32, BK=16, num_stages=num_stages)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


@triton.jit
def loop_dot_backwards(A, B, C, K, step, BM: tl.constexpr, BK: tl.constexpr):
    # K walked from its end: the pointers advance by BK * step (a runtime -1), so a ring
    # num_stages - 1 >= 3 iterations ahead adds the sign-extended product once
    # (transforms/LoopShift's stepped_ahead)
    r = tl.arange(0, BM)
    rk = tl.arange(0, BK)
    a_ptrs = A + r[:, None] * K + (K - BK + rk)[None, :]
    b_ptrs = B + (K - BK + rk)[:, None] * BM + r[None, :]
    acc = tl.zeros((BM, BM), dtype=tl.float32)
    for _ in range(0, K // BK):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK * step
        b_ptrs += BK * BM * step
    tl.store(C + r[:, None] * BM + r[None, :], acc)


@pytest.mark.parametrize("num_stages", [2, 4, 5])
def test_pointers_stepping_backwards_on_the_simulator(monkeypatch, num_stages):
    monkeypatch.setenv("TILEC_SIMT", "1")
    rng = np.random.default_rng(num_stages)
    a = rng.integers(-4, 5, (32, 96)).astype(np.float16)
    b = rng.integers(-4, 5, (96, 32)).astype(np.float16)
    c = np.full((32, 32), np.nan, np.float32)
    loop_dot_backwards[(1,)](a, b, c, 96, -1, BM=32, BK=16, num_stages=num_stages)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


@pytest.mark.gpu
@pytest.mark.parametrize("num_stages", [1, 3, 4])
def test_seed_matmul_on_the_gpu(num_stages):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    M, N, K = 512, 384, 328  # a K tail
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    BM, BN, BK = 128, 128, 32
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    sk.matmul_kernel.fn[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                              b.stride(1), c.stride(0), c.stride(1), BLOCK_SIZE_M=BM,
                              BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=8, num_warps=4,
                              num_stages=num_stages)
    torch.testing.assert_close(c.float(), (a.float() @ b.float()), rtol=1e-2, atol=5e-2)


def _compile_seed_matmul(num_stages, **kw):
    # as a launch specialises contiguous row-major operands: 16-divisible sizes and row
    # strides, unit column strides
    return triton.compile(sk.matmul_kernel.fn,
                          "*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,"
                          "i32:1,i32:16,i32:1",
                          constexprs={"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128,
                                      "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
                          num_warps=4, num_stages=num_stages, **kw)


def test_ring_off_leaves_no_ring_ops(monkeypatch):
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_RING", "0")
    ttgir = _compile_seed_matmul(3).asm["ttgir"]
    for op in ("local_alloc", "async_copy", "async_wait", "local_load"):
        assert op not in ttgir


@pytest.mark.parametrize("target", ["cuda:90", "cuda:80"])
def test_seed_matmul_operands_go_into_rings(monkeypatch, target):
    # wgmma (sm_90a) and mma.sync (sm_80): A and B each in a ring with its prologue (S-1 = 2
    # copies), one copy per iteration, the waits; no register prefetch left
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    ttgir = _compile_seed_matmul(3, target=target).asm["ttgir"]
    assert ttgir.count("= local_alloc") == 2
    assert ttgir.count("async_copy ") == 6
    assert "async_wait {pending = 1}" in ttgir and "async_wait {pending = 0}" in ttgir
    assert " = load " not in ttgir


@pytest.mark.gpu
@pytest.mark.parametrize("ring", ["0", "1"])
@pytest.mark.parametrize("b_transposed", [False, True])
def test_seed_matmul_ring_on_and_off_on_the_gpu(monkeypatch, ring, b_transposed):
    """The seed matmul with and without the ring (TILEC_RING), N-major and K-major B, M/N/K
    tails; prints whether the ring was used."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_RING", ring)
    M, N, K = 500, 392, 336
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = (torch.randn((N, K), device="cuda", dtype=torch.float16).t() if b_transposed
         else torch.randn((K, N), device="cuda", dtype=torch.float16))
    for BM, BN, BK, warps, stages in [(128, 256, 64, 8, 3), (64, 256, 32, 4, 4),
                                      (128, 128, 32, 4, 4), (64, 32, 32, 2, 5)]:
        c = torch.empty((M, N), device="cuda", dtype=torch.float16)
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
        k = sk.matmul_kernel.fn[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                      b.stride(1), c.stride(0), c.stride(1), BLOCK_SIZE_M=BM,
                                      BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=8,
                                      num_warps=warps, num_stages=stages)
        torch.testing.assert_close(c.float(), (a.float() @ b.float()), rtol=1e-2, atol=5e-2)
        asm = getattr(k, "asm", None)
        rings = asm["ttgir"].count("= local_alloc") if asm and "ttgir" in asm else "?"
        print(f"TILEC_RING={ring} B {'K' if b_transposed else 'N'}-major "
              f"{BM}x{BN}x{BK} w{warps} S{stages}: ok, rings {rings}")


@triton.jit
def rows_beside_dot(Q, M, W, O, n, ROWS: tl.constexpr):
    """A dot loop with a small row load (m: ROWS fp32, fewer than the CTA's threads, as
    attention backward's m and Di): prefetch-loads prefetches its next iteration's bytes."""
    r64 = tl.arange(0, 64)
    r = tl.arange(0, ROWS)
    kt = tl.load(Q + r64[:, None] * 64 + r64[None, :])
    acc = tl.zeros([64, ROWS], dtype=tl.float32)
    curr = 0
    for i in range(0, n):
        qT = tl.load(Q + 4096 + (curr + r)[None, :] * 64 + r64[:, None])
        m = tl.load(M + curr + r)
        w = tl.load(W + curr + r, mask=curr + r < n * ROWS - 3, other=0.0)
        acc += (tl.dot(kt, qT) - m[None, :]) * w[None, :]
        curr += ROWS
    tl.store(O + r64[:, None] * ROWS + r[None, :], acc)


@pytest.mark.parametrize("prefetch", ["0", "1"])
@pytest.mark.parametrize("n", [1, 3])
def test_prefetched_row_loads_on_the_simulator(monkeypatch, prefetch, n):
    """With and without the prefetch (TILEC_PREFETCH): the results agree with numpy, and the simulator (which checks a prefetch's address as a load's)
    finds none past the arrays: the last iteration prefetches nothing."""
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_PREFETCH", prefetch)
    rng = np.random.default_rng(n)
    rows = 32
    q = rng.integers(-2, 3, 4096 + n * rows * 64).astype(np.float16)
    m, w = (rng.integers(-3, 4, n * rows).astype(np.float32) for _ in range(2))
    want = np.zeros((64, rows), np.float32)
    kt = q[:4096].reshape(64, 64).astype(np.float32)
    for i in range(n):
        qT = q[4096 + i * rows * 64: 4096 + (i + 1) * rows * 64].reshape(rows, 64).T
        wi = np.where(np.arange(i * rows, (i + 1) * rows) < n * rows - 3, w[i * rows:(i + 1) * rows], 0)
        want += (kt @ qT.astype(np.float32) - m[None, i * rows:(i + 1) * rows]) * wi[None, :]
    o = np.full((64, rows), np.nan, np.float32)
    rows_beside_dot[(1,)](q, m, w, o, n, ROWS=rows, num_stages=3)
    np.testing.assert_array_equal(o, want)
    ptx = triton.compile(rows_beside_dot, "*fp16:16,*fp32:16,*fp32:16,*fp32:16,i32",
                         constexprs={"ROWS": rows}, num_stages=3, target="cuda:90").asm["ptx"]
    assert ("prefetch.global.L1" in ptx) == (prefetch == "1")
    if prefetch == "1":
        assert ptx.count("prefetch.global.L1") == 4 and "+128];" in ptx
