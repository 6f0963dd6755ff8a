"""Shapes: [:, None] / [None, :] broadcasting, broadcast_to, expand_dims, reshape,
permute / trans / .T, join / split, full / zeros / zeros_like and .shape."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl


def test_outer_sum_and_product():
    @triton.jit
    def k(X, Y, S, P, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm)
        y = tl.load(Y + rn)
        offs = rm[:, None] * N + rn[None, :]
        tl.store(S + offs, x[:, None] + y[None, :])
        tl.store(P + offs, x[:, None] * y)  # rank-1 y broadcasts as [None, :]

    x = np.arange(4, dtype=np.float32)
    y = np.arange(8, dtype=np.float32) * 10
    s, p = np.zeros((4, 8), np.float32), np.zeros((4, 8), np.float32)
    k[(1,)](x, y, s, p, M=4, N=8)
    np.testing.assert_array_equal(s, x[:, None] + y[None, :])
    np.testing.assert_array_equal(p, x[:, None] * y[None, :])


def test_strided_2d_tile_transposed_store():
    @triton.jit
    def k(X, Z, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        tl.store(Z + rn[None, :] * M + rm[:, None], x)

    x = np.arange(32, dtype=np.int32).reshape(4, 8)
    z = np.zeros((8, 4), np.int32)
    k[(1,)](x, z, M=4, N=8)
    np.testing.assert_array_equal(z, x.T)


def test_broadcast_to_and_broadcast():
    @triton.jit
    def k(X, Z, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rn)
        b = tl.broadcast_to(x[None, :], (M, N))
        tl.static_assert(b.shape[0] == M)
        tl.static_assert(b.shape[1] == N)
        c = tl.broadcast_to(tl.expand_dims(x, 0), [M, N])
        col = rm[:, None]
        p, q = tl.broadcast(col, x[None, :])
        offs = rm[:, None] * N + rn[None, :]
        tl.store(Z + offs, b)
        tl.store(Z + M * N + offs, c * 2)
        tl.store(Z + 2 * M * N + offs, p + q * 0)

    x = np.arange(8, dtype=np.int32)
    z = np.zeros((3, 4, 8), np.int32)
    k[(1,)](x, z, M=4, N=8)
    np.testing.assert_array_equal(z[0], np.broadcast_to(x, (4, 8)))
    np.testing.assert_array_equal(z[1], np.broadcast_to(x * 2, (4, 8)))
    np.testing.assert_array_equal(z[2], np.broadcast_to(np.arange(4)[:, None], (4, 8)))


def test_scalar_broadcast_to_tile():
    @triton.jit
    def k(S, Z, N: tl.constexpr):
        s = tl.load(S)
        t = tl.broadcast_to(s, (N,))
        tl.store(Z + tl.arange(0, N), t + tl.arange(0, N))

    z = np.zeros(8, np.int32)
    k[(1,)](np.array([5], np.int32), z, N=8)
    np.testing.assert_array_equal(z, 5 + np.arange(8))


def test_expand_dims():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        rn = tl.arange(0, N)
        x = tl.load(X + rn)
        a = tl.expand_dims(x, 0)  # [1, N]
        b = tl.expand_dims(x, 1)  # [N, 1]
        c = tl.expand_dims(x, -1)  # [N, 1]
        d = x.expand_dims((0, 2))  # [1, N, 1]
        tl.static_assert(a.shape[0] == 1)
        tl.static_assert(b.shape[1] == 1)
        tl.static_assert(c.shape[1] == 1)
        tl.static_assert(len(d.shape) == 3)
        tl.static_assert(d.shape[1] == N)
        outer = a + b  # [N, N]
        tl.store(Z + rn[:, None] * N + rn[None, :], outer)
        tl.store(Z + N * N + rn, tl.sum(tl.sum(d, axis=2), axis=0) + tl.sum(c, axis=1))

    x = np.arange(8, dtype=np.int32) * 3
    z = np.zeros(8 * 8 + 8, np.int32)
    k[(1,)](x, z, N=8)
    np.testing.assert_array_equal(z[:64].reshape(8, 8), x[None, :] + x[:, None])
    np.testing.assert_array_equal(z[64:], 2 * x)


@pytest.mark.parametrize("shape", [(32,), (4, 8), (8, 4), (2, 4, 4), (2, 2, 2, 4)])
def test_reshape(shape):
    @triton.jit
    def k(X, Z, S0: tl.constexpr, S1: tl.constexpr, S2: tl.constexpr, S3: tl.constexpr,
          RANK: tl.constexpr):
        offs = tl.arange(0, 32)
        x = tl.load(X + offs)
        if RANK == 1:
            y = tl.reshape(x, (S0,))
            tl.store(Z + tl.arange(0, S0), y)
        elif RANK == 2:
            y = tl.reshape(x, (S0, S1))
            r0 = tl.arange(0, S0)[:, None]
            r1 = tl.arange(0, S1)[None, :]
            tl.store(Z + r0 * S1 + r1, y)
        elif RANK == 3:
            y = x.reshape(S0, S1, S2)
            r0 = tl.arange(0, S0)[:, None, None]
            r1 = tl.arange(0, S1)[None, :, None]
            r2 = tl.arange(0, S2)[None, None, :]
            tl.store(Z + r0 * S1 * S2 + r1 * S2 + r2, y)
        else:
            y = tl.reshape(x, [S0, S1, S2, S3])
            tl.static_assert(len(y.shape) == 4)
            z = tl.reshape(y, [32])  # and back
            tl.store(Z + offs, z)

    s = list(shape) + [1] * (4 - len(shape))
    x = np.arange(32, dtype=np.float32)
    z = np.zeros(32, np.float32)
    k[(1,)](x, z, S0=s[0], S1=s[1], S2=s[2], S3=s[3], RANK=len(shape))
    np.testing.assert_array_equal(z, x)  # row-major reshape keeps the element order


def test_trans_permute_T():
    @triton.jit
    def k(X, Z, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])  # [M, N]
        a = tl.trans(x)
        b = tl.permute(x, (1, 0))
        c = x.T
        d = x.permute(1, 0)
        tl.static_assert(a.shape[0] == N)
        offs_t = rn[:, None] * M + rm[None, :]
        tl.store(Z + offs_t, a)
        tl.store(Z + M * N + offs_t, b)
        tl.store(Z + 2 * M * N + offs_t, c)
        tl.store(Z + 3 * M * N + offs_t, d)

    x = np.arange(32, dtype=np.int32).reshape(4, 8)
    z = np.zeros((4, 8, 4), np.int32)
    k[(1,)](x, z, M=4, N=8)
    for i in range(4):
        np.testing.assert_array_equal(z[i], x.T)


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (2, 1, 0), (0, 2, 1)])
def test_permute_3d(order):
    @triton.jit
    def k(X, Z, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, P0: tl.constexpr,
          P1: tl.constexpr, P2: tl.constexpr):
        ra = tl.arange(0, A)[:, None, None]
        rb = tl.arange(0, B)[None, :, None]
        rc = tl.arange(0, C)[None, None, :]
        x = tl.load(X + ra * B * C + rb * C + rc)
        y = tl.permute(x, (P0, P1, P2))
        # y[i, j, k]: store it row-major for its own shape
        D0: tl.constexpr = y.shape[0]
        D1: tl.constexpr = y.shape[1]
        D2: tl.constexpr = y.shape[2]
        i = tl.arange(0, D0)[:, None, None]
        j = tl.arange(0, D1)[None, :, None]
        kk = tl.arange(0, D2)[None, None, :]
        tl.store(Z + i * D1 * D2 + j * D2 + kk, y)

    x = np.arange(2 * 4 * 8, dtype=np.int32).reshape(2, 4, 8)
    want = np.transpose(x, order)
    z = np.zeros(want.shape, np.int32)
    k[(1,)](x, z, A=2, B=4, C=8, P0=order[0], P1=order[1], P2=order[2])
    np.testing.assert_array_equal(z, want)


def test_trans_with_dims():
    @triton.jit
    def k(X, Z):
        ra = tl.arange(0, 2)[:, None, None]
        rb = tl.arange(0, 4)[None, :, None]
        rc = tl.arange(0, 8)[None, None, :]
        x = tl.load(X + ra * 32 + rb * 8 + rc)
        y = tl.trans(x, 1, 0, 2)  # [4, 2, 8]
        i = tl.arange(0, 4)[:, None, None]
        j = tl.arange(0, 2)[None, :, None]
        kk = tl.arange(0, 8)[None, None, :]
        tl.store(Z + i * 16 + j * 8 + kk, y)

    x = np.arange(64, dtype=np.int32).reshape(2, 4, 8)
    z = np.zeros((4, 2, 8), np.int32)
    k[(1,)](x, z)
    np.testing.assert_array_equal(z, np.transpose(x, (1, 0, 2)))


def test_join_split():
    @triton.jit
    def k(A, B, J, SA, SB, N: tl.constexpr):
        rn = tl.arange(0, N)
        a = tl.load(A + rn)
        b = tl.load(B + rn)
        j = tl.join(a, b)  # [N, 2]
        tl.static_assert(j.shape[1] == 2)
        tl.store(J + rn[:, None] * 2 + tl.arange(0, 2)[None, :], j)
        inter = tl.reshape(j, [2 * N])  # interleaved
        pairs = tl.reshape(inter, [N, 2])
        x, y = tl.split(pairs)
        tl.store(SA + rn, x)
        tl.store(SB + rn, y)

    a = np.arange(8, dtype=np.float32)
    b = -np.arange(8, dtype=np.float32) - 100
    jo = np.zeros((8, 2), np.float32)
    sa, sb = np.zeros(8, np.float32), np.zeros(8, np.float32)
    k[(1,)](a, b, jo, sa, sb, N=8)
    np.testing.assert_array_equal(jo, np.stack([a, b], axis=-1))
    np.testing.assert_array_equal(sa, a)
    np.testing.assert_array_equal(sb, b)


def test_join_2d_and_split_method():
    @triton.jit
    def k(X, Z, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)[:, None]
        rn = tl.arange(0, N)[None, :]
        x = tl.load(X + rm * N + rn)
        j = tl.join(x, x + 1000)  # [M, N, 2]
        tl.static_assert(len(j.shape) == 3)
        lo, hi = j.split()
        tl.store(Z + rm * N + rn, hi - lo)

    x = np.arange(32, dtype=np.int32).reshape(4, 8)
    z = np.zeros((4, 8), np.int32)
    k[(1,)](x, z, M=4, N=8)
    assert (z == 1000).all()


def test_full_zeros_zeros_like():
    @triton.jit
    def k(Z, ZI, N: tl.constexpr):
        rn = tl.arange(0, N)
        a = tl.full((N,), 2.5, tl.float16)
        tl.static_assert(a.dtype == tl.float16)
        b = tl.zeros([N], dtype=tl.int32) + 7
        c = tl.zeros_like(a) + 1
        tl.static_assert(c.dtype == tl.float16)
        d = tl.full([2, N], -1, tl.int64)
        tl.store(Z + rn, a + c)
        tl.store(ZI + rn, b)
        tl.store(ZI + N + rn, tl.sum(d, axis=0).to(tl.int32))

    z = np.zeros(8, np.float16)
    zi = np.zeros(16, np.int32)
    k[(1,)](z, zi, N=8)
    np.testing.assert_array_equal(z, np.full(8, 3.5, np.float16))
    np.testing.assert_array_equal(zi[:8], 7)
    np.testing.assert_array_equal(zi[8:], -2)


def test_shape_numel_and_arange_offset():
    @triton.jit
    def k(Z, M: tl.constexpr, N: tl.constexpr):
        x = tl.zeros((M, N), dtype=tl.float32)
        tl.static_assert(x.shape[0] * x.shape[1] == 32)
        tl.static_assert(x.numel == 32)
        r = tl.arange(8, 16)  # a range with a non-zero start
        tl.store(Z + tl.arange(0, 8), r)

    z = np.zeros(8, np.int32)
    k[(1,)](z, M=4, N=8)
    np.testing.assert_array_equal(z, np.arange(8, 16))
