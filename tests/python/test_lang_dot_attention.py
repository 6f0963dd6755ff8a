"""Attention-shaped dot chains against numpy: a causal forward whose two loops read one
staged q, and the backward's dk / dv loop, whose operands each feed two dots (one of them
through a transpose). Run by the tile interpreter here and, through test_simt_lang.py and
test_gpu_lang_suites.py, lowered (wgmma on sm_90a) and run on the SIMT simulator and the
GPU; the compiled IR and PTX are checked for how the operands are staged."""

import re

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl


@triton.jit
def _causal_attention_loop(q, K, V, acc, l_i, m_i, offs_m, lo, hi, DIAGONAL: tl.constexpr,
                           HEAD: tl.constexpr, BN: tl.constexpr):
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, HEAD)
    for start_n in range(lo, hi, BN):
        k = tl.load(K + (start_n + offs_n)[:, None] * HEAD + offs_d[None, :])
        qk = tl.dot(q, k.T)
        if DIAGONAL:
            qk = tl.where(offs_m[:, None] >= (start_n + offs_n)[None, :], qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])
        alpha = tl.exp(m_i - m_ij)
        v = tl.load(V + (start_n + offs_n)[:, None] * HEAD + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _causal_attention(Q, K, V, O, HEAD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # tutorial 06's causal forward in small: one loop below the diagonal, one on it, both
    # reading q (on sm_90a: staged once, the second loop's wgmma reading the first's copy)
    start_m = tl.program_id(0)
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(Q + offs_m[:, None] * HEAD + offs_d[None, :])
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, HEAD], tl.float32)
    acc, l_i, m_i = _causal_attention_loop(q, K, V, acc, l_i, m_i, offs_m, 0, start_m * BM,
                                           False, HEAD, BN)
    acc, l_i, m_i = _causal_attention_loop(q, K, V, acc, l_i, m_i, offs_m, start_m * BM,
                                           (start_m + 1) * BM, True, HEAD, BN)
    tl.store(O + offs_m[:, None] * HEAD + offs_d[None, :], acc / l_i[:, None])


