"""tl.dot on a CUDA GPU (wgmma on sm_90a for 4/8 warps and M a multiple of 64, else
mma.sync): the seed matmul at 512^3 (autotuned over its 8 configs, and each config on
its own), the seed fused attention, and a few shapes, dtypes and operand orders against
torch.

Every test is marked `gpu` and skipped without torch, a CUDA device or a driver;
scripts/gpu_check.sh runs them (`pytest -m gpu`) on a GPU machine."""

import pytest

import tilec as triton
import tilec.language as tl
from tilec import _C

import seed_kernels as sk

from gpu_util import HAVE_GPU, torch
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU, its driver and torch")]


def rel_err(got, want):
    got, want = got.float(), want.float()
    return ((got - want).norm() / want.norm().clamp_min(1e-30)).item()


def test_seed_matmul_512_autotuned():
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn((512, 512), device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn((512, 512), device="cuda", dtype=torch.float16, generator=g)
    c = sk.matmul(a, b)
    torch.cuda.synchronize()
    ref = torch.matmul(a, b)
    err = rel_err(c, ref)
    print(f"seed matmul 512^3 fp16: rel err {err:.2e}, best config {sk.matmul_kernel.best_config}")
    assert err <= 1e-2
    torch.testing.assert_close(c, ref, rtol=1e-2, atol=5e-2)


@triton.jit
def _dot_kernel(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr,
                OUT16: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if OUT16:
        acc = tl.zeros((BM, BN), dtype=tl.float16)
    else:
        acc = tl.zeros((BM, BN), dtype=C.dtype.element_ty)
    for k in range(0, K, BK):
        a = tl.load(A + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0)
        b = tl.load(B + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0)
        if OUT16:
            acc = tl.dot(a, b, acc, out_dtype=tl.float16)
        else:
            acc = tl.dot(a, b, acc, input_precision=PREC)
    tl.store(C + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


CASES = [
    # (dtype, M, N, K, blocks (BM, BN, BK, warps), precision, fp16 accumulator, tolerance)
    ("float16", 256, 256, 256, (64, 64, 32, 4), "tf32", False, 1e-2),
    ("float16", 200, 136, 300, (64, 32, 32, 4), "tf32", False, 1e-2),  # ragged: masked tails
    ("float16", 128, 128, 512, (32, 64, 64, 2), "tf32", True, 1e-2),
    ("bfloat16", 256, 128, 256, (128, 64, 32, 8), "tf32", False, 2e-2),
    ("float32", 128, 128, 128, (64, 64, 16, 4), "tf32", False, 1e-2),
    ("float32", 128, 64, 96, (32, 32, 16, 4), "ieee", False, 1e-5),
    ("int8", 128, 128, 256, (64, 64, 64, 4), "tf32", False, 0),
    # wgmma on sm_90a: fp16 accumulator, two warpgroups along M and along N, K loops
    ("float16", 256, 192, 320, (64, 64, 32, 4), "tf32", True, 1e-2),
    ("float16", 512, 512, 1024, (128, 256, 64, 8), "tf32", False, 1e-2),
    ("bfloat16", 192, 320, 200, (64, 128, 32, 8), "tf32", False, 2e-2),
    # fp64 on the tensor cores (mma.sync m16n8k8.f64 on sm_90): ragged, and one warp
    ("float64", 200, 136, 300, (64, 32, 32, 4), "ieee", False, 1e-13),
    ("float64", 96, 64, 128, (32, 32, 16, 1), "ieee", False, 1e-13),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}x{c[2]}x{c[3]}-{c[5]}"
                         + ("-f16acc" if c[6] else ""))
def test_dot_against_torch(case):
    dt, M, N, K, (BM, BN, BK, warps), prec, out16, tol = case
    g = torch.Generator(device="cuda").manual_seed(1)
    if dt == "int8":
        a = torch.randint(-100, 100, (M, K), device="cuda", generator=g, dtype=torch.int8)
        b = torch.randint(-100, 100, (K, N), device="cuda", generator=g, dtype=torch.int8)
        c = torch.empty((M, N), device="cuda", dtype=torch.int32)
        ref = (a.cpu().long() @ b.cpu().long()).to(torch.int32).cuda()
    else:
        tdt = getattr(torch, dt)
        a = torch.randn((M, K), device="cuda", generator=g).to(tdt)
        b = torch.randn((K, N), device="cuda", generator=g).to(tdt)
        c = torch.empty((M, N), device="cuda",
                        dtype=torch.float16 if out16 else torch.float64 if dt == "float64"
                        else torch.float32)
        ref = a.double() @ b.double()
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    _dot_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                      c.stride(0), c.stride(1), BM=BM, BN=BN, BK=BK, PREC=prec, OUT16=out16,
                      num_warps=warps)
    torch.cuda.synchronize()
    if dt == "int8":
        assert torch.equal(c, ref)
        return
    err = rel_err(c.double(), ref)
    print(f"{dt} {M}x{N}x{K} {prec}{' f16 acc' if out16 else ''}: rel err {err:.2e}")
    assert err <= tol


@pytest.mark.parametrize("dt_a,dt_b,out16", [("float8_e4m3fn", "float8_e4m3fn", False),
                                              ("float8_e5m2", "float8_e5m2", True),
                                              ("float8_e4m3fn", "float8_e5m2", False)])
@pytest.mark.parametrize("b_k_major", [False, True])
@pytest.mark.parametrize("blocks", [(64, 64, 64, 4), (128, 128, 64, 8)])
def test_dot_fp8_against_torch(dt_a, dt_b, out16, b_k_major, blocks):
    # fp8 operands: wgmma k32 on sm_90a (K-major in shared memory: a row-major B is
    # transposed on its way there), FMA elsewhere; products are exact and the sums fp32
    # (fp16 for out16), against float64 of the same fp8 values; ragged M, N, K
    M, N, K = 200, 136, 300
    BM, BN, BK, warps = blocks
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn((M, K), device="cuda", generator=g).to(getattr(torch, dt_a))
    b = torch.randn((N, K) if b_k_major else (K, N), device="cuda", generator=g)
    b = b.to(getattr(torch, dt_b))
    if b_k_major:
        b = b.t()  # a (K, N) view whose K is contiguous
    c = torch.empty((M, N), device="cuda", dtype=torch.float16 if out16 else torch.float32)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    k = _dot_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                          b.stride(1), c.stride(0), c.stride(1), BM=BM, BN=BN, BK=BK,
                          PREC="tf32", OUT16=out16, num_warps=warps)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    err = rel_err(c.double(), ref)
    print(f"{dt_a} x {dt_b} {M}x{N}x{K}{' f16 acc' if out16 else ''}: rel err {err:.2e}")
    assert err <= 2e-3  # Hopper sums fp8 products with about 14 bits of mantissa
    if _is_sm90():
        ptx_ty = {"float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}
        want = f"k32.{'f16' if out16 else 'f32'}.{ptx_ty[dt_a]}.{ptx_ty[dt_b]}"
        assert want in k.asm["ptx"]


@pytest.mark.parametrize("shape", [(2, 4, 1024, 64), (1, 2, 300, 64)])
def test_seed_attention_against_sdpa(shape):
    # the seed applies no softmax scale: SDPA with scale=1. The seed does not mask keys
    # past N_CTX (they load as 0, score 0, and take part in the softmax): the reference
    # pads K and V with zeros to a multiple of BLOCK_N (64) the same way
    g = torch.Generator(device="cuda").manual_seed(2)
    q, k, v = (0.5 * torch.randn(shape, device="cuda", generator=g).half() for _ in range(3))
    o = sk.attention(q, k, v)
    torch.cuda.synchronize()
    n_ctx = shape[2]
    pad = (-n_ctx) % 64
    kp = torch.nn.functional.pad(k, (0, 0, 0, pad))
    vp = torch.nn.functional.pad(v, (0, 0, 0, pad))
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), kp.float(), vp.float(),
                                                           scale=1.0)
    err = rel_err(o, ref)
    print(f"seed attention {shape}: rel err {err:.2e}")
    assert err <= 1e-2


