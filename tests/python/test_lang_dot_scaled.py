"""tl.dot_scaled: microscaled operands (e2m1 packed two per byte along K or along M/N,
e4m3, e5m2, bf16, fp16) with e8m0 scales (one byte per 32 elements along K, 0xFF is NaN
unless fast_math), an accumulator, 2-D and batched 3-D, against a numpy reference that
decodes the formats from their bit layouts; and the errors for operands Triton refuses."""

import re

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.errors import CompilationError


@triton.jit
def _scaled(A, AS, B, BS, Out, Acc, BATCH: tl.constexpr, AM: tl.constexpr, AK: tl.constexpr,
            BK: tl.constexpr, BN: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
            SK: tl.constexpr, FA: tl.constexpr, FB: tl.constexpr, HAS_AS: tl.constexpr,
            HAS_BS: tl.constexpr, HAS_ACC: tl.constexpr, LK: tl.constexpr, RK: tl.constexpr,
            FAST: tl.constexpr):
    bi = tl.arange(0, BATCH)[:, None, None]
    a = tl.load(A + bi * (AM * AK) + tl.arange(0, AM)[None, :, None] * AK
                + tl.arange(0, AK)[None, None, :])
    b = tl.load(B + bi * (BK * BN) + tl.arange(0, BK)[None, :, None] * BN
                + tl.arange(0, BN)[None, None, :])
    a_s = None
    b_s = None
    if HAS_AS:
        a_s = tl.load(AS + bi * (M * SK) + tl.arange(0, M)[None, :, None] * SK
                      + tl.arange(0, SK)[None, None, :])
    if HAS_BS:
        b_s = tl.load(BS + bi * (N * SK) + tl.arange(0, N)[None, :, None] * SK
                      + tl.arange(0, SK)[None, None, :])
    o = bi * (M * N) + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :]
    if BATCH == 1:  # the 2-D form
        a = tl.reshape(a, (AM, AK))
        b = tl.reshape(b, (BK, BN))
        if HAS_AS:
            a_s = tl.reshape(a_s, (M, SK))
        if HAS_BS:
            b_s = tl.reshape(b_s, (N, SK))
        o = tl.reshape(o, (M, N))
    acc = None
    if HAS_ACC:
        acc = tl.load(Acc + o)
    c = tl.dot_scaled(a, a_s, FA, b, b_s, FB, acc, fast_math=FAST, lhs_k_pack=LK, rhs_k_pack=RK)
    tl.store(Out + o, c)


# (exponent bits, mantissa bits, bias) of the 8-bit-or-smaller formats.
_FMT = {"e2m1": (2, 1, 1), "e4m3": (4, 3, 7), "e5m2": (5, 2, 15)}


def _decode(bits: np.ndarray, fmt: str) -> np.ndarray:
    """Values of sign/exponent/mantissa codes (no inf/NaN codes are generated)."""
    e_bits, m_bits, bias = _FMT[fmt]
    bits = bits.astype(np.int64)
    sign = np.where(bits >> (e_bits + m_bits) & 1, -1.0, 1.0)
    e = bits >> m_bits & ((1 << e_bits) - 1)
    m = bits & ((1 << m_bits) - 1)
    sub = m * 2.0 ** (1 - bias - m_bits)
    norm = (1 + m / 2.0 ** m_bits) * 2.0 ** (e - bias)
    return sign * np.where(e == 0, sub, norm)


def _unpack_e2m1(x: np.ndarray, axis: int) -> np.ndarray:
    lo, hi = _decode(x & 0xF, "e2m1"), _decode(x >> 4, "e2m1")
    out = np.stack([lo, hi], axis=axis + 1)  # the low nibble is the first element
    shape = list(x.shape)
    shape[axis] *= 2
    return out.reshape(shape)