def test_causal_attention_two_loops_one_q():
    N, D, BM, BN = 128, 32, 64, 32
    rng = np.random.default_rng(7)
    q, k, v = (rng.integers(-2, 3, (N, D)).astype(np.float16) * np.float16(0.25)
               for _ in range(3))
    o = np.zeros((N, D), np.float32)
    _causal_attention[(N // BM,)](q, k, v, o, HEAD=D, BM=BM, BN=BN, num_warps=4, num_stages=2)
    s = q.astype(np.float64) @ k.astype(np.float64).T
    s[np.triu_indices(N, 1)] = -np.inf
    p = np.exp(s - s.max(1, keepdims=True))
    want = (p @ v.astype(np.float64)) / p.sum(1, keepdims=True)
    np.testing.assert_allclose(o, want, rtol=2e-2, atol=2e-2)  # p is rounded to fp16
    ir = triton.compile(_causal_attention, signature="*fp16:16,*fp16:16,*fp16:16,*fp32:16",
                        constexprs=dict(HEAD=D, BM=BM, BN=BN), num_warps=4, num_stages=2,
                        target="cuda:90").asm["allocate-shared"]
    assert ir.count("staged_operand = 0") == 1  # the diagonal loop's q @ k^T


@triton.jit
def _attention_dkdv(Q, K, V, DO, M, Di, DK, DV, N_CTX, BN: tl.constexpr, BM: tl.constexpr,
                    HEAD: tl.constexpr):
    # attention backward's dk / dv loop (tutorial 06's _attn_bwd_dkdv without the mask):
    # qT feeds k @ qT and dsT @ qT^T, do feeds ppT @ do and v @ do^T
    offs_n = tl.program_id(0) * BN + tl.arange(0, BN)
    offs_d = tl.arange(0, HEAD)
    k = tl.load(K + offs_n[:, None] * HEAD + offs_d[None, :])
    v = tl.load(V + offs_n[:, None] * HEAD + offs_d[None, :])
    dk = tl.zeros([BN, HEAD], dtype=tl.float32)
    dv = tl.zeros([BN, HEAD], dtype=tl.float32)
    for start_m in range(0, N_CTX, BM):
        offs_m = start_m + tl.arange(0, BM)
        qT = tl.load(Q + offs_m[None, :] * HEAD + offs_d[:, None])
        m = tl.load(M + offs_m)
        pT = tl.math.exp2(tl.dot(k, qT) - m[None, :])
        do = tl.load(DO + offs_m[:, None] * HEAD + offs_d[None, :])
        dv += tl.dot(pT.to(tl.float16), do)
        dpT = tl.dot(v, tl.trans(do))
        dsT = pT * (dpT - tl.load(Di + offs_m)[None, :])
        dk += tl.dot(dsT.to(tl.float16), tl.trans(qT))
    tl.store(DK + offs_n[:, None] * HEAD + offs_d[None, :], dk)
    tl.store(DV + offs_n[:, None] * HEAD + offs_d[None, :], dv)


@pytest.mark.parametrize("rings", [True, False])
def test_attention_backward_operands_staged_once(rings, monkeypatch):
    # qT feeds k @ qT and dsT @ qT^T, do feeds ppT @ do and v @ do^T. On sm_90a each goes
    # into one cp.async ring whose stage both of its dots read in place, the transposed
    # reader through its descriptor (local_load {trans = 1}). Without rings
    # (TILEC_RING=0) they are loaded to registers a step ahead and the second dot reads the
    # tile the first one stored (shared_b), do stored with qT (prestaged). A wrong address
    # or an early overwrite fails the numbers (on the simulator through test_simt_lang,
    # and on the GPU)
    if not rings:
        monkeypatch.setenv("TILEC_RING", "0")
        monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")  # kernels are not keyed by it
    N, D, BN, BM = 128, 64, 64, 16
    rng = np.random.default_rng(11)
    q, k, v, do = (rng.integers(-2, 3, (N, D)).astype(np.float16) * np.float16(0.125)
                   for _ in range(4))
    m = rng.integers(0, 3, N).astype(np.float32)
    di = rng.integers(-2, 3, N).astype(np.float32) * np.float32(0.25)
    dk, dv = np.zeros((N, D), np.float32), np.zeros((N, D), np.float32)
    _attention_dkdv[(N // BN,)](q, k, v, do, m, di, dk, dv, N, BN=BN, BM=BM, HEAD=D,
                                num_warps=4, num_stages=2)
    f64 = [x.astype(np.float64) for x in (q, k, v, do)]
    pT = np.exp2(f64[1] @ f64[0].T - m[None, :])
    want_dv = pT.astype(np.float16).astype(np.float64) @ f64[3]
    dsT = pT * (f64[2] @ f64[3].T - di[None, :])
    want_dk = dsT.astype(np.float16).astype(np.float64) @ f64[0]
    np.testing.assert_allclose(dv, want_dv, rtol=1e-2, atol=1e-2)  # pT, dsT rounded to fp16
    np.testing.assert_allclose(dk, want_dk, rtol=1e-2, atol=1e-2)
    compiled = triton.compile(_attention_dkdv,
                              signature="*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,"
                                        "*fp32:16,*fp32:16,i32:16",
                              constexprs=dict(BN=BN, BM=BM, HEAD=D), num_warps=4, num_stages=2,
                              target="cuda:90")
    ir, ptx = compiled.asm["allocate-shared"], compiled.asm["ptx"]
    if rings:  # two rings, each read by two dots, one of them transposed
        assert (ir.count("local_alloc"), ir.count("local_load"), ir.count("trans = 1")) == (2, 4, 2)
        assert ir.count("shared_b = 1") == 0
    else:
        assert ir.count("shared_b = 1") == 2  # v @ do^T and dsT @ qT^T
        assert ir.count("prestaged = 1") == 1  # do, stored with qT for ppT @ do
    # ppT @ do's group is retired by v @ do^T's wait: four groups, three waits
    assert (ptx.count("wgmma.commit_group"), ptx.count("wgmma.wait_group")) == (4, 3)
    # with rings, dsT @ qT^T's group (the body's last of four) runs on across the back edge
    # (TILEC_WGMMA_DEFER=auto): the next iteration's first wait retires it, the exit waits.
    # Without, the next iteration's operand stores come first: it is retired at once
    body = ptx[ptx.index("$L__loop:"):ptx.index("bra.uni $L__loop;")]
    deferred = "wgmma.wait_group" not in body[body.rindex("wgmma.commit_group"):]
    assert deferred == rings
    if rings:
        assert ptx[ptx.index("$L__endloop:"):].split("\n")[1].strip() == \
            "wgmma.wait_group.sync.aligned 0;"



@triton.jit
def _fp8_p_times_v(Q, K, VT, O, F8: tl.constexpr, HEAD: tl.constexpr, BM: tl.constexpr,
                   BN: tl.constexpr, SELECT: tl.constexpr):
    # tutorial 06's FP8 forward in small: p, an 8-bit tile in a dot result's layout, is the
    # A of the next dot (on sm_90a read from registers, regrouped by shuffles); v arrives as
    # v^T (8-bit wgmma takes K-major B). p is a cast of the f32 result, or (SELECT) chosen
    # between two 8-bit values by it
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(Q + offs_m[:, None] * HEAD + offs_d[None, :])
    k = tl.load(K + offs_n[:, None] * HEAD + offs_d[None, :])
    s = tl.dot(q, k.T) - 1.0
    if SELECT:
        p = tl.where(s > 0, tl.full(s.shape, 2, tl.int32).to(F8), tl.full(s.shape, -1, tl.int32).to(F8))
    else:
        p = s.to(F8)
    vt = tl.load(VT + offs_d[:, None] * BN + offs_n[None, :])
    if F8 != tl.int8:
        vt = vt.to(F8, bitcast=True)
    o = tl.dot(p, tl.trans(vt))
    tl.store(O + offs_m[:, None] * HEAD + offs_d[None, :], o.to(tl.float32))


@pytest.mark.parametrize("fmt,select,bm,bn", [("e5m2", False, 64, 64), ("e4m3", False, 64, 64),
                                             ("e5m2", True, 128, 64), ("e4m3", False, 128, 128),
                                             ("int8", True, 64, 64)])
def test_fp8_p_from_a_dot_result(fmt, select, bm, bn):
    from lang_util import f64_to_fp8_bits
    BM, BN, D = bm, bn, 32
    rng = np.random.default_rng(3)
    q = np.zeros((BM, D), np.float16)  # at most 3 ones a row: s = q @ k^T - 1 in -1..2,
    for i in range(BM):                # exact in either fp8 format
        q[i, [i % D, (i + 5) % D, (3 * i + 1) % D]] = 1
    k = rng.integers(0, 2, (BN, D)).astype(np.float16)
    v = rng.integers(-1, 2, (BN, D)).astype(np.float64)
    vt = np.ascontiguousarray(v.T)
    vt = vt.astype(np.int8) if fmt == "int8" else f64_to_fp8_bits(vt, fmt)
    o = np.zeros((BM, D), np.float32)
    f8 = {"e5m2": tl.float8e5, "e4m3": tl.float8e4nv, "int8": tl.int8}[fmt]
    _fp8_p_times_v[(1,)](q, k, vt, o, F8=f8, HEAD=D, BM=BM, BN=BN, SELECT=select, num_warps=4)
    s = q.astype(np.float64) @ k.astype(np.float64).T - 1
    p = np.where(s > 0, 2.0, -1.0) if select else s
    np.testing.assert_array_equal(o, p @ v)
    sig = "*fp16:16,*fp16:16," + ("*i8:16" if fmt == "int8" else "*u8:16") + ",*fp32:16"
    ptx = triton.compile(_fp8_p_times_v, signature=sig,
                         constexprs=dict(F8=f8, HEAD=D, BM=BM, BN=BN, SELECT=select),
                         num_warps=4, target="cuda:90").asm["ptx"]
    name = {"e5m2": r"f32\.e5m2\.e5m2", "e4m3": r"f32\.e4m3\.e4m3", "int8": r"s32\.s8\.s8"}[fmt]
    # the second dot's A is four b32 registers (not a shared-memory descriptor), gathered
    # with two shuffles a register pair (4 a k32 step and 64-row tile); nothing is staged
    assert re.search(rf"wgmma\.mma_async\.sync\.aligned\.m64n32k32\.{name} "
                     r"\{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}", ptx), ptx
    assert ptx.count("shfl.sync.idx") == 4 * (BN // 32) * (BM // 64)
    assert "st.shared.b16" not in ptx