def _is_sm90():
    return torch.cuda.get_device_capability()[0] == 9


@pytest.mark.parametrize("cfg", range(8))
def test_seed_matmul_each_config(cfg):
    # every config of the seed matmul on its own (ragged sizes: masked tails), so that the
    # wgmma configs (4 and 8 warps on sm_90a) all run, whichever the autotuner picks
    c = sk.matmul_kernel.configs[cfg]
    M, N, K = 640, 576, 520
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn((M, K), device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16, generator=g)
    out = torch.empty((M, N), device="cuda", dtype=torch.float16)
    kw = dict(c.kwargs)
    grid = (triton.cdiv(M, kw["BLOCK_SIZE_M"]) * triton.cdiv(N, kw["BLOCK_SIZE_N"]),)
    k = sk.matmul_kernel.fn[grid](a, b, out, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                  b.stride(1), out.stride(0), out.stride(1), GROUP_SIZE_M=8,
                                  num_warps=c.num_warps, num_stages=c.num_stages, **kw)
    torch.cuda.synchronize()
    ptx = k.asm["ptx"]
    path = "wgmma" if "wgmma.mma_async" in ptx else "mma.sync"
    err = rel_err(out, a.float() @ b.float())
    print(f"seed matmul config {kw} warps {c.num_warps}: {path}, {k.n_regs} registers, "
          f"rel err {err:.2e}")
    if _is_sm90():
        assert (path == "wgmma") == (c.num_warps % 4 == 0)
    assert err <= 1e-2


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_dot_operand_orders(ta, tb):
    # column-major A and/or B: the wgmma operands are MN- or K-major in shared memory
    M, N, K = 256, 256, 192
    g = torch.Generator(device="cuda").manual_seed(4)
    a = torch.randn((M, K), device="cuda", generator=g).half()
    b = torch.randn((K, N), device="cuda", generator=g).half()
    if ta:
        a = a.t().contiguous().t()
    if tb:
        b = b.t().contiguous().t()
    c = torch.empty((M, N), device="cuda", dtype=torch.float32)
    BM, BN, BK, warps = 128, 128, 64, 8
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    k = _dot_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                          c.stride(0), c.stride(1), BM=BM, BN=BN, BK=BK, PREC="tf32",
                          OUT16=False, num_warps=warps)
    torch.cuda.synchronize()
    err = rel_err(c.double(), a.double() @ b.double())
    print(f"dot operand orders trans_a={ta} trans_b={tb}: rel err {err:.2e}")
    if _is_sm90():
        assert "wgmma.mma_async" in k.asm["ptx"]
    assert err <= 1e-2


