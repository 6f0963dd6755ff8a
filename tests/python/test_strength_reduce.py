"""Strength reduction of loop pointer tiles (the GPU path only; transforms/StrengthReduce.h):
`P + f(k)` with P loop-invariant and f(k) built from the loop counter by sign extension,
+/- invariants and * invariants becomes a carried pointer tile advanced by f(k + step) -
f(k). The layouts-stage IR shows the carried pointers; the SIMT simulator (TILEC_SIMT=1)
runs the lowered loops and must agree with numpy for increasing, decreasing, run-time and
nested loops, subtraction from the counter, 64-bit offsets, zero-trip loops and the
descriptor loads of a matmul."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def row_sums(X, Out, stride, lo, hi, step, R: tl.constexpr, C: tl.constexpr):
    """Out[c] = sum over k in range(lo, hi, step) of X[k, c]: a pointer tile + k * stride."""
    cols = tl.arange(0, C)
    base = X + cols
    acc = tl.zeros((C,), dtype=tl.float32)
    for k in range(lo, hi, step):
        acc += tl.load(base + k * stride)
    tl.store(Out + cols, acc)


@triton.jit
def row_sums_wide(X, Out, stride, n, R: tl.constexpr, C: tl.constexpr):
    """The counter widened to 64 bits first, and read backwards: X[n - 1 - k]."""
    cols = tl.arange(0, C)
    base = X + cols
    acc = tl.zeros((C,), dtype=tl.float32)
    for k in range(0, n):
        acc = acc * 0.5 + tl.load(base + (n - 1 - k).to(tl.int64) * stride)
    tl.store(Out + cols, acc)


@triton.jit
def nested(X, Out, s0, s1, n0, n1, C: tl.constexpr):
    """Out[c] = sum_i sum_j (i + 1) * X[i, j, c]: the inner loop's pointer starts at the
    outer one's."""
    cols = tl.arange(0, C)
    base = X + cols
    acc = tl.zeros((C,), dtype=tl.float32)
    for i in range(0, n0):
        for j in range(0, n1, 1):
            acc += (i + 1) * tl.load(base + i * s0 + j * s1)
    tl.store(Out + cols, acc)


@triton.jit
def desc_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
    c_desc.store([0, 0], acc)


def _ref_rows(x, lo, hi, step):
    return sum((x[k].astype(np.float32) for k in range(lo, hi, step)),
               np.zeros(x.shape[1], np.float32))


@pytest.fixture(params=["interpreter", "simt"])
def target(request, monkeypatch):
    if request.param == "simt":
        monkeypatch.setenv("TILEC_SIMT", "1")
    return request.param


@pytest.mark.parametrize("lo,hi,step", [(0, 16, 1), (1, 16, 3), (15, -1, -2), (5, 5, 1),
                                        (0, 16, 16), (12, 2, -5)])
def test_row_sums(target, lo, hi, step):
    x = np.arange(16 * 8, dtype=np.float32).reshape(16, 8)
    out = np.full(8, np.nan, np.float32)
    row_sums[(1,)](x, out, 8, lo, hi, step, R=16, C=8)
    np.testing.assert_array_equal(out, _ref_rows(x, lo, hi, step))


def test_row_sums_wide(target):
    x = np.arange(12 * 16, dtype=np.float32).reshape(12, 16) / 64
    out = np.full(16, np.nan, np.float32)
    row_sums_wide[(1,)](x, out, 16, 12, R=12, C=16)
    ref = np.zeros(16, np.float32)
    for k in range(12):
        ref = ref * np.float32(0.5) + x[11 - k]
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_nested(target):
    x = np.arange(3 * 5 * 8, dtype=np.float32).reshape(3, 5, 8)
    out = np.full(8, np.nan, np.float32)
    nested[(1,)](x, out, 40, 8, 3, 5, C=8)
    ref = sum((i + 1) * x[i].sum(axis=0) for i in range(3))
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("K", [0, 16, 64])
def test_descriptor_matmul(target, K):
    rng = np.random.default_rng(K)
    a = rng.integers(-3, 4, (32, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, 32)).astype(np.float16)
    c = np.full((32, 32), np.nan, np.float32)
    desc_matmul[(1,)](TensorDescriptor.from_tensor(a if K else np.zeros((32, 16), np.float16),
                                                   [32, 16]),
                      TensorDescriptor.from_tensor(b if K else np.zeros((16, 32), np.float16),
                                                   [16, 32]),
                      TensorDescriptor.from_tensor(c, [32, 32]), K, BM=32, BN=32, BK=16,
                      num_stages=3)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


def test_layouts_ir_carries_the_pointer_tile():
    k = triton.compile(row_sums, "*fp32:16,*fp32:16,i32,i32,i32,i32",
                       constexprs={"R": 16, "C": 8}, target="cuda:90")
    ir = k.asm["ttgir"]
    loop = ir[ir.index(" = for "):]
    header = loop[:loop.index("\n")]
    assert "tile<8xptr<fp32>" in header  # the pointer tile is carried
    body = loop[:loop.index("yield")]
    assert " mul " not in body  # no k * stride left in the body
    plain = triton.compile(row_sums, "*fp32:16,*fp32:16,i32,i32,i32,i32",
                           constexprs={"R": 16, "C": 8})  # the CPU path keeps the loop
    assert " mul " in plain.asm["tileir"][plain.asm["tileir"].index(" = for "):]
