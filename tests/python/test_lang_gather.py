"""tl.gather and tl.histogram (and their method forms) against numpy (np.take_along_axis,
np.bincount) and a few values produced by Triton 3.6's interpreter (TRITON_INTERPRET=1).
On the GPU path (SIMT simulator, GPU) both go through shared memory; the layouts vary with
the shapes and num_warps here (replicated tiles included)."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl

RNG = np.random.default_rng(7)


@triton.jit
def k_gather2d(S, I, O, M: tl.constexpr, N: tl.constexpr, IM: tl.constexpr,
               IN: tl.constexpr, AXIS: tl.constexpr):
    src = tl.load(S + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    idx = tl.load(I + tl.arange(0, IM)[:, None] * IN + tl.arange(0, IN)[None, :])
    out = tl.gather(src, idx, AXIS)
    tl.store(O + tl.arange(0, IM)[:, None] * IN + tl.arange(0, IN)[None, :], out)


@triton.jit
def k_gather1d(S, I, O, N: tl.constexpr, K: tl.constexpr):
    src = tl.load(S + tl.arange(0, N))
    idx = tl.load(I + tl.arange(0, K))
    tl.store(O + tl.arange(0, K), src.gather(idx, axis=0))


@triton.jit
def k_gather3d(S, I, O, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, IB: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    c = tl.arange(0, C)[None, None, :]
    src = tl.load(S + a * B * C + tl.arange(0, B)[None, :, None] * C + c)
    ioff = a * IB * C + tl.arange(0, IB)[None, :, None] * C + c
    out = tl.gather(src, tl.load(I + ioff), -2)
    tl.store(O + ioff, out)


@triton.jit
def k_gather_computed(S, O, N: tl.constexpr):
    # the index is computed (flexible layout), the result reduced: row reversal, row sums
    rows = tl.arange(0, N)[:, None]
    cols = tl.arange(0, N)[None, :]
    src = tl.load(S + rows * N + cols)
    rev = tl.gather(src, (N - 1 - cols) + rows * 0, 1)
    tl.store(O + rows * N + cols, rev)
    tl.store(O + N * N + tl.arange(0, N), tl.sum(rev * 2, axis=1))


def _gather_ref(src, idx, axis):
    return np.take_along_axis(src, idx.astype(np.int64), axis=axis)


def _values(dtype, shape):
    if np.issubdtype(dtype, np.floating):
        return RNG.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("src_shape,idx_shape,axis", [
    ((128, 64), (128, 64), 0),
    ((128, 64), (128, 64), 1),
    ((128, 64), (32, 64), 0),    # fewer rows than the source
    ((16, 64), (64, 64), 0),     # more rows than the source (indices repeat)
    ((32, 64), (32, 16), 1),
    ((8, 4), (8, 32), 1),
])
@pytest.mark.parametrize("dtype,idx_dtype", [(np.float32, np.int32), (np.float16, np.int64)])
def test_gather_2d_shapes(src_shape, idx_shape, axis, dtype, idx_dtype):
    src = _values(dtype, src_shape)
    idx = RNG.integers(0, src_shape[axis], size=idx_shape).astype(idx_dtype)
    out = np.zeros(idx_shape, dtype)
    k_gather2d[(1,)](src, idx, out, M=src_shape[0], N=src_shape[1], IM=idx_shape[0],
                     IN=idx_shape[1], AXIS=axis)
    np.testing.assert_array_equal(out, _gather_ref(src, idx, axis))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.float64])
@pytest.mark.parametrize("idx_dtype", [np.int32, np.int64, np.uint8, np.int16])
def test_gather_dtypes(dtype, idx_dtype):
    src = _values(dtype, (32, 16))
    for axis in (0, 1):
        idx = RNG.integers(0, src.shape[axis], size=(32, 16)).astype(idx_dtype)
        out = np.zeros((32, 16), dtype)
        k_gather2d[(1,)](src, idx, out, M=32, N=16, IM=32, IN=16, AXIS=axis)
        np.testing.assert_array_equal(out, _gather_ref(src, idx, axis))


@pytest.mark.parametrize("n,k", [(64, 64), (256, 16), (8, 128), (1024, 1024)])
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_gather_1d(n, k, num_warps):
    src = RNG.standard_normal(n).astype(np.float32)
    idx = RNG.integers(0, n, size=k).astype(np.int32)
    out = np.zeros(k, np.float32)
    k_gather1d[(1,)](src, idx, out, N=n, K=k, num_warps=num_warps)
    np.testing.assert_array_equal(out, src[idx])


def test_gather_bool_source():
    src = RNG.integers(0, 2, size=64).astype(np.bool_)
    idx = RNG.integers(0, 64, size=32).astype(np.int32)
    out = np.zeros(32, np.bool_)
    k_gather1d[(1,)](src, idx, out, N=64, K=32)
    np.testing.assert_array_equal(out, src[idx])


@pytest.mark.parametrize("num_warps", [2, 4])
def test_gather_3d_negative_axis(num_warps):
    src = RNG.standard_normal((4, 8, 16)).astype(np.float32)
    idx = RNG.integers(0, 8, size=(4, 32, 16)).astype(np.int64)
    out = np.zeros((4, 32, 16), np.float32)
    k_gather3d[(1,)](src, idx, out, A=4, B=8, C=16, IB=32, num_warps=num_warps)
    np.testing.assert_array_equal(out, _gather_ref(src, idx, 1))


def test_gather_computed_index_and_reduction():
    src = RNG.integers(-50, 50, size=(32, 32)).astype(np.int32)
    out = np.zeros(32 * 32 + 32, np.int32)
    k_gather_computed[(1,)](src, out, N=32)
    np.testing.assert_array_equal(out[:1024].reshape(32, 32), src[:, ::-1])
    np.testing.assert_array_equal(out[1024:], (src * 2).sum(axis=1))


def test_gather_triton_golden():
    # Triton 3.6's interpreter: s.gather(i, 0) of arange(8).reshape(2, 4) with a [4, 4] index
    src = np.arange(8, dtype=np.float32).reshape(2, 4)
    idx = np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 1, 0, 1]], np.int64)
    out = np.zeros((4, 4), np.float32)
    k_gather2d[(1,)](src, idx, out, M=2, N=4, IM=4, IN=4, AXIS=0)
    assert out.tolist() == [[4, 1, 6, 7], [0, 1, 6, 3], [4, 5, 6, 7], [0, 5, 2, 7]]


def test_gather_index_out_of_range_is_a_fault():
    # interpreter only (deselected on the SIMT simulator and the GPU, which read
    # src[index mod dim] as docs/LANGUAGE.md says)
    src = np.zeros(64, np.float32)
    idx = np.zeros(16, np.int32)
    idx[5] = 64
    with pytest.raises(triton.KernelError, match=r"gather index 64 is out of range \[0, 64\)"):
        k_gather1d[(1,)](src, idx, np.zeros(16, np.float32), N=64, K=16)
    idx[5] = -1
    with pytest.raises(triton.KernelError, match="out of range"):
        k_gather1d[(1,)](src, idx, np.zeros(16, np.float32), N=64, K=16)


# ---- histogram ------------------------------------------------------------------------


@triton.jit
def k_hist(X, O, N: tl.constexpr, B: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(O + tl.arange(0, B), tl.histogram(x, B))


@triton.jit
def k_hist_masked(X, O, n, N: tl.constexpr, B: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs, mask=offs < n, other=0)
    tl.store(O + tl.arange(0, B), x.histogram(B, mask=offs < n))


@triton.jit
def k_hist_scalar_mask(X, O, on, N: tl.constexpr, B: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(O + tl.arange(0, B), tl.histogram(x, B, on != 0))


@triton.jit
def k_hist_grid(X, O, N: tl.constexpr, B: tl.constexpr):
    # one histogram per program, accumulated with atomics: the usual kernel shape
    pid = tl.program_id(0)
    x = tl.load(X + pid * N + tl.arange(0, N))
    h = tl.histogram(x, B)
    tl.atomic_add(O + tl.arange(0, B), h)


def _hist_ref(x, bins, mask=None):
    x = x.astype(np.int64)
    keep = (x >= 0) & (x < bins)
    if mask is not None:
        keep &= mask
    return np.bincount(x[keep], minlength=bins).astype(np.int32)


@pytest.mark.parametrize("n,bins", [(4096, 256), (1024, 16), (16, 64), (128, 2), (64, 1),
                                    (256, 1024)])
@pytest.mark.parametrize("num_warps", [1, 4])
def test_histogram_sizes(n, bins, num_warps):
    x = RNG.integers(-3, bins + 3, size=n).astype(np.int32)  # some out of range both sides
    out = np.full(bins, -1, np.int32)
    k_hist[(1,)](x, out, N=n, B=bins, num_warps=num_warps)
    np.testing.assert_array_equal(out, _hist_ref(x, bins))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.int64,
                                   np.uint64])
def test_histogram_dtypes(dtype):
    info = np.iinfo(dtype)
    x = RNG.integers(max(info.min, -40), min(info.max, 80), size=512, endpoint=True).astype(dtype)
    x[:4] = [info.max, info.min, 31, 0]
    if np.dtype(dtype).itemsize == 8:  # values whose low 32 bits are in range
        x[4] = dtype(2**32 + 5)
    out = np.zeros(64, np.int32)
    k_hist[(1,)](x, out, N=512, B=64)
    np.testing.assert_array_equal(out, _hist_ref(x, 64))  # uint64 >= 2^63 wraps negative


@pytest.mark.parametrize("n", [0, 1, 700, 1024])
def test_histogram_mask(n):
    x = RNG.integers(0, 32, size=1024).astype(np.int32)
    out = np.zeros(32, np.int32)
    k_hist_masked[(1,)](x, out, n, N=1024, B=32)
    np.testing.assert_array_equal(out, _hist_ref(x, 32, np.arange(1024) < n))


def test_histogram_scalar_mask():
    x = RNG.integers(0, 8, size=64).astype(np.int32)
    out = np.zeros(8, np.int32)
    k_hist_scalar_mask[(1,)](x, out, 1, N=64, B=8)
    np.testing.assert_array_equal(out, _hist_ref(x, 8))
    k_hist_scalar_mask[(1,)](x, out, 0, N=64, B=8)
    assert not out.any()


def test_histogram_grid_atomics():
    x = RNG.integers(0, 128, size=(8, 2048)).astype(np.int32)
    out = np.zeros(128, np.int32)
    k_hist_grid[(8,)](x, out, N=2048, B=128)
    np.testing.assert_array_equal(out, _hist_ref(x.ravel(), 128))


def test_histogram_triton_golden():
    # Triton 3.6's interpreter on these 16 values (-1, 9 and 10 out of range for 8 bins)
    x = np.array([0, 1, 1, 3, 4, -1, 7, 10, 9, 2, 2, 2, 3, 3, 5, 6], np.int32)
    out = np.zeros(8, np.int32)
    k_hist_masked[(1,)](x, out, 16, N=16, B=8)
    assert out.tolist() == [1, 2, 3, 3, 1, 1, 1, 1]
    k_hist_masked[(1,)](x, out, 10, N=16, B=8)
    assert out.tolist() == [1, 2, 1, 1, 1, 0, 0, 1]


def test_histogram_value_equal_to_num_bins_is_not_counted():
    # Triton's interpreter (np.histogram's closed last bin) counts num_bins in the last
    # bin; tilec counts bins of width 1 only, as the docstring says (docs/LANGUAGE.md)
    x = np.array([7, 8, 8, 0], np.int32)
    out = np.zeros(8, np.int32)
    k_hist[(1,)](x, out, N=4, B=8)
    assert out.tolist() == [1, 0, 0, 0, 0, 0, 0, 1]


@triton.jit
def k_gather_loop(S, I, O, n, N: tl.constexpr):
    # a permutation applied n times, with a cross-warp reduction (more scratch) each time
    offs = tl.arange(0, N)
    src = tl.load(S + offs)
    idx = tl.load(I + offs)
    acc = tl.zeros((N,), tl.int32)
    for _ in range(n):
        src = tl.gather(src, idx, 0)
        acc += src * 3 + tl.sum(src, axis=0)
    tl.store(O + offs, acc)


@triton.jit
def k_hist_cumsum(X, O, N: tl.constexpr, B: tl.constexpr):
    # counting sort's offsets: the histogram's running sum
    x = tl.load(X + tl.arange(0, N))
    tl.store(O + tl.arange(0, B), tl.cumsum(tl.histogram(x, B), 0))


@pytest.mark.parametrize("num_warps", [1, 4])
def test_gather_in_a_loop_with_reductions(num_warps):
    src = RNG.integers(-1000, 1000, size=512).astype(np.int32)
    perm = RNG.permutation(512).astype(np.int32)
    out = np.zeros(512, np.int32)
    k_gather_loop[(1,)](src, perm, out, 5, N=512, num_warps=num_warps)
    s, acc = src.copy(), np.zeros(512, np.int64)
    for _ in range(5):
        s = s[perm]
        acc += s * 3 + s.sum()
    np.testing.assert_array_equal(out, acc.astype(np.int32))


def test_histogram_cumsum():
    x = RNG.integers(0, 64, size=2048).astype(np.int16)
    out = np.zeros(64, np.int32)
    k_hist_cumsum[(1,)](x, out, N=2048, B=64)
    np.testing.assert_array_equal(out, np.cumsum(_hist_ref(x, 64)))


@triton.jit
def k_bool_index(X, H, G, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))  # int1: Triton counts it as an integer type
    tl.store(H + tl.arange(0, 4), tl.histogram(x, 4))
    tl.store(G + tl.arange(0, N), tl.gather(tl.arange(0, N) * 10, x, 0))


def test_bool_index_and_histogram_input():
    x = RNG.integers(0, 2, size=16).astype(np.bool_)
    h, g = np.zeros(4, np.int32), np.zeros(16, np.int32)
    k_bool_index[(1,)](x, h, g, N=16)
    assert h.tolist() == [int((~x).sum()), int(x.sum()), 0, 0]
    np.testing.assert_array_equal(g, x.astype(np.int32) * 10)