RING_CONFIGS = [  # (BLOCK_M, BLOCK_N, BLOCK_K, warps): the seed's big wgmma configs, a
    (128, 256, 64, 8),  # smaller one and a 2-warp mma.sync one
    (64, 256, 32, 4),
    (128, 128, 32, 4),
    (64, 64, 32, 2),
]


def _seed_matmul(a, b, cfg, stages):
    BM, BN, BK, warps = cfg
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), device="cuda", dtype=torch.float16)
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    k = sk.matmul_kernel.fn[grid](a, b, out, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                  b.stride(1), out.stride(0), out.stride(1), BLOCK_SIZE_M=BM,
                                  BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=8,
                                  num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    return out, k


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("cfg", RING_CONFIGS, ids=lambda c: "x".join(map(str, c)))
def test_seed_matmul_ring_stages(cfg, stages, monkeypatch):
    # the shared-memory ring (cp.async S-1 iterations ahead; docs/ARCHITECTURE.md "The fast
    # matmul path") at num_stages 2..4, ragged sizes (masked tails), against torch; then
    # TILEC_RING=0 (no ring: register prefetch) must give the same bits (same MMAs, same order)
    # sizes and strides multiples of 16 (so the copies may be 16-byte cp.async), not of
    # the blocks (masked tails in M, N and K)
    M, N, K = 656, 592, 528
    g = torch.Generator(device="cuda").manual_seed(5)
    a = torch.randn((M, K), device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16, generator=g)
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_RING", "1")
    out, k = _seed_matmul(a, b, cfg, stages)
    ptx = k.asm["ptx"]
    ring = "cp.async.cg.shared.global" in ptx
    path = "wgmma" if "wgmma.mma_async" in ptx else "mma.sync"
    err = rel_err(out, a.float() @ b.float())
    monkeypatch.setenv("TILEC_RING", "0")
    out0, k0 = _seed_matmul(a, b, cfg, stages)
    print(f"seed matmul {cfg} stages {stages}: {path}, ring {'on' if ring else 'OFF'}, "
          f"{k.n_regs} registers (ring off: {k0.n_regs}), rel err {err:.2e}, "
          f"ring off {'bit-identical' if torch.equal(out, out0) else 'DIFFERS'}")
    assert err <= 1e-2
    assert ring, "the ring was not used (no cp.async in the PTX)"
    assert "cp.async.cg.shared.global" not in k0.asm["ptx"]
    assert torch.equal(out, out0)


def _seed_attention(q, k, v, block_m, warps, stages):
    Z, H, N_CTX, D = q.shape
    o = torch.empty_like(q)
    grid = (triton.cdiv(N_CTX, block_m), Z * H)
    kern = sk.fused_attention_kernel[grid](q, k, v, o, *q.stride(), *k.stride(), *v.stride(),
                                           *o.stride(), Z, H, N_CTX, BLOCK_M=block_m,
                                           BLOCK_N=64, BLOCK_K=D, num_warps=warps,
                                           num_stages=stages)
    torch.cuda.synchronize()
    return o, kern


@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("block_m,warps", [(128, 4), (128, 8), (64, 4)])
def test_seed_attention_ring_stages(block_m, warps, stages, monkeypatch):
    # k (through tl.trans) and v through shared-memory rings, q once before the loop;
    # N_CTX not a multiple of BLOCK_N (masked rows); against SDPA (scale 1, keys past N_CTX
    # padded with zeros as the seed treats them), and TILEC_RING=0 close to it
    shape = (1, 4, 1000, 64)
    g = torch.Generator(device="cuda").manual_seed(6)
    q, k, v = (0.5 * torch.randn(shape, device="cuda", generator=g).half() for _ in range(3))
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TILEC_RING", "1")
    o, kern = _seed_attention(q, k, v, block_m, warps, stages)
    copies = kern.asm["ptx"].count("cp.async.cg.shared.global")
    monkeypatch.setenv("TILEC_RING", "0")
    o0, kern0 = _seed_attention(q, k, v, block_m, warps, stages)
    pad = (-shape[2]) % 64
    kp = torch.nn.functional.pad(k, (0, 0, 0, pad))
    vp = torch.nn.functional.pad(v, (0, 0, 0, pad))
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), kp.float(), vp.float(),
                                                           scale=1.0)
    err, err0 = rel_err(o, ref), rel_err(o, o0)
    print(f"seed attention BLOCK_M {block_m} warps {warps} stages {stages}: {copies} cp.async "
          f"in the PTX, {kern.n_regs} registers (ring off: {kern0.n_regs}), rel err {err:.2e}, "
          f"vs ring off {err0:.2e}{' (bit-identical)' if torch.equal(o, o0) else ''}")
    assert copies >= 2, "k and v did not go through rings"
    assert err <= 1e-2
    assert err0 <= 1e-3
