"""Arguments of CPU launches and kernel globals: read-only arrays, keyword-only
parameters, unsigned 64-bit ints as globals and constexprs, language objects used as
globals, and the interpreter's limit on endless while loops."""

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import KernelError

U64_MAX = (1 << 64) - 1
BIG = 1 << 63  # just past int64


@tilec.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(dst + o, tl.load(src + o, mask=o < n), mask=o < n)


@tilec.jit
def count_kernel(counter):
    tl.atomic_add(counter, 1)


def test_read_only_arrays_are_not_written():
    src = np.arange(16, dtype=np.float32)
    dst = np.zeros(16, np.float32)
    src.flags.writeable = False
    copy_kernel[(1,)](src, dst, 16, BLOCK=16)  # loading from it is fine
    np.testing.assert_array_equal(dst, src)
    ro = np.full(16, 7, np.float32)
    ro.flags.writeable = False
    with pytest.raises(KernelError, match=r"store to argument 'dst', which is read-only") as e:
        copy_kernel[(4,)](src, ro, 16, BLOCK=16)
    assert e.value.line is not None and "tl.store" in str(e.value)
    np.testing.assert_array_equal(ro, np.full(16, 7, np.float32))
    c = np.zeros(1, np.int32)
    c.flags.writeable = False
    with pytest.raises(KernelError, match="atomic operation on argument 'counter', which is "
                                          "read-only"):
        count_kernel[(3,)](c)
    assert c[0] == 0
    view = np.zeros(32, np.float32)[::2]  # a writable strided view is still writable
    copy_kernel[(1,)](src, view, 16, BLOCK=16)


def test_keyword_only_parameters_bind_by_name():
    @tilec.jit
    def k(out, *, n, BLOCK: tl.constexpr, scale=2):
        o = tl.arange(0, BLOCK)
        tl.store(out + o, o * scale, mask=o < n)

    out = np.zeros(8, np.int32)
    k[(1,)](out, n=5, BLOCK=8)
    np.testing.assert_array_equal(out, [0, 2, 4, 6, 8, 0, 0, 0])
    k[(1,)](out, BLOCK=8, scale=3, n=8)
    np.testing.assert_array_equal(out, np.arange(8) * 3)
    with pytest.raises(TypeError, match=r"k\(\) takes 1 positional argument but 3 were given"):
        k[(1,)](out, 5, 8)
    with pytest.raises(TypeError, match="missing argument 'n'"):
        k[(1,)](out, BLOCK=8)


G_BIG = BIG + 5
G_MAX = U64_MAX


@tilec.jit
def u64_globals_kernel(out):
    tl.store(out, G_BIG)
    tl.store(out + 1, G_MAX)


@tilec.jit
def u64_constexpr_kernel(out, V: tl.constexpr):
    tl.store(out, V)


def test_unsigned_64_bit_globals_and_constexprs():
    out = np.zeros(2, np.uint64)
    u64_globals_kernel[(1,)](out)
    assert [int(v) for v in out] == [BIG + 5, U64_MAX]
    for v in (BIG, U64_MAX):
        out[:] = 0
        u64_constexpr_kernel[(1,)](out, V=v)
        assert int(out[0]) == v
    with pytest.raises((TypeError, ValueError, tilec.CompilationError), match="64 bits"):
        u64_constexpr_kernel[(1,)](out, V=1 << 64)


def test_endless_while_loop_is_reported(monkeypatch):
    @tilec.jit
    def spin(out, n):
        i = 0
        while i < n:
            i = i * 1
        tl.store(out, i)

    monkeypatch.setenv("TILEC_INTERP_MAX_STEPS", "1000")
    out = np.zeros(1, np.int32)
    with pytest.raises(KernelError, match="while loop still running after 1000 iterations") as e:
        spin[(1,)](out, 5)
    assert "while i < n" in str(e.value)
    monkeypatch.setenv("TILEC_INTERP_MAX_STEPS", "0")  # no limit: a finite loop still ends

    @tilec.jit
    def count(out, n):
        i = 0
        while i < n:
            i += 1
        tl.store(out, i)

    monkeypatch.setenv("TILEC_INTERP_MAX_STEPS", "100")
    count[(1,)](out, 100)
    assert out[0] == 100
    with pytest.raises(KernelError, match="after 100 iterations"):
        count[(1,)](out, 101)


def test_propagate_nan_imported_as_a_global():
    from tilec.language import PropagateNan

    ALL = PropagateNan.ALL

    @tilec.jit
    def k(x, y, out, o2):
        o = tl.arange(0, 4)
        a, b = tl.load(x + o), tl.load(y + o)
        tl.store(out + o, tl.maximum(a, b, propagate_nan=PropagateNan.ALL))
        tl.store(o2 + o, tl.minimum(a, b, propagate_nan=ALL))

    x = np.array([1, np.nan, 3, 4], np.float32)
    y = np.array([2, 1, np.nan, 0], np.float32)
    out, o2 = np.zeros(4, np.float32), np.zeros(4, np.float32)
    k[(1,)](x, y, out, o2)
    np.testing.assert_array_equal(out, [2, np.nan, np.nan, 4])
    np.testing.assert_array_equal(o2, [1, np.nan, np.nan, 0])


def test_static_print_output_survives_errors_of_the_gpu_stages(capsys):
    @tilec.jit
    def k(p, v):
        tl.static_print("static hello", 42)
        tl.atomic_add(p, v)  # bf16 atomics need sm_90: an error of the GPU lowering

    with pytest.raises(tilec.CompilationError, match="atomic add on bfloat16 needs sm_90"):
        tilec.compile(k, signature="*bf16:16,bf16", target="cuda:80")
    assert "static hello 42" in capsys.readouterr().out
