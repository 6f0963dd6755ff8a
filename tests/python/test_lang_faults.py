"""A bug in a user's kernel never crashes the process: undefined integer operations
(division by zero, INT_MIN // -1, oversized shifts, NaN to int) give some value, not a
signal; every out-of-bounds access (atomics, scalar accesses, reinterpreting pointer
casts) is a tilec error naming the line and the argument; views with negative strides
are addressable."""

import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import marker_line

HERE = os.path.abspath(__file__)


def _run_isolated(body: str):
    """Runs `body` (after the imports) in a fresh interpreter; returns the process."""
    src = "import numpy as np\nimport tilec as triton\nimport tilec.language as tl\n\n" + \
        textwrap.dedent(body)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "isolated_kernel.py")  # @jit reads kernels from files
        with open(path, "w") as f:
            f.write(src)
        return subprocess.run([sys.executable, path], capture_output=True, text=True,
                              timeout=120)


UB_CASES = {
    "int32 // 0": ("np.int32", "x // y", [7, -7, 0, 1], [0, 0, 0, 0]),
    "int32 % 0": ("np.int32", "x % y", [7, -7, 0, 1], [0, 0, 0, 0]),
    "uint32 // 0": ("np.uint32", "x // y", [7, 8, 0, 1], [0, 0, 0, 0]),
    "int64 % 0": ("np.int64", "x % y", [7, -7, 0, 1], [0, 0, 0, 0]),
    "INT32_MIN // -1": ("np.int32", "x // y", [-2**31] * 4, [-1] * 4),
    "INT32_MIN % -1": ("np.int32", "x % y", [-2**31] * 4, [-1] * 4),
    "INT64_MIN // -1": ("np.int64", "x // y", [-2**63] * 4, [-1] * 4),
    "int8 // 0": ("np.int8", "x // y", [1, 2, 3, 4], [0, 0, 0, 0]),
    "shift by 40": ("np.int32", "x << y", [1, 2, 3, 4], [40, 32, 33, 100]),
    "shift right by 70": ("np.int64", "x >> y", [1, -2, 3, 4], [70, 64, 65, 100]),
}


@pytest.mark.parametrize("case", list(UB_CASES))
def test_undefined_int_ops_do_not_crash(case):
    dt, expr, xs, ys = UB_CASES[case]
    proc = _run_isolated(f"""
        @triton.jit
        def k(X, Y, Z):
            offs = tl.arange(0, 4)
            x = tl.load(X + offs)
            y = tl.load(Y + offs)
            tl.store(Z + offs, {expr})

        x = np.array({xs}, {dt})
        y = np.array({ys}, {dt})
        z = np.zeros(4, {dt})
        try:
            k[(1,)](x, y, z)
        except triton.TilecError as e:  # reporting it is fine too
            print("tilec error:", e)
        print("alive")
        """)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stderr[-2000:]}"
    assert "alive" in proc.stdout


def test_nan_and_inf_to_int_do_not_crash():
    proc = _run_isolated("""
        @triton.jit
        def k(X, Z, ZU):
            offs = tl.arange(0, 4)
            x = tl.load(X + offs)
            tl.store(Z + offs, x.to(tl.int32))
            tl.store(ZU + offs, x.to(tl.uint8))

        x = np.array([np.nan, np.inf, -np.inf, 1e30], np.float32)
        k[(1,)](x, np.zeros(4, np.int32), np.zeros(4, np.uint8))
        print("alive")
        """)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "alive" in proc.stdout


def test_constant_division_by_zero_is_not_a_crash():
    """Division by a zero literal: a compile error or some value, never a crash."""
    proc = _run_isolated("""
        @triton.jit
        def k(X, Z):
            x = tl.load(X + tl.arange(0, 4))
            tl.store(Z + tl.arange(0, 4), x // 0 + x % 0)

        try:
            k[(1,)](np.arange(4, dtype=np.int32), np.zeros(4, np.int32))
        except triton.TilecError as e:
            print("tilec error:", type(e).__name__)
        print("alive")
        """)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "alive" in proc.stdout


# ---------------------------------------------------------------------------------------
# out-of-bounds accesses of every kind


@triton.jit
def _oob_atomic(counter, n):
    tl.atomic_add(counter + n, 1)  # ERR:oob_atomic


@triton.jit
def _oob_scalar_store(out, n):
    tl.store(out + n, 1.0)  # ERR:oob_scalar_store


@triton.jit
def _oob_cas(flag):
    tl.atomic_cas(flag + 1, 0, 1)  # ERR:oob_cas


@triton.jit
def _oob_wide_view(bytes_in, out):
    wide = bytes_in.to(tl.pointer_type(tl.int64))
    tl.store(out, tl.load(wide + 1))  # ERR:oob_wide


@triton.jit
def _oob_partial_mask(src, dst, n, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(src + offs, mask=offs < n)  # ERR:oob_partial
    tl.store(dst + offs, x, mask=offs < 4)


def _fault(fn, tag, arg):
    with pytest.raises(triton.TilecError) as ei:
        fn()
    e = ei.value
    assert not isinstance(e, triton.CompilationError)
    text = str(e)
    assert f"{os.path.basename(HERE)}:{marker_line(HERE, tag)}" in text, text
    assert arg in text, text
    return text


def test_oob_atomic_add():
    c = np.zeros(4, np.int32)
    _fault(lambda: _oob_atomic[(1,)](c, 4), "oob_atomic", "counter")
    assert (c == 0).all()  # nothing was written
    _oob_atomic[(1,)](c, 3)
    assert c[3] == 1


def test_oob_scalar_store_and_negative_index():
    out = np.zeros(2, np.float32)
    _fault(lambda: _oob_scalar_store[(1,)](out, 2), "oob_scalar_store", "out")
    _fault(lambda: _oob_scalar_store[(1,)](out, -1), "oob_scalar_store", "out")


def test_oob_atomic_cas():
    _fault(lambda: _oob_cas[(1,)](np.zeros(1, np.int32)), "oob_cas", "flag")


def test_oob_through_wider_pointer_cast():
    b = np.zeros(12, np.uint8)  # 12 bytes: one int64 fits, the second does not
    out = np.zeros(1, np.int64)
    _fault(lambda: _oob_wide_view[(1,)](b, out), "oob_wide", "bytes_in")
    b16 = np.zeros(16, np.uint8)
    b16[8:] = 1
    _oob_wide_view[(1,)](b16, out)
    assert out[0] == int.from_bytes(bytes([1] * 8), "little")


def test_oob_mask_too_wide():
    src = np.arange(8, dtype=np.float32)
    dst = np.zeros(16, np.float32)
    _fault(lambda: _oob_partial_mask[(1,)](src, dst, 9, N=16), "oob_partial", "src")
    _oob_partial_mask[(1,)](src, dst, 8, N=16)  # the exact extent is fine
    np.testing.assert_array_equal(dst[:4], src[:4])


def test_negative_stride_view_is_addressable():
    @triton.jit
    def k(X, Z, stride, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Z + offs, tl.load(X + offs * stride))

    base = np.arange(8, dtype=np.float32)
    rev = base[::-1]  # pointer to base[7], stride -1
    z = np.zeros(8, np.float32)
    k[(1,)](rev, z, rev.strides[0] // rev.itemsize, N=8)
    np.testing.assert_array_equal(z, rev)


def test_process_survives_many_faults():
    c = np.zeros(4, np.int32)
    for _ in range(20):
        with pytest.raises(triton.TilecError):
            _oob_atomic[(8,)](c, 100)
    _oob_atomic[(8,)](c, 0)
    assert c[0] == 8
