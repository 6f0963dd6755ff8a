"""Arguments of CPU launches and kernel globals: read-only arrays, keyword-only
parameters, unsigned 64-bit ints as globals and constexprs, language objects used as
globals, and the interpreter's limit on endless loops and Ctrl-C."""

import signal
import threading
import time

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


def test_loop_limit_counts_every_loop_of_a_program(monkeypatch):
    @tilec.jit
    def nested(out, n, m):
        total = 0
        for i in range(0, n):
            j = 0
            while j < m:
                j += 1
                total += 1
        tl.store(out, total)

    out = np.zeros(1, np.int32)
    monkeypatch.setenv("TILEC_INTERP_MAX_STEPS", "100")
    nested[(2,)](out, 9, 10)  # 9 + 90 iterations: within the limit
    assert out[0] == 90
    # 10 + 100: nested loops share one budget instead of multiplying their limits
    with pytest.raises(KernelError, match="loop still running after 100 iterations") as e:
        nested[(1,)](out, 10, 10)
    assert "in program (0, 0, 0)" in str(e.value)

    @tilec.jit
    def long_for(out, n):
        acc = 0
        for i in range(0, n):
            acc += 1
        tl.store(out, acc)

    monkeypatch.setenv("TILEC_INTERP_MAX_STEPS", "1000")
    with pytest.raises(KernelError, match="for loop still running after 1000 iterations"):
        long_for[(1,)](out, 2**62)


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs POSIX signals")
def test_ctrl_c_stops_a_running_kernel(monkeypatch):
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # e.g. started as `cmd &` by sh
        pytest.skip("SIGINT is ignored in this process: no Ctrl-C can reach a kernel")

    @tilec.jit
    def forever(out, n):
        i = 0
        while i < n:
            i = i * 1
        tl.store(out, i)

    monkeypatch.setenv("TILEC_INTERP_MAX_STEPS", "0")  # no limit: only Ctrl-C ends it
    out = np.zeros(1, np.int32)
    forever[(1,)](out, 0)  # compiled before the signals start
    done = threading.Event()
    main = threading.main_thread().ident

    def press_ctrl_c():  # until the launch stops (the first may come before it starts)
        while not done.wait(0.2):
            signal.pthread_kill(main, signal.SIGINT)

    presser = threading.Thread(target=press_ctrl_c)
    before = signal.getsignal(signal.SIGINT)
    t0 = time.monotonic()
    presser.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            forever[(4,)](out, 5)
    finally:
        done.set()
        presser.join()
    assert time.monotonic() - t0 < 30
    assert signal.getsignal(signal.SIGINT) is before
    with pytest.raises(KeyboardInterrupt):  # Python's own C handler is back in place
        signal.raise_signal(signal.SIGINT)
        time.sleep(1)
    forever[(1,)](out, 0)  # later launches run normally
    assert out[0] == 0


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


def test_arrays_in_foreign_byte_order_are_refused():
    order = ">" if np.little_endian else "<"
    src = np.arange(16, dtype=order + "f4")
    dst = np.zeros(16, np.float32)
    with pytest.raises(TypeError, match=r"argument 'src'.*endian.*astype\(src\.dtype\.newbyteorder"):
        copy_kernel[(1,)](src, dst, 16, BLOCK=16)
    assert not dst.any()  # nothing read as garbage
    copy_kernel[(1,)](src.astype(src.dtype.newbyteorder("=")), dst, 16, BLOCK=16)
    np.testing.assert_array_equal(dst, np.arange(16, dtype=np.float32))
    with pytest.raises(TypeError, match="argument 'dst'"):
        copy_kernel[(1,)](dst, np.zeros(16, order + "f4"), 16, BLOCK=16)


def test_kernel_file_that_is_not_utf8_is_named(tmp_path, monkeypatch):
    # Python compiles the module (the byte is in a comment); reading the kernel's text fails
    (tmp_path / "latin_kernel.py").write_bytes(
        b"import tilec\nimport tilec.language as tl\n# caf\xe9\n@tilec.jit\ndef k(X):\n"
        b"    tl.store(X, 1)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import latin_kernel
    with pytest.raises(ValueError, match=r"latin_kernel\.py:3:6: byte 0xe9 is not valid utf-8"):
        latin_kernel.k[(1,)](np.zeros(1, np.int32))
