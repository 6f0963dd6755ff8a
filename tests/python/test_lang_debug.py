"""device_print in Triton's format (`pid (x, y, z) idx (i, j) prefix: value`), print(),
static_print, device_assert / assert with TILEC_DEBUG=1 (and disabled without it),
static_assert and tl.constexpr_type."""

import os
import subprocess
import sys
import textwrap
from collections import Counter

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import marker_line

HERE = os.path.abspath(__file__)


def _lines(out):
    return [ln for ln in out.splitlines() if ln.startswith("pid (")]


@triton.jit
def _print_tile(X, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.device_print("x: ", x)


def test_device_print_int_tile_format(capfd):
    x = np.arange(16, dtype=np.int32) * 3 - 7
    _print_tile[(1,)](x, N=16)
    out = capfd.readouterr().out
    want = Counter(f"pid (0, 0, 0) idx ({i:2}) x: {v}" for i, v in enumerate(x))
    assert Counter(_lines(out)) == want, out


def test_device_print_float_tile_format(capfd):
    x = np.array([1.5, -0.25, 3.0, 100.125], np.float32)
    _print_tile[(1,)](x, N=4)
    out = capfd.readouterr().out
    want = Counter(f"pid (0, 0, 0) idx ({i}) x: {v:f}" for i, v in enumerate(x))
    assert Counter(_lines(out)) == want, out


@pytest.mark.parametrize("dt,vals,fmt", [
    (np.int8, [-128, -1, 0, 127], "{}"),
    (np.uint8, [0, 128, 200, 255], "{}"),
    (np.uint32, [2**31, 2**31 + 1, 2**32 - 1, 5], "{}"),
    (np.int64, [-2**40, 2**62, -1, 0], "{}"),
    (np.float16, [1.5, -2.25, 65504, 0.0], "{:f}"),
    (np.float64, [0.1, -1e10, 3.25, 1e-7], "{:f}"),
])
def test_device_print_dtypes(capfd, dt, vals, fmt):
    x = np.array(vals, dt)
    _print_tile[(1,)](x, N=4)
    out = capfd.readouterr().out
    want = Counter(f"pid (0, 0, 0) idx ({i}) x: " + fmt.format(v.item()) for i, v in enumerate(x))
    assert Counter(_lines(out)) == want, out


def test_device_print_content_ignoring_padding(capfd):
    """The same as above with whitespace squeezed: what is printed, not how it is padded."""
    x = np.arange(128, dtype=np.int32)
    _print_tile[(1,)](x, N=128)
    out = capfd.readouterr().out
    got = Counter(" ".join(ln.replace("(", "( ").split()).replace("( ", "(")
                  for ln in _lines(out))
    want = Counter(f"pid (0, 0, 0) idx ({i}) x: {i}" for i in range(128))
    assert got == want, out


def test_device_print_scalar_and_prefix_normalisation(capfd):
    @triton.jit
    def k(X):
        pid = tl.program_id(0)
        tl.device_print("pid", pid)  # Triton makes the prefix "pid: "
        tl.device_print("val:", tl.load(X + pid))

    k[(2,)](np.array([42, 43], np.int32))
    lines = set(_lines(capfd.readouterr().out))
    for p in range(2):
        assert f"pid ({p}, 0, 0) idx () pid: {p}" in lines, lines
        assert f"pid ({p}, 0, 0) idx () val: {42 + p}" in lines, lines


def test_device_print_2d_and_grid_axes(capfd):
    @triton.jit
    def k(M: tl.constexpr, N: tl.constexpr):
        v = tl.arange(0, M)[:, None] * 100 + tl.arange(0, N)[None, :]
        tl.device_print("v ", v)

    k[(1, 2, 1)](M=2, N=16)
    got = Counter(_lines(capfd.readouterr().out))
    want = Counter(f"pid (0, {p}, 0) idx ({i}, {j:2}) v: {i * 100 + j}"
                   for p in range(2) for i in range(2) for j in range(16))
    assert got == want


def test_python_print_in_kernel(capfd):
    @triton.jit
    def k(X):
        x = tl.load(X + tl.arange(0, 4))
        print("x:", x)

    k[(1,)](np.array([5, 6, 7, 8], np.int32))
    got = Counter(_lines(capfd.readouterr().out))
    assert got == Counter(f"pid (0, 0, 0) idx ({i}) x: {5 + i}" for i in range(4))


def test_device_print_multiple_operands_and_hex(capfd):
    @triton.jit
    def k(X):
        x = tl.load(X + tl.arange(0, 4))
        tl.device_print("", x, x * 2)
        tl.device_print("h: ", x, hex=True)

    k[(1,)](np.array([1, 2, 10, 255], np.int32))
    got = Counter(_lines(capfd.readouterr().out))
    want = Counter()
    for i, v in enumerate([1, 2, 10, 255]):
        want[f"pid (0, 0, 0) idx ({i}): (operand 0) {v}"] += 1
        want[f"pid (0, 0, 0) idx ({i}): (operand 1) {2 * v}"] += 1
        want[f"pid (0, 0, 0) idx ({i}) h: 0x{v:08x}"] += 1
    assert got == want


def test_device_print_seed_style_in_subprocess(tmp_path):
    """The seed's debug kernel, run in a fresh process: output is flushed at exit and the
    run-time `if pid == 0` limits the prints to program 0."""
    src = textwrap.dedent("""
        import numpy as np
        import tilec as triton
        import tilec.language as tl

        @triton.jit
        def debug_kernel(x_ptr, BLOCK_SIZE: tl.constexpr):
            pid = tl.program_id(0)
            if pid == 0:
                tl.device_print("Program ID:", pid)
            offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
            x = tl.load(x_ptr + offs)
            if pid == 0:
                tl.device_print("First element:", tl.load(x_ptr))

        debug_kernel[(4,)](np.arange(64, dtype=np.float32) + 0.5, BLOCK_SIZE=16)
    """)
    path = tmp_path / "seed_debug.py"
    path.write_text(src)
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = _lines(proc.stdout)
    assert "pid (0, 0, 0) idx () Program ID: 0" in lines, proc.stdout
    assert "pid (0, 0, 0) idx () First element: 0.500000" in lines, proc.stdout
    assert not any(ln.startswith("pid (1") or ln.startswith("pid (2") for ln in lines)


def test_static_print(capfd, monkeypatch):
    # static_print runs when the kernel compiles: not on a hit of the GPU's disk cache,
    # which a second run of the GPU suite on one machine would otherwise find
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")

    @triton.jit
    def k(X, BLOCK_SIZE: tl.constexpr):
        tl.static_print(f"BLOCK_SIZE:{BLOCK_SIZE}")
        tl.store(X, 1)

    k[(1,)](np.zeros(1, np.int32), BLOCK_SIZE=64)
    out = capfd.readouterr()
    assert "BLOCK_SIZE:64" in out.out + out.err


# ---------------------------------------------------------------------------------------
# device_assert


@triton.jit
def _assert_kernel(X, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.device_assert(x >= 0, "x must be non-negative")  # ERR:device_assert


@triton.jit
def _python_assert_kernel(X):
    x = tl.load(X)
    assert x < 10, "x too large"  # ERR:python_assert


def test_device_assert_fails_with_debug(monkeypatch):
    monkeypatch.setenv("TILEC_DEBUG", "1")
    x = np.array([1, 2, -3, 4], np.int32)
    with pytest.raises(Exception) as ei:
        _assert_kernel[(1,)](x, N=4)
    msg = str(ei.value)
    assert "x must be non-negative" in msg
    assert str(marker_line(HERE, "device_assert")) in msg
    # the process survives and the kernel still runs with good data
    _assert_kernel[(1,)](np.abs(x), N=4)


def test_device_assert_passes_with_debug(monkeypatch):
    monkeypatch.setenv("TILEC_DEBUG", "1")
    _assert_kernel[(2,)](np.arange(4, dtype=np.int32), N=4)


def test_device_assert_fails_with_triton_debug(monkeypatch):
    monkeypatch.delenv("TILEC_DEBUG", raising=False)
    monkeypatch.setenv("TRITON_DEBUG", "1")  # Triton's spelling works as well
    with pytest.raises(Exception, match="x must be non-negative"):
        _assert_kernel[(1,)](np.array([1, -2, 3, 4], np.int32), N=4)


def test_device_assert_disabled_without_debug(monkeypatch):
    monkeypatch.setenv("TILEC_DEBUG", "0")
    _assert_kernel[(1,)](np.array([-1, -2, -3, -4], np.int32), N=4)


def test_python_assert_in_kernel(monkeypatch):
    monkeypatch.setenv("TILEC_DEBUG", "1")
    with pytest.raises(Exception) as ei:
        _python_assert_kernel[(1,)](np.array([12], np.int32))
    assert "x too large" in str(ei.value)
    assert str(marker_line(HERE, "python_assert")) in str(ei.value)
    _python_assert_kernel[(1,)](np.array([3], np.int32))


def test_static_assert_passes():
    @triton.jit
    def k(X, B: tl.constexpr):
        tl.static_assert(B % 16 == 0, "B must be a multiple of 16")
        tl.static_assert(B > 0)
        tl.store(X, B)

    x = np.zeros(1, np.int32)
    k[(1,)](x, B=32)
    assert x[0] == 32


def test_constexpr_type():
    # x.type of a compile-time value is tl.constexpr_type(x) (Triton 3.6's test_core
    # test_constexpr_assignment and test_tuple's make_tensor_descriptor test use it); a plain
    # assignment lifts a number to a tensor, whose type is its dtype
    from tilec.language.core import constexpr_type

    @triton.jit
    def k(X, LIT: tl.constexpr, SEQ: tl.constexpr, n):
        local: tl.constexpr = 10
        tl.static_assert(local.type == constexpr_type(10))
        tl.static_assert(LIT.type == tl.constexpr_type(LIT))
        tl.static_assert(LIT.type != constexpr_type(11))
        tl.static_assert(LIT.type.value == 10)
        tl.static_assert(isinstance(LIT.type, tl.constexpr_type))
        tl.static_assert(not isinstance(LIT.type, tuple))
        tl.static_assert(not isinstance(LIT.type, tl.constexpr))
        tl.static_assert(SEQ.type == constexpr_type((5, 6)))
        tl.static_assert(constexpr_type(5) != (5,))
        v = LIT
        tl.static_assert(v.type == tl.int32)
        tl.store(X, n)

    x = np.zeros(1, np.int32)
    k[(1,)](x, 10, (5, 6), 7)
    assert x[0] == 7
    assert constexpr_type(3) == constexpr_type(tl.constexpr(3)) != constexpr_type(4)


def test_constexpr_type_of_a_tensor_is_an_error():
    @triton.jit
    def k(X, n):
        tl.static_assert(tl.constexpr_type(n) == tl.constexpr_type(1))

    with pytest.raises(triton.CompilationError, match="constexpr_type.*known at compile time"):
        k[(1,)](np.zeros(1, np.int32), 3)
