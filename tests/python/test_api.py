"""The Python API: argument binding and its errors, specialisation and the compile
cache, grid forms, launch options, autotune, heuristics, the language namespace."""

import time

import numpy as np
import pytest

import tilec
import tilec as triton
import tilec.language as tl


@triton.jit
def add_one(X, Y, n, BLOCK: tl.constexpr = 32):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Y + offs, tl.load(X + offs, mask=mask) + 1, mask=mask)


@triton.jit
def fill_pid(Out, stride0, stride1):
    # Out[pid2, pid1, pid0] = linear program index; checks 1-, 2- and 3-D grids
    p0 = tl.program_id(0)
    p1 = tl.program_id(1)
    p2 = tl.program_id(2)
    lin = p0 + p1 * tl.num_programs(0) + p2 * tl.num_programs(0) * tl.num_programs(1)
    tl.store(Out + p2 * stride0 + p1 * stride1 + p0, lin)


def _arrays(n=100):
    return np.arange(n, dtype=np.float32), np.zeros(n, dtype=np.float32)


# -- running ---------------------------------------------------------------------------


def test_launch_with_defaults_and_keywords():
    x, y = _arrays()
    add_one[(4,)](x, y, 100)  # BLOCK defaults to 32
    np.testing.assert_array_equal(y, x + 1)
    y[:] = 0
    add_one[(2,)](X=x, Y=y, n=100, BLOCK=64)
    np.testing.assert_array_equal(y, x + 1)


