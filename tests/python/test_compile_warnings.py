"""Compile-time warnings reach Python as UserWarnings, as Triton's do (Sema's
report_warning, the bindings' handler)."""

import warnings

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def _where(X, COND_BOOL: tl.constexpr):
    a = tl.full((64,), 0, tl.uint32)
    c = a != 0 if COND_BOOL else a
    tl.store(X + tl.arange(0, 64), tl.where(c, 1.0, 2.0))


def test_where_on_a_non_bool_condition_warns_once_at_compile_time():
    x = np.zeros(64, np.float32)
    with pytest.warns(UserWarning, match=r"test_compile_warnings.py:\d+: tl.where with a "
                                         r"non-boolean condition .* Got uint32"):
        _where[(1,)](x, COND_BOOL=False)
    assert (x == 2.0).all()  # zero is false, as Triton's cast to int1 reads it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _where[(1,)](x, COND_BOOL=False)  # cached: compiled once, warned once
        _where[(1,)](x, COND_BOOL=True)  # a bool condition: no warning


def test_warnings_as_errors_end_the_compilation():
    @tilec.jit
    def k(X):
        tl.store(X, tl.where(tl.load(X), 1, 2))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="non-boolean condition"):
            k[(1,)](np.zeros(1, np.int32))