def _operand(rng, fmt, shape, pack_axis):
    """(storage array, its values) for one operand of values shape `shape`."""
    if fmt == "e2m1":
        s = list(shape)
        s[pack_axis] //= 2
        x = rng.integers(0, 256, s, dtype=np.uint8)
        return x, _unpack_e2m1(x, pack_axis)
    if fmt in ("e4m3", "e5m2"):
        x = rng.integers(0, 256, shape, dtype=np.uint8)
        if fmt == "e4m3":  # 0x7F / 0xFF are NaN
            x = np.where((x & 0x7F) == 0x7F, x - 1, x).astype(np.uint8)
        else:  # exponent 31 is inf / NaN
            x = np.where((x & 0x7C) == 0x7C, x & 0xF3, x).astype(np.uint8)
        return x, _decode(x, fmt)
    v = rng.standard_normal(shape).astype(np.float32)
    if fmt == "fp16":
        h = v.astype(np.float16)
        return h, h.astype(np.float64)
    bits = (v.view(np.uint32) >> 16).astype(np.uint16)  # truncated to bf16
    return bits, (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _scale_values(s: np.ndarray) -> np.ndarray:
    v = np.where(s == 0, 0.0, 2.0 ** (s.astype(np.float64) - 127))
    return np.where(s == 0xFF, np.nan, v)


def run(fa, fb, M=32, N=32, K=64, batch=1, lhs_scale=True, rhs_scale=True, lk=True, rk=True,
        acc=False, fast=False, scale_range=(118, 136), seed=0, set_nan=False):
    rng = np.random.default_rng(seed)
    x, xv = _operand(rng, fa, (batch, M, K), 2 if lk else 1)
    y, yv = _operand(rng, fb, (batch, K, N), 1 if rk else 2)
    if fa == "fp16" or fb == "fp16":
        scale_range = (124, 130)  # fp16's range
    sx = rng.integers(*scale_range, (batch, M, K // 32), dtype=np.uint8)
    sy = rng.integers(*scale_range, (batch, N, K // 32), dtype=np.uint8)
    if set_nan:
        sx[0, 3, 0] = 0xFF
        sy[0, 5, K // 32 - 1] = 0xFF
    if lhs_scale:
        xv = xv * np.repeat(_scale_values(sx), 32, axis=2)
    if rhs_scale:
        yv = yv * np.repeat(_scale_values(sy), 32, axis=2).transpose(0, 2, 1)
    c0 = rng.standard_normal((batch, M, N)).astype(np.float32)
    out = np.zeros((batch, M, N), np.float32)
    _scaled[(1,)](x, sx if lhs_scale else None, y, sy if rhs_scale else None, out, c0,
                  batch, x.shape[1], x.shape[2], y.shape[1], y.shape[2], M, N, K // 32, fa, fb,
                  lhs_scale, rhs_scale, acc, lk, rk, fast)
    with np.errstate(invalid="ignore"):
        ref = np.matmul(xv, yv) + (c0 if acc else 0)
        bound = np.matmul(np.abs(np.nan_to_num(xv)), np.abs(np.nan_to_num(yv)))
    return out, ref, bound


def check(out, ref, bound):
    # The operands are exact in bf16/fp16; what differs is fp32 accumulation.
    finite = np.isfinite(ref)
    assert np.array_equal(np.isnan(out), np.isnan(ref))
    err = np.abs(out[finite] - ref[finite])
    assert np.all(err <= 1e-5 * bound[finite] + 1e-6), float(np.max(err))


@pytest.mark.parametrize("fa, fb", [("e2m1", "e2m1"), ("e2m1", "bf16"), ("e4m3", "e5m2"),
                                    ("e5m2", "e4m3"), ("bf16", "e2m1"), ("e4m3", "fp16"),
                                    ("fp16", "e2m1"), ("e5m2", "bf16")])
def test_formats(fa, fb):
    check(*run(fa, fb))


@pytest.mark.parametrize("lhs_scale, rhs_scale", [(True, False), (False, True), (False, False)])
def test_scales_optional(lhs_scale, rhs_scale):
    check(*run("e4m3", "e2m1", lhs_scale=lhs_scale, rhs_scale=rhs_scale))


@pytest.mark.parametrize("lk, rk", [(False, True), (True, False), (False, False)])
def test_e2m1_packed_along_m_or_n(lk, rk):
    check(*run("e2m1", "e2m1", M=64, N=32, K=64, lk=lk, rk=rk))


def test_accumulator_and_batched():
    check(*run("e2m1", "e4m3", acc=True))
    check(*run("e2m1", "e5m2", batch=2, acc=True, lk=False))


def test_nan_scale_gives_nan_rows():
    out, ref, bound = run("e4m3", "e4m3", set_nan=True)
    assert np.isnan(out[0, 3]).all() and np.isnan(out[0, :, 5]).all()
    check(out, ref, bound)


def test_fast_math_skips_the_nan_check():
    out, ref, _ = run("e4m3", "e4m3", fast=True, set_nan=True)
    finite = np.ones_like(out, bool)
    finite[0, 3] = False
    finite[0, :, 5] = False
    # a 0xFF scale is then an inf factor: the row (column) is no longer finite
    assert not np.isfinite(out[0, 3]).any()
    np.testing.assert_allclose(out[finite], ref[finite], rtol=1e-4, atol=1e-3)


@triton.jit
def _bad(A, B, Out, FA: tl.constexpr, FB: tl.constexpr, SHAPE_A: tl.constexpr,
         SCALE_K: tl.constexpr, LK: tl.constexpr, OUT: tl.constexpr):
    a = tl.load(A + tl.arange(0, 32)[:, None] * SHAPE_A + tl.arange(0, SHAPE_A)[None, :])
    b = tl.load(B + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    s = tl.full((32, SCALE_K), 127, tl.uint8)
    c = tl.dot_scaled(a, s, FA, b, None, FB, lhs_k_pack=LK, out_dtype=OUT)
    tl.store(Out + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :], c)


@pytest.mark.parametrize("a_dtype, fa, shape_a, scale_k, lk, out, msg", [
    (np.int8, "e2m1", 16, 1, True, tl.float32, "e2m1 format must be packed as uint8"),
    (np.uint8, "e4m3", 32, 2, True, tl.float32, "lhs_scale must be a tensor of shape [32, 1]"),
    (np.uint8, "e4m3", 32, 1, False, tl.float32, "only mxfp4 inputs can be packed"),
    (np.uint8, "e4m3", 32, 1, True, tl.float16, "only float32 is supported for out_dtype"),
    (np.uint8, "e3m2", 32, 1, True, tl.float32, "unsupported format 'e3m2'"),
    (np.uint8, "e4m3", 16, 1, True, tl.float32, "reduction dimension should pack the same"),
])
def test_errors(a_dtype, fa, shape_a, scale_k, lk, out, msg):
    a = np.zeros((32, shape_a), a_dtype)
    b = np.zeros((32, 32), np.uint8)
    with pytest.raises(CompilationError, match=re.escape(msg)):
        _bad[(1,)](a, b, np.zeros((32, 32), np.float32), fa, "e4m3", shape_a, scale_k, lk, out)