@pytest.mark.parametrize("grid", [(3, 2, 2), (5,), (2, 3), [4, 1, 2]])
def test_grid_dimensions(grid):
    g = tuple(grid) + (1,) * (3 - len(grid))
    out = np.full((g[2], g[1], g[0]), -1, dtype=np.int32)
    fill_pid[grid](out, out.strides[0] // 4, out.strides[1] // 4)
    np.testing.assert_array_equal(out.ravel(), np.arange(out.size))


def test_grid_callable_sees_all_arguments_by_name():
    x, y = _arrays(70)
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    add_one[grid](x, y, 70, BLOCK=16)
    np.testing.assert_array_equal(y, x + 1)
    assert seen["n"] == 70 and seen["BLOCK"] == 16 and seen["X"] is x


def test_zero_grid_runs_nothing():
    x, y = _arrays()
    add_one[(0,)](x, y, 100)
    assert not y.any()


@pytest.mark.parametrize("grid,exc", [((1, 2, 3, 4), ValueError), (("a",), TypeError),
                                      ((-1,), ValueError), ((1.5,), TypeError),
                                      ((), ValueError)])
def test_bad_grid(grid, exc):
    x, y = _arrays()
    with pytest.raises(exc, match="grid"):
        add_one[grid](x, y, 100)


def test_launch_options_accepted():
    x, y = _arrays()
    add_one[(4,)](x, y, 100, num_warps=8, num_stages=2, num_ctas=1, maxnreg=128)
    np.testing.assert_array_equal(y, x + 1)
    with pytest.raises(ValueError, match="num_warps must be a power of 2 from 1 to 32, got 3"):
        add_one[(4,)](x, y, 100, num_warps=3)
    # Triton's own checks are asserts, which its callers match (test_num_warps_pow2)
    for bad, msg in [({"num_warps": 64}, "num_warps"), ({"num_stages": -1}, "num_stages"),
                     ({"maxnreg": 300}, "maxnreg must be from 16 to 255"),
                     ({"num_warps": 2**40}, "num_warps must be an int"),
                     ({"num_warps": 2.0}, "num_warps must be an int")]:
        with pytest.raises(AssertionError, match=msg):
            add_one[(4,)](x, y, 100, **bad)


def test_extern_libs_is_checked_and_otherwise_unused(tmp_path):
    # Triton's tutorial 07 passes its libdevice bitcode; tilec has libdevice built in
    x, y = _arrays()
    bc = tmp_path / "libdevice.10.bc"
    bc.write_bytes(b"BC")
    add_one[(4,)](x, y, 100, extern_libs={"libdevice": str(bc)})
    np.testing.assert_array_equal(y, x + 1)
    with pytest.raises(ValueError, match="the 'libdevice' library .*missing.bc.* is not a file"):
        add_one[(4,)](x, y, 100, extern_libs={"libdevice": str(tmp_path / "missing.bc")})
    with pytest.raises(TypeError, match="extern_libs must be a dict"):
        add_one[(4,)](x, y, 100, extern_libs=["libdevice"])


def test_strided_and_offset_views():
    base = np.arange(64, dtype=np.float32)
    x = base[10:40]           # a view that starts inside its array
    y = np.zeros(64, dtype=np.float32)
    add_one[(1,)](x, y[5:35], 30)
    np.testing.assert_array_equal(y[5:35], base[10:40] + 1)
    assert not y[:5].any() and not y[35:].any()


def test_scalar_argument_kinds():
    @triton.jit
    def scalars(Out, i, f, b, big):
        tl.store(Out + 0, i.to(tl.float32))
        tl.store(Out + 1, f)
        tl.store(Out + 2, b.to(tl.float32))
        tl.store(Out + 3, (big - 4294967296).to(tl.float32))

    out = np.zeros(4, dtype=np.float32)
    scalars[(1,)](out, 7, 2.5, True, 4294967296 + 3)
    np.testing.assert_array_equal(out, [7, 2.5, 1, 3])


# -- binding errors ----------------------------------------------------------------------


def test_too_many_arguments():
    x, y = _arrays()
    with pytest.raises(TypeError, match=r"add_one\(\) takes 4 arguments but 5 were given"):
        add_one[(1,)](x, y, 100, 32, 5)


def test_unknown_keyword():
    x, y = _arrays()
    with pytest.raises(TypeError, match="unexpected keyword argument 'BLOK'"):
        add_one[(1,)](x, y, 100, BLOK=32)


def test_missing_argument():
    x, y = _arrays()
    with pytest.raises(TypeError, match="missing argument 'n'"):
        add_one[(1,)](x, y)


def test_missing_constexpr():
    @triton.jit
    def k(X, B: tl.constexpr):
        pass

    with pytest.raises(TypeError, match="missing constexpr argument 'B'"):
        k[(1,)](np.zeros(4, np.float32))


def test_multiple_values():
    x, y = _arrays()
    with pytest.raises(TypeError, match="multiple values for argument 'n'"):
        add_one[(1,)](x, y, 100, n=100)


def test_array_for_constexpr():
    x, y = _arrays()
    with pytest.raises(TypeError, match="'BLOCK' is a constexpr parameter.*an array"):
        add_one[(1,)](x, y, 100, BLOCK=np.zeros(3))


def test_array_for_typed_scalar_and_scalar_for_typed_pointer():
    @triton.jit
    def typed(X: tl.pointer_type(tl.float32), n: tl.int32):
        pass

    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match="'n' is declared i32 but got an array"):
        typed[(1,)](x, x)
    with pytest.raises(TypeError, match="'X' is declared a pointer to fp32 but got a int"):
        typed[(1,)](3, 3)
    with pytest.raises(TypeError, match="holds fp64"):
        typed[(1,)](np.zeros(4), 3)


def test_unsupported_argument_types():
    x, y = _arrays()
    with pytest.raises(TypeError, match="argument 'n' has type str"):
        add_one[(1,)](x, y, "100")
    with pytest.raises(TypeError, match="argument 'X': numpy arrays of dtype complex64"):
        add_one[(1,)](np.zeros(4, np.complex64), y, 4)
    with pytest.raises(ValueError, match="'n' = .* does not fit in 64 bits"):
        add_one[(1,)](x, y, 1 << 70)
    # Triton's error class for ints beyond 64 bits, either way round (uint64 and int64 fit)
    for v in (1 << 64, -(1 << 63) - 1):
        with pytest.raises(OverflowError, match="does not fit in 64 bits"):
            add_one[(1,)](x, y, v)
    with pytest.raises(TypeError, match="dtype can only be passed to a tl.constexpr"):
        add_one[(1,)](x, y, tl.float32)


def _gpu_present() -> bool:
    try:
        ok = tilec._C.gpu_driver_available()
        ok = ok[0] if isinstance(ok, tuple) else ok
        return bool(ok) and tilec._C.gpu_device_count() > 0
    except Exception:
        return False


