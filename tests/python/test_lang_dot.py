"""tl.dot against numpy: every supported dtype pair, M/N/K from 16 to 128, transposed
operands, masked K tails, the accumulator in and out, batched, and the seed matmul at
small sizes. Run by the tile interpreter here and, through test_simt_lang.py
(TILEC_SIMT=1), lowered to mma.sync / FMA and run on the SIMT simulator; sizes stay small
so that suite stays fast."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
import seed_kernels as sk
from lang_util import f32_to_bf16_bits, f64_to_fp8_bits, jit_from_source


def _kernel(body, trans_a=False, trans_b=False, conv=""):
    # conv: appended to the operand loads (bf16 arrives as uint16 bits)
    a_load = (f"tl.trans(tl.load(A + rk[:, None] * M + rm[None, :]){conv})" if trans_a
              else f"tl.load(A + rm[:, None] * K + rk[None, :]){conv}")
    b_load = (f"tl.trans(tl.load(B + rn[:, None] * K + rk[None, :]){conv})" if trans_b
              else f"tl.load(B + rk[:, None] * N + rn[None, :]){conv}")
    return jit_from_source(f"""
        @triton.jit
        def kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
            rm = tl.arange(0, M)
            rn = tl.arange(0, N)
            rk = tl.arange(0, K)
            a = {a_load}
            b = {b_load}
            acc = tl.load(C + rm[:, None] * N + rn[None, :])
            {body}
            tl.store(C + rm[:, None] * N + rn[None, :], c)
        """)


def _small_ints(rng, shape, lo=-4, hi=5):
    return rng.integers(lo, hi, shape)


# (operand dtype, result dtype, expression): sums of small integers are exact everywhere
PAIRS = {
    "fp16-fp32": ("float16", "float32", "tl.dot(a, b, acc)"),
    "bf16-fp32": ("bfloat16", "float32", "tl.dot(a, b, acc)"),
    "fp16-fp16": ("float16", "float16", "tl.dot(a, b, acc, out_dtype=tl.float16)"),
    "tf32-fp32": ("float32", "float32", "tl.dot(a, b, acc)"),
    "ieee-fp32": ("float32", "float32", "tl.dot(a, b, acc, input_precision='ieee')"),
    "notf32-fp32": ("float32", "float32", "tl.dot(a, b, acc, allow_tf32=False)"),
    "int8-int32": ("int8", "int32", "tl.dot(a, b, acc)"),
    "fp64-fp64": ("float64", "float64", "tl.dot(a, b, acc)"),
    # fp8 operands arrive as uint8 codes; e4m3 x e5m2 mixes the two formats
    "e4m3-fp32": ("e4m3", "float32", "tl.dot(a, b, acc)"),
    "e5m2-fp32": ("e5m2", "float32", "tl.dot(a, b, acc)"),
    "e4m3e5m2-fp32": ("e4m3", "float32", "tl.dot(a, b.to(tl.float8e5, bitcast=True), acc)"),
    "e5m2-fp16": ("e5m2", "float16", "tl.dot(a, b, acc, out_dtype=tl.float16)"),
}
_FP8 = {"e4m3": "tl.float8e4nv", "e5m2": "tl.float8e5"}


def _run_pair(pair, M, N, K, trans_a=False, trans_b=False, num_warps=4):
    ab, out, expr = PAIRS[pair]
    conv = ".to(tl.bfloat16, bitcast=True)" if ab == "bfloat16" else ""
    if ab in _FP8:
        conv = f".to({_FP8[ab]}, bitcast=True)"
    k = _kernel(f"c = {expr}", trans_a, trans_b, conv)
    rng = np.random.default_rng(M * 7 + N * 3 + K)
    lo, hi = (-100, 100) if ab == "int8" else (-4, 5)
    a = _small_ints(rng, (M, K), lo, hi).astype(np.float64)
    b = _small_ints(rng, (K, N), lo, hi).astype(np.float64)
    c0 = _small_ints(rng, (M, N)).astype(np.float64)
    ref = a @ b + c0
    if ab == "bfloat16":
        a_arg, b_arg = f32_to_bf16_bits(a.astype(np.float32)), f32_to_bf16_bits(b.astype(np.float32))
    elif ab in _FP8:  # the mixed pair's B is read as e5m2: small integers are exact in both
        b_fmt = "e5m2" if pair.startswith("e4m3e5m2") else ab
        a_arg, b_arg = f64_to_fp8_bits(a, ab), f64_to_fp8_bits(b, b_fmt)
    else:
        a_arg, b_arg = a.astype(ab), b.astype(ab)
    if trans_a:
        a_arg = np.ascontiguousarray(a_arg.T)
    if trans_b:
        b_arg = np.ascontiguousarray(b_arg.T)
    c = c0.astype(out)
    k[(1,)](a_arg, b_arg, c, M=M, N=N, K=K, num_warps=num_warps)
    if out == "float16":  # the accumulator may round at each K step on tensor cores
        np.testing.assert_allclose(c.astype(np.float64), ref, rtol=2e-3, atol=0.5)
    else:
        np.testing.assert_array_equal(c.astype(np.float64), ref)


@pytest.mark.parametrize("pair", list(PAIRS))
def test_dot_pairs(pair):
    _run_pair(pair, 32, 32, 32)


@pytest.mark.parametrize("M,N,K", [(16, 16, 16), (16, 32, 64), (64, 16, 32), (32, 64, 128),
                                   (128, 16, 16)])
def test_dot_shapes_fp16(M, N, K):
    _run_pair("fp16-fp32", M, N, K)


@pytest.mark.parametrize("pair", ["fp16-fp32", "tf32-fp32", "int8-int32"])
@pytest.mark.parametrize("ta,tb", [(False, True), (True, False), (True, True)])
def test_dot_transposed(pair, ta, tb):
    _run_pair(pair, 32, 16, 32, trans_a=ta, trans_b=tb)


@pytest.mark.parametrize("num_warps", [1, 2, 8])
def test_dot_warps(num_warps):
    _run_pair("fp16-fp32", 64, 32, 32, num_warps=num_warps)


def test_dot_float_inputs_are_not_exactly_representable():
    # random normals: the simulator's mma (exact products, fp32 sums) vs float64 numpy
    k = _kernel("c = tl.dot(a, b, acc)")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((32, 64)).astype(np.float16)
    b = rng.standard_normal((64, 32)).astype(np.float16)
    c = np.zeros((32, 32), np.float32)
    k[(1,)](a, b, c, M=32, N=32, K=64)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("precision, rtol", [("bf16x3", 1e-4), ("bf16x6", 2e-6),
                                             ("tf32x3", 2e-6)])
def test_dot_split_precisions(precision, rtol):
    # fp32 operands split into bf16 / tf32 parts (tensor cores on the GPU): bf16x3 is good
    # to about 2^-16 of the operands, bf16x6 and tf32x3 to about fp32's rounding
    k = _kernel(f"c = tl.dot(a, b, acc, input_precision='{precision}')")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((32, 64)).astype(np.float32)
    b = rng.standard_normal((64, 32)).astype(np.float32)
    c = np.zeros((32, 32), np.float32)
    k[(1,)](a, b, c, M=32, N=32, K=64)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    assert np.all(np.abs(c - ref) <= rtol * bound)


def test_dot_masked_k_tail_in_a_loop():
    @triton.jit
    def k(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
            b = tl.load(B + (k0 + rk)[:, None] * N + rn[None, :],
                        mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(C + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    rng = np.random.default_rng(4)
    M, N, K = 30, 20, 40  # partial tiles everywhere, a K tail of 8
    a = _small_ints(rng, (M, K)).astype(np.float16)
    b = _small_ints(rng, (K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    k[(1,)](a, b, c, M, N, K, BM=32, BN=32, BK=16)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


def test_dot_result_feeds_elementwise_and_reductions():
    k = _kernel("""c = tl.dot(a, b)
            m = tl.max(c, axis=1)
            c = tl.where(c > 0, c, 0.1 * c) + m[:, None] + acc""")
    rng = np.random.default_rng(5)
    a = _small_ints(rng, (32, 16)).astype(np.float16)
    b = _small_ints(rng, (16, 32)).astype(np.float16)
    c0 = _small_ints(rng, (32, 32)).astype(np.float32)
    c = c0.copy()
    k[(1,)](a, b, c, M=32, N=32, K=16)
    d = a.astype(np.float32) @ b.astype(np.float32)
    ref = np.where(d > 0, d, np.float32(0.1) * d) + d.max(axis=1)[:, None] + c0
    np.testing.assert_allclose(c, ref, rtol=1e-6)


@triton.jit
def _batched_dot(A, B, C, BS: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # C[b] = A[b] @ B[b], every operand row-major
    rb = tl.arange(0, BS)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    a = tl.load(A + rb * M * K + rm * K + tl.arange(0, K)[None, None, :])
    b = tl.load(B + rb * K * N + tl.arange(0, K)[None, :, None] * N + rn)
    tl.store(C + rb * M * N + rm * N + rn, tl.dot(a, b))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_dot_batched(dtype):
    # per batch, operands staged and read by ldmatrix (fp16; fp32 as tf32: A K-contiguous),
    # fp64 in m16n8k8.f64 tiles on sm_90 (the simulator through test_simt_lang)
    rng = np.random.default_rng(6)
    a = _small_ints(rng, (2, 16, 32)).astype(dtype)
    b = _small_ints(rng, (2, 32, 16)).astype(dtype)
    out = np.float64 if dtype == np.float64 else np.float32
    c = np.zeros((2, 16, 16), out)
    _batched_dot[(1,)](a, b, c, BS=2, M=16, N=16, K=32)
    np.testing.assert_array_equal(c, a.astype(out) @ b.astype(out))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8])
def test_dot_batched_one_warp(dtype):
    # Triton's test_dot3d shape class: one warp holds the whole batch. Operand and result
    # conversions whose registers each need several shuffles (registers and lanes trade
    # bits) go through shared memory instead: fewer, vectorised accesses, and ptxas time
    # (8x32x32x64 tf32: 3,072 shuffles, ptxas 6 s; through shared memory 1.5 s)
    BS, M, N, K = 4, 16, 32, 64
    rng = np.random.default_rng(8)
    a = _small_ints(rng, (BS, M, K)).astype(dtype)
    b = _small_ints(rng, (BS, K, N)).astype(dtype)
    out = np.int32 if dtype == np.int8 else np.float32
    c = np.zeros((BS, M, N), out)
    _batched_dot[(1,)](a, b, c, BS=BS, M=M, N=N, K=K, num_warps=1)
    np.testing.assert_array_equal(c, a.astype(out) @ b.astype(out))
    ty = {np.float16: "fp16", np.float32: "fp32", np.int8: "i8"}[dtype]
    ot = "i32" if dtype == np.int8 else "fp32"
    ptx = triton.compile(_batched_dot, signature=f"*{ty}:16,*{ty}:16,*{ot}:16",
                         constexprs=dict(BS=BS, M=M, N=N, K=K), num_warps=1,
                         target="cuda:90").asm["ptx"]
    assert "shfl.sync" not in ptx and "ld.shared" in ptx


def test_dot_batched_one_warp_operands_apart():
    # test_dot3d's largest one-warp case: A and B staged through shared memory take 64 KB
    # each. Where the target gives a block 128 KB (sm_90: 227 KB) they get separate bytes,
    # so A's ldmatrix loads sink to their mma (fragments of one K step live, not the whole
    # batch's); where it does not (sm_86: 99 KB) they share bytes, as before
    BS, M, N, K = 8, 32, 32, 64
    rng = np.random.default_rng(9)
    a = _small_ints(rng, (BS, M, K)).astype(np.float32)
    b = _small_ints(rng, (BS, K, N)).astype(np.float32)
    c = np.zeros((BS, M, N), np.float32)
    _batched_dot[(1,)](a, b, c, BS=BS, M=M, N=N, K=K, num_warps=1)
    np.testing.assert_array_equal(c, a @ b)  # small integers: exact in tf32
    for target, shared, ahead in (("cuda:90", 128 << 10, 1), ("cuda:86", 64 << 10, 128)):
        compiled = triton.compile(_batched_dot, signature="*fp32:16,*fp32:16,*fp32:16",
                                  constexprs=dict(BS=BS, M=M, N=N, K=K), num_warps=1,
                                  target=target)
        ptx = compiled.asm["ptx"]
        assert f"shared_bytes = {shared}," in compiled.asm["allocate-shared"]
        assert ptx[:ptx.index("mma.sync")].count("ldmatrix") == ahead  # A's loads


@pytest.mark.parametrize("mnk,blocks", [((64, 48, 40), (32, 32, 16, 4)),
                                        ((32, 32, 64), (16, 32, 32, 2))])
def test_seed_matmul_small(mnk, blocks):
    M, N, K = mnk
    BM, BN, BK, warps = blocks
    rng = np.random.default_rng(7)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, dtype=np.float16)
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    sk.matmul_kernel.fn[grid](a, b, c, M, N, K, a.strides[0] // 2, 1, b.strides[0] // 2, 1,
                              c.strides[0] // 2, 1, BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN,
                              BLOCK_SIZE_K=BK, GROUP_SIZE_M=8, num_warps=warps)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)


# Shapes that lower to wgmma on sm_90a (the SIMT suite compiles for sm_90a, so there they
# run on the simulator's wgmma): one and two warpgroups, along M and along N, K from 16.
@pytest.mark.parametrize("pair", ["fp16-fp32", "bf16-fp32", "fp16-fp16", "tf32-fp32",
                                  "int8-int32", "e4m3-fp32", "e5m2-fp16", "e4m3e5m2-fp32"])
@pytest.mark.parametrize("M,N,K,warps", [(64, 32, 64, 4), (128, 64, 32, 8), (64, 64, 16, 8)])
def test_dot_wgmma_shapes(pair, M, N, K, warps):
    _run_pair(pair, M, N, K, num_warps=warps)


@pytest.mark.parametrize("pair", ["fp16-fp32", "tf32-fp32", "int8-int32", "e5m2-fp32"])
@pytest.mark.parametrize("ta,tb", [(False, True), (True, False), (True, True)])
def test_dot_wgmma_transposed(pair, ta, tb):
    _run_pair(pair, 64, 32, 32, trans_a=ta, trans_b=tb)


def _ptx(kernel, sig, consts, warps, target):
    return triton.compile(kernel, signature=sig, constexprs=consts, num_warps=warps,
                          target=target).asm["ptx"]


def test_dot_lowers_to_wgmma_on_sm90a_only():
    k = _kernel("c = tl.dot(a, b, acc)")
    sig = "*fp16:16,*fp16:16,*fp32:16"
    big = {"M": 64, "N": 64, "K": 32}
    ptx = _ptx(k, sig, big, 4, "cuda:90")
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in ptx
    assert "mma.sync" not in ptx and "ldmatrix" not in ptx
    assert "fence.proxy.async" in ptx and "wgmma.wait_group.sync.aligned" in ptx
    ptx80 = _ptx(k, sig, big, 4, "cuda:80")
    assert "mma.sync.aligned.m16n8k16" in ptx80 and "wgmma" not in ptx80
    # tf32: wgmma k8; no wgmma: M below a warpgroup's 64 rows, 2 warps, ieee fp32
    f32 = "*fp32:16,*fp32:16,*fp32:16"
    assert "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32" in _ptx(k, f32, big, 4, "cuda:90")
    assert "wgmma" not in _ptx(k, sig, {"M": 32, "N": 64, "K": 32}, 4, "cuda:90")
    assert "wgmma" not in _ptx(k, sig, big, 2, "cuda:90")
    i8 = "*i8:16,*i8:16,*i32:16"
    assert "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8" in _ptx(k, i8, big, 4, "cuda:90")
    # fp8 (k32, K-major, e4m3 and e5m2 mixed or not): wgmma on sm_90a, FMA before it
    f8 = "*fp8e4nv:16,*fp8e5:16,*fp32:16"
    assert "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2" in _ptx(k, f8, big, 4, "cuda:90")
    ptx_f8_80 = _ptx(k, f8, big, 4, "cuda:80")
    assert "mma" not in ptx_f8_80 and "fma.rn.f32" in ptx_f8_80
    ieee = _kernel("c = tl.dot(a, b, acc, input_precision='ieee')")
    assert "wgmma" not in _ptx(ieee, f32, big, 4, "cuda:90")


def test_fp16_result_leaves_the_accumulator_through_stmatrix():
    # sm_90: the fp16 result goes from the (w)gmma accumulator fragments to the store's
    # layout through shared memory with stmatrix.x4 (as Triton's Hopper epilogues do; its
    # test_host_tensor_descriptor_matmul looks for it), not four st.shared.b32
    k = _kernel("c = tl.dot(a, b).to(tl.float16)")
    sig = "*fp16:16,*fp16:16,*fp16:16"
    big = {"M": 64, "N": 64, "K": 32}
    for warps in (4, 2):  # wgmma, and mma.sync (no warpgroup)
        ptx = _ptx(k, sig, big, warps, "cuda:90")
        assert ptx.count("stmatrix.sync.aligned.m8n8.x4.shared.b16") == 4 * 4 // warps, ptx
        assert "st.shared.b32" not in ptx
    assert "stmatrix" not in _ptx(k, sig, big, 4, "cuda:80")  # sm_90 on


@triton.jit
def _fp8_result_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                       E5: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    acc = tl.dot(tl.load(A + rm[:, None] * K + rk[None, :]),
                 tl.load(B + rk[:, None] * N + rn[None, :]))
    c = acc.to(tl.float8e5) if E5 else acc.to(tl.float8e4nv)
    tl.store(C + rm[:, None] * N + rn[None, :], c)


@pytest.mark.parametrize("M,N,warps,fmt", [(64, 64, 4, "e4m3"), (128, 128, 8, "e5m2"),
                                           (64, 256, 4, "e4m3")])
def test_fp8_result_leaves_the_accumulator_through_stmatrix(M, N, warps, fmt):
    # sm_90: an fp8 result's byte pairs go from the wgmma accumulator into shared memory
    # by stmatrix (each 16-byte chunk's pairs reordered to the fragment's), read back 16
    # bytes a thread in the store's order and re-packed by prmt, where it was one
    # st.shared.b16 a pair. C[m, n] = B[m % K, n]: every value lands in its own place.
    K = 16
    a = (np.arange(K)[None, :] == (np.arange(M) % K)[:, None]).astype(np.float16)
    b = np.random.default_rng(M + N).integers(-8, 9, size=(K, N)).astype(np.float16)
    dt = tl.float8e5 if fmt == "e5m2" else tl.float8e4nv
    c = np.zeros((M, N), np.uint8)
    _fp8_result_kernel[(1,)](a, b, triton.reinterpret(c, dt), M=M, N=N, K=K,
                             E5=fmt == "e5m2", num_warps=warps)
    ref = f64_to_fp8_bits(b.astype(np.float64)[np.arange(M) % K], fmt)
    np.testing.assert_array_equal(c, ref)
    ty = "fp8e5" if fmt == "e5m2" else "fp8e4nv"
    ptx = _ptx(_fp8_result_kernel, f"*fp16:16,*fp16:16,*{ty}:16",
               {"M": M, "N": N, "K": K, "E5": fmt == "e5m2"}, warps, "cuda:90")
    # a thread's M * N / (32 * warps) bytes, 16 a stmatrix.x4
    assert ptx.count("stmatrix.sync.aligned.m8n8.x4.shared.b16") == M * N // (32 * warps * 16)
    assert "st.shared.b16" not in ptx and "cvt.u16.u32" not in ptx
    assert "stmatrix" not in _ptx(_fp8_result_kernel, f"*fp16:16,*fp16:16,*{ty}:16",
                                  {"M": M, "N": N, "K": K, "E5": fmt == "e5m2"}, warps,
                                  "cuda:89")


@triton.jit
def _fp8_loop_kernel(A, B, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     IMP: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :]).to(tl.float8e5, bitcast=True)
        b = tl.load(B + (k + rk)[:, None] * BN + rn[None, :]).to(tl.float8e5, bitcast=True)
        acc = tl.dot(a, b, acc, max_num_imprecise_acc=IMP)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)


@pytest.mark.parametrize("imp", [None, 0, 32, 64])
def test_dot_fp8_max_num_imprecise_acc(imp):
    # Hopper's rule (wgmma): every `imp` of K the tensor cores' partial sum is added to the
    # fp32 accumulator with add.f32 (None: never); the sums stay exact here either way
    BM, BN, BK, K = 64, 32, 64, 128
    rng = np.random.default_rng(11)
    a, b = _small_ints(rng, (BM, K)), _small_ints(rng, (K, BN))
    c = np.zeros((BM, BN), np.float32)
    _fp8_loop_kernel[(1,)](f64_to_fp8_bits(a, "e5m2"), f64_to_fp8_bits(b, "e5m2"), c, K,
                           BM=BM, BN=BN, BK=BK, IMP=imp, num_warps=4)
    np.testing.assert_array_equal(c, a @ b)
    ptx = triton.compile(_fp8_loop_kernel, signature="*u8:16,*u8:16,*fp32:16,i32:16",
                         constexprs=dict(BM=BM, BN=BN, BK=BK, IMP=imp), num_warps=4,
                         target="cuda:90").asm["ptx"]
    per_thread = BM * BN // 128  # accumulator elements of each thread
    adds = 0 if imp is None else per_thread * BK // max(imp, 32)
    assert ptx.count("add.f32") == adds and "add.rn.f32" not in ptx
    assert "wgmma.mma_async.sync.aligned.m64n32k32.f32.e5m2.e5m2" in ptx


@triton.jit
def _fp8_ring_kernel(A, B, C, K, KV, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # tutorial 03's fp8 loop: A row-major, B given N x K (K-major), the K tail masked with
    # other=0.0 (a constant cast to fp8, which must fold for the loads to take a ring)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = A + rm[:, None] * K + rk[None, :]
    b_ptrs = B + rn[None, :] * K + rk[:, None]
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(KV, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < KV - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < KV - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_dot_fp8_loop_through_a_shared_memory_ring(fmt):
    # On sm_90a (the SIMT suite runs this file compiled for it) the fp8 operands reach
    # wgmma through cp.async rings of num_stages buffers; K 224 of 256: the last step masked
    BM, BN, BK, K, KV = 64, 32, 64, 256, 224
    rng = np.random.default_rng(5)
    a, b = _small_ints(rng, (BM, K)), _small_ints(rng, (K, BN))
    a[:, KV:] = 7  # beyond KV: must be masked off
    b[KV:, :] = 7
    dt = tl.float8e4nv if fmt == "e4m3" else tl.float8e5
    A = triton.reinterpret(f64_to_fp8_bits(a, fmt), dt)
    B = triton.reinterpret(np.ascontiguousarray(f64_to_fp8_bits(b, fmt).T), dt)
    c = np.zeros((BM, BN), np.float32)
    _fp8_ring_kernel[(1,)](A, B, c, K, KV, BM=BM, BN=BN, BK=BK, num_warps=4, num_stages=3)
    np.testing.assert_array_equal(c, a[:, :KV] @ b[:KV, :])
    ty = "fp8e4nv" if fmt == "e4m3" else "fp8e5"
    ptx = triton.compile(_fp8_ring_kernel, signature=f"*{ty}:16,*{ty}:16,*fp32:16,i32:16,i32:16",
                         constexprs=dict(BM=BM, BN=BN, BK=BK), num_warps=4, num_stages=3,
                         target="cuda:90").asm["ptx"]
    assert "cp.async.cg.shared.global" in ptx and "cp.async.wait_group" in ptx
    assert f"wgmma.mma_async.sync.aligned.m64n32k32.f32.{fmt}.{fmt}" in ptx


_MATMUL_SIG = ("*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,"
               "i32:16,i32:1,i32:16,i32:1,i32:16,i32:1")


@pytest.mark.parametrize("cfg", range(8))
def test_seed_matmul_configs_on_sm90a(cfg):
    # the seed matmul's configs with 4 or 8 warps run on wgmma; none spills (ptxas -v)
    c = sk.matmul_kernel.configs[cfg]
    consts = dict(c.kwargs, GROUP_SIZE_M=8)
    k = triton.compile(sk.matmul_kernel, signature=_MATMUL_SIG, constexprs=consts,
                       num_warps=c.num_warps, num_stages=c.num_stages, target="cuda:90")
    ptx = k.asm["ptx"]
    assert ("wgmma.mma_async" in ptx) == (c.num_warps % 4 == 0)
    if not triton._C.gpu_find_ptxas():
        pytest.skip("ptxas not found: registers not counted")
    assert k.metadata.n_spills == 0, f"config {c}: {k.metadata.n_regs} registers, spills"


@triton.jit
def _dot_rank4(X, Y, C, Z, TRANS_B: tl.constexpr):
    o = tl.arange(0, 2 * 2 * 16 * 16)
    x = tl.load(X + o).reshape(2, 2, 16, 16)
    y = tl.load(Y + o).reshape(2, 2, 16, 16)
    if TRANS_B:
        y = tl.trans(y)  # no dims: the last two axes swap
    z = tl.dot(x, y, tl.load(C + o).reshape(2, 2, 16, 16))
    tl.store(Z + o, z.reshape(2 * 2 * 16 * 16))


@pytest.mark.parametrize("trans_b", [False, True])
def test_dot_rank4_batches_the_leading_dims(trans_b):
    rng = np.random.default_rng(9)
    x = rng.integers(-4, 5, (2, 2, 16, 16)).astype(np.float16)
    y = rng.integers(-4, 5, (2, 2, 16, 16)).astype(np.float16)
    c = rng.integers(-4, 5, (2, 2, 16, 16)).astype(np.float32)
    z = np.zeros_like(c)
    _dot_rank4[(1,)](x, y, c, z, trans_b)
    yy = np.swapaxes(y, -1, -2) if trans_b else y
    np.testing.assert_array_equal(z, x.astype(np.float32) @ yy.astype(np.float32) + c)


@triton.jit
def _dot_chain_kernel(Q, Kt, Vt, P, O, scale, FP8: tl.constexpr, M: tl.constexpr,
                      N: tl.constexpr, D: tl.constexpr):
    # attention's shape: s = q k^T, p = s in the operand dtype, o = p v (v given as v^T)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rd = tl.arange(0, D)
    q = tl.load(Q + rm[:, None] * D + rd[None, :])
    k = tl.load(Kt + rn[:, None] * D + rd[None, :])
    vt = tl.load(Vt + rd[:, None] * N + rn[None, :])
    if FP8:
        q = q.to(tl.float8e5, bitcast=True)
        k = k.to(tl.float8e5, bitcast=True)
        vt = vt.to(tl.float8e5, bitcast=True)
    s = tl.dot(q, k.T) * scale
    if FP8:
        p = s.to(tl.float8e5)
        tl.store(P + rm[:, None] * N + rn[None, :], p.to(tl.uint8, bitcast=True))
    else:
        p = s.to(tl.float16)
        tl.store(P + rm[:, None] * N + rn[None, :], p)
    o = tl.dot(p, vt.T)
    tl.store(O + rm[:, None] * D + rd[None, :], o)


@pytest.mark.parametrize("fp8", [False, True])
@pytest.mark.parametrize("scale", [1.0, 2.0 ** 14])
def test_dot_chain_through_a_cast(fp8, scale):
    # On sm_90a the second dot reads p from registers (fp16) or from shared memory (fp8:
    # one cvt ... e5m2x2 a column pair of the accumulator, stored as a b16); s is exact: q is
    # one-hot, so s[m, n] = k[n, m % D], and scale 2**14 takes 4 past fp8e5's range (it
    # saturates to 57344, as in Triton) and fp16's (65536: inf)
    M, N, D = 64, 64, 32
    rng = np.random.default_rng(11)
    q = np.zeros((M, D))
    q[np.arange(M), np.arange(M) % D] = 1
    k = rng.choice([-2.0, -1.0, 0.0, 0.5, 1.0, 4.0], (N, D))
    v = rng.integers(-2, 3, (N, D)).astype(np.float64)
    s = (q @ k.T) * scale
    o = np.zeros((M, D), np.float32)
    if fp8:
        codes = lambda a: f64_to_fp8_bits(a, "e5m2")
        p = np.zeros((M, N), np.uint8)
        args = [codes(q), codes(k), codes(np.ascontiguousarray(v.T))]
        want_p = codes(np.clip(s, -57344, 57344))
    else:
        p = np.zeros((M, N), np.float16)
        args = [q.astype(np.float16), k.astype(np.float16),
                np.ascontiguousarray(v.T).astype(np.float16)]
        with np.errstate(over="ignore"):
            want_p = s.astype(np.float16)
    _dot_chain_kernel[(1,)](*args, p, o, scale, FP8=fp8, M=M, N=N, D=D, num_warps=4)
    np.testing.assert_array_equal(p, want_p)
    if scale == 1:  # (p holds infinities otherwise)
        np.testing.assert_array_equal(o, (s @ v).astype(np.float32))


@pytest.mark.parametrize("dtype,target", [("fp32", "cuda:90"), ("fp64", "cuda:89")])
def test_fma_dot_operand_reads_follow_their_k_steps(dtype, target):
    # An FMA dot (exact fp32, fp64) whose operands both convert through shared memory: the
    # two conversions take separate bytes, so A's reads (and their addresses) sink to their
    # K steps past B's stores instead of all 2,048 values of A living at once (12 KB of
    # spills a thread and 0.7 s of ptxas before); on the simulator through test_simt_lang.
    # (fp64 dots run on FMA units on sm_89; sm_80 and sm_90 take the tensor cores.)
    rng = np.random.default_rng(3)
    a, b = _small_ints(rng, (64, 64)), _small_ints(rng, (64, 64))
    np_t = np.float32 if dtype == "fp32" else np.float64
    c = np.zeros((64, 64), np_t)
    at = np.ascontiguousarray(a.T).astype(np_t)  # A arrives K-major (a transposed load)
    _fma_dot_kernel[(1,)](at, b.astype(np_t), c, num_warps=4)
    np.testing.assert_array_equal(c, (a @ b).astype(np_t))
    k = triton.compile(_fma_dot_kernel, signature=f"*{dtype}:16,*{dtype}:16,*{dtype}:16",
                       num_warps=4, target=target)
    assert "fma.rn.f" in k.asm["ptx"] and "mma" not in k.asm["ptx"]
    if not triton._C.gpu_find_ptxas():
        pytest.skip("ptxas not found: registers not counted")
    assert k.metadata.n_spills == 0, f"{k.metadata.n_regs} registers, spills"


@triton.jit
def _fma_dot_kernel(At, B, C):
    r = tl.arange(0, 64)
    a = tl.load(At + r[None, :] * 64 + r[:, None])  # a[m, k] = At[k, m]
    b = tl.load(B + r[:, None] * 64 + r[None, :])
    tl.store(C + r[:, None] * 64 + r[None, :], tl.dot(a, b, input_precision="ieee"))
