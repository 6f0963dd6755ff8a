"""triton.language.extra.cuda: globaltimer (nanoseconds), smid, num_threads / num_warps
(constexprs of the launch's num_warps), and grid dependency control (gdc_wait,
gdc_launch_dependents) with the launch keywords `launch_pdl` and `launch_cooperative_grid`.
The same tests run on the tile interpreter, the SIMT simulator (test_simt_lang.py) and a GPU
(test_gpu_lang_suites.py): the CPU back ends read the host's clock and call every program's
SM 0; grid dependency control is a no-op where launches run one after another."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.language.extra.cuda import gdc_launch_dependents, gdc_wait


@triton.jit
def k_timer(T, X, Y, N: tl.constexpr):
    t0 = tl.extra.cuda.globaltimer()
    off = tl.arange(0, N)
    x = tl.load(X + off)
    for _ in range(64):
        x = x * 1.0001 + 0.5
    tl.store(Y + off, x)
    t1 = tl.extra.cuda.globaltimer()
    tl.store(T + tl.program_id(0) * 2, t0)
    tl.store(T + tl.program_id(0) * 2 + 1, t1)


def test_globaltimer_counts_nanoseconds_forward():
    t = np.zeros(8, np.int64)
    x = np.ones(64, np.float32)
    y = np.zeros(64, np.float32)
    k_timer[(4,)](t, x, y, N=64)
    t0, t1 = t[0::2], t[1::2]
    assert (t0 > 0).all() and (t1 >= t0).all()
    assert (t1 - t0 < 10**10).all()  # well under 10 s: nanoseconds, not a garbage value
    ref = np.ones(64, np.float32)
    for _ in range(64):
        ref = ref * np.float32(1.0001) + np.float32(0.5)
    np.testing.assert_allclose(y, ref, rtol=1e-5)


@triton.jit
def k_smid(S, N: tl.constexpr):
    tl.store(S + tl.program_id(0), tl.extra.cuda.smid())


def test_smid_is_a_small_sm_index():
    s = np.full(64, -1, np.int32)
    k_smid[(64,)](s, N=1)
    assert s.dtype == np.int32 and (s >= 0).all() and (s < 1024).all()


@triton.jit
def k_threads(Out, N: tl.constexpr):
    tl.static_assert(tl.extra.cuda.num_threads() == 32 * tl.extra.cuda.num_warps())
    off = tl.arange(0, tl.extra.cuda.num_threads())  # a constexpr: usable as a shape
    tl.store(Out + off, off * 0 + tl.extra.cuda.num_warps())


@pytest.mark.parametrize("num_warps", [1, 2, 4, 8])
def test_num_threads_and_warps_are_the_launch_constexprs(num_warps):
    out = np.zeros(32 * num_warps, np.int32)
    k_threads[(1,)](out, N=1, num_warps=num_warps)
    np.testing.assert_array_equal(out, np.full_like(out, num_warps))


@triton.jit
def k_gdc(X, Y, N: tl.constexpr):
    gdc_wait()  # the previous kernel's writes to X are visible after this
    off = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(X + off)
    tl.extra.cuda.gdc_launch_dependents()
    tl.store(Y + off, x * 2.0)


@triton.jit
def k_gdc_producer(X, N: tl.constexpr):
    off = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(X + off, off.to(tl.float32))
    gdc_launch_dependents()


@pytest.mark.parametrize("pdl", [False, True])
def test_gdc_orders_dependent_launches(pdl):
    n, block = 4096, 256
    x = np.zeros(n, np.float32)
    y = np.zeros(n, np.float32)
    k_gdc_producer[(n // block,)](x, N=block, launch_pdl=pdl)
    k_gdc[(n // block,)](x, y, N=block, launch_pdl=pdl)
    np.testing.assert_array_equal(x, np.arange(n, dtype=np.float32))
    np.testing.assert_array_equal(y, 2 * np.arange(n, dtype=np.float32))


@triton.jit
def k_grid_sum(X, Total, N: tl.constexpr):
    off = tl.program_id(0) * N + tl.arange(0, N)
    tl.atomic_add(Total, tl.sum(tl.load(X + off), axis=0))


def test_cooperative_launch_runs_every_program():
    x = np.arange(8 * 128, dtype=np.int32)
    total = np.zeros(1, np.int32)
    k_grid_sum[(8,)](x, total, N=128, launch_cooperative_grid=True)
    assert total[0] == x.sum()


def test_launch_attributes_must_be_bools():
    x = np.zeros(256, np.float32)
    with pytest.raises(TypeError, match="launch_pdl must be a bool"):
        k_gdc_producer[(1,)](x, N=256, launch_pdl="yes")


@triton.jit
def k_missing(X):
    tl.store(X, tl.extra.cuda.no_such_function())


def test_unknown_cuda_function_is_a_compile_error():
    with pytest.raises(triton.CompilationError,
                       match="'tilec.language.extra.cuda' has no attribute 'no_such_function'"):
        k_missing[(1,)](np.zeros(1, np.int32))


def test_the_stubs_say_they_run_in_kernels():
    with pytest.raises(RuntimeError, match=r"tl.extra.cuda.gdc_wait can only be called inside"):
        gdc_wait()
    import tilec.language.extra.cuda as cuda
    # Triton 3.6's __all__ of triton.language.extra.cuda, every name
    assert {"globaltimer", "smid", "num_threads", "num_warps", "gdc_wait",
            "gdc_launch_dependents", "libdevice", "convert_custom_float8_sm70",
            "convert_custom_float8_sm80"} <= set(cuda.__all__)