@pytest.mark.skipif(_gpu_present(), reason="with a GPU, device arrays take the GPU path")
def test_gpu_array_is_a_clear_error():
    class FakeCupy:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0, False),
                                    "version": 3}

    x, y = _arrays()
    with pytest.raises(ValueError, match="argument 'X' lives in GPU memory"):
        add_one[(1,)](FakeCupy(), y, 4)


def test_calling_a_kernel_directly_is_an_error():
    with pytest.raises(RuntimeError, match="launch it with add_one\\[grid\\]"):
        add_one(1, 2, 3)


def test_varargs_kernels_are_rejected():
    with pytest.raises(TypeError, match=r"cannot take \*args"):
        @triton.jit
        def k(*args):
            pass


# -- specialisation and the compile cache ---------------------------------------------------


def test_cache_hits_and_keys():
    @triton.jit
    def k(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(X + offs, mask=offs < n), mask=offs < n)

    x, y = _arrays(64)
    k[(1,)](x, y, 64, BLOCK=64)
    k[(1,)](x, y, 64, BLOCK=64)
    assert len(k.cache) == 1
    k[(1,)](x, y, 63, BLOCK=64)       # 63: not divisible by 16 -> a new specialisation
    assert len(k.cache) == 2
    k[(1,)](x, y, 48, BLOCK=64)       # 48: divisible by 16 like 64 -> reuse
    assert len(k.cache) == 2
    k[(1,)](x, y, 1, BLOCK=64)        # ==1 is specialised away
    assert len(k.cache) == 3
    k[(1,)](x, y, 64, BLOCK=32)       # another constexpr value
    assert len(k.cache) == 4
    k[(1,)](x.astype(np.float64), y.astype(np.float64), 64, BLOCK=64)  # another dtype
    assert len(k.cache) == 5
    k[(1,)](x[1:], y[1:], 63, BLOCK=64)  # misaligned pointers
    assert len(k.cache) == 6
    k[(1,)](x, y, 64, BLOCK=64, num_warps=8)  # launch options are part of the key
    assert len(k.cache) == 7
    k[(1,)](x, y, 1 << 40, BLOCK=64)  # i64
    assert len(k.cache) == 8


def test_do_not_specialize():
    @triton.jit(do_not_specialize=["n"])
    def k(X, n):
        tl.store(X, n.to(tl.float32))

    x = np.zeros(1, np.float32)
    for n in (1, 16, 17):
        k[(1,)](x, n)
        assert x[0] == n
    assert len(k.cache) == 1


def test_warmup_compiles_without_running():
    x, y = _arrays()
    compiled = add_one.warmup(x, y, 100, BLOCK=32, grid=(4,))
    assert isinstance(compiled, tilec.CompiledKernel)
    assert not y.any()
    assert "add_one" in compiled.asm["ttir"]
    assert compiled.stages and set(compiled.stages) <= set(compiled.asm)


def test_second_launch_is_cheap():
    x, y = _arrays(32)
    add_one[(1,)](x, y, 32)
    start = time.perf_counter()
    reps = 200
    for _ in range(reps):
        add_one[(1,)](x, y, 32)
    per_launch = (time.perf_counter() - start) / reps
    # Python binding + cache lookup + a one-program run: microseconds, generous bound for CI
    assert per_launch < 2e-3, per_launch


# -- autotune and heuristics ----------------------------------------------------------------


def _count_bench():
    calls = []

    def bench(fn, warmup, rep, quantiles):
        calls.append(1)
        fn()
        return [1.0, 1.0, 1.0]

    return calls, bench


def test_autotune_picks_and_caches():
    @triton.autotune(configs=[triton.Config({"BLOCK": 16}, num_warps=2),
                              triton.Config({"BLOCK": 64}, num_warps=4)],
                     key=["n"], warmup=1, rep=1)
    @triton.jit
    def k(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(X + offs, mask=offs < n) * 2, mask=offs < n)

    x, y = _arrays(100)
    blocks = []
    grid = lambda meta: (blocks.append(meta["BLOCK"]) or triton.cdiv(100, meta["BLOCK"]),)
    k[grid](x, y, 100)
    np.testing.assert_array_equal(y, x * 2)
    assert k.best_config in k.configs
    assert set(blocks) == {16, 64}  # both configs ran
    assert len(k.cache) == 1
    blocks.clear()
    k[grid](x, y, 100)
    assert blocks == [k.best_config.kwargs["BLOCK"]]  # cached: no re-timing
    k[grid](x, y, 50)
    assert len(k.cache) == 2


