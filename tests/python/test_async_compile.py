"""triton.AsyncCompileMode / FutureKernel (Triton 3.6): compiles handed to an executor once
per specialisation, launches waiting for their own kernel, the block's end filing every
kernel into the JIT's caches or raising the first compile error (unless ignore_errors);
on the CPU and, marked, on the GPU."""

from concurrent.futures import Executor, Future, ThreadPoolExecutor

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from gpu_util import HAVE_GPU, torch


class QueuePool(Executor):
    """Runs submitted work only when asked (run_one / run_all; shutdown runs the rest)."""

    def __init__(self):
        self.queue = []

    def submit(self, fn, *args, **kwargs):
        future = Future()

        def task():
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except Exception as e:
                    future.set_exception(e)
        self.queue.append(task)
        return future

    def run_one(self):
        self.queue.pop(0)()

    def shutdown(self, wait=True, *, cancel_futures=False):
        while self.queue:
            self.run_one()


def make_kernel():
    @triton.jit
    def kernel(Y, a: tl.constexpr):
        tl.store(Y, a)
    return kernel


def test_compiles_wait_on_the_executor_once_per_specialisation():
    kernel = make_kernel()
    a, b = np.zeros((16, 16), np.float32), np.zeros((16, 16), np.int32)
    with QueuePool() as pool, triton.AsyncCompileMode(pool):
        assert triton.runtime._async_compile.active_mode.get() is not None
        futures = [kernel.warmup(x, v, grid=(1,)) for x in (a, b) for v in (0, 1)]
        assert all(isinstance(f, triton.FutureKernel) for f in futures)
        assert len(kernel.device_caches["cpu"][0]) == 0 and len(pool.queue) == 4
        assert kernel.warmup(a, 0, grid=(1,)) is futures[0]  # asked again: the same one
        assert len(pool.queue) == 4
        pool.run_one()
        kernel[(1,)](a, 0)  # waits for its own kernel, files it, launches it
        assert len(kernel.device_caches["cpu"][0]) == 1 and a[0, 0] == 0.0
        assert futures[0].result() is kernel.device_caches["cpu"][0][next(
            iter(kernel.device_caches["cpu"][0]))]
        pool.shutdown()  # the rest of the queue: the block's end waits for every compile
    assert len(kernel.device_caches["cpu"][0]) == 4  # and files them
    assert triton.runtime._async_compile.active_mode.get() is None


def test_threads_compile_and_launches_run():
    kernel = make_kernel()
    b = np.zeros((16, 16), np.int32)
    with ThreadPoolExecutor(2) as pool, triton.AsyncCompileMode(pool):
        for v in range(4):
            kernel.warmup(b, v, grid=(1,))
        for v in (2, 0, 3, 1, 7):  # 7 was never warmed up: compiled on the executor too
            kernel[(1,)](b, v)
            assert b[0, 0] == v
    assert len(kernel.device_caches["cpu"][0]) == 5


def test_compile_errors_surface_at_the_end_unless_ignored():
    @triton.jit
    def fn(x: tl.constexpr):
        tl.static_assert(x == 2)

    with pytest.raises(triton.compiler.errors.CompileTimeAssertionFailure):
        with ThreadPoolExecutor(2) as pool, triton.AsyncCompileMode(pool):
            fn.warmup(1, grid=(1,))
    assert triton.runtime._async_compile.active_mode.get() is None
    with ThreadPoolExecutor(2) as pool, triton.AsyncCompileMode(pool, ignore_errors=True):
        pending = fn.warmup(1, grid=(1,))
        fn.warmup(2, grid=(1,))
    assert pending.result(ignore_errors=True) is None
    assert len(fn.device_caches["cpu"][0]) == 1  # the good one


def test_one_mode_at_a_time():
    with ThreadPoolExecutor(1) as pool, triton.AsyncCompileMode(pool):
        with pytest.raises(RuntimeError, match="Another AsyncCompileMode is already active"):
            with triton.AsyncCompileMode(pool):
                pass


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a GPU and torch")
def test_on_the_gpu():
    kernel = make_kernel()
    a = torch.empty((16, 16), device="cuda")
    b = torch.empty((16, 16), dtype=torch.int32, device="cuda")
    with ThreadPoolExecutor(2) as pool, triton.AsyncCompileMode(pool):
        for x in (a, b):
            for v in (0, 1):
                kernel.warmup(x, v, grid=(1,))
        device = torch.cuda.current_device()
        assert len(kernel.device_caches[device][0]) == 0
        kernel[(1,)](b, 1)
        assert b[0, 0] == 1
        kernel[(1,)](a, 2)
        assert a[0, 0] == 2
    assert len(kernel.device_caches[device][0]) == 5
