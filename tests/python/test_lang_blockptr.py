"""Block pointers (tl.make_block_ptr, tl.advance, tl.load / tl.store through them): 2-D
and 3-D blocks with boundary checks and padding, column-major strides, a matmul whose
pointers advance in a loop, block pointers through @jit helpers, `if` and `while`. The
references are numpy's; an access outside the arrays that a missing boundary_check lets
through is a bounds error on the interpreter."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl


@triton.jit
def k_copy2d(X, Y, M, N, sxm, sxn, sym, syn, BM: tl.constexpr, BN: tl.constexpr,
             PAD: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    xb = tl.make_block_ptr(X, shape=(M, N), strides=(sxm, sxn), offsets=(pm * BM, pn * BN),
                           block_shape=(BM, BN), order=(1, 0))
    yb = tl.make_block_ptr(base=Y, shape=[M, N], strides=[sym, syn], offsets=[pm * BM, pn * BN],
                           block_shape=[BM, BN], order=[1, 0])
    x = tl.load(xb, boundary_check=(0, 1), padding_option=PAD)
    tl.store(yb, x * 2, boundary_check=(1, 0))


@pytest.mark.parametrize("m,n", [(37, 53), (64, 64), (1, 17)])
@pytest.mark.parametrize("pad", ["", "zero"])
def test_copy_with_boundary_checks(m, n, pad):
    x = np.random.default_rng(m * n).standard_normal((m, n)).astype(np.float32)
    y = np.zeros_like(x)
    k_copy2d[(triton.cdiv(m, 16), triton.cdiv(n, 32))](x, y, m, n, n, 1, n, 1, BM=16, BN=32,
                                                      PAD=pad)
    np.testing.assert_array_equal(y, 2 * x)


def test_column_major_source():
    # a 40x24 matrix stored column by column: its transpose's rows, strides (1, 40)
    x = np.arange(40 * 24, dtype=np.float32).reshape(40, 24)
    cols = np.ascontiguousarray(x.T)
    y = np.zeros((40, 24), np.float32)
    k_copy2d[(3, 1)](cols, y, 40, 24, 1, 40, 24, 1, BM=16, BN=32, PAD="zero")
    np.testing.assert_array_equal(y, 2 * x)


@triton.jit
def k_padding(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    xb = tl.make_block_ptr(X, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    v = tl.load(xb, boundary_check=(0, 1), padding_option=PAD)
    r = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(Y + r, v)


@pytest.mark.parametrize("pad,fill", [("zero", 0.0), ("nan", np.nan)])
def test_padding_fills_the_outside(pad, fill):
    x = np.arange(5 * 6, dtype=np.float32).reshape(5, 6) + 1
    y = np.zeros((8, 8), np.float32)
    k_padding[(1,)](x, y, 5, 6, BM=8, BN=8, PAD=pad)
    want = np.full((8, 8), fill, np.float32)
    want[:5, :6] = x
    np.testing.assert_array_equal(y, want)


@triton.jit
def k_int_padding(X, Y, N, B: tl.constexpr):
    v = tl.load(tl.make_block_ptr(X, (N,), (1,), (0,), (B,), (0,)), boundary_check=(0,))
    tl.store(Y + tl.arange(0, B), v + 1)


def test_integer_block_reads_zero_outside():
    x = np.arange(5, dtype=np.int16)
    y = np.zeros(8, np.int16)
    k_int_padding[(1,)](x, y, 5, B=8)
    assert y.tolist() == [1, 2, 3, 4, 5, 1, 1, 1]


def test_missing_boundary_check_is_a_bounds_error():
    x = np.zeros((5, 6), np.float32)
    y = np.zeros((8, 8), np.float32)
    with pytest.raises(triton.KernelError):
        k_padding_unchecked[(1,)](x, y, 5, 6, BM=8, BN=8)


@triton.jit
def k_padding_unchecked(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    v = tl.load(tl.make_block_ptr(X, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0)))
    tl.store(Y + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], v)


@triton.jit
def k_matmul(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr,
             BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    a_bp = tl.make_block_ptr(A, (M, K), (sam, sak), (pm * BM, 0), (BM, BK), (1, 0))
    b_bp = tl.make_block_ptr(B, (K, N), (sbk, sbn), (0, pn * BN), (BK, BN), (0, 1))
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_bp, boundary_check=(0, 1))
        b = tl.load(b_bp, boundary_check=(0, 1))
        acc += tl.dot(a, b)
        a_bp = tl.advance(a_bp, (0, BK))
        b_bp = tl.advance(b_bp, [BK, 0])
    c_bp = tl.make_block_ptr(C, (M, N), (scm, scn), (pm * BM, pn * BN), (BM, BN), (1, 0))
    tl.store(c_bp, acc.to(C.dtype.element_ty), boundary_check=(0, 1))


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (70, 50, 90)])
def test_matmul_advancing_in_a_loop(m, n, k):
    rng = np.random.default_rng(7)
    a = rng.random((m, k)).astype(np.float16)
    b = rng.random((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    k_matmul[(triton.cdiv(m, 32), triton.cdiv(n, 32))](
        a, b, c, m, n, k, k, 1, n, 1, n, 1, BM=32, BN=32, BK=32)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)


@triton.jit
def _next(bp, step: tl.constexpr):
    return tl.advance(bp, (step,))


@triton.jit
def k_sum_while(X, Out, N, B: tl.constexpr):
    bp = tl.make_block_ptr(X, (N,), (1,), (0,), (B,), (0,))
    acc = tl.zeros((B,), tl.float32)
    i = 0
    while i < N:
        acc += tl.load(bp, boundary_check=(0,))
        bp = _next(bp, B)
        i += B
    tl.store(Out, tl.sum(acc, axis=0))


def test_advance_through_a_helper_in_a_while_loop():
    x = np.arange(100, dtype=np.float32)
    out = np.zeros(1, np.float32)
    k_sum_while[(1,)](x, out, 100, B=16)
    assert out[0] == x.sum()


@triton.jit
def k_branch(X, Y, N, flip, B: tl.constexpr):
    bp = tl.make_block_ptr(X, (N,), (1,), (0,), (B,), (0,))
    if flip:
        bp = tl.advance(bp, (B,))
    tl.store(Y + tl.arange(0, B), tl.load(bp, boundary_check=(0,)))


def test_block_pointer_joined_after_if():
    x = np.arange(24, dtype=np.float32)
    y = np.zeros(16, np.float32)
    k_branch[(1,)](x, y, 24, 1, B=16)
    assert y.tolist() == list(range(16, 24)) + [0.0] * 8
    k_branch[(1,)](x, y, 24, 0, B=16)
    assert y.tolist() == list(range(16))


@triton.jit
def k_3d(X, Y, D0, D1, D2, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    p = tl.program_id(0)
    xb = tl.make_block_ptr(X, (D0, D1, D2), (D1 * D2, D2, 1), (p * B0, 0, 0), (B0, B1, B2),
                           (2, 1, 0))
    yb = tl.make_block_ptr(Y, (D0, D1, D2), (D1 * D2, D2, 1), (p * B0, 0, 0), (B0, B1, B2),
                           (2, 1, 0))
    tl.store(yb, tl.load(xb, boundary_check=(0, 1, 2)) + 1.0, boundary_check=(0, 1, 2))


def test_3d_block():
    x = np.random.default_rng(3).random((5, 3, 7)).astype(np.float32)
    y = np.zeros_like(x)
    k_3d[(3,)](x, y, 5, 3, 7, B0=2, B1=4, B2=8)
    np.testing.assert_array_equal(y, x + 1)


@triton.jit
def k_window(X, Y, N, start, step, steps, B: tl.constexpr):
    # a window sliding by a run-time step (negative steps too): its offset's sign is not
    # known, so both bounds are checked
    bp = tl.make_block_ptr(X, (N,), (1,), (start,), (B,), (0,))
    for i in range(steps):
        v = tl.load(bp, boundary_check=(0,), padding_option="zero")
        tl.store(Y + i * B + tl.arange(0, B), v)
        bp = tl.advance(bp, (step,))


@pytest.mark.parametrize("start,step", [(-6, 4), (10, -5), (0, 3)])
def test_window_with_negative_offsets(start, step):
    n, b, steps = 12, 8, 4
    x = np.arange(1, n + 1, dtype=np.float32)
    y = np.zeros(steps * b, np.float32)
    k_window[(1,)](x, y, n, start, step, steps, B=b)
    want = []
    for i in range(steps):
        idx = start + i * step + np.arange(b)
        want += [x[j] if 0 <= j < n else 0.0 for j in idx]
    assert y.tolist() == want


@triton.jit
def k_int64_shape(X, Y, N, B: tl.constexpr):
    bp = tl.make_block_ptr(X, (N.to(tl.int64),), (1,), (tl.program_id(0) * B,), (B,), (0,))
    tl.store(Y + tl.program_id(0) * B + tl.arange(0, B),
             tl.load(bp, boundary_check=(0,), padding_option="nan"))


def test_64_bit_shape():
    x = np.arange(20, dtype=np.float32)
    y = np.zeros(32, np.float32)
    k_int64_shape[(2,)](x, y, 20, B=16)
    np.testing.assert_array_equal(y[:20], x)
    assert np.isnan(y[20:]).all()


@triton.jit
def k_wrapped_offset(X, Y, N, B: tl.constexpr):
    # a uint32 offset of 2^32 - 4 is -4 as the int32 a block pointer keeps: the lower
    # bound must still be checked
    off = tl.full((), 2**32 - 4, tl.uint32)
    bp = tl.make_block_ptr(X, (N,), (1,), (off,), (B,), (0,))
    tl.store(Y + tl.arange(0, B), tl.load(bp, boundary_check=(0,), padding_option="zero") + 1)


def test_offset_from_a_large_uint32_is_bounds_checked():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(8, np.float32)
    k_wrapped_offset[(1,)](x, y, 16, B=8)
    assert y.tolist() == [1.0] * 4 + [1.0, 2.0, 3.0, 4.0]