def test_autotune_chooses_the_fastest_and_resets():
    timings = {16: 5.0, 64: 1.0}

    def bench(fn, warmup, rep, quantiles):
        fn()
        return [timings[bench.current], 0, 0]

    @triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 64})],
                     key=["n"], reset_to_zero=["Acc"], do_bench=bench)
    @triton.jit
    def k(Acc, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Acc + offs, tl.load(Acc + offs, mask=offs < n) + 1, mask=offs < n)

    def grid(meta):
        bench.current = meta["BLOCK"]
        return (1,)

    acc = np.zeros(16, dtype=np.float32)
    k[grid](acc, 16)
    assert k.best_config.kwargs == {"BLOCK": 64}
    # zeroed before each timed run and before the real one: one increment survives
    np.testing.assert_array_equal(acc, 1)


def test_autotune_restore_value():
    @triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})],
                     key=[], restore_value=["Acc"], warmup=1, rep=1)
    @triton.jit
    def k(Acc, BLOCK: tl.constexpr):
        offs = tl.arange(0, 16)
        tl.store(Acc + offs, tl.load(Acc + offs) * 2)

    acc = np.ones(16, dtype=np.float32)
    k[(1,)](acc)
    np.testing.assert_array_equal(acc, 2)  # timed runs were undone; the real run doubled


def test_autotune_conflicting_meta_parameter():
    @triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})],
                     key=[])
    @triton.jit
    def k(X, BLOCK: tl.constexpr):
        pass

    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
        k[(1,)](np.zeros(4, np.float32), BLOCK=16)


def test_autotune_prune_configs():
    pruned = []

    def early(configs, nargs, **kw):
        pruned.append(len(configs))
        return configs[:1]

    @triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})],
                     key=["n"], prune_configs_by={"early_config_prune": early})
    @triton.jit
    def k(X, n, BLOCK: tl.constexpr):
        pass

    k[(1,)](np.zeros(4, np.float32), 4)
    assert pruned == [2] and k.best_config.kwargs == {"BLOCK": 16}


def test_heuristics_and_stacking():
    @triton.autotune(configs=[triton.Config({}, num_warps=2), triton.Config({}, num_warps=4)],
                     key=["n"], warmup=1, rep=1)
    @triton.heuristics(values={"BLOCK": lambda args: triton.next_power_of_2(args["n"])})
    @triton.jit
    def k(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(X + offs, mask=offs < n) + 3, mask=offs < n)

    x, y = _arrays(37)
    k[(1,)](x, y, 37)
    np.testing.assert_array_equal(y, x + 3)
    assert k.best_config.num_warps in (2, 4)
    assert k.jit_function.__name__ == "k"


def test_config_api():
    c = triton.Config({"BLOCK_M": 64}, num_warps=8, num_stages=2)
    assert c.kwargs == {"BLOCK_M": 64}
    assert c.all_kwargs() == {"BLOCK_M": 64, "num_warps": 8, "num_stages": 2, "num_ctas": 1}
    assert "BLOCK_M: 64" in str(c)
    assert c == triton.Config({"BLOCK_M": 64}, num_warps=8, num_stages=2)


# -- the package and the language namespace ---------------------------------------------------


def test_helpers():
    assert triton.cdiv(10, 4) == 3 and triton.cdiv(8, 4) == 2
    assert [triton.next_power_of_2(n) for n in (0, 1, 2, 3, 1000, 1024)] == \
        [1, 1, 2, 4, 1024, 1024]
    assert isinstance(tilec.__version__, str)


def test_dtypes():
    assert str(tl.float16) == "fp16" and str(tl.bfloat16) == "bf16"
    assert str(tl.int32) == "int32" and str(tl.int1) == "int1"
    assert tl.float16.primitive_bitwidth == 16 and tl.float16.is_floating()
    assert tl.int8.is_int_signed() and tl.uint8.is_int_unsigned()
    assert tl.float32.fp_mantissa_width == 23
    p = tl.pointer_type(tl.float32)
    assert p.is_ptr() and p.element_ty == tl.float32
    assert tl.float16 == tl.dtype("fp16") and tl.float16 != tl.float32


