"""Tuples as kernel arguments (nested, with None, constexpr elements and @jit functions),
NamedTuples (fields read as attributes, built inside kernels), tl.tuple, tuple operators,
and the errors tuples raise — Triton 3.6's test_tuple semantics, on the interpreter."""

from typing import NamedTuple

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl


@triton.jit
def _store_all(Ptrs, values):
    for i in tl.static_range(len(values)):
        tl.store(Ptrs[i], values[i])


@triton.jit
def _tuple_index(_0, Ptrs, _1: tl.constexpr, values, _2):
    _store_all(Ptrs, tl.tuple([v + 1 for v in values]))


@pytest.mark.parametrize("size", [0, 1, 3])
def test_tuple_of_pointers_and_of_scalars(size):
    vals = tuple(float(i + 1) for i in range(size))
    rets = tuple(np.zeros(1, np.float32) for _ in vals)
    _tuple_index[(1,)](0, rets, 0, vals, 0)
    assert [r[0] - 1 for r in rets] == list(vals)


@triton.jit
def _serialize(Ptr, N1, t1, c1: tl.constexpr, v1, t2):
    tl.static_assert(N1 is None)
    tl.static_assert(t1[1][1] is None)
    tl.static_assert(t1[1][3] == 4)
    tl.store(Ptr + 0, tl.load(t1[0]))
    tl.store(Ptr + 1, t1[1][0])
    tl.store(Ptr + 2, tl.load(t1[1][2]))
    tl.store(Ptr + 3, c1 + v1)
    tl.store(Ptr + 4, tl.load(t2[0]))


def test_nested_tuples_with_none_and_constexpr():
    x0, x1, y0 = (np.array([v], np.int32) for v in (8, 12, 10))
    z = np.zeros(5, np.int32)
    _serialize[(1,)](z, None, (x0, (7, None, x1, tl.constexpr(4))), 20, 1, (y0,))
    np.testing.assert_array_equal(z, [8, 7, 12, 21, 10])
    # another element value reuses the compiled kernel (7 is a run-time int), None does not
    z2 = np.zeros(5, np.int32)
    _serialize[(1,)](z2, None, (x0, (9, None, x1, tl.constexpr(4))), 20, 1, (y0,))
    assert z2[1] == 9


class Fn(NamedTuple):
    fn: tl.constexpr
    captured: tuple


class Tensor(NamedTuple):
    ptr: object
    shape: tuple
    stride: tuple


@triton.jit
def _make(shape, ptr, stride):
    return Tensor(shape=shape, ptr=ptr, stride=stride)


@triton.jit
def _mask(T, BM: tl.constexpr, BN: tl.constexpr):
    return (tl.arange(0, BM)[:, None] < T.shape[0]) & (tl.arange(0, BN)[None, :] < T.shape[1])


@triton.jit
def _namedtuple_kernel(closure, _X, Y, BM: tl.constexpr, BN: tl.constexpr):
    om = tl.arange(0, BM)
    on = tl.arange(0, BN)
    X = _make(_X.shape, _X.ptr, _X.stride)
    Xs = X.ptr + om[:, None] * X.stride[0] + on[None, :] * X.stride[1]
    Ys = Y.ptr + om[:, None] * Y.stride[0] + on[None, :] * Y.stride[1]
    x = tl.load(Xs, mask=_mask(X, BM, BN), other=0)
    y = closure.fn(x, *closure.captured)
    tl.store(Ys, y, mask=_mask(Y, BM, BN))


def test_namedtuples_fields_constructors_and_jit_functions_inside():
    x = np.random.rand(32, 32).astype(np.float32)
    y = np.zeros((16, 16), np.float32)
    a = np.float32([5.25])

    @triton.jit
    def mul(x, a):
        return x * tl.load(a)

    tx = Tensor(x, x.shape, tuple(s // 4 for s in x.strides))
    ty = Tensor(y, y.shape, tuple(s // 4 for s in y.strides))
    _namedtuple_kernel[(1,)](Fn(mul, (a,)), tx, ty, 64, 64)
    np.testing.assert_allclose(y, x[:16, :16] * a[0], rtol=1e-6)


def test_tuple_operators_and_tl_tuple():
    @triton.jit
    def k(R):
        tl.store(R + 0, (1, 2) == (1, 2))
        tl.store(R + 1, (1, 2) == (1, 1))
        tl.store(R + 2, tl.tuple((1, 2)) == (1, 2))
        t = tl.tuple((4, 5)) + (6, 7)
        for i in tl.static_range(4):
            tl.store(R + 3 + i, t[i])

    r = np.zeros(7, np.int32)
    k[(1,)](r)
    np.testing.assert_array_equal(r, [1, 0, 1, 4, 5, 6, 7])


def test_assigning_into_a_tuple_is_a_compilation_error():
    @triton.jit
    def k():
        t = tl.tuple([5, 6, 7])
        t[0] = 0

    with pytest.raises(triton.CompilationError):
        k[(1,)]()


def test_namedtuple_call_errors_name_the_class():
    @triton.jit
    def k(X):
        t = Tensor(X, (1,))  # stride missing
        tl.store(t.ptr, 1)

    with pytest.raises(triton.CompilationError, match=r"Tensor\(\) missing required argument: "
                                                      r"'stride'"):
        k[(1,)](np.zeros(1, np.int32))


def test_constexpr_tuple_with_jit_function_and_namedtuple_value():
    @triton.jit
    def twice(x):
        return x * 2

    @triton.jit
    def k(X, F: tl.constexpr, T: tl.constexpr):
        tl.store(X, F(T.shape[0]))

    x = np.zeros(1, np.int32)
    k[(1,)](x, twice, Tensor(None, (21,), (1,)))
    assert x[0] == 42


def test_list_comprehension_over_tuples_with_a_condition():
    @triton.jit
    def k(R, vals):
        doubled = [v * 2 for v in vals if v > 1]
        pairs = [a + b for a, b in ((1, 2), (3, 4))]
        for i in tl.static_range(len(doubled)):
            tl.store(R + i, doubled[i])
        tl.store(R + 3, pairs[0] * 10 + pairs[1])
        tl.static_assert(len([x for x in ()]) == 0)

    r = np.zeros(4, np.int32)
    k[(1,)](r, (tl.constexpr(1), tl.constexpr(2), tl.constexpr(3)))
    np.testing.assert_array_equal(r, [4, 6, 0, 37])