def test_constexpr_wrapper():
    c = tl.constexpr(3)
    assert c.value == 3 and c == 3 and tl.constexpr(c).value == 3


def test_builtins_are_stubs_on_the_host():
    for name in ("load", "store", "program_id", "arange", "dot", "exp", "sum"):
        assert callable(getattr(tl, name)), name
    with pytest.raises(RuntimeError, match="can only be called inside a @jit function"):
        tl.load(None)
    assert callable(tl.math.exp)


def test_testing_helpers():
    ms = triton.testing.do_bench(lambda: sum(range(100)), warmup=1, rep=5)
    assert ms > 0
    triton.testing.assert_close(np.ones(3), np.ones(3) + 1e-4)
    with pytest.raises(AssertionError):
        triton.testing.assert_close(np.ones(3), np.zeros(3))


from tilec.language import arange as tl_arange, load as tl_load  # noqa: E402
from tilec.language.math import exp as math_exp  # noqa: E402


@triton.jit
def uses_imported_builtins(X, Y, BLOCK: tl.constexpr):
    offs = tl_arange(0, BLOCK)
    tl.store(Y + offs, math_exp(tl_load(X + offs)))


def test_builtins_imported_by_name():
    x = np.linspace(-1, 1, 16).astype(np.float32)
    y = np.zeros_like(x)
    uses_imported_builtins[(1,)](x, y, BLOCK=16)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)


def test_interpreter_releases_the_gil(monkeypatch):
    import threading

    monkeypatch.setenv("TILEC_NUM_THREADS", "1")
    n = 1 << 22
    x = np.ones(n, np.float32)
    y = np.zeros(n, np.float32)
    grid = (triton.cdiv(n, 1024),)
    add_one[grid](x, y, n, BLOCK=1024)  # compile first: only the run is observed
    started, done = threading.Event(), threading.Event()

    def launch():
        started.set()
        add_one[grid](x, y, n, BLOCK=1024)
        done.set()

    t = threading.Thread(target=launch)
    t.start()
    started.wait()
    count = 0
    while not done.is_set():
        count += 1
        if count % 1000 == 0:
            time.sleep(0)  # let the launcher take the GIL back
    t.join()
    # A run that held the GIL would let this loop reach only its first sleep (1000).
    assert count > 10000, count
    np.testing.assert_array_equal(y, 2)


def test_autotune_skips_configs_that_do_not_fit():
    timed = []

    def bench(fn, warmup, rep, quantiles):
        if timed[-1] == 64:
            raise tilec.OutOfResources("shared memory", "shared", 1 << 20, 1 << 16)
        fn()
        return [1.0, 1.0, 1.0]

    @triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 16})],
                     key=[], do_bench=bench)
    @triton.jit
    def k(X, BLOCK: tl.constexpr):
        pass

    bench_config = k._bench

    def record(args, kwargs, nargs, config, grid):
        timed.append(config.kwargs["BLOCK"])
        return bench_config(args, kwargs, nargs, config, grid)

    k._bench = record
    k[(1,)](np.zeros(4, np.float32))
    assert timed == [64, 16] and k.best_config.kwargs == {"BLOCK": 16}


def test_perf_report(capsys, tmp_path):
    @triton.testing.perf_report(triton.testing.Benchmark(
        x_names=["size"], x_vals=[16, 32], line_arg="provider", line_vals=["a", "b"],
        line_names=["A", "B"], plot_name="demo", args={"scale": 2}))
    def bench(size, provider, scale):
        return float(size * scale + (provider == "b"))

    bench.run(print_data=True, save_path=str(tmp_path))
    out = capsys.readouterr().out
    assert "demo:" in out and "65" in out
    assert (tmp_path / "demo.csv").read_text().splitlines()[1] == "16,32.0,33.0"


def test_constexpr_listed_in_do_not_specialize_is_refused():
    # Triton's rule and wording, at compile time (the decorator itself accepts it)
    @tilec.jit(do_not_specialize=["N"])
    def k(X, N: tl.constexpr):
        tl.store(X, N)

    with pytest.raises(tilec.CompilationError,
                       match="N marked as constexpr and listed in do_not_specialize"):
        k[(1,)](np.zeros(1, np.int32), 5)
